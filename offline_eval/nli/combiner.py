"""The calibrated combiner: logistic regression over NLI scores and evidence features.

Coefficients are stored as JSON (never pickle) next to the model, in
``verifier.json`` under ``"combiner"``. Features (in this order):

* ``ent_full``: best P(entailment) of the whole claim over evidence windows;
* ``ent_split``: the weakest clause's best P(entailment) (claim splitting: a claim is
  supported only if every clause is);
* ``con_max``: best P(contradiction) of the claim or any clause;
* ``cov_content``, ``cov_entity``, ``cov_number``: coverage of the claim's content
  words, capitalised names and numbers/dates by the best coverage window (the
  ``coverage_windows`` best runs of ``coverage_sentences`` evidence sentences, or the
  windows the model reads when that is 0; see :class:`~offline_eval.nli.config.VerifyConfig`);
* ``cov_all``: content-word coverage by those windows together; ``claim_len``: content
  words / 20.

Features are standardised with the stored mean/scale before the dot product.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

FEATURE_NAMES: tuple[str, ...] = ("ent_full", "ent_split", "con_max", "cov_content", "cov_entity",
                                   "cov_number", "cov_all", "claim_len")


@dataclass(frozen=True)
class Combiner:
    """P(supported) = sigmoid(bias + sum_i coef_i * (x_i - mean_i) / scale_i).

    >>> c = Combiner(("a",), (2.0,), 0.0, (0.5,), (1.0,))
    >>> round(c.predict_one({"a": 0.5}), 3)
    0.5
    """

    features: tuple[str, ...]
    coef: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """P(supported) for rows of ``x`` (columns in :attr:`features` order)."""
        z = (np.asarray(x, dtype=np.float64) - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.array(self.coef) + self.bias)))

    def predict_one(self, feats: Mapping[str, float]) -> float:
        return float(self.predict(np.array([[feats[f] for f in self.features]]))[0])

    def to_json(self) -> dict[str, Any]:
        return {"features": list(self.features), "coef": list(self.coef), "bias": self.bias,
                "mean": list(self.mean), "scale": list(self.scale), "meta": dict(self.meta)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Combiner":
        return cls(tuple(d["features"]), tuple(map(float, d["coef"])), float(d["bias"]),
                   tuple(map(float, d["mean"])), tuple(map(float, d["scale"])), dict(d.get("meta", {})))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0,
                 features: Sequence[str] = FEATURE_NAMES, balanced: bool = True,
                 weights: np.ndarray | None = None) -> Combiner:
    """Fit an L2-regularised logistic regression (Newton steps; numpy only).

    ``weights`` (one per row) replace the class balancing: e.g. rows of several sets, each
    set weighing the same with its classes balanced.

    >>> x = np.array([[0.0], [0.2], [0.8], [1.0]]); y = np.array([0, 0, 1, 1])
    >>> c = fit_logistic(x, y, features=("a",))
    >>> bool(c.predict_one({"a": 0.9}) > 0.5 > c.predict_one({"a": 0.1}))
    True
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    pos = max(y.mean(), 1e-9)
    w_row = (np.asarray(weights, dtype=np.float64) if weights is not None else
             np.where(y > 0.5, 0.5 / pos, 0.5 / max(1 - pos, 1e-9)) if balanced else np.ones(len(y)))
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (w_row * (p - y)) + reg * w
        hess = (z * (w_row * p * (1 - p))[:, None]).T @ z + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return Combiner(tuple(features), tuple(float(v) for v in w[:-1]), float(w[-1]),
                    tuple(float(v) for v in mean), tuple(float(v) for v in scale))


def balanced_accuracy(y: Sequence[int], pred: Sequence[int]) -> float:
    """Mean of the per-class recalls (binary).

    >>> balanced_accuracy([1, 1, 0, 0], [1, 0, 0, 0])
    0.75
    """
    y_a, p_a = np.asarray(y), np.asarray(pred)
    recalls = [float((p_a[y_a == c] == c).mean()) for c in (0, 1) if (y_a == c).any()]
    return sum(recalls) / len(recalls) if recalls else math.nan


def best_threshold(scores: Sequence[float], y: Sequence[int]) -> float:
    """The threshold (midpoint between sorted scores) maximising balanced accuracy.

    >>> best_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
    0.5
    """
    s = np.asarray(scores, dtype=np.float64)
    u = np.unique(s)
    cands = np.concatenate([[u[0] - 1e-6], (u[:-1] + u[1:]) / 2, [u[-1] + 1e-6]])
    accs = [balanced_accuracy(y, (s >= t).astype(int)) for t in cands]
    return float(cands[int(np.argmax(accs))])


GRID = tuple(round(0.05 * i, 2) for i in range(6, 20))  # 0.30 .. 0.95


def grid_threshold(scores: Sequence[float], y: Sequence[int], grid: Sequence[float] = GRID) -> float:
    """The grid value maximising balanced accuracy of ``scores >= t``; ties go to the
    higher value (the rarer, more conservative verdict).

    >>> grid_threshold([0.2, 0.5, 0.7, 0.9], [0, 0, 1, 1])
    0.7
    """
    accs = [balanced_accuracy(y, (np.asarray(scores) >= t).astype(int)) for t in grid]
    best = max(accs)
    return float(max(t for t, a in zip(grid, accs) if a >= best - 1e-12))


def precise_threshold(scores: Sequence[float], y: Sequence[int], precision: float = 0.9,
                      grid: Sequence[float] = GRID) -> float:
    """The lowest grid value at and above which ``scores`` pick class 1 with at least
    ``precision`` (the highest grid value when none does).

    >>> precise_threshold([0.3, 0.6, 0.8, 0.95], [0, 0, 1, 1], precision=0.9)
    0.65
    """
    s, y_a = np.asarray(scores, dtype=np.float64), np.asarray(y)
    for t in grid:
        picked = s >= t
        if picked.any() and y_a[picked].mean() >= precision:
            return float(t)
    return float(grid[-1])
