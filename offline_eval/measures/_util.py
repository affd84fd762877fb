"""Small helpers shared by the pure metric functions and their streaming twins."""
from __future__ import annotations

from typing import Iterable, Sequence

from offline_eval.types import MetricValue

Judgment = "bool | None"


def ratio(num: float, den: float, reason: str) -> MetricValue:
    """``num / den`` as a MetricValue, or None with ``reason`` when ``den == 0``.

    >>> ratio(1, 4, "empty").value
    0.25
    >>> ratio(0, 0, "no decided claims")
    MetricValue(value=None, reason='no decided claims')
    """
    if den <= 0:
        return MetricValue(None, reason)
    return MetricValue(num / den)


def harmonic(p: MetricValue, r: MetricValue) -> MetricValue:
    """F1 of two metric values; None when either is undefined, 0 when both are 0.

    >>> harmonic(MetricValue(1.0), MetricValue(0.5)).value
    0.6666666666666666
    """
    if p.value is None or r.value is None:
        return MetricValue(None, p.reason or r.reason)
    if p.value + r.value <= 0:
        return MetricValue(0.0)
    return MetricValue(2 * p.value * r.value / (p.value + r.value))


def decided(judgments: Iterable[bool | None]) -> list[bool]:
    """The judgments that are not None."""
    return [bool(j) for j in judgments if j is not None]


def as_unsupported(judgments: Sequence[bool | None]) -> list[bool]:
    """Count undecided (None) as unsupported, the VITAL authors' convention."""
    return [bool(j) for j in judgments]
