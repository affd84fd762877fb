"""Same-type value swaps for synthetic ``wrong`` answers: numbers, years, ordinals, names.

Every function takes a seeded :class:`random.Random`, so a swap is reproducible. Numbers
move beyond twice the audit's widest relative tolerance (money 10%), years move by 3-12
years, and a name is replaced by another name of the same spaCy type from a pool.

>>> import random
>>> shift_number("8,849 metres", random.Random(0))
'15,043 metres'
>>> shift_number("in 1994", random.Random(0))
'in 2003'
>>> shift_number("the third largest", random.Random(1))
'the second largest'
>>> shift_number("no number here", random.Random(0)) is None
True
>>> pick_same_type("Paris", ["Paris", "Lyon", "Paris, Texas", "New York"], random.Random(0))
'Lyon'
>>> pick_same_type("Lake Baikal", ["Lake Victoria", "Chad", "Lake Baikal"], random.Random(0))
'Lake Victoria'
"""
from __future__ import annotations

import math
import random
import re
from typing import Iterable, NamedTuple

__all__ = ["NUMERIC_LABELS", "NAME_LABELS", "Swap", "number_swap", "shift_number", "pick_same_type"]

#: spaCy entity labels whose value is a number or a date (swapped by :func:`shift_number`).
NUMERIC_LABELS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME", "ORDINAL"})
#: spaCy entity labels swapped for another name of the same label (:func:`pick_same_type`).
NAME_LABELS = frozenset({"PERSON", "GPE", "LOC", "ORG", "NORP", "FAC", "EVENT", "WORK_OF_ART",
                         "PRODUCT", "LANGUAGE"})

WORD_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve")
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                 "ninth", "tenth")
_DIGITS = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(st|nd|rd|th)?(?![\w])")
_WORDS = re.compile(r"\b(" + "|".join(WORD_NUMBERS + ORDINAL_WORDS) + r")\b", re.IGNORECASE)
_FACTORS = (0.4, 0.5, 0.6, 0.7, 1.4, 1.5, 1.7, 2.0)  # >= 30% off: beyond 2x a 10% tolerance


def _suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _step(n: int, rng: random.Random, lowest: int) -> int:
    """Another small count: 1-3 steps up or down, never below ``lowest``."""
    options = [n + d for d in (-3, -2, -1, 1, 2, 3) if n + d >= lowest]
    return rng.choice(options)


def _is_year(m: re.Match[str]) -> bool:
    whole = m.group(1)
    return not m.group(2) and not m.group(3) and len(whole) == 4 and 1000 <= int(whole) <= 2100


def _shift_digits(m: re.Match[str], rng: random.Random, years: bool, cap: float | None = None) -> str:
    whole, frac, ordinal = m.group(1), m.group(2) or "", m.group(3)
    value = int(whole.replace(",", ""))
    if ordinal:
        new = _step(value, rng, 1)
        return f"{new}{_suffix(new)}"
    if years and _is_year(m):
        return str(value + rng.choice((-1, 1)) * rng.randint(3, 12))
    if not frac and value < 10:  # small counts and days: a step, never zero
        return str(_step(value, rng, 1))
    number = float(whole.replace(",", "") + frac)
    factors = [f for f in _FACTORS if cap is None or number * f <= cap] or [min(_FACTORS)]
    new_value = number * rng.choice(factors)  # a share stays at or under 100%
    if not frac:
        shifted = int(round(new_value))
        if abs(shifted - value) < max(1.0, 0.3 * value):
            shifted = value + max(1, math.ceil(0.3 * value))
        text = f"{shifted:,}" if "," in whole else str(shifted)
    else:
        text = f"{new_value:,.{len(frac) - 1}f}" if "," in whole else f"{new_value:.{len(frac) - 1}f}"
    return text


def _shift_word(m: re.Match[str], rng: random.Random) -> str:
    word = m.group(1)
    low = word.lower()
    if low in WORD_NUMBERS:  # keep plurals plural: "four seas" never becomes "one seas"
        k = WORD_NUMBERS.index(low)
        new = WORD_NUMBERS[min(_step(k, rng, 2 if k > 1 else 1), len(WORD_NUMBERS) - 1)]
    else:
        new = ORDINAL_WORDS[min(_step(ORDINAL_WORDS.index(low), rng, 0), len(ORDINAL_WORDS) - 1)]
    if new == low:  # clipped at the top of the list: step down instead
        pool = WORD_NUMBERS if low in WORD_NUMBERS else ORDINAL_WORDS
        new = pool[pool.index(low) - 2]
    return new.capitalize() if word[0].isupper() else new


class Swap(NamedTuple):
    """``text[start:end]`` becomes ``replacement``."""

    start: int
    end: int
    replacement: str


def number_swap(text: str, rng: random.Random, label: str | None = None) -> Swap | None:
    """Where and how :func:`shift_number` changes ``text``; None when it holds no number."""
    years = label not in ("CARDINAL", "QUANTITY", "MONEY", "PERCENT")
    share = label == "PERCENT" or "%" in text or "percent" in text.lower()
    found = list(_DIGITS.finditer(text))
    dated = [x for x in found if _is_year(x)] if label == "DATE" else []
    m = dated[0] if dated else (found[0] if found else None)
    w = _WORDS.search(text)
    if m is not None and (w is None or m.start() <= w.start() or dated):
        return Swap(m.start(), m.end(), _shift_digits(m, rng, years, 100.0 if share else None))
    if w is not None:
        return Swap(w.start(), w.end(), _shift_word(w, rng))
    return None


def shift_number(text: str, rng: random.Random, label: str | None = None) -> str | None:
    """``text`` with its first number (digits, a year, an ordinal, or a number word up to
    twelve) replaced by a clearly different value; None when it holds no number.

    ``label`` is the span's spaCy entity label: in a ``DATE`` the year is the one
    changed; in a ``CARDINAL``, ``QUANTITY``, ``MONEY`` or ``PERCENT`` a four-digit number
    is a number, not a year (1500 metres must move by more than the tolerance)."""
    sw = number_swap(text, rng, label)
    return None if sw is None else text[:sw.start] + sw.replacement + text[sw.end:]


_STOP = frozenset({"the", "and", "for", "von", "van", "der", "del", "des"})


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _STOP]


def pick_same_type(original: str, pool: Iterable[str], rng: random.Random,
                   avoid: Iterable[str] = ()) -> str | None:
    """Another name from ``pool`` for ``original``, or None when there is none.

    A candidate may share at most half of ``original``'s words ("Paris, Texas" never
    replaces "Paris") and must not occur in ``avoid`` (e.g. the query and the response, so
    the text cannot confirm the swap). The most alike candidates are preferred: the same
    number of words, then sharing a word ("Lake Baikal" -> "Lake Victoria"), drawn at
    random within the best tier.
    """
    own = _words(original)
    avoid_text = " ".join(avoid).lower()
    tiers: dict[tuple[bool, bool], set[str]] = {}
    for p in pool:
        words = _words(p)
        shared = len(set(words) & set(own))
        if not words or 2 * shared > len(own) or p.lower() in avoid_text:
            continue
        tiers.setdefault((len(words) == len(own), shared > 0), set()).add(p)
    if not tiers:
        return None
    return rng.choice(sorted(tiers[max(tiers)]))
