"""Agreement between two labelings of ordered levels: Cohen's weighted kappa.

>>> weighted_kappa([0, 1, 2, 2], [0, 1, 2, 2])
1.0
>>> round(weighted_kappa([0, 1, 2, 2], [0, 2, 1, 2]), 3)
0.429
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def weighted_kappa(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
                   k: int = 3) -> float:
    """Cohen's kappa with linear weights over the levels ``0..k-1``.

    ``1 - sum(w * observed) / sum(w * expected)`` with ``w = |i - j| / (k - 1)``;
    NaN when the expected disagreement is 0 (both sides use one level only).
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape != b.shape:
        raise ValueError(f"label arrays differ in shape: {a.shape} vs {b.shape}")
    if len(a) == 0:
        return float("nan")
    obs = np.zeros((k, k))
    np.add.at(obs, (a, b), 1.0)
    obs /= obs.sum()
    exp = np.outer(obs.sum(1), obs.sum(0))
    w = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    denom = float((w * exp).sum())
    return float(1.0 - (w * obs).sum() / denom) if denom > 0 else float("nan")
