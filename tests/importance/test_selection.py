"""Query-grouped selection of the combiner's configuration, and weighted kappa."""
from __future__ import annotations

import numpy as np
import pytest

from offline_eval.importance.selection import (GRID, FitConfig, Labelled, grouped_folds,
                                               out_of_fold_scores, pooled_kappa, select_config)
from offline_eval.measures.agreement import weighted_kappa


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_kappa_matches_sklearn(seed):
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    b[:120] = a[:120]
    assert weighted_kappa(a, b) == pytest.approx(sk.cohen_kappa_score(a, b, weights="linear"))
    assert np.isnan(weighted_kappa([], []))
    with pytest.raises(ValueError, match="differ in shape"):
        weighted_kappa([0, 1], [0])


def test_grouped_folds_partition_the_groups():
    groups = [3, 3, 3, 7, 7, 9, 11, 11, 12, 40, 41]
    folds = grouped_folds(groups, k=3, seed=5)
    assert sorted(g for f in folds for g in f) == sorted(set(groups))
    assert max(map(len, folds)) - min(map(len, folds)) <= 1


def _data(n_queries=12, seed=0):
    rng = np.random.default_rng(seed)
    feats, levels, groups = [], [], []
    for q in range(n_queries):
        for _ in range(3):
            x = rng.normal(size=(int(rng.integers(5, 12)), 3))
            feats.append(x)
            levels.append(np.digitize(x[:, 0] + 0.5 * rng.normal(size=len(x)), [0.3, 1.0]))
            groups.append(q)
    return Labelled(tuple(feats), tuple(levels), tuple(groups))


def test_out_of_fold_scores_never_use_the_scored_query(monkeypatch):
    import offline_eval.importance.selection as sel
    data = _data()
    seen = []
    real_fit = sel.fit

    def spy(config, d, rows, weak=None, names=()):
        seen.append({d.groups[i] for i in rows})
        return real_fit(config, d, rows, weak, names)

    monkeypatch.setattr(sel, "fit", spy)
    scores = out_of_fold_scores(FitConfig(), data, k=4, seed=0)
    assert len(seen) == 4 and all(len(s) == len(f) for s, f in zip(scores, data.features))
    folds = grouped_folds(data.groups, 4, 0)
    for trained_on, test in zip(seen, folds):
        assert not trained_on & test and trained_on | test == set(data.groups)


def test_select_config_returns_the_best_of_the_grid():
    data = _data(seed=1)
    grid = (FitConfig("two-logistic", 0.01, 0.0), FitConfig("ordinal", 0.03, 0.0))
    best, table = select_config(data, grid=grid, k=3)
    assert set(table) == set(grid) and table[best] == max(table.values())
    assert table[best] == pytest.approx(
        pooled_kappa(data, out_of_fold_scores(best, data, k=3, seed=0)))
    assert table[best] > 0.3  # the signal is in the first feature
    assert len(GRID) == 18 and len(set(GRID)) == 18
