"""Fitting the combiner over within-response standardised features, as one linear
function stored as JSON. Two models:

- ``"two-logistic"``: two L2-regularised logistic regressions (``>= okay`` and
  ``vital``); the score is the sum of their linear predictors.
- ``"ordinal"``: one L2-regularised cumulative-logit (proportional odds) regression,
  ``P(level >= k) = sigmoid(x @ w + theta_k)``; the score is ``x @ w``.

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


def ordinal_weights(x: np.ndarray, y: np.ndarray, c: float,
                    sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ``c * sum(sample_weight * nll) + ||w||^2 / 2`` of a cumulative-logit model
    over levels 0, 1, 2; returns ``(weights, (theta_1, theta_2))`` with theta_1 > theta_2."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit
    n, k = x.shape
    y = np.asarray(y, dtype=np.int64)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    is0, is1, is2 = (y == 0), (y == 1), (y == 2)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, t1, gap = theta[:k], theta[k], np.exp(theta[k + 1])
        z = x @ w
        a1, a2 = z + t1, z + t1 - gap
        s1, s2 = expit(a1), expit(a2)
        # P(1) = s1 - s2 = s1 * (1 - s2) * (1 - exp(-gap)) (stable when s1 and s2 are close)
        log_p1 = log_expit(a1) + log_expit(-a2) + np.log(-np.expm1(-gap))
        nll = np.where(is0, -log_expit(-a1), np.where(is2, -log_expit(a2), -log_p1))
        # d nll / d a1, d nll / d a2, and level 1's own d nll / d gap
        g1 = np.where(is0, s1, np.where(is1, s1 - 1.0, 0.0))
        g2 = np.where(is2, s2 - 1.0, np.where(is1, s2, 0.0))
        g_gap = np.where(is1, np.exp(-gap) / np.expm1(-gap), 0.0)
        g1, g2 = c * sw * g1, c * sw * g2
        gz = g1 + g2
        grad = np.concatenate([x.T @ gz + w, [gz.sum()],
                               [-gap * g2.sum() + gap * c * (sw * g_gap).sum()]])
        return c * float((sw * nll).sum()) + 0.5 * w @ w, grad

    res = minimize(loss, np.zeros(k + 2), jac=True, method="L-BFGS-B")
    t1 = float(res.x[k])
    return res.x[:k], np.array([t1, t1 - float(np.exp(res.x[k + 1]))])


MODELS = ("two-logistic", "ordinal")


def fit_combiner(features: Sequence[np.ndarray], levels: Sequence[Sequence[int]],
                 names: Sequence[str], *, c: float = 0.01,
                 proportions: Sequence[float] = HUMAN_PROPORTIONS,
                 meta: dict[str, Any] | None = None,
                 weights: Sequence[float] | None = None,
                 model: str = "two-logistic") -> Combiner:
    """Fit on per-response feature matrices and levels (2 vital, 1 okay, 0 less);
    ``weights`` gives each response's claims a sample weight (default 1); ``model`` is
    one of :data:`MODELS`."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; valid: {', '.join(MODELS)}")
    x = np.vstack([within_response(f) for f in features])
    y = np.concatenate([np.asarray(v, dtype=np.int64) for v in levels])
    if len(x) != len(y):
        raise ValueError("features and levels differ in length")
    sw = None if weights is None else np.concatenate(
        [np.full(len(f), float(wt)) for f, wt in zip(features, weights, strict=True)])
    w = np.zeros(x.shape[1])
    intercept = 0.0
    if model == "ordinal":
        w, thetas = ordinal_weights(x, y, c, sw)
        intercept = float(thetas.sum())  # comparable to the sum of two logistic intercepts
    else:
        for threshold in (1, 2):
            wt, bt = logistic_weights(x, (y >= threshold).astype(np.float64), c, sw)
            w, intercept = w + wt, intercept + bt
    k = len(names)
    return Combiner(tuple(names), np.zeros(k), np.ones(k), w, intercept,
                    (float(proportions[0]), float(proportions[1]), float(proportions[2])),
                    {**(meta or {}), "c": c, "model": model}, normalise="within-response")
