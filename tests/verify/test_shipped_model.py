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
    assert probs["entailment"] > max(probs["neutral"], probs["contradiction"])
    assert v.verify("The museum opened in 1990.", ["The museum opened in 1990 in Lyon."]).label == "supported"
    unrelated = v.verify("The museum opened in 1990.", ["Puffins nest on the western cliffs."])
    assert unrelated.label == "unverifiable"


def test_shipped_verdicts_catch_fluent_false_claims():
    """Self-written claims that reuse the evidence's words: the shipped decision pins them."""
    pytest.importorskip("onnxruntime")
    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    v = Verifier(load_runner(SHIPPED, device="cpu"), load_config(SHIPPED))
    cases = [
        ("The museum opened in 1990.", ["The city museum opened in 1990 in Lyon."], "supported"),
        ("Marie Curie was born in Warsaw.",
         ["Marie Curie was a Polish and naturalised-French physicist.", "She was born in Warsaw in 1867."],
         "supported"),
        ("The bridge opened in 1952.", ["The bridge opened in 1932 after four years of work."], "contradicted"),
        ("Marie Curie was born in Paris.",
         ["Marie Curie was a Polish physicist.", "Marie Curie was born in Warsaw in 1867."], "contradicted"),
        ("The lake is frozen all year.", ["The lake never freezes, even in the coldest winters."], "contradicted"),
        # the model contradicts it (0.72) but the passage lacks the claim's only name, so it
        # cannot decide; the model does not entail it either: not supported
        ("The museum opened in 1990 in Paris.", ["The city museum opened in 1990 in Lyon."], "unverifiable"),
    ]
    got = v.judge([(c, e) for c, e, _ in cases])
    assert [j.verdict.label for j in got] == [want for *_, want in cases]
    con = got[2].verdict
    assert con.rule == "nli" and con.probs["contradiction"] > con.probs["entailment"]
    assert con.evidence.text == "The bridge opened in 1932 after four years of work."
