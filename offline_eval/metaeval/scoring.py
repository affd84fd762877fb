"""Detection scores for the meta-evaluation: balanced accuracy, AUROC, F1 (numpy only).

Labels are booleans (True = the positive class, e.g. "contains an error"); an undefined
score (a class absent) is None, never NaN.

>>> balanced_accuracy([True, True, False, False], [True, False, False, False])
0.75
>>> auroc([True, False, True, False], [0.9, 0.1, 0.4, 0.4])
0.875
>>> round(f1([True, True, False, False], [True, False, True, False]), 3)
0.5
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["balanced_accuracy", "auroc", "f1", "Confusion", "confusion"]


@dataclass(frozen=True)
class Confusion:
    """Counts of a binary prediction against binary labels."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def specificity(self) -> float | None:
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None


def _pair(y_true: Sequence[bool], y_other: Sequence[object]) -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray([bool(v) for v in y_true])
    o = np.asarray(list(y_other))
    if y.shape[0] != o.shape[0]:
        raise ValueError(f"labels and predictions differ in length: {y.shape[0]} vs {o.shape[0]}")
    return y, o


def confusion(y_true: Sequence[bool], y_pred: Sequence[bool]) -> Confusion:
    """The confusion counts of ``y_pred`` against ``y_true``."""
    y, p = _pair(y_true, y_pred)
    p = p.astype(bool)
    return Confusion(int((y & p).sum()), int((~y & p).sum()), int((y & ~p).sum()),
                     int((~y & ~p).sum()))


def balanced_accuracy(y_true: Sequence[bool], y_pred: Sequence[bool]) -> float | None:
    """Mean of the recall of each class present in ``y_true`` (the verifier's
    :func:`~offline_eval.nli.combiner.balanced_accuracy`), None when ``y_true`` is empty."""
    from offline_eval.nli.combiner import balanced_accuracy as _balanced_accuracy

    y, p = _pair(y_true, y_pred)
    value = _balanced_accuracy(y.astype(int), p.astype(bool).astype(int))
    return None if math.isnan(value) else float(value)


def f1(y_true: Sequence[bool], y_pred: Sequence[bool]) -> float | None:
    """F1 of the positive class (None when there are no positives, predicted or true)."""
    c = confusion(y_true, y_pred)
    return 2 * c.tp / (2 * c.tp + c.fp + c.fn) if c.tp + c.fp + c.fn else None


def auroc(y_true: Sequence[bool], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve: P(score of a positive > score of a negative), ties 1/2.
    None when either class is absent."""
    from scipy.stats import rankdata

    y, s = _pair(y_true, scores)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = rankdata(s.astype(float))
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
