"""Name substitution: a claim that says X where the evidence, word for word around it, says Y.

NLI models and an overlap-leaning combiner barely notice one swapped name: "The buffalo is
native to Asia, where ..." against "The buffalo is native to Africa, where ..." shares every
word but one. This check is narrow on purpose. It fires only when a capitalised name of the
claim appears nowhere in the passage *and* the passage has a different capitalised name in
the same slot: the same two words before it and the same word after it (or the claim's
sentence ends there in both). Aliases that keep their context ("the US" for "the United
States") would fire too; they are rare in that exact frame, and the verdict keeps its
evidence so a reader can see why.

Regex-based and deterministic (no spaCy), like :mod:`offline_eval.text`.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from offline_eval.text import STOPWORDS

__all__ = ["Substitution", "find_substitution"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d[\d,.]*|[^\sA-Za-z\d]")
_END = frozenset({".", "!", "?"})
_CONNECT = frozenset({"of", "the", "de", "la", "von", "van", "and", "del", "du", "der"})


class Substitution(NamedTuple):
    """The claim's ``claim_name`` stands where the passage has ``passage_name``."""

    claim_name: str
    passage_name: str


def _is_cap(tok: str) -> bool:
    return tok[:1].isupper() and tok.lower() not in STOPWORDS


def _names(toks: list[str]) -> list[tuple[int, int]]:
    """Spans of capitalised names, allowing inner connectives ("Bank of England")."""
    spans, i = [], 0
    while i < len(toks):
        if _is_cap(toks[i]):
            j = i + 1
            while j < len(toks) and (_is_cap(toks[j]) or (toks[j].lower() in _CONNECT and j + 1 < len(toks)
                                                            and _is_cap(toks[j + 1]))):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def find_substitution(claim: str, passage: str, context: int = 2, title: str | None = None,
                      anchored_only: bool = False) -> Substitution | None:
    """The first name of ``claim`` that ``passage`` replaces in the same frame, or None.

    With ``title`` (the name of what the passage is about, e.g. a Wikipedia article's
    title), a passage about another name of the claim may differ after the slot: "Hamlet
    was written by Christopher Marlowe." against the article *Hamlet*'s "a tragedy written
    by William Shakespeare sometime between 1599 and 1601" is a substitution; the left
    frame must still match and hold a content word. Without a matching title, the word
    after the slot must match too, unless the claim's sentence ends with the name and the
    passage names another name of the claim ("Marie Curie was born in Paris." against "Marie
    Curie was born in Warsaw in 1867"). ``anchored_only`` checks only names the title anchors.

    >>> find_substitution("The buffalo is native to Asia, where it is common.",
    ...                   "The buffalo is native to Sub-Saharan Africa, where it roams.")
    Substitution(claim_name='Asia', passage_name='Sub-Saharan Africa')
    >>> find_substitution("The buffalo is native to Africa, where it is common.",
    ...                   "The buffalo is native to Africa, where it roams.") is None
    True
    >>> find_substitution("It was built by Ada Smith in Leeds.", "It was built in Leeds.") is None
    True
    >>> find_substitution("Italy was allied with Austria Hungary in the war.",
    ...                   "Italy was allied with Germany and Austria-Hungary in the war.") is None
    True
    >>> find_substitution("Marie Curie was born in Paris.", "Marie Curie was born in Warsaw in 1867.")
    Substitution(claim_name='Paris', passage_name='Warsaw')
    >>> find_substitution("Hamlet was written by Christopher Marlowe.",
    ...                   "Hamlet is a tragedy written by William Shakespeare in 1600.",
    ...                   title="Hamlet")
    Substitution(claim_name='Christopher Marlowe', passage_name='William Shakespeare')
    >>> find_substitution("Hamlet was written by Christopher Marlowe.",
    ...                   "Macbeth is a tragedy written by William Shakespeare in 1600.") is None
    True
    """
    ct, pt = _WORD.findall(claim), _WORD.findall(passage)
    plow = [t.lower() for t in pt]
    # a hyphenated word is present as its parts too, and a hyphenated claim word when its
    # parts are: "Austria Hungary" is not missing from "Austria-Hungary", nor the reverse
    present = set(plow) | {part for t in plow if "-" in t for part in t.split("-") if part}

    def missing(tok: str) -> bool:
        t = tok.lower()
        return t not in present and not ("-" in t and all(p in present for p in t.split("-") if p))
    pspans = {s: e for s, e in _names(pt)}
    names = _names(ct)
    about = (title or "").strip().lower()
    for s, e in names:
        if s < context or any(not missing(t) for t in ct[s:e] if t.lower() not in _CONNECT):
            continue  # sentence-initial (no left frame), or part of the name is in the passage
        left = [t.lower() for t in ct[s - context:s]]
        right = ct[e].lower() if e < len(ct) else None
        # the passage is about another name of the claim: the slot's right edge may differ
        # the passage names another name of the claim (it is about the claim's subject)
        shares = any(all(not missing(t) for t in ct[a:b] if t.lower() not in _CONNECT)
                     for a, b in names if (a, b) != (s, e))
        anchored = bool(about) and any(" ".join(ct[a:b]).lower() == about
                                       for a, b in names if (a, b) != (s, e))
        if anchored and not any(w not in STOPWORDS and w.isalpha() for w in left):
            anchored = False
        if anchored_only and not anchored:
            continue
        if not anchored and not any(w not in STOPWORDS and w.isalpha() for w in left + [right or ""]):
            continue  # a frame of function words and punctuation alone is too weak
        for ps, pe in pspans.items():
            if ps < context or plow[ps - context:ps] != left:
                continue
            ends = right in _END and shares  # the claim ends after the name: any right edge
            if not anchored and right is not None and not ends and (pe >= len(pt) or plow[pe] != right):
                continue
            return Substitution(" ".join(ct[s:e]), " ".join(pt[ps:pe]))
    return None
