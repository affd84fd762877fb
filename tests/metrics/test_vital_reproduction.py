"""`offline-eval metrics` reproduces the VITAL authors' stored scores on the shared NQ files.

Derivable keys must match to 1e-9 on every record. The recall keys need nugget
importances and assignments that the files do not carry: they must come out null with
a reason, and the stored F1 must equal our F1 helper applied to our precision and the
stored recall (which checks everything we can about those keys).
"""
from __future__ import annotations

import json

import pytest

from offline_eval.api import evaluate_judged
from offline_eval.measures.vital_compat import VITAL_SCORE_KEYS

CONDITIONS = ("normal", "missing", "wrong")
RECALL_KEYS = {"weighted-recall", "weighted-f1", "linear-decay-recall", "linear-decay-f1",
               "linear-decay-recall-topk", "linear-decay-f1-topk"}


def _f1(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0


@pytest.mark.parametrize("condition", CONDITIONS)
def test_stored_scores_reproduced(shared_data, condition):
    path = shared_data / "vitalerrors-nq" / f"{condition}.jsonl"
    stored = [json.loads(line)["scores"] for line in path.open()]
    rows = list(evaluate_judged(path))
    assert len(rows) == len(stored) == 35
    for row, want in zip(rows, stored):
        got = row["scores"]
        assert list(got) == list(VITAL_SCORE_KEYS) and set(want) == set(VITAL_SCORE_KEYS)
        for key in VITAL_SCORE_KEYS:
            if key in RECALL_KEYS:
                assert got[key] is None and "N2S" in row["scores_unavailable"][key]
            else:
                assert got[key] == pytest.approx(want[key], abs=1e-9), (row["id"], key)
        assert _f1(got["weighted-precision"], want["weighted-recall"]) == pytest.approx(
            want["weighted-f1"], abs=1e-9)
        assert _f1(got["linear-decay-precision"], want["linear-decay-recall"]) == pytest.approx(
            want["linear-decay-f1"], abs=1e-9)
        assert _f1(got["linear-decay-precision-topk"], want["linear-decay-recall-topk"]) == \
            pytest.approx(want["linear-decay-f1-topk"], abs=1e-9)


def test_recall_keys_computed_when_nuggets_are_given(tmp_path):
    # 5 vital nuggets (2 supported) and 3 okay (1 supported): (2 + 0.6) / (5 + 1.8) = 13/34.
    nuggets = ([{"id": f"N{i}", "importance": "vital", "support": "support" if i < 2 else "not_support"}
                for i in range(5)] +
               [{"id": f"N{i}", "importance": "okay", "support": "support" if i == 5 else "not_support"}
                for i in range(5, 8)])
    row = {"query": "q", "response": {"id": "x", "text": "t"},
           "decomposition": [{"sentence": "t", "decomp": [
               {"id": "S1", "text": "a", "judgment": True, "importance": "vital"}]}],
           "subclaim-importance-order": ["S1"]}
    p = tmp_path / "v.jsonl"
    p.write_text(json.dumps(row) + "\n")
    # the VITAL format carries no nuggets; feed them through the native format instead
    native = {"id": "x", "query": "q", "claims": [{"id": "S1", "text": "a", "judgment": True,
                                                   "importance": "vital"}], "nuggets": nuggets}
    p2 = tmp_path / "n.jsonl"
    p2.write_text(json.dumps(native) + "\n")
    out = list(evaluate_judged(p2))[0]["metrics"]
    assert out["weighted_recall"] == pytest.approx(13 / 34)
    assert out["vital_recall"] == pytest.approx(2 / 5)
    assert out["vital_rlr"] == 1.0
    assert list(evaluate_judged(p))[0]["scores"]["vital-precision"] == 1.0
