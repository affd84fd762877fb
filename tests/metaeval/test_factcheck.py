"""The Factcheck-GPT reader on a self-written row."""
from __future__ import annotations

import json

import pytest

from offline_eval.errors import InputError
from offline_eval.metaeval.factcheck import parse_row, read_factcheck

ROW = {
    "prompt": "Who built the tower?", "response": "Gustave Eiffel built it in 1899.",
    "revised_response": "Gustave Eiffel's company built it in 1889.", "response_factuality": False,
    "sentences": {"sentence1": {
        "claims": ["Gustave Eiffel built the tower.", "The tower was built in 1899.", "It is tall."],
        "claims_factuality_label": [True, False, "unknown"],
        "human_evidence": ["The tower was built by Eiffel's company.\nLink: https://example.org/t",
                           "It was completed in 1889.", "NA"],
        "auto_evidence": [["Eiffel's firm built it."], ["Completed 1889.", "Eiffel's firm built it."], []],
    }},
}


def test_claims_labels_and_evidence():
    r = parse_row(ROW, 3)
    assert r.id == "fc3" and r.factual is False and r.query == "Who built the tower?"
    assert [c.label for c in r.claims] == [True, False, None]
    c0, c1, c2 = r.claims
    assert [e.text for e in c0.evidence] == ["The tower was built by Eiffel's company.", "Eiffel's firm built it."]
    assert c0.evidence[0].url == "https://example.org/t" and c0.evidence[0].id.endswith(".h")
    assert [e.id.rsplit(".", 1)[1] for e in c1.evidence] == ["h", "a0", "a1"]
    assert c2.evidence == ()
    # pooled references are deduplicated by text
    assert len(r.references) == 4


def test_na_response_label_is_none():
    assert parse_row({**ROW, "response_factuality": "NA"}, 1).factual is None


def test_bad_sentences_field():
    with pytest.raises(InputError):
        parse_row({**ROW, "sentences": []}, 1)


def test_a_bad_claim_list_names_the_file_line_and_field(tmp_path):
    p = tmp_path / "b.jsonl"
    bad = {**ROW, "sentences": {"0": {"claims": [3]}}}
    p.write_text(json.dumps(ROW) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError, match=r"b\.jsonl:2: field 'sentences\.0\.claims'"):
        read_factcheck(p)


def test_read_file(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_text(json.dumps(ROW) + "\n" + json.dumps(ROW) + "\n")
    assert [r.id for r in read_factcheck(p)] == ["fc1", "fc2"]


def test_shared_benchmark(shared_data):
    rows = read_factcheck(shared_data / "factcheck-gpt" / "benchmark.jsonl")
    assert len(rows) == 64
    assert sum(c.label is False for r in rows for c in r.claims) > 50
