from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.importance.features import FEATURES
from offline_eval.importance.proportions import (GRID, OKAY_MAX, VITAL_MAX, VITAL_MIN,
                                                 ProportionEnsemble, ProportionModel,
                                                 column_names, fit_proportion_ensemble,
                                                 fit_proportions, response_columns)
from offline_eval.importance.ranker import COMBINER_FILE, ImportanceRanker

from .test_ranker import CLAIMS, QUERY, type_match_combiner


def _responses(seed: int = 0, n: int = 60):
    """Responses whose vital share rises with the max of feature ``a`` (``b`` is noise)."""
    rng = np.random.default_rng(seed)
    feats, levels = [], []
    for _ in range(n):
        size = int(rng.integers(6, 30))
        share = rng.uniform(0.05, 0.5)
        x = rng.normal(size=(size, 2))
        x[0, 0] = 4.0 * share  # the max of column a carries the share
        x[:, 0] = np.minimum(x[:, 0], 4.0 * share)
        n_vital = max(1, round(share * size))
        lv = np.array([2] * n_vital + [1] * ((size - n_vital) // 3)
                      + [0] * (size - n_vital - (size - n_vital) // 3))
        feats.append(x)
        levels.append(lv)
    return feats, levels


def test_columns_are_counts_and_aggregates():
    x = np.array([[1.0, 5.0], [3.0, 7.0]])
    assert column_names(("a", "b")) == ("log_n", "n", "a:max", "a:mean", "b:max", "b:mean")
    assert np.allclose(response_columns(x), [np.log(2), 2 / 30, 3.0, 2.0, 7.0, 6.0])
    assert np.allclose(response_columns(np.zeros((0, 2))), 0.0)


def test_fit_follows_the_signal_and_respects_the_clips():
    feats, levels = _responses()
    m = fit_proportions(feats, levels, ("a", "b"), k=1, alpha=1.0)
    assert m.vital[m.columns.index("a:max")] > 0 and m.vital[m.columns.index("b:mean")] == 0
    low, high = np.zeros((12, 2)), np.zeros((12, 2))
    low[0, 0], high[0, 0] = 0.2, 1.8
    v_low, v_high = m.predict(low)[0], m.predict(high)[0]
    assert v_high > v_low + 0.15
    for x in (low, high, np.full((12, 2), 50.0), np.full((12, 2), -50.0)):
        v, o, rest = m.predict(x)
        assert VITAL_MIN <= v <= VITAL_MAX and v + o <= OKAY_MAX + 1e-12
        assert o >= 0 and abs(v + o + rest - 1.0) < 1e-12


def test_ensemble_is_the_mean_of_its_members_and_round_trips():
    feats, levels = _responses(1)
    ens = fit_proportion_ensemble(feats, levels, ("a", "b"))
    assert len(ens.members) == len(GRID)
    x = feats[3]
    assert np.allclose(ens.predict(x), np.mean([m.predict(x) for m in ens.members], axis=0))
    back = ProportionEnsemble.from_json(json.loads(json.dumps(ens.to_json())), ("a", "b"))
    assert back.predict(x) == ens.predict(x)
    with pytest.raises(ModelError, match="columns do not match"):
        ProportionEnsemble.from_json(ens.to_json(), ("a", "c"))
    with pytest.raises(ModelError, match="expected kind"):
        ProportionEnsemble.from_json({"kind": "other"}, ("a", "b"))


def test_ridge_matches_scikit_learn():
    sklearn = pytest.importorskip("sklearn.linear_model")
    from offline_eval.importance.proportions import _ridge
    rng = np.random.default_rng(3)
    z, w = rng.normal(size=(40, 3)), rng.uniform(1, 30, size=40)
    y = z @ [0.3, -0.2, 0.0] + rng.normal(scale=0.1, size=40)
    b, c = _ridge(z, y, w, 5.0)
    ref = sklearn.Ridge(alpha=5.0).fit(z, y, sample_weight=w)
    assert np.allclose(b, ref.coef_, atol=1e-8) and abs(c - ref.intercept_) < 1e-8


def test_clip_bounds_in_the_json_must_be_this_code_s():
    feats, levels = _responses(2)
    data = fit_proportions(feats, levels, ("a", "b")).to_json()
    data["clip"]["okay_plus_max"] = 0.5
    with pytest.raises(ModelError, match="clip bounds"):
        ProportionModel.from_json(data, ("a", "b"))


def test_a_bad_proportion_block_names_the_file(tmp_path):
    payload = {**type_match_combiner().to_json(), "proportion_model": {"kind": "other"}}
    (tmp_path / COMBINER_FILE).write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(ModelError, match=r"combiner\.json: bad proportion model JSON"):
        ImportanceRanker(tmp_path, embedder=object(), nlp=object())


def test_no_response_with_claims_is_an_error():
    with pytest.raises(ValueError, match="no response"):
        fit_proportions([np.zeros((0, 1))], [np.zeros(0)], ("a",))


def test_ranker_cuts_at_the_predicted_proportions(nlp, embedder, tmp_path):
    cols = column_names(FEATURES)
    fixed = ProportionModel(cols, np.zeros(len(cols)), np.ones(len(cols)), np.zeros(len(cols)),
                            0.45, np.zeros(len(cols)), 0.9)  # 45% vital, 90% vital or okay
    ranker = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp,
                              proportions=ProportionEnsemble((fixed,)))
    labels = ranker.rank(QUERY, CLAIMS).labels
    assert labels.count("vital") == round(0.45 * len(CLAIMS))
    assert labels.count("less-important") == len(CLAIMS) - round(0.9 * len(CLAIMS))
    plain = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp)
    assert plain.rank(QUERY, CLAIMS).labels.count("vital") == 1
    # and read from combiner.json's proportion_model block
    payload = {**type_match_combiner().to_json(),
               "proportion_model": ProportionEnsemble((fixed,)).to_json()}
    (tmp_path / COMBINER_FILE).write_text(json.dumps(payload), encoding="utf-8")
    loaded = ImportanceRanker(tmp_path, embedder=embedder, nlp=nlp)
    assert loaded.rank(QUERY, CLAIMS).labels == labels
    # the rank CLI reports the shares it cut at
    from offline_eval.commands.rank import rank_rows, read
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"id": "r", "query": QUERY, "claims": [
        {"id": str(i), "text": c} for i, c in enumerate(CLAIMS)]}) + "\n", encoding="utf-8")
    (out,) = rank_rows(read(str(rows)), loaded)
    assert out["proportions"] == {"vital": 0.45, "okay": 0.45, "less-important": 0.1}
    assert [c["importance"] for c in out["claims"]] == list(labels)
