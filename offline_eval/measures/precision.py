"""Claim-level precision metrics.

Sources: FActScore (Min et al., 2023) for precision and the γ length penalty;
VITAL ("All claims are equal, but some claims are more equal than others") for the
per-importance precisions and the weighted precision.
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

from offline_eval.measures._util import decided, ratio
from offline_eval.types import MetricValue

DEFAULT_WEIGHTS: Mapping[str, float] = {"vital": 1.0, "okay": 0.6, "less-important": 0.4}


def length_penalty(n_claims: int, gamma: int | None) -> float:
    """FActScore's penalty ``exp(1 - γ/n)`` when ``n < γ``, else 1.

    >>> round(length_penalty(5, 10), 6)
    0.367879
    >>> length_penalty(12, 10), length_penalty(3, None)
    (1.0, 1.0)
    """
    if gamma is None or n_claims >= gamma:
        return 1.0
    if n_claims <= 0:
        return 0.0
    return math.exp(1.0 - gamma / n_claims)


def factscore_precision(judgments: Sequence[bool | None], gamma: int | None = None) -> MetricValue:
    """FActScore precision: ``supported / decided`` claims, times the γ penalty.

    ``n`` in the penalty is the number of decided claims.

    >>> factscore_precision([True, True, False, None]).value
    0.6666666666666666
    >>> factscore_precision([]).reason
    'no decided claims'
    """
    d = decided(judgments)
    value = ratio(sum(d), len(d), "no decided claims")
    if value.value is None:
        return value
    return MetricValue(value.value * length_penalty(len(d), gamma))


def label_precision(judgments: Sequence[bool | None], labels: Sequence[str | None],
                    label: str) -> MetricValue:
    """Supported fraction of the decided claims carrying ``label``.

    VITAL precision is ``label_precision(j, labels, "vital")``.

    >>> label_precision([True, False, True], ["vital", "vital", "okay"], "vital").value
    0.5
    """
    sel = [j for j, lab in zip(judgments, labels, strict=True) if lab == label]
    d = decided(sel)
    return ratio(sum(d), len(d), f"no decided {label} claims")


def weighted_precision(judgments: Sequence[bool | None], labels: Sequence[str | None],
                       weights: Mapping[str, float] = DEFAULT_WEIGHTS) -> MetricValue:
    """``Σ w(label)·supported / Σ w(label)`` over decided claims with a known label.

    >>> weighted_precision([True, False], ["vital", "less-important"]).value
    0.7142857142857143
    """
    num = den = 0.0
    for j, lab in zip(judgments, labels, strict=True):
        if j is None or lab not in weights:
            continue
        den += weights[lab]
        num += weights[lab] * bool(j)
    return ratio(num, den, "no decided claims with an importance label")


def cumulative_precision(judgments: Sequence[bool | None]) -> list[float | None]:
    """Precision of the first k claims, for k = 1..n (undecided claims skipped in the
    counts; the curve carries the last value forward, None before the first decided).

    >>> cumulative_precision([True, False, None, True])
    [1.0, 0.5, 0.5, 0.6666666666666666]
    """
    out: list[float | None] = []
    sup = dec = 0
    for j in judgments:
        if j is not None:
            dec += 1
            sup += bool(j)
        out.append(sup / dec if dec else None)
    return out
