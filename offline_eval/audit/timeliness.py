"""Timeliness after the correctness guideline: is a claim stale at the response date?

Rules (documented, deliberately simple; each returns a reason):

1. **Future about the past.** A claim in the future tense ("will", "is set to",
   "is scheduled to", "upcoming") whose time reference has come by the response date — a
   season such as ``2024-25`` ending in or before the response year, or a plain year
   before it: the prediction should by then be a fact, so the claim is *not timely*. Example: "The show will air through the
   2024-25 season" asked in March 2025.
2. **Dated present.** "currently", "as of YEAR", "the latest", "this year", "now" with an
   explicit year earlier than the response date's year: *not timely*.
3. Otherwise *timely*. With no response date the result is *undated*: relevant but possibly
   outdated claims are fact-checked as usual.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_FUTURE = re.compile(r"\b(will|won't|is set to|are set to|is scheduled to|are scheduled to|"
                     r"upcoming|is expected to|are expected to)\b", re.I)
_PRESENT_CUES = re.compile(r"\b(currently|as of|the latest|this year|now|at present|"
                           r"to date|so far)\b", re.I)
_SEASON = re.compile(r"\b((?:19|20)\d{2})\s*[-–/]\s*((?:19|20)?\d{2})\b")
_YEAR = re.compile(r"\b((?:19|20)\d{2})\b")
_DATE_YEAR = re.compile(r"^\s*((?:19|20)\d{2})")


@dataclass(frozen=True)
class Timeliness:
    """``timely`` | ``not_timely`` | ``undated``, with the reason."""

    label: str
    reason: str | None = None


def response_year(date: str | None) -> int | None:
    """The year of an ISO-like date string.

    >>> response_year("2025-03-14"), response_year(None), response_year("March")
    (2025, None, None)
    """
    if not date:
        return None
    m = _DATE_YEAR.match(date)
    return int(m.group(1)) if m else None


def _seasons_and_years(text: str) -> tuple[list[int], list[int]]:
    """End years of seasons ("2024-25" -> 2025) and the plain years elsewhere."""
    seasons = []
    for m in _SEASON.finditer(text):
        end = m.group(2)
        seasons.append(int(end) if len(end) == 4 else int(m.group(1)[:2] + end))
    return seasons, [int(y) for y in _YEAR.findall(_SEASON.sub(" ", text))]


def claim_timeliness(claim: str, date: str | None) -> Timeliness:
    """Apply the rules to one claim.

    >>> claim_timeliness("The show will air through the 2024-25 season.", "2025-03-01").label
    'not_timely'
    >>> claim_timeliness("As of 2021, the city has 2 million people.", "2025-01-01").label
    'not_timely'
    >>> claim_timeliness("The bridge opened in 1937.", "2025-01-01").label
    'timely'
    >>> claim_timeliness("The show will air in 2024.", None).label
    'undated'
    >>> claim_timeliness("The show will return in 2025.", "2025-01-10").label
    'timely'
    """
    year = response_year(date)
    if year is None:
        return Timeliness("undated")
    seasons, plain = _seasons_and_years(claim)
    if not seasons and not plain:
        return Timeliness("timely")
    years = seasons + plain
    # a season ending in the response year is under way or over; a plain year must be past
    stale = [y for y in seasons if y <= year] + [y for y in plain if y < year]
    if _FUTURE.search(claim) and stale and max(years) <= year:
        return Timeliness("not_timely", f"future tense about {max(stale)}, which has come by "
                                        f"the response date {date}")
    if _PRESENT_CUES.search(claim) and max(years) < year:
        return Timeliness("not_timely", f"presents {max(years)} as current at {date}")
    return Timeliness("timely")
