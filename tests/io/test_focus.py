"""A row's references past their budget: the most relevant kept, the rest said; empty
references dropped with a warning."""
from __future__ import annotations

import json

import pytest

from offline_eval.io.focus import focus_references
from offline_eval.io.items import Limits, read_items
from offline_eval.types import Reference

Q = "When was the Lighthouse of Varn completed?"
A = "The Lighthouse of Varn was completed in 1874."


def _filler(i: int) -> str:
    return f"Note {i} on harbour tides, ferry fares and the weather of the coast. " * 3


def test_within_the_budget_nothing_changes():
    refs = tuple(Reference(f"r{i}", _filler(i)) for i in range(3))
    kept, notes = focus_references(refs, Q, A, 10_000)
    assert kept == refs and notes == []


def test_a_thousand_references_keep_the_relevant_ones_in_order():
    refs = [Reference(f"r{i}", _filler(i)) for i in range(1000)]
    refs[700] = Reference("r700", "The Lighthouse of Varn was completed in 1874 by the harbour board.")
    refs[10] = Reference("r10", "Varn is a small harbour town; its lighthouse stands on the cliff.")
    budget = 2_000
    kept, notes = focus_references(refs, Q, A, budget)
    ids = [r.id for r in kept]
    assert "r700" in ids and "r10" in ids and ids == sorted(ids, key=lambda x: int(x[1:]))
    assert sum(len(r.text) for r in kept) <= budget
    assert notes == [f"1000 references of {sum(len(r.text) for r in refs):,} characters in all: "
                     f"the {len(kept)} most relevant to the query and answer are read "
                     f"({sum(len(r.text) for r in kept):,} characters, "
                     f"--max-references-chars 2,000)"]


def test_one_huge_reference_is_cut_to_its_relevant_part():
    text = ("Harbour records list tides and fares. " * 20_000 + "The Lighthouse of Varn was "
            "completed in 1874. " + "Ferry timetables change each spring. " * 10_000)
    kept, notes = focus_references([Reference("doc", text)], Q, A, 5_000)
    (one,) = kept
    assert len(one.text) <= 5_000 and "completed in 1874" in one.text
    assert one.text in text and notes[0].startswith(f"references[0] cut from {len(text):,} ")


def test_rows_say_what_was_dropped(tmp_path):
    rows = [{"id": "a", "query": Q, "response": A,
             "references": ["  ", {"id": "x", "text": "The lighthouse was completed in 1874."}]},
            {"id": "b", "query": Q, "response": A, "references": ["", "\n"]},
            {"id": "c", "query": Q, "response": A,
             "references": [_filler(i) for i in range(50)] + ["Varn's lighthouse: 1874."]}]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(UserWarning) as caught:
        a, b, c = read_items(path, Limits(references_chars=1_000))
    assert [r.id for r in a.references] == ["x"]
    assert a.warnings == ("references[0] is empty and dropped",)
    assert b.references == () and "with none left, this row is checked against the corpus" \
        in b.warnings[0]
    assert "Varn's lighthouse: 1874." in [r.text for r in c.references]
    assert "most relevant to the query and answer are read" in c.warnings[0]
    assert any(f"{path}:3:" in str(w.message) for w in caught)     # the row is named


def test_a_row_past_its_budget_is_scored_with_its_warning():
    pytest.importorskip("spacy")
    from offline_eval import score

    refs = [_filler(i) for i in range(300)] + ["The Lighthouse of Varn was completed in 1874."]
    with pytest.warns(UserWarning):
        run = score([{"id": "big", "query": Q, "response": A, "references": refs}],
                    limits=Limits(references_chars=3_000), comprehensiveness=None)
    (row,) = run.rows
    assert row["status"] == "ok" and row["claims"]
    assert any("--max-references-chars 3,000" in w for w in row["warnings"])


def test_relevance_decides_even_among_few_references():
    """A word in most passages still counts (Lucene's idf), so the Paris reference wins
    though it comes second; text with no indexable word keeps the given order."""
    refs = [Reference("cats", "Cats purr when content. " * 3),
            Reference("paris", "Paris is the capital of France. " * 3)]
    kept, _ = focus_references(refs, "What is the capital of France?", "Paris.", 100)
    assert [r.id for r in kept] == ["paris"]
    kept, notes = focus_references([Reference("a", "!!! " * 40), Reference("b", "??? " * 40)],
                                   "?", "!", 170)
    assert [r.id for r in kept] == ["a"] and notes


def test_notes_name_the_reference_as_given(tmp_path):
    rows = [{"id": "a", "query": Q, "response": A,
             "references": ["", "Harbour notes. " * 300 + "The lighthouse was completed in 1874."]}]
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n")
    with pytest.warns(UserWarning):
        (item,) = read_items(path, Limits(references_chars=500))
    assert item.warnings[0] == "references[0] is empty and dropped"
    assert item.warnings[1].startswith("references[1] cut from 4,537 characters")
    (ref,) = item.references
    assert len(ref.text) <= 500 and "1874" in ref.text


def test_query_sources_drop_references_that_share_no_query_word_then_keep_the_budget():
    from offline_eval.io.focus import query_sources
    refs = [Reference("tides", _filler(1)),
            Reference("varn", "The Lighthouse of Varn was completed in 1874 by the harbour board."),
            Reference("fares", _filler(2)),
            Reference("keeper", "Its first keeper at Varn was Ida Holm, who lit the lamp each night.")]
    assert [r.id for r in query_sources(refs, Q, 10_000)] == ["varn", "keeper"]
    # ranked by the query alone: the answer plays no part
    assert [r.id for r in query_sources(refs, Q, 80)] == ["varn"]
    assert query_sources(refs, Q, 0) == tuple(refs)            # 0: every reference
    # when no reference shares a word with the query, the budget alone decides
    plain = [Reference("tides", _filler(1)), Reference("fares", _filler(2))]
    assert [r.id for r in query_sources(plain, Q, 10_000)] == ["tides", "fares"]
