"""Comprehensiveness logic on self-written sources, with a transparent lexical entailer
standing in for the NLI model (the model itself is tested in tests/verify)."""
from __future__ import annotations

import json

import pytest

from offline_eval.text import query_words
from offline_eval.coverage.api import evaluate
from offline_eval.coverage.methods import comprehensiveness, extract_facts
from offline_eval.errors import InputError


def lexical(pairs):
    out = []
    for premise, hyp in pairs:
        h = query_words(hyp)
        out.append(1.0 if h and len(h & query_words(premise)) / len(h) >= 0.8 else 0.0)
    return out


Q = "When did Ada Byron publish her notes on the Analytical Engine?"
S1 = "Ada Byron published her notes on the Analytical Engine in 1843. She was born in London."
S2 = "Some historians date the publication of the notes on the Analytical Engine to 1842."


@pytest.mark.parametrize("method", ["nli", "qa", "direct"])
def test_full_partial_and_missing_coverage(method):
    srcs = [("s1", S1), ("s2", S2)]
    both = "Ada Byron published her notes on the Analytical Engine in 1843, though some date them to 1842."
    one = "Ada Byron published her notes on the Analytical Engine in 1843."
    none = "The Analytical Engine was a mechanical computer."
    s_both = comprehensiveness(Q, srcs, both, method, lexical).score
    s_one = comprehensiveness(Q, srcs, one, method, lexical).score
    s_none = comprehensiveness(Q, srcs, none, method, lexical).score
    assert s_both >= s_one > s_none
    assert s_none == 0.0


def test_qa_wrong_answer_leaves_fact_missing():
    cov = comprehensiveness(Q, [("s1", S1)], "Ada Byron published her notes on the Analytical "
                                              "Engine in 1850.", "qa", lexical)
    assert cov.score == 0.0
    assert any("1843" in f.text for f in cov.missing)


@pytest.mark.parametrize("fact_set", ["vital", "all"])
def test_off_topic_source_sentences_are_dropped_and_duplicates_merged(fact_set):
    facts = [sf.fact for sf in extract_facts(Q, [("a", S1), ("b", "Ada Byron published her notes on "
                                                 "the Analytical Engine in 1843.")], facts=fact_set)]
    texts = [f.text for f in facts]
    assert not any("London" in t for t in texts)
    merged = [f for f in facts if "1843" in f.text]
    assert len(merged) == 1 and merged[0].source_ids == ("a", "b") and merged[0].importance == "vital"


def test_no_relevant_fact_is_undefined_with_reason():
    cov = comprehensiveness(Q, [("s", "Bananas are yellow.")], "x", "nli", lexical)
    assert cov.score is None and cov.reason


def test_bad_rows_name_file_line_field(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": 1, "query": Q, "sources": [S1, 3], "response": "r"}) + "\n")
    with pytest.raises(InputError, match=r"in.jsonl:1: field 'sources\[1\]'"):
        list(evaluate(p, "qa", lexical))


def test_rows_have_the_documented_shape(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "a", "query": Q, "sources": [S1, S2], "response": S1}) + "\n")
    (row,) = evaluate(p, "qa", lexical)
    assert set(row) == {"id", "method", "score", "reason", "covered", "missing"}
    assert all(set(m) == {"fact", "source_ids", "importance"} for m in row["missing"])
    assert 0.0 < row["score"] < 1.0
