"""Fitting the combiner: two L2-regularised logistic regressions (``>= okay`` and
``vital``) over within-response standardised features; the score is the sum of
their linear predictors, so the combiner stays one linear function stored as JSON.

numpy/scipy only, so training needs no extra dependency.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = [rng.normal(size=(6, 2)) for _ in range(20)]
>>> y = [(xi[:, 0] > 0.5).astype(int) + (xi[:, 0] > 1.2) for xi in x]
>>> c = fit_combiner(x, y, ("a", "b"), c=1.0)
>>> bool(c.weights[0] > abs(c.weights[1]))
True
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from offline_eval.importance.combiner import HUMAN_PROPORTIONS, Combiner, within_response


def logistic_weights(x: np.ndarray, y: np.ndarray, c: float,
                     sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Minimise ``c * sum(sample_weight * logloss) + ||w||^2 / 2`` (sklearn's
    convention); returns ``(weights, intercept)``."""
    from scipy.optimize import minimize
    from scipy.special import expit
    n, k = x.shape
    sign = 2.0 * y - 1.0
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:k], theta[k]
        z = sign * (x @ w + b)
        value = c * (sw * np.logaddexp(0.0, -z)).sum() + 0.5 * w @ w
        g = -c * sw * sign * expit(-z)
        return value, np.concatenate([x.T @ g + w, [g.sum()]])

    res = minimize(loss, np.zeros(k + 1), jac=True, method="L-BFGS-B")
    return res.x[:k], float(res.x[k])


def fit_combiner(features: Sequence[np.ndarray], levels: Sequence[Sequence[int]],
                 names: Sequence[str], *, c: float = 0.01,
                 proportions: Sequence[float] = HUMAN_PROPORTIONS,
                 meta: dict[str, Any] | None = None,
                 weights: Sequence[float] | None = None) -> Combiner:
    """Fit on per-response feature matrices and levels (2 vital, 1 okay, 0 less);
    ``weights`` gives each response's claims a sample weight (default 1)."""
    x = np.vstack([within_response(f) for f in features])
    y = np.concatenate([np.asarray(v, dtype=np.int64) for v in levels])
    if len(x) != len(y):
        raise ValueError("features and levels differ in length")
    sw = None if weights is None else np.concatenate(
        [np.full(len(f), float(wt)) for f, wt in zip(features, weights, strict=True)])
    w = np.zeros(x.shape[1])
    intercept = 0.0
    for threshold in (1, 2):
        wt, bt = logistic_weights(x, (y >= threshold).astype(np.float64), c, sw)
        w, intercept = w + wt, intercept + bt
    k = len(names)
    return Combiner(tuple(names), np.zeros(k), np.ones(k), w, intercept,
                    (float(proportions[0]), float(proportions[1]), float(proportions[2])),
                    {**(meta or {}), "c": c}, normalise="within-response")
