"""The grid ensemble: members z-scored on their own training claims, averaged, as JSON."""
from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.importance.combiner import Combiner
from offline_eval.importance.ensemble import EnsembleCombiner, fit_ensemble, load_combiner
from offline_eval.importance.selection import FitConfig, Labelled, fit

GRID = (FitConfig("two-logistic", 0.01, 0.0), FitConfig("ordinal", 0.03, 0.0),
        FitConfig("two-logistic", 0.03, 4.0))


def _data(n_queries: int, seed: int) -> Labelled:
    rng = np.random.default_rng(seed)
    feats, levels, groups = [], [], []
    for q in range(n_queries):
        x = rng.normal(size=(int(rng.integers(4, 10)), 3))
        feats.append(x)
        levels.append(np.digitize(x[:, 0] + 0.5 * rng.normal(size=len(x)), [0.3, 1.0]))
        groups.append(seed * 1000 + q)
    return Labelled(tuple(feats), tuple(levels), tuple(groups))


def test_score_is_the_mean_of_z_scored_members():
    data, weak = _data(10, 0), _data(6, 1)
    rows = list(range(8))
    ens = fit_ensemble(data, rows, weak, names=("a", "b", "c"), grid=GRID)
    assert len(ens.members) == 3 and ens.features == ("a", "b", "c")
    x = data.features[9]
    expected = np.zeros(len(x))
    for cfg in GRID:
        member = fit(cfg, data, rows, weak, ("a", "b", "c"))
        seen = [data.features[i] for i in rows] + (list(weak.features) if cfg.weak_weight else [])
        s = np.concatenate([member.score(f) for f in seen])  # the claims it was fitted on
        expected += (member.score(x) - s.mean()) / s.std()
    assert np.allclose(ens.score(x), expected / 3)
    # the signal is in the first feature, so the ensemble ranks by it
    assert np.corrcoef(ens.score(x), x[:, 0])[0, 1] > 0.8


def test_json_round_trip_and_loader(tmp_path):
    data = _data(8, 2)
    ens = fit_ensemble(data, range(8), grid=GRID, meta={"note": "x"})
    ens.save(tmp_path / "e.json")
    back = load_combiner(tmp_path / "e.json")
    assert isinstance(back, EnsembleCombiner)
    x = np.random.default_rng(3).normal(size=(7, 3))
    assert np.array_equal(back.score(x), ens.score(x))  # bit-identical, so labels too
    assert back.meta["note"] == "x" and len(back.meta["grid"]) == 3
    ens.members[0].save(tmp_path / "c.json")
    assert isinstance(load_combiner(tmp_path / "c.json"), Combiner)


def _member(features=("a",)):
    k = len(features)
    return Combiner(tuple(features), np.zeros(k), np.ones(k), np.ones(k))


@pytest.mark.parametrize("build,match", [
    (lambda: EnsembleCombiner((), np.zeros(0), np.zeros(0)), "at least one"),
    (lambda: EnsembleCombiner((_member(), _member(("b",))), np.zeros(2), np.ones(2)),
     "different features"),
    (lambda: EnsembleCombiner((_member(),), np.zeros(2), np.ones(2)), "centres and spreads"),
    (lambda: EnsembleCombiner((_member(),), np.zeros(1), np.zeros(1)), "positive"),
])
def test_bad_ensembles_are_model_errors(build, match):
    with pytest.raises(ModelError, match=match):
        build()


def test_bad_ensemble_json(tmp_path):
    data = EnsembleCombiner((_member(),), np.zeros(1), np.ones(1)).to_json()
    del data["members"]
    (tmp_path / "e.json").write_text(json.dumps(data))
    with pytest.raises(ModelError, match="bad ensemble JSON"):
        load_combiner(tmp_path / "e.json")
    with pytest.raises(ModelError, match="no combiner"):
        load_combiner(tmp_path / "missing.json")
