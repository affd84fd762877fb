"""The numpy/scipy logistic fit against scikit-learn's as the reference."""
from __future__ import annotations

import numpy as np
import pytest

from offline_eval.importance.combiner import within_response
from offline_eval.importance.fit import fit_combiner, logistic_weights, ordinal_weights


@pytest.mark.parametrize("c", [0.01, 1.0])
def test_logistic_weights_match_sklearn(c):
    sk = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, 4))
    y = (x @ [1.0, -2.0, 0.0, 0.5] + rng.normal(size=300) > 0).astype(float)
    w, b = logistic_weights(x, y, c)
    ref = sk.LogisticRegression(C=c, tol=1e-10, max_iter=10000).fit(x, y)
    assert np.allclose(w, ref.coef_[0], atol=1e-3) and abs(b - ref.intercept_[0]) < 1e-3


def test_fit_combiner_sums_two_thresholds_over_within_response_features():
    rng = np.random.default_rng(2)
    feats = [rng.normal(size=(int(rng.integers(3, 9)), 3)) for _ in range(40)]
    levels = [np.digitize(f[:, 0] - f[:, 1], [0.0, 1.0]) for f in feats]
    comb = fit_combiner(feats, levels, ("a", "b", "c"), c=1.0)
    assert comb.normalise == "within-response" and comb.meta == {"c": 1.0, "model": "two-logistic"}
    x = np.vstack([within_response(f) for f in feats])
    y = np.concatenate(levels)
    w = sum(logistic_weights(x, (y >= t).astype(float), 1.0)[0] for t in (1, 2))
    assert np.allclose(comb.weights, w)
    assert comb.weights[0] > 0 > comb.weights[1]


def test_fit_combiner_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        fit_combiner([np.zeros((3, 2))], [[0, 1]], ("a", "b"))


def test_sample_weights_match_sklearn_and_repeating_rows():
    sk = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 3))
    y = (x[:, 0] + rng.normal(size=200) > 0).astype(float)
    sw = rng.integers(1, 4, size=200).astype(float)
    w, b = logistic_weights(x, y, 0.5, sw)
    ref = sk.LogisticRegression(C=0.5, tol=1e-10, max_iter=10000).fit(x, y, sample_weight=sw)
    assert np.allclose(w, ref.coef_[0], atol=1e-3) and abs(b - ref.intercept_[0]) < 1e-3
    feats = [rng.normal(size=(5, 2)) for _ in range(10)]
    levels = [np.digitize(f[:, 0], [0.0, 1.0]) for f in feats]
    doubled = fit_combiner(feats + feats[:1], levels + levels[:1], ("a", "b"), c=1.0)
    weighted = fit_combiner(feats, levels, ("a", "b"), c=1.0, weights=[2.0] + [1.0] * 9)
    assert np.allclose(doubled.weights, weighted.weights, atol=1e-4)


def _naive_ordinal_objective(x, y, c, w, t1, t2):
    """The cumulative-logit objective written directly from its probabilities."""
    from scipy.special import expit
    p1, p2 = expit(x @ w + t1), expit(x @ w + t2)
    p = np.where(y == 0, 1 - p1, np.where(y == 1, p1 - p2, p2))
    return c * -np.log(p).sum() + 0.5 * w @ w


def test_ordinal_weights_minimise_the_naive_objective():
    from scipy.optimize import minimize
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 3))
    y = np.digitize(x @ [1.5, -1.0, 0.0] + rng.logistic(size=300), [0.0, 1.5])
    w, (t1, t2) = ordinal_weights(x, y, 5.0)
    assert t1 > t2 and w[0] > 0 > w[1]
    ours = _naive_ordinal_objective(x, y, 5.0, w, t1, t2)
    ref = minimize(lambda t: _naive_ordinal_objective(x, y, 5.0, t[:3], t[3], t[4]),
                   np.r_[w, t1, t2] + 0.2, method="Nelder-Mead",
                   options={"maxiter": 20000, "xatol": 1e-9, "fatol": 1e-10})
    assert ours <= ref.fun + 1e-5
    assert np.allclose(ref.x, np.r_[w, t1, t2], atol=1e-3)


def test_fit_combiner_ordinal_and_bad_model():
    rng = np.random.default_rng(5)
    feats = [rng.normal(size=(6, 2)) for _ in range(30)]
    levels = [np.digitize(f[:, 0], [0.0, 1.0]) for f in feats]
    comb = fit_combiner(feats, levels, ("a", "b"), c=1.0, model="ordinal")
    assert comb.meta == {"c": 1.0, "model": "ordinal"} and comb.weights[0] > abs(comb.weights[1])
    with pytest.raises(ValueError, match="unknown model 'gbm'; valid: two-logistic, ordinal"):
        fit_combiner(feats, levels, ("a", "b"), model="gbm")
