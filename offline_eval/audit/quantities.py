"""Flexible judgement of numbers: extract quantities, normalise units, compare with a
relative tolerance or against ranges ("70 to 125 calories").

Default tolerances per quantity type (:data:`TOLERANCE`): a claim value ``v`` matches an
evidence value ``e`` when ``|v - e| <= tol * |e|``; years and dates must match exactly; a
claim value inside an evidence range (or a claim range overlapping it) matches.

Number words from two to ninety-nine ("six states", "three million people") are read as
counts, and ordinals ("21st", "third"; "first" is left out, being mostly idiomatic) as
their own exact type; "19th century" is a ``century``, so it is never compared with the
ordinal of a rank, and the day of a date ("April 9", "9th of April") is a ``day``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

# relative tolerance per type; 0 means exact
TOLERANCE: dict[str, float] = {"money": 0.10, "percent": 0.05, "year": 0.0, "count": 0.05,
                               "length": 0.05, "mass": 0.05, "energy": 0.05, "area": 0.05,
                               "time": 0.05, "temperature": 0.02, "speed": 0.05,
                               "ordinal": 0.0, "century": 0.0, "day": 0.0}

# unit -> (type, factor to the base unit of that type)
UNITS: dict[str, tuple[str, float]] = {
    "km": ("length", 1000.0), "kilometres": ("length", 1000.0), "kilometers": ("length", 1000.0),
    "m": ("length", 1.0), "metres": ("length", 1.0), "meters": ("length", 1.0),
    "metre": ("length", 1.0), "meter": ("length", 1.0), "cm": ("length", 0.01),
    "mi": ("length", 1609.344), "miles": ("length", 1609.344), "mile": ("length", 1609.344),
    "ft": ("length", 0.3048), "feet": ("length", 0.3048), "foot": ("length", 0.3048),
    "kg": ("mass", 1.0), "kilograms": ("mass", 1.0), "g": ("mass", 0.001), "grams": ("mass", 0.001),
    "lb": ("mass", 0.45359237), "lbs": ("mass", 0.45359237), "pounds": ("mass", 0.45359237),
    "tonnes": ("mass", 1000.0), "tons": ("mass", 907.18474),
    "calories": ("energy", 1.0), "kcal": ("energy", 1.0), "cal": ("energy", 1.0),
    "km2": ("area", 1e6), "sq km": ("area", 1e6), "square kilometres": ("area", 1e6),
    "square kilometers": ("area", 1e6), "square miles": ("area", 2.589988e6),
    "hours": ("time", 3600.0), "hour": ("time", 3600.0), "minutes": ("time", 60.0),
    "minute": ("time", 60.0), "seconds": ("time", 1.0), "days": ("time", 86400.0),
    "years old": ("time", 31557600.0), "km/h": ("speed", 1 / 3.6), "mph": ("speed", 0.44704),
}
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3,
          "m": 1e6, "bn": 1e9}
_NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_SCALE_RE = r"(?:\s*(thousand|million|billion|trillion|bn|k)\b)?"
_UNIT_RE = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_CURRENCY = r"([$€£¥])"
_RANGE_SEP = r"\s*(?:-|–|to|and)\s*"
_PATTERN = re.compile(
    rf"(?:between\s+)?{_CURRENCY}?{_NUM}{_SCALE_RE}"
    rf"(?:{_RANGE_SEP}{_CURRENCY}?{_NUM}{_SCALE_RE})?"
    rf"\s*(%|percent\b|°\s?[CF]\b|degrees\s+(?:celsius|fahrenheit)\b|(?:{_UNIT_RE})\b)?",
    re.IGNORECASE)


_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUE = {**{w: i + 1 for i, w in enumerate(_ONES)}, **{w: i + 10 for i, w in enumerate(_TEENS)},
               **{w: 20 + 10 * i for i, w in enumerate(_TENS)}}
#: Number words from two to ninety-nine ("one" is left out: "one of the largest" is not a
#: count); also used by the comprehensiveness answer spans.
NUMBER_WORD = re.compile(
    rf"\b((?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_ONES)}))?|{'|'.join(_TEENS + _ONES[1:])})\b",
    re.IGNORECASE)
_ORDINAL_WORDS = ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                  "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                  "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth")
_WORD_OR_ORDINAL = re.compile(rf"{NUMBER_WORD.pattern}|\b({'|'.join(_ORDINAL_WORDS)})\b", re.IGNORECASE)
_ORDINAL_SUFFIX = re.compile(r"(?:st|nd|rd|th)\b", re.IGNORECASE)
_CENTURY = re.compile(r"[\s-]*century\b", re.IGNORECASE)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_MONTH_BEFORE = re.compile(rf"\b{_MONTH}\s*$", re.IGNORECASE)
_MONTH_AFTER = re.compile(rf"(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.IGNORECASE)


#: a number that is part of a name: glued to letters ("CO2", "MP3", "the N2 road"; not a unit
#: such as "km2"), or after a hyphen behind a word in capitals or with an inner capital
#: ("ICD-9", "COVID-19", "U-30", "MiG-29"; not "Mid-1990s" or "pre-2000"); or an item number
#: of one or two digits at the start of a line ("4. The Album")
_NAMED_NUMBER = re.compile(
    r"(?<=[A-Za-z])\d+|(?<=\b[A-Z])-?\d+|(?<=[A-Z][A-Z])-\d+|(?<=[a-z][A-Z])-\d+"
    r"|(?m:^[ \t]*\d{1,2}(?=[.)]\s))")
_UNIT_GLUED = re.compile(rf"(?:{_UNIT_RE})\d*$", re.IGNORECASE)


def _mask_named_numbers(text: str) -> str:
    """``text`` with the digits of numbers that are parts of names (:data:`_NAMED_NUMBER`)
    written as ``#``, offsets kept.

    >>> _mask_named_numbers("4. ICD-9 and COVID-19 kill 500; CO2 in 100 km2 in the mid-1990s")
    '#. ICD-# and COVID-## kill 500; CO# in 100 km2 in the mid-1990s'
    """
    def mask(m: re.Match[str]) -> str:
        word = re.search(r"[A-Za-z]+$", text[max(0, m.start() - 12):m.start()])
        if m.group(0)[:1].isdigit() and word and _UNIT_GLUED.fullmatch(word.group(0) + m.group(0)):
            return m.group(0)  # "km2" is a unit
        return re.sub(r"\d", "#", m.group(0))
    return _NAMED_NUMBER.sub(mask, text)


def _number_words_to_digits(text: str) -> tuple[str, frozenset[int]]:
    """``text`` with number words and ordinal words written in digits, and the offsets (in
    the new text) where a count written in words now starts.

    >>> _number_words_to_digits("Twenty-one of the six states; the third and first tries")
    ('21 of the 6 states; the 3rd and first tries', frozenset({0, 10}))
    """
    out: list[str] = []
    starts: set[int] = set()
    pos = length = 0
    for m in _WORD_OR_ORDINAL.finditer(text):
        out.append(text[pos:m.start()])
        length += m.start() - pos
        if m.group(1):
            starts.add(length)
            digits = str(sum(_WORD_VALUE[p] for p in re.split(r"[- ]", m.group(1).lower())))
        else:
            n = _ORDINAL_WORDS.index(m.group(2).lower()) + 2
            digits = f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"
        out.append(digits)
        length += len(digits)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), frozenset(starts)


@dataclass(frozen=True)
class Quantity:
    """A value or a range ``[low, high]`` of one type, in that type's base unit. ``noun``:
    for counts and ordinals, the word after the number, singular ("6 states" -> "state"),
    or "" when a function word follows. ``worded``: a count written in words ("six")."""

    kind: str
    low: float
    high: float
    text: str
    noun: str = ""
    worded: bool = False


_FUNCTION_WORDS = frozenset("of in and to the a an or per from than at on by for with as is was "
                            "were are be been who which that".split())
_NEXT_WORD = re.compile(r"[\s-]*([A-Za-z]+)")


def _noun_after(text: str) -> str:
    m = _NEXT_WORD.match(text)
    word = m.group(1).lower() if m else ""
    if word in _FUNCTION_WORDS:
        return ""
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def comparable(a: Quantity, b: Quantity) -> bool:
    """Same type, and for counts and ordinals the same counted noun when both have one:
    "two sons" is never compared with "15 films". A count written in words needs the same
    noun on both sides ("the final three frames" is not held against "a 10-7 lead").

    >>> comparable(*extract_quantities("6 states, six states"))
    True
    >>> comparable(*extract_quantities("two sons and 15 films"))
    False
    >>> comparable(*extract_quantities("four of them, 39 of them"))
    False

    A bare count that reads as a year (or a span of years) is not held against a counted
    one: "27 years in prison" is not "from 1994 to 1999".

    >>> comparable(*extract_quantities("27 years, from 1994 to 1999"))
    False
    """
    if a.kind != b.kind:
        return False
    if (a.worded or b.worded) and not (a.noun and a.noun == b.noun):
        return False  # "four 53cm torpedo tubes" says nothing to hold against a bare "39"
    if a.kind not in ("count", "ordinal") or a.noun == b.noun:
        return True
    if a.noun and b.noun:
        return False
    bare = b if a.noun else a
    return not all(v == int(v) and 1000 <= v <= 2100 for v in (bare.low, bare.high))


def _value(num: str, scale: str | None) -> float:
    return float(num.replace(",", "")) * (_SCALE[scale.lower()] if scale else 1.0)


def extract_quantities(text: str) -> list[Quantity]:
    """Quantities in ``text``.

    >>> [(q.kind, q.low, q.high) for q in extract_quantities("It has 70 to 125 calories.")]
    [('energy', 70.0, 125.0)]
    >>> [(q.kind, q.low) for q in extract_quantities("Founded in 1975, it earned $2.5 billion.")]
    [('year', 1975.0), ('money', 2500000000.0)]
    >>> [(q.kind, q.low) for q in extract_quantities("The third of six states, in the 19th century")]
    [('ordinal', 3.0), ('count', 6.0), ('century', 19.0)]
    >>> [(q.kind, q.low) for q in extract_quantities("On April 9, 2011 and on the 9th of May")]
    [('day', 9.0), ('year', 2011.0), ('day', 9.0)]

    A number that is part of a name, or the number of a list item, is no quantity:

    >>> [(q.kind, q.low) for q in extract_quantities("4. ICD-9 and COVID-19 codes, CO2, in the mid-1990s")]
    [('year', 1990.0)]
    >>> [(q.kind, q.low) for q in extract_quantities("COVID-19 and 500 deaths; Mid-1990s; 1969. A year")]
    [('count', 500.0), ('year', 1990.0), ('year', 1969.0)]
    """
    out: list[Quantity] = []
    text, worded = _number_words_to_digits(text)
    text = _mask_named_numbers(text)  # offsets kept: "ICD-9" reads "ICD-#"
    for m in _PATTERN.finditer(text):
        cur1, n1, s1, cur2, n2, s2, unit = m.groups()
        s1 = s1 or s2 if n2 and not s1 else s1  # "2 to 3 million": scale applies to both
        lo = _value(n1, s1)
        hi = _value(n2, s2) if n2 else lo
        if hi < lo:
            lo, hi = hi, lo
        unit_l = (unit or "").lower().strip()
        tail = text[m.end(2):]  # right after the first number
        if not (cur1 or cur2 or n2 or s1 or unit) and "." not in n1 and float(lo) <= 31 and (
                _MONTH_BEFORE.search(text, max(0, m.start(2) - 24), m.start(2)) or _MONTH_AFTER.match(tail)):
            out.append(Quantity("day", lo, hi, m.group(0).strip()))  # "April 9", "9th of April"
            continue
        if not (cur1 or cur2 or n2 or s1 or unit) and _ORDINAL_SUFFIX.match(tail):
            rest = tail[_ORDINAL_SUFFIX.match(tail).end():]  # type: ignore[union-attr]
            kind = "century" if _CENTURY.match(rest) else "ordinal"
            out.append(Quantity(kind, lo, hi, m.group(0).strip() + tail[:2], _noun_after(rest)))
            continue
        if cur1 or cur2:
            kind, factor = "money", 1.0
        elif unit_l in ("%", "percent"):
            kind, factor = "percent", 1.0
        elif unit_l.startswith("°") or unit_l.startswith("degrees"):
            kind, factor = "temperature", 1.0
            if unit_l.endswith("f") or "fahrenheit" in unit_l:
                lo, hi = (lo - 32) * 5 / 9, (hi - 32) * 5 / 9
        elif unit_l in UNITS:
            kind, factor = UNITS[unit_l]
        elif not n2 and not s1 and re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", n1):
            kind, factor = "year", 1.0
        else:
            kind, factor = "count", 1.0
        noun = _noun_after(text[m.end():]) if kind == "count" else ""
        out.append(Quantity(kind, lo * factor, hi * factor, m.group(0).strip(), noun,
                            kind == "count" and m.start(2) in worded))
    return out


def quantities_match(claim: Quantity, evidence: Quantity, tolerance: float | None = None) -> bool:
    """True when the claim's value or range fits the evidence's, within tolerance.

    >>> c, e = extract_quantities("about 100 calories")[0], extract_quantities("70 to 125 calories")[0]
    >>> quantities_match(c, e)
    True
    >>> quantities_match(extract_quantities("8,849 metres")[0], extract_quantities("8.85 km")[0])
    True
    """
    if not comparable(claim, evidence):
        return False
    tol = TOLERANCE.get(claim.kind, 0.05) if tolerance is None else tolerance
    slack = tol * max(abs(evidence.low), abs(evidence.high))
    return claim.low <= evidence.high + slack and claim.high >= evidence.low - slack


@dataclass(frozen=True)
class NumberCheck:
    """The outcome for one claim against one passage."""

    status: str  # "match" | "mismatch" | "no_claim_numbers" | "no_comparable_numbers"
    detail: str = ""
    claim_value: str = ""  # on a mismatch: the claim's quantity ...
    evidence_values: tuple[str, ...] = ()  # ... and the passage's quantities of its kind


def check_numbers(claim_text: str, evidence_text: str) -> NumberCheck:
    """Compare every claim quantity with the evidence quantities of the same type.

    >>> c = check_numbers("Everest is 7,849 metres tall.", "Everest is 8,849 m high.")
    >>> c.status, c.claim_value, c.evidence_values
    ('mismatch', '7,849 metres', ('8,849 m',))
    """
    cq = extract_quantities(claim_text)
    if not cq:
        return NumberCheck("no_claim_numbers")
    eq = extract_quantities(evidence_text)
    compared = False
    for q in cq:
        same = [e for e in eq if comparable(q, e)]
        if not same:
            continue
        compared = True
        if not any(quantities_match(q, e) for e in same):
            return NumberCheck("mismatch", f"{q.text!r} not within tolerance of "
                                           f"{', '.join(repr(e.text) for e in same)}",
                               q.text, tuple(e.text for e in same))
    return NumberCheck("match") if compared else NumberCheck("no_comparable_numbers")


def number_severity(claim: str, passage: str) -> str:
    """How far the claim's numbers are from the passage's numbers of the same kind:
    ``ok`` (all match within tolerance) | ``near`` (within twice the tolerance) | ``far`` |
    ``none`` (nothing comparable).

    >>> number_severity("The tower is 42 metres tall.", "The tower is 42 metres tall.")
    'ok'
    >>> number_severity("About 18.2 million people live there.", "About 9.1 million people live there.")
    'far'
    >>> number_severity("It opened in 1932.", "A fine bridge.")
    'none'
    """
    check = check_numbers(claim, passage)
    if check.status in ("no_claim_numbers", "no_comparable_numbers"):
        return "none"
    if check.status == "match":
        return "ok"
    return "far" if far_quantity(claim, [passage]) is not None else "near"


def far_quantity(claim: str, passages: Sequence[str],
                 also: Sequence[str] = ()) -> tuple[str, list[str], int] | None:
    """The first claim quantity that is off beyond twice its tolerance from every quantity
    of the same kind (type and unit family, counted noun) in ``passages``, which are read
    one at a time (a value is never compared across passages): ``(claim value, evidence
    values, index of the passage)``, or None. Passages without a comparable quantity are
    skipped; one passage that matches clears the claim's value, and so does a match in
    ``also`` (texts that may clear a value but never count against it).

    >>> far_quantity("Everest is 7,849 metres tall.", ["It is 8,849 m high.", "The Nile."])
    ('7,849 metres', ['8,849 m'], 0)
    >>> far_quantity("Everest is 8,849 metres tall.", ["It is 8,848 m high."]) is None
    True
    """
    found: tuple[str, list[str], int] | None = None
    evs = [extract_quantities(p) for p in passages]
    clearing = [e for p in also for e in extract_quantities(p)]
    for q in extract_quantities(claim):
        tol = 2 * TOLERANCE.get(q.kind, 0.05)
        if any(comparable(q, e) and quantities_match(q, e, tol) for e in clearing):
            continue
        far_at = None
        for i, ev in enumerate(evs):
            same = [e for e in ev if comparable(q, e)]
            if not same:
                continue
            if any(quantities_match(q, e, tol) for e in same):
                far_at = None
                break
            if far_at is None:
                far_at = (q.text, [e.text for e in same], i)
        if far_at is not None and found is None:
            found = far_at
    return found
