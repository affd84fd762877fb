"""Key facts (``facts="vital"``): one answer per source, conflicting answers as separate
viewpoints; self-written sources about an invented lighthouse."""
from __future__ import annotations

import json

import pytest

from offline_eval.coverage.api import evaluate
from offline_eval.coverage.facts import extract_facts
from offline_eval.coverage.methods import comprehensiveness
from offline_eval.stages.comprehensiveness import Comprehensiveness
from tests.comprehensiveness.test_methods import lexical

Q = "When did the Varn lighthouse first light its lamp?"
A = ("a", "The Varn lighthouse was designed by Ilse Moor. The Varn lighthouse first lit its lamp "
          "in 1874. It stands 42 metres tall.")
B = ("b", "Parish records say the Varn lighthouse first lit its lamp in 1876, after a storm "
          "delayed the work.")


def qa(response, sources=(A, B), query=Q):
    return comprehensiveness(query, list(sources), response, "qa", lexical)


def test_each_source_contributes_its_answering_fact():
    facts = extract_facts(Q, [A, B])
    assert [(sf.fact.source_ids, sf.answer.text) for sf in facts] == [(("a",), "1874"), (("b",), "1876")]
    assert all(sf.fact.importance == "vital" for sf in facts)


@pytest.mark.parametrize("response, score", [
    ("The Varn lighthouse first lit its lamp in 1874, or in 1876 by the parish records.", 1.0),
    ("The Varn lighthouse first lit its lamp in 1874.", 0.5),
    ("1876", 0.5),  # a terse answer is read as answering the query
    ("The Varn lighthouse first lit its lamp in 1880.", 0.0),  # another answer covers neither
    ("I do not know when the lamp was first lit.", 0.0),
])
def test_conflicting_answers_are_separate_viewpoints(response, score):
    assert qa(response).score == score


def test_a_denied_answer_is_not_stated():
    cov = qa("The lamp was not lit in 1874; it was first lit in 1876.")
    assert cov.score == 0.5
    assert [f.source_ids for f in cov.covered] == [("b",)]
    assert [f.source_ids for f in cov.missing] == [("a",)]


def test_agreeing_sources_are_one_viewpoint():
    same = ("c", "According to the keeper's log, the Varn lamp was first lit in 1874.")
    facts = extract_facts(Q, [A, same])
    assert len(facts) == 1 and facts[0].fact.source_ids == ("a", "c")
    assert qa("It was first lit in 1874.", (A, same)).score == 1.0


def test_yes_no_question_looks_for_each_sources_own_answer():
    q = "Did the Varn lighthouse first light its lamp in 1874?"
    assert [sf.answer.text for sf in extract_facts(q, [A, B])] == ["1874", "1876"]
    assert qa("Yes, the Varn lighthouse first lit its lamp in 1874.", query=q).score == 0.5
    assert qa("No, it did not first light its lamp in 1874; it first lit it in 1876.", query=q).score == 0.5
    assert qa("Sources differ: 1874 in one account, 1876 in the parish records.", query=q).score == 1.0


def test_the_key_fact_is_the_one_about_the_query_not_the_topic():
    src = ("s", "Ada Byron was born in London. Ada Byron wrote notes on engines. "
                "Ada Byron's father was Lord Byron.")
    (key,) = extract_facts("What is the name of Ada Byron's father?", [src])
    assert key.answer.text == "Lord Byron" and "father" in key.fact.text


def test_dates_must_agree_on_the_day():
    q = "When was the keeper Jon Varde born?"
    srcs = [("a", "Jon Varde was born on 3 March 1902."), ("b", "Jon Varde was born on 13 March 1902.")]
    assert qa("Jon Varde was born on March 3rd, 1902.", srcs, q).score == 0.5
    assert qa("Jon Varde was born in 1902.", srcs, q).score == 0.0


def test_all_facts_keeps_conflicting_facts_apart():
    facts = extract_facts(Q, [A, ("b", "The Varn lighthouse first lit its lamp in 1876.")], facts="all")
    assert sorted(f.fact.source_ids for f in facts if "lamp" in f.fact.text) == [("a",), ("b",)]


def test_all_and_vital_differ_on_side_facts():
    response = "The Varn lighthouse first lit its lamp in 1874."
    vital = comprehensiveness(Q, [A], response, "nli", lexical, facts="vital")
    every = comprehensiveness(Q, [A], response, "nli", lexical, facts="all")
    assert vital.score == 1.0 and len(vital.covered) == 1
    assert every.score < 1.0 and len(every.covered) + len(every.missing) > 1


def test_unknown_fact_set_is_refused_everywhere(tmp_path):
    with pytest.raises(ValueError, match="valid: vital, all"):
        comprehensiveness(Q, [A], "x", "qa", lexical, facts="key")
    with pytest.raises(ValueError, match="valid: vital, all"):
        Comprehensiveness(facts="key")
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "1", "query": Q, "sources": [A[1]], "response": "1874"}) + "\n")
    with pytest.raises(ValueError, match="valid: vital, all"):
        list(evaluate(p, "qa", lexical, facts="key"))
    (row,) = evaluate(p, "qa", lexical, facts="all")  # every fact: the design one is missing
    assert [f["fact"] for f in row["covered"]] == ["The Varn lighthouse first lit its lamp in 1874."]
    assert [f["fact"] for f in row["missing"]] == ["The Varn lighthouse was designed by Ilse Moor."]
    assert 0 < row["score"] < 1
    (row,) = evaluate(p, "qa", lexical, facts="vital")  # the key fact alone: covered
    assert row["score"] == 1.0


def test_cli_passes_the_fact_set(tmp_path, monkeypatch):
    import offline_eval.coverage.api as api
    from offline_eval.cli import main

    monkeypatch.setattr(api, "load_entailer", lambda *a, **k: lexical)
    monkeypatch.setattr(api, "load_decomposer", lambda *a, **k: None)
    p, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    p.write_text(json.dumps({"id": "1", "query": Q, "references": [A[1], B[1]], "response": "1874"}) + "\n")
    rows = {}
    for fact_set in ("vital", "all"):
        assert main(["comprehensiveness", str(p), "-o", str(out), "--facts", fact_set,
                     "--overwrite"]) == 0
        rows[fact_set] = json.loads(out.read_text())
    assert rows["vital"]["score"] == 0.5 and len(rows["vital"]["missing"]) == 1
    assert set(rows["vital"]) == {"id", "method", "score", "reason", "covered", "missing"}
    assert len(rows["all"]["covered"]) + len(rows["all"]["missing"]) > 2


def test_terms_are_the_audit_content_words_without_possessives():
    from offline_eval.text import query_words
    from offline_eval.coverage.facts import terms

    assert terms("Ada Byron's fathers published") == query_words("Ada Byron fathers published")
    assert terms("Varde’s lamp") == terms("Varde lamp") == {"varde", "lamp"}


def test_the_response_is_parsed_once_for_all_key_facts(monkeypatch):
    import offline_eval.coverage.align as align

    c = ("c", "A third account says the Varn lighthouse first lit its lamp in 1880.")
    response = "The Varn lighthouse first lit its lamp in 1874. Others say 1876, not 1880."
    expected = qa(response, (A, B, c))
    calls = []
    parse = align.select_answers
    monkeypatch.setattr(align, "select_answers", lambda text, *a: calls.append(text) or parse(text, *a))
    cov = qa(response, (A, B, c))
    assert len(extract_facts(Q, [A, B, c])) == 3
    assert calls == align.sentences(response)  # once per response sentence, not per key fact
    assert cov == expected and cov.score == 2 / 3
