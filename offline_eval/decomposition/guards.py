"""Guards on generated claims: parse the output, drop duplicates and repetitions,
cap the count, and keep a claim only when its content words are anchored in the
sentence, its context or the resolved mentions.

>>> parse_output("Paris is in France. | Paris is in France. | - It has 2M people")
['Paris is in France.', 'Paris is in France.', 'It has 2M people']
>>> guard(["Paris is in France.", "Paris is in France.", "Paris has a big moon base."],
...       anchors="Paris lies in France and has two million people.")
(['Paris is in France.'], 2)
"""
from __future__ import annotations

import re
from typing import Sequence

from offline_eval.text import anchor_words

SEPARATOR = " | "
_SPLIT = re.compile(r"\s*(?:\s\|\s|\n|<sep>|</s>)\s*")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_WORD = re.compile(r"[^\W_]+")


def parse_output(text: str) -> list[str]:
    """Split a generated string into claim lines."""
    lines = [_BULLET.sub("", part).strip() for part in _SPLIT.split(text)]
    return [line for line in lines if line]


def _stem(word: str) -> str:
    return word.lower()[:5]


def anchored(claim: str, anchors: str) -> bool:
    """Every content word of ``claim`` occurs (up to a 5-letter stem) in ``anchors``."""
    vocab = {_stem(w) for w in _WORD.findall(anchors)}
    return all(_stem(w) in vocab for w in anchor_words(claim))


def _repeats(claim: str, n: int = 3) -> bool:
    words = claim.lower().split()
    grams = [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    return len(grams) != len(set(grams))


def guard(claims: Sequence[str], anchors: str, max_claims: int = 8) -> tuple[list[str], int]:
    """Return the kept claims and the number rejected."""
    kept: list[str] = []
    seen: set[str] = set()
    rejected = 0
    for claim in claims:
        key = " ".join(_WORD.findall(claim.lower()))
        if not key or key in seen:
            rejected += 1
            continue
        seen.add(key)
        if len(anchor_words(claim)) == 0 or _repeats(claim) or not anchored(claim, anchors):
            rejected += 1
            continue
        kept.append(claim if claim[-1] in ".!?" else claim + ".")
    rejected += max(0, len(kept) - max_claims)
    return kept[:max_claims], rejected
