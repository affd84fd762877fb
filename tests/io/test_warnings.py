"""Say it when it matters: a row scored with a warning says so, and so does the summary."""
from __future__ import annotations

import json

import pytest

from offline_eval.io.items import read_items
from offline_eval.io.rows import row_warnings
from offline_eval.scoring import summarize_run
from offline_eval.types import Item, ResponseResult


def split(text: str) -> ResponseResult:
    pytest.importorskip("spacy")
    from offline_eval.stages.split import Split

    return Split()([ResponseResult(Item("r", "q?", text))])[0]


def test_a_french_answer_and_a_cut_word_are_warned_in_the_row():
    assert row_warnings(split("The capital of France is Paris.")) == []
    fr = row_warnings(split("La capitale de la France est Paris. Elle est située sur la Seine "
                            "et compte plus de deux millions d'habitants."))
    assert fr == ["text does not look like English; claims are best effort"]
    long = row_warnings(split("Paris is big. " + "x" * 12_000))
    assert any("12,000-character word is longer than 10,000 characters and was cut" in w for w in long)


def test_the_summary_counts_rows_with_warnings():
    rows = [{"id": i, "status": "ok", "metrics": {}, "warnings": w} for i, w in
            [("a", []), ("b", ["not English"]), ("c", ["not English", "cut"])]]
    assert summarize_run(rows)["warnings"] == {"n_rows": 2, "ids": ["b", "c"],
                                               "messages": {"not English": 2, "cut": 1}}


def test_empty_references_warn_that_the_corpus_is_used(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": "a", "query": "q?", "response": "r", "references": []}) + "\n")
    with pytest.warns(UserWarning, match=r"in\.jsonl:1: references is empty, so this row is "
                                         r"checked against the corpus"):
        (item,) = read_items(p)
    assert item.references == ()
    assert row_warnings(ResponseResult(item)) == [
        "references is empty, so this row is checked against the corpus"]
