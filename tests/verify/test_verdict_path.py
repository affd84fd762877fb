"""One verdict path (CLI, API, the verify stage), contradiction-aware decisions, evidence of
any granularity, and rules in their frame; self-written sentences, stand-in runners."""
from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.cli import main
from offline_eval.nli.combiner import Combiner
from offline_eval.nli.config import VerifyConfig, load_config
from offline_eval.nli.verifier import Verifier
from offline_eval.stages.verify import Verify
from offline_eval.types import Claim, Evidence, Item, ResponseResult


class EntailAll:
    """A stand-in runner that entails every pair: only the rules can then say otherwise."""

    labels = ("entailment", "neutral", "contradiction")

    def predict(self, pairs):
        return np.array([[0.96, 0.02, 0.02]] * len(pairs))


ROWS = [
    {"id": "everest", "claim": "Everest is 7,849 metres tall.",
     "evidence": ["Mount Everest is Earth's highest mountain.", "Everest is 8,849 metres tall."]},
    {"id": "mill", "claim": "The old mill was designed by Tom Hale, who lived in Leeds.",
     "evidence": ["The old mill was designed by Ada Brook, who lived in Leeds."]},
    {"id": "fine", "claim": "The bridge opened in 1932.",
     "evidence": [{"id": "d1", "text": "The bridge opened in 1932.", "title": "Bridge"}]},
    {"id": "empty", "claim": "The bridge opened in 1932.", "evidence": []},
]


def test_cli_and_api_give_the_same_verdicts_rules_included(tiny_model, tmp_path, monkeypatch):
    import offline_eval.runners.load as load

    import offline_eval

    monkeypatch.setattr(load, "load_runner", lambda *a, **k: EntailAll())
    load._shared.cache_clear()  # the shared runner is cached per process: this test's own
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    try:
        assert main(["verify", str(src), "-o", str(out), "--nli-model", str(tiny_model)]) == 0
        rows = list(map(json.loads, out.read_text().splitlines()))
        assert offline_eval.verify(str(src), nli_model=str(tiny_model)) == rows  # the public API
    finally:
        load._shared.cache_clear()  # no stand-in left for later tests
    cli = {r["id"]: r for r in rows}
    api = Verifier(EntailAll(), load_config(tiny_model)).judge([(r["claim"], r["evidence"]) for r in ROWS])
    for row, j in zip(ROWS, api):
        got = cli[row["id"]]
        assert (got["verdict"], got["rule"], got["reason"]) == (j.verdict.label, j.verdict.rule, j.verdict.reason)
        assert got["decisive_evidence"] == (j.verdict.evidence.text if j.verdict.evidence else None)
    assert cli["everest"]["verdict"] == "contradicted" and cli["everest"]["rule"] == "numbers"
    assert "'7,849 metres'" in cli["everest"]["reason"] and "'8,849 metres'" in cli["everest"]["reason"]
    assert cli["mill"]["verdict"] == "contradicted" and cli["mill"]["rule"] == "names"
    assert cli["fine"]["verdict"] == "supported"
    assert cli["fine"]["evidence_source"]["doc_id"] == "d1" and cli["fine"]["evidence_source"]["title"] == "Bridge"
    assert cli["empty"]["verdict"] == "unverifiable" and cli["empty"]["reason"] == "no evidence"
    # the verify stage of `score` reaches claims through the same path
    claims = tuple(Claim(r["id"], r["claim"], evidence=tuple(
        e if isinstance(e, Evidence) else Evidence(str(i), e if isinstance(e, str) else e["text"])
        for i, e in enumerate(r["evidence"]))) for r in ROWS[:2])
    rec = Verify(runner=EntailAll(), config=load_config(tiny_model))([ResponseResult(Item("q", "", ""), claims=claims)])[0]
    assert [(c.verdict.label, c.verdict.rule) for c in rec.claims] == [("contradicted", "numbers"), ("contradicted", "names")]


def test_bad_evidence_objects_name_line_and_field(tiny_model, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "claim": "x", "evidence": ["ok"]}) + "\n" +
                   json.dumps({"id": 2, "claim": "x", "evidence": ["ok", {"id": "a"}]}) + "\n")
    with pytest.raises(Exception) as err:
        from offline_eval.commands.verify import read
        read(str(src))
    assert f"{src}:2" in str(err.value) and "evidence[1].text" in str(err.value)


class ByWords:
    """Contradicts (0.9) when the premise says 'never'; else entails when every word of the
    hypothesis is in the premise."""

    labels = ("entailment", "neutral", "contradiction")

    def predict(self, pairs):
        out = []
        for p, h in pairs:
            pw, hw = set(p.lower().replace(".", " ").split()), set(h.lower().replace(".", " ").split())
            if "never" in pw:
                out.append([0.05, 0.05, 0.9])
            else:
                out.append([0.95, 0.03, 0.02] if hw <= pw else [0.04, 0.94, 0.02])
        return np.array(out)


def test_lines_passages_and_one_document_give_the_same_verdict():
    claim = "Ada Brook was born in Leeds in 1820 and she designed the mill in 1851."
    lines = ["Ada Brook was an English architect.", "She was born in Leeds in 1820.",
             "Ada Brook designed the mill in 1851.", "She died in 1890."]
    v = Verifier(ByWords(), VerifyConfig(split_claims=False))
    as_lines = v.verify(claim, lines)
    as_doc = v.verify(claim, ["\n".join(lines)])
    as_objects = v.verify(claim, [{"id": "ada", "text": t} for t in lines])
    assert as_lines.label == as_doc.label == as_objects.label
    assert as_lines.probs == as_doc.probs
    assert as_objects.evidence.doc_id == "ada"


def test_references_with_two_ids_are_one_context_but_two_retrieved_articles_are_not():
    """Evidence a user gives for a claim is one context, whatever its ids (as a row's RAG
    references are): support spread over two of its documents is support, and the assembled
    window cites both. Passages retrieved from a corpus are never joined across articles."""
    claim = "Ada Brook was born in Leeds in 1820 and she designed the mill in 1851."
    texts = {"a": "Ada Brook was born in Leeds in 1820 and she lived there.",
             "b": "Ada Brook designed the mill in 1851."}
    v = Verifier(ByWords(), VerifyConfig(split_claims=False))
    given = v.verify(claim, [{"id": k, "text": t} for k, t in texts.items()])
    # one context: one passage of both, whose window holding both facts decides and cites both
    assert given.label == "supported" and given.evidence.doc_id == "a+b" and given.evidence.start is None
    # a window that one long object holds alone is cited by it, with offsets into its text
    filler = " ".join(f"Line {i} says nothing." for i in range(80))
    long = {"a": "A short note.", "b": f"{filler} Ada Brook designed the mill in 1851. {filler}"}
    one = v.verify("Ada Brook designed the mill in 1851.", [{"id": k, "text": t, "url": f"u{k}"} for k, t in long.items()])
    assert one.label == "supported" and (one.evidence.doc_id, one.evidence.url) == ("b", "ub")
    assert one.evidence.passage_id == "b"
    assert long["b"][one.evidence.start:one.evidence.end] == one.evidence.text
    retrieved = v.verify(claim, [Evidence(f"{k}#0", t, doc_id=k) for k, t in texts.items()])
    assert retrieved.label == "unverifiable"


def test_a_contradiction_about_the_subject_beats_word_coverage():
    cover = Combiner(("cov_content",), (8.0,), 0.0, (0.5,), (0.2,))  # reads coverage alone
    v = Verifier(ByWords(), VerifyConfig(combiner=cover, split_claims=False, support=0.5, contradict=0.6))
    passage = Evidence("p", "Brask never hosted the games in 1990, the city said.", title="Brask")
    verdict = v.verify("Brask hosted the games in 1990.", [passage])
    assert verdict.label == "contradicted" and verdict.rule == "nli"
    assert verdict.probs["contradiction"] == pytest.approx(0.9)  # the deciding window's probabilities
    # a passage about something else that "contradicts" cannot decide
    other = Evidence("q", "Lyon never had a tram in 1990.", title="Lyon")
    own = Evidence("r", "Brask hosted the games in 1990.", title="Brask")
    assert v.verify("Brask hosted the games in 1990.", [other, own]).label == "supported"


def test_coverage_cannot_accept_against_the_model():
    cover = Combiner(("cov_content",), (8.0,), 0.0, (0.5,), (0.2,))
    cfg = VerifyConfig(combiner=cover, split_claims=False, support=0.5, entail_floor=0.5)
    passage = "The bridge opened to traffic in spring, the council said, in 1932."
    claim = "The bridge opened in 1932 to traffic, the council said in spring."
    j = Verifier(ByWords(), cfg).judge([(claim + " Later it closed.", [passage])])[0]
    assert j.p_supported >= 0.5 and j.verdict.label == "unverifiable"  # words covered, model neutral
    assert "does not entail" in j.verdict.reason
    lax = Verifier(ByWords(), VerifyConfig(combiner=cover, split_claims=False, support=0.5))
    assert lax.verify(claim + " Later it closed.", [passage]).label == "supported"  # the documented default


def test_the_number_rule_reads_only_passages_about_the_claims_subject():
    nile = Evidence("nile", "The Nile is a major river of Africa, flowing north.", title="Nile")
    meroe = Evidence("meroe", "Meroë lies about 6 km north-east of the Kabushiya station.", title="Meroë")
    v = Verifier(EntailAll(), VerifyConfig(split_claims=False))
    assert v.verify("The Nile is about 6,650 km long.", [nile, meroe]).label == "supported"
    wrong = Evidence("nile2", "The Nile is about 6,650 km long.", title="Nile")
    j = v.judge([("The Nile is about 9,650 km long.", [nile, wrong])])[0]
    assert j.verdict.label == "contradicted" and "'6,650 km'" in j.verdict.reason


def test_a_missing_decision_parameter_gets_the_documented_default(tmp_path):
    (tmp_path / "verifier.json").write_text(json.dumps({"thresholds": {"support": 0.4}, "combiner": None}))
    cfg = load_config(tmp_path)
    assert cfg.entail_floor == 0.0 and cfg.support == 0.4


def test_the_nuggets_block_is_read_for_nuggets_only(tmp_path):
    (tmp_path / "verifier.json").write_text(json.dumps(
        {"thresholds": {"support": 0.05, "entail_floor": 0.4}, "combiner": None,
         "nuggets": {"thresholds": {"support": 0.5}, "combiner": None}}))
    assert load_config(tmp_path).entail_floor == 0.4
    nug = load_config(tmp_path, purpose="nuggets")
    assert nug.support == 0.5 and nug.entail_floor == 0.0
    with pytest.raises(ValueError):
        load_config(tmp_path, purpose="other")


def test_a_rag_passage_of_several_references_neither_borrows_a_title_nor_miscites():
    """A passage that holds several references has no title of one of them (the name rule
    reads a title as the passage's subject), and the window that decides is cited by the
    reference that holds it, with offsets into that reference."""
    from offline_eval.index.chunk import ChunkConfig
    from offline_eval.stages.retrieve import Retrieve
    from offline_eval.types import Reference

    refs = (Reference("r1", "Hamlet is a play set in Denmark.", title="Hamlet"),
            Reference("r2", "Doctor Faustus is a tragedy written by Christopher Marlowe.", title="Doctor Faustus"),
            Reference("r3", "Hamlet is a tragedy written by William Shakespeare.", url="https://e.org/h"))
    claim = "Hamlet is a tragedy written by William Shakespeare."
    rec = ResponseResult(Item("q", "", claim, references=refs), claims=(Claim("c", claim),))
    rec = Retrieve(k=5, chunking=ChunkConfig(16, 10, 0))([rec])[0]
    assert any("+" in e.doc_id for e in rec.claims[0].evidence)
    assert all(e.title is None for e in rec.claims[0].evidence if "+" in e.doc_id)
    v = Verify(runner=EntailAll(), config=VerifyConfig(split_claims=False))([rec])[0].claims[0].verdict
    assert v.label == "supported"
    if v.evidence.text == refs[2].text:  # the window is r3's sentence alone
        assert (v.evidence.doc_id, v.evidence.url, v.evidence.start, v.evidence.end) == (
            "r3", "https://e.org/h", 0, len(refs[2].text))
    else:  # a window of two references names both, with no offsets
        assert v.evidence.start is None and set(v.evidence.doc_id.split("+")) <= {"r1", "r2", "r3"}


def test_verify_stage_loads_no_model_for_a_batch_without_claims():
    stage = Verify(model="no-such-model")
    rec = ResponseResult(Item("q", "", ""), claims=())
    assert stage([rec]) == [rec]


def test_objects_naming_their_doc_id_are_retrieved_passages_never_joined():
    """`offline-eval search --json` hits carry a doc_id: passed to verify they stay passages
    of their own documents, so two articles are not joined into support."""
    claim = "Ada Brook was born in Leeds in 1820 and she designed the mill in 1851."
    hits = [{"id": "a#0", "doc_id": "a", "text": "Ada Brook was born in Leeds in 1820 and she lived there."},
            {"id": "b#0", "doc_id": "b", "text": "Ada Brook designed the mill in 1851."}]
    v = Verifier(ByWords(), VerifyConfig(split_claims=False))
    assert v.verify(claim, hits).label == "unverifiable"
    assert v.verify(claim, [{k: h[k] for k in ("id", "text")} for h in hits]).label == "supported"
    # an id is read as its first object says, everywhere: a later object naming a doc_id does
    # not turn the rest of the context into retrieved passages
    given = ["Ada Brook was born in Leeds in 1820 and she lived there.",
             {"id": "b", "text": "Ada Brook designed the mill in 1851."}]
    assert v.verify(claim, given).label == "supported"
    assert v.verify(claim, [*given, {"id": "b", "text": "", "doc_id": "z"}]).label == "supported"


def test_number_rule_counts_only_parts_about_the_subject_but_any_part_clears():
    """In a passage of several RAG references, a number of a reference about something else
    never counts against the claim, and a matching number anywhere in it clears the claim."""
    v = Verifier(EntailAll(), VerifyConfig(split_claims=False))
    other = Evidence("r1#0", "K2 is 8,611 metres tall.\n\nEverest is the highest mountain.", doc_id="r1+r2")
    assert v.verify("Everest is 7,849 metres tall.", [other]).label == "supported"
    mixed = Evidence("r1#0", "Everest was measured at 7,000 metres in 1850.\n\nThe summit is 8,849 metres high.",
                     doc_id="r1+r2")
    assert v.verify("Everest is 8,849 metres tall.", [mixed]).label == "supported"
    alone = Evidence("r1#0", "Everest was measured at 7,000 metres in 1850.", doc_id="r1")
    assert v.verify("Everest is 8,849 metres tall.", [alone]).label == "contradicted"


def test_a_second_object_never_silences_the_rules():
    """Given objects are one context, but a swap or a far number in the object about the
    claim is still caught: a reference that shares no name with the claim does not hide the
    one that does, and a blank line inside an object is no boundary between references."""
    v = Verifier(EntailAll(), VerifyConfig(split_claims=False))
    mill = {"id": "m", "text": "The old mill was designed by Ada Brook."}
    other = {"id": "b", "text": "Charles Babbage designed engines."}
    claim = "The old mill was designed by Tom Hale."
    assert v.verify(claim, [mill]).rule == "names"
    assert v.verify(claim, [mill, other]).rule == "names"
    v0 = Verifier(EntailAll(), VerifyConfig(split_claims=False, assemble_sentences=0))
    ada = {"id": "a", "text": "Ada Lovelace was a mathematician.\n\nShe was born in 1915."}
    assert v0.verify("Ada Lovelace was born in 1815.", [ada]).rule == "numbers"
    assert v0.verify("Ada Lovelace was born in 1815.", [ada, other]).rule == "numbers"
    assert v0.verify("Ada Lovelace was born in 1815.", [ada["text"], other["text"]]).rule == "numbers"


def test_a_citation_of_strings_and_objects_keeps_the_strings_document():
    v = Verifier(ByWords(), VerifyConfig(split_claims=False))
    got = v.verify("Ada Brook was born in Leeds in 1820 and she designed the mill in 1851.",
                   ["Ada Brook was born in Leeds in 1820 and she lived there.",
                    {"id": "a", "text": "Ada Brook designed the mill in 1851."}, {"id": "b", "text": "Unrelated."}])
    assert got.label == "supported" and set(got.evidence.doc_id.split("+")) == {"evidence", "a"}


def test_a_negated_twin_contradicts_what_the_model_entails_and_says_so():
    """A sentence about the claim's subject that states it with its polarity flipped makes
    the claim contradicted (rule ``negation``), naming the sentence; both ways round."""
    v = Verifier(EntailAll(), VerifyConfig(split_claims=False))
    claim = "Abacus computing is generally faster than DNA computing for deep learning."
    twin = "Abacus computing is not faster than DNA computing for deep learning."
    j = v.judge([(claim, [f"Some say otherwise. {twin} It is a tool."])])[0]
    assert (j.verdict.label, j.verdict.rule) == ("contradicted", "negation")
    assert j.verdict.compared.kind == "negation" and j.verdict.compared.evidence == (twin,)
    assert twin in j.verdict.reason
    denied = v.verify("The bridge was not finished in 1932.", ["The bridge was finished in 1932."])
    assert (denied.label, denied.rule) == ("contradicted", "negation")
    # the same polarity, a sentence with more to say, "not only", two negations: no twin
    for evidence in ("The bridge was finished in 1932.",
                     "The bridge was not finished in 1932 by the Leeds firm of Tom Hale.",
                     "Not only was the bridge finished in 1932.",
                     "The bridge was never not finished in 1932."):
        assert v.verify("The bridge was finished in 1932.", [evidence]).rule != "negation", evidence
    # off, the model decides
    off = Verifier(EntailAll(), VerifyConfig(split_claims=False, check_negation=False))
    assert off.verify(claim, [twin]).label == "supported"


def test_a_negated_twin_turns_an_unverifiable_claim_contradicted():
    """The rule reads claims the model leaves unverifiable too: a denial is evidence."""
    class Neutral(EntailAll):
        def predict(self, pairs):
            return np.array([[0.1, 0.8, 0.1]] * len(pairs))

    v = Verifier(Neutral(), VerifyConfig(split_claims=False))
    assert v.verify("The bridge was finished in 1932.", ["The bridge is tall."]).label == "unverifiable"
    got = v.verify("The bridge was finished in 1932.", ["The bridge wasn't finished in 1932."])
    assert (got.label, got.rule) == ("contradicted", "negation")


def test_the_agent_frame_leaves_another_event_alone():
    """The agent frame skips a "by" phrase of another year (another event); a real swap in
    the same frame still fires."""
    v = Verifier(EntailAll(), VerifyConfig(split_claims=False))
    ev = ("In 2018 Ada Brook was named to the court by Governor Tom Hale. Before that Ada Brook "
          "sat on the county bench, a post she was appointed to in 2006 by Governor Ann Cole.")
    assert v.verify("Ada Brook was appointed by Governor Tom Hale in 2018.", [ev]).label == "supported"
    swap = v.verify("Ada Brook was appointed by Governor Tom Hale in 2006.", [ev])
    assert (swap.label, swap.rule) == ("contradicted", "names")
