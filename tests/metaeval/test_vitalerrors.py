"""The VitalErrors triples reader and sentence alignment, on self-written rows."""
from __future__ import annotations

import json

import pytest

from offline_eval.errors import InputError
from offline_eval.metaeval.vitalerrors import overlaps, read_triples, sentence_diff, unjudged


def _row(sentences, judgments):
    decomp = [{"sentence": s, "decomp": [{"id": f"S{i + 1}", "text": s, "judgment": j,
                                          "importance": "vital" if i == 1 else "okay"}]}
              for i, (s, j) in enumerate(zip(sentences, judgments))]
    return {"query": "Where is the Louvre?", "response": {"id": "7", "text": " ".join(sentences)},
            "decomposition": decomp, "subclaim-importance-order": [f"S{i + 1}" for i in range(len(sentences))]}


@pytest.fixture()
def folder(tmp_path):
    rows = {"normal": _row(["It is a museum.", "It is in Paris.", "It opened in 1793."], [True, True, True]),
            "missing": _row(["It is a museum.", "It opened in 1793."], [True, True]),
            "wrong": _row(["It is a museum.", "It is in Lyon.", "It opened in 1793."], [True, False, True])}
    for name, row in rows.items():
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(row) + "\n")
    return tmp_path


def test_triples_find_the_edit_and_the_drop(folder):
    (t,) = read_triples(folder)
    assert t.id == "7" and t.query == "Where is the Louvre?"
    assert t.edited == ("It is in Lyon.",) and t.replaced == ("It is in Paris.",)
    assert t.dropped == ("It is in Paris.",)
    assert t.text("wrong") == "It is a museum. It is in Lyon. It opened in 1793."
    assert [c.judgment for c in t.given["wrong"].claims] == [True, False, True]


def test_unjudged_keeps_importance_and_order(folder):
    (t,) = read_triples(folder)
    rec = unjudged(t.given["wrong"])
    assert [c.judgment for c in rec.claims] == [None, None, None]
    assert [c.verdict for c in rec.claims] == [None, None, None]
    assert [c.importance for c in rec.claims] == ["okay", "vital", "okay"]
    assert rec.order == ("S1", "S2", "S3")


def test_files_of_different_length_are_refused(folder):
    (folder / "missing.jsonl").write_text("")
    with pytest.raises(InputError, match="differ in length"):
        read_triples(folder)


def test_sentence_diff_and_overlaps():
    assert sentence_diff(["a", "b"], ["a", "b"]) == ((), ())
    assert sentence_diff(["a", "b", "c"], ["a", "c"]) == (("b",), ())
    text = "It is a museum. It is in Lyon."
    assert overlaps(text, ["It is in Lyon."], 16, 30)
    assert not overlaps(text, ["It is in Lyon."], 0, 15)
    assert not overlaps(text, ["Not there."], 0, 30)


def test_shared_vital_nq_has_one_edit_per_wrong_answer(shared_data):
    triples = read_triples(shared_data / "vitalerrors-nq")
    assert len(triples) == 35
    assert all(len(t.edited) == 1 for t in triples)  # one rewritten sentence each
    assert sum(len(t.replaced) != 1 for t in triples) == 1  # one rewrite merges two sentences
    assert all(t.dropped for t in triples)
