"""Comprehensiveness logic on self-written sources, with a transparent lexical entailer
standing in for the NLI model (the model itself is tested in tests/verify)."""
from __future__ import annotations

import json

import pytest

from offline_eval.text import query_words
from offline_eval.coverage.api import evaluate, load_decomposer
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


def test_a_source_that_shares_no_query_word_is_no_viewpoint_unless_every_source_is_read():
    # the decomposer resolves "It" to the query's topic ("Ada Byron was rebuilt in 1837."),
    # so without the source filter this off-topic sentence becomes a relevant fact of its
    # own: a viewpoint ("1837") that no answer about Ada Byron covers
    off = ("s9", "It was rebuilt in 1837.")
    answer = "Ada Byron published her notes on the Analytical Engine in 1843."
    decompose = load_decomposer()
    focused = comprehensiveness(Q, [("s1", S1), off], answer, "qa", lexical, decompose)
    every = comprehensiveness(Q, [("s1", S1), off], answer, "qa", lexical, decompose,
                              source_chars=0)
    assert focused.score == 1.0 and not focused.missing
    assert every.score == 0.5 and [f.source_ids for f in every.missing] == [("s9",)]


def test_the_facts_of_one_query_and_sources_are_built_once():
    calls = []

    def decompose(query, sentence):
        calls.append(sentence)
        return [sentence]

    srcs = [("s1", S1), ("s2", S2)]
    for answer in ("It was 1843.", "It was 1842.", "It was 1843 or 1842."):
        comprehensiveness(Q, srcs, answer, "qa", lexical, decompose)
    assert len(calls) == len({*calls}) == 3     # the three sentences, once
    comprehensiveness(Q, [("s1", S1), ("s2", S2 + " ")], "It was 1843.", "qa", lexical, decompose)
    assert len(calls) == 6                      # other sources: built again
    from offline_eval.coverage import methods   # the memo keys on a digest, not on the texts
    assert not any(S1 in str(key) for key in methods._FACTS)


def test_a_source_is_decomposed_as_one_document():
    # "It" is read in the source's own context, as the nuggets stage reads a reference
    src = "Gustave Eiffel designed the Eiffel Tower. It was finished in 1889."
    found = extract_facts("When was the Eiffel Tower finished?", [("s1", src)], load_decomposer(), "all")
    assert "The Eiffel Tower was finished in 1889." in [sf.fact.text for sf in found]


def test_wider_windows_are_read_only_for_facts_no_narrower_window_entails():
    from offline_eval.coverage.methods import _nli_covered
    from offline_eval.types import Fact
    asked = []

    def entail(pairs):
        asked.extend(pairs)
        return lexical(pairs)

    response = "Ada Byron was born in London. She published notes in 1843. She died in 1852."
    facts = [Fact(t, ("s1",), "vital") for t in ("Ada Byron was born in London.",
                                                 "Ada Byron died in 1852 in London.",
                                                 "Ada Byron painted.")]
    assert _nli_covered(facts, response, entail) == [True, True, False]
    first = [p for p, h in asked if h == facts[0].text]
    assert first == ["Ada Byron was born in London.", "She published notes in 1843.",
                     "She died in 1852."]                      # one-sentence windows only
    assert {p for p, h in asked if h == facts[1].text} >= {response}   # read up to the widest
    # a two-sentence response has no three-sentence window
    asked.clear()
    _nli_covered([facts[2]], "Ada Byron was born in London. She died in 1852.", entail)
    assert len(asked) == 3
