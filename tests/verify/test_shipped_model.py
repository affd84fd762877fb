"""The shipped model: files match its manifest, labels are 3-way, it runs on its default."""
from __future__ import annotations

import pytest

from offline_eval.modelstore import DEFAULT_NLI, resolve_model, shipped_dir, verify_model

SHIPPED = shipped_dir() / DEFAULT_NLI
pytestmark = pytest.mark.skipif(not (SHIPPED / "manifest.json").is_file(), reason="no shipped model")


def test_shipped_model_matches_its_manifest():
    m = verify_model(SHIPPED)
    assert m["labels"] == ["entailment", "neutral", "contradiction"]
    assert {"MODEL_CARD.md", "verifier.json", "tokenizer.json"} <= set(m["files"])
    assert sum((SHIPPED / f).stat().st_size for f in m["files"]) < 100 * 2**20
    assert resolve_model() == SHIPPED


def test_shipped_model_runs_and_verifies():
    pytest.importorskip("onnxruntime")
    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    runner = load_runner(SHIPPED, device="cpu")
    v = Verifier(runner, load_config(SHIPPED))
    probs = v.classify_pairs([("The museum opened in 1990 in Lyon.", "The museum opened in 1990.")])[0]
    assert abs(sum(probs.values()) - 1) < 1e-6
    verdict = v.verify("The museum opened in 1990.", ["The museum opened in 1990 in Lyon."])
    assert verdict.label in ("supported", "contradicted", "unverifiable", "inconclusive")
