from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.importance.combiner import (HUMAN_PROPORTIONS, Combiner, cut_by_rank,
                                              within_response)


def test_cut_by_rank_follows_the_proportions():
    labels = cut_by_rank(np.arange(20, dtype=float)[::-1])
    assert labels.count("vital") == 3 and labels.count("okay") == 6
    assert labels.count("less-important") == 11
    assert labels[:3] == ("vital",) * 3  # highest scores first


@pytest.mark.parametrize("n", range(1, 12))
def test_cut_by_rank_always_has_one_vital_and_keeps_the_levels_ordered(n):
    scores = np.random.default_rng(n).normal(size=n)
    labels = cut_by_rank(scores)
    assert labels.count("vital") >= 1
    level = {"vital": 2, "okay": 1, "less-important": 0}
    ranked = [level[labels[i]] for i in np.argsort(-scores)]
    assert ranked == sorted(ranked, reverse=True)


def test_cut_by_rank_empty_and_ties():
    assert cut_by_rank([]) == ()
    assert cut_by_rank([1.0, 1.0, 1.0, 1.0]) == ("vital", "okay", "less-important", "less-important")


def test_within_response_is_a_per_column_z_score():
    x = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [5.0, 5.0, 9.0]])
    z = within_response(x)
    assert np.allclose(z.mean(0), 0) and np.allclose(z[:, 1], 0)
    assert np.allclose(z[:, 0], (x[:, 0] - 3) / x[:, 0].std())
    assert within_response(np.zeros((0, 3))).shape == (0, 3)


def _combiner(normalise="none"):
    return Combiner(("a", "b"), np.array([1.0, 0.0]), np.array([2.0, 1.0]),
                    np.array([1.0, -1.0]), 0.5, HUMAN_PROPORTIONS, {"note": "x"}, normalise)


def test_score_matches_the_formula_and_checks_width():
    c = _combiner()
    x = np.array([[3.0, 1.0], [1.0, 2.0]])
    assert np.allclose(c.score(x), 0.5 + ((x - [1, 0]) / [2, 1]) @ [1, -1])
    with pytest.raises(ModelError, match="expects 2 features"):
        c.score(np.zeros((2, 3)))


def test_json_round_trip(tmp_path):
    c = _combiner("within-response")
    c.save(tmp_path / "c.json")
    back = Combiner.load(tmp_path / "c.json")
    x = np.random.default_rng(0).normal(size=(5, 2))
    assert np.allclose(back.score(x), c.score(x))
    assert back.normalise == "within-response" and back.meta == {"note": "x"}


@pytest.mark.parametrize("patch,match", [
    ({"weights": [1.0]}, "array lengths"),
    ({"scale": [0.0, 1.0]}, "positive"),
    ({"normalise": "global"}, "unknown normalise"),
    ({"features": None}, "bad combiner JSON"),
])
def test_bad_json_is_a_model_error(tmp_path, patch, match):
    data = {**_combiner().to_json(), **patch}
    (tmp_path / "c.json").write_text(json.dumps(data))
    with pytest.raises(ModelError, match=match):
        Combiner.load(tmp_path / "c.json")


def test_missing_or_garbled_file(tmp_path):
    with pytest.raises(ModelError, match="no combiner"):
        Combiner.load(tmp_path / "nope.json")
    (tmp_path / "c.json").write_text("{not json")
    with pytest.raises(ModelError, match="bad combiner JSON"):
        Combiner.load(tmp_path / "c.json")
