"""Linear-decay precision and recall (VITAL, Appendix B).

Position ``i`` (1-based) of a list of ``n`` judgments gets weight ``(n - i) / i``;
the score is ``Σ wᵢ·jᵢ / Σ wᵢ``. Precision ranks the claims by importance order,
recall ranks the nuggets in their given order; the top-k variants use the first k.
For ``n == 1`` the single weight is 0, so the score is undefined (None).
"""
from __future__ import annotations

from typing import Sequence

from offline_eval.measures._util import ratio
from offline_eval.types import MetricValue

DEFAULT_TOPK = 5


def linear_decay_weights(n: int) -> list[float]:
    """``[(n - i) / i for i = 1..n]``.

    >>> linear_decay_weights(3)
    [2.0, 0.5, 0.0]
    """
    return [(n - i) / i for i in range(1, n + 1)]


def linear_decay_score(judgments: Sequence[bool], empty_reason: str = "empty list") -> MetricValue:
    """Decay-weighted share of true judgments.

    >>> linear_decay_score([True, False, True]).value
    0.8
    >>> linear_decay_score([]).reason
    'empty list'
    """
    if not judgments:
        return MetricValue(None, empty_reason)
    w = linear_decay_weights(len(judgments))
    return ratio(sum(wi * bool(j) for wi, j in zip(w, judgments)), sum(w),
                 "a single item has zero decay weight")
