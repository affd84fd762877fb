"""`offline-eval metrics`: outputs, bad input (file:line and field, no traceback)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from offline_eval.cli import main

GOOD = {"id": "r1", "query": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet.",
        "claims": [{"id": "c1", "text": "Shakespeare wrote Hamlet.", "verdict": "supported",
                    "importance": "vital"},
                   {"id": "c2", "text": "Hamlet is set in Norway.", "verdict": "contradicted",
                    "importance": "less-important"}]}


def write(tmp_path, rows, name="in.jsonl"):
    p = tmp_path / name
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return p


def test_metrics_writes_rows_and_summary(tmp_path):
    p = write(tmp_path, [GOOD, {**GOOD, "id": "r2", "claims": []}])
    out, summ = tmp_path / "out.jsonl", tmp_path / "s.json"
    assert main(["metrics", str(p), "-o", str(out), "--summary", str(summ)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["metrics"]["factscore_precision"] == 0.5
    assert rows[0]["metrics"]["vital_precision"] == 1.0
    assert rows[1]["metrics"]["factscore_precision"] is None
    assert rows[1]["metric_reasons"]["factscore_precision"] == "no decided claims"
    s = json.loads(summ.read_text())["conditions"]["in"]
    assert s["n_responses"] == 2 and s["metrics"]["factscore_precision"]["n"] == 1


def test_output_is_byte_identical_across_runs(tmp_path):
    p = write(tmp_path, [GOOD])
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["metrics", str(p), "-o", str(a)]) == 0
    assert main(["metrics", str(p), "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes() and a.read_text().strip()


@pytest.mark.parametrize("bad,line,field", [
    ('{"id": "r2", "query": "q", "claims": [', 2, None),
    ({"id": "r2", "claims": []}, 2, "query"),
    ({"id": "r2", "query": "q", "claims": [{"id": "c", "text": "t", "judgment": "yes"}]}, 2,
     "claims[0].judgment"),
    ({"id": "r2", "query": "q", "claims": [{"id": "c", "text": "t", "importance": "huge"}]}, 2,
     "claims[0].importance"),
    ({"id": "r1", "query": "q", "claims": []}, 2, "id"),
    ({"id": "r2", "query": "q", "claims": [{"id": "c", "text": "t", "judgment": True},
                                          {"id": "c", "text": "u", "judgment": None}]}, 2,
     "claims[].id"),
])
def test_bad_input_names_file_line_and_field(tmp_path, bad, line, field):
    p = write(tmp_path, [GOOD, bad])
    proc = subprocess.run([sys.executable, "-m", "offline_eval", "metrics", str(p), "-o",
                           str(tmp_path / "o.jsonl")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{p}:{line}:" in proc.stderr
    if field:
        assert f"field '{field}'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_vital_row_error_names_nested_field(tmp_path):
    row = {"query": "q", "response": {"id": "1", "text": "t"},
           "decomposition": [{"sentence": "s", "decomp": [{"id": "S1", "text": "a", "judgment": 1}]}]}
    p = write(tmp_path, [row])
    proc = subprocess.run([sys.executable, "-m", "offline_eval", "metrics", str(p)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "field 'decomposition[0].decomp[0].judgment'" in proc.stderr


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["metrics", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_status_checks_what_each_stage_needs(capsys, tmp_path, monkeypatch):
    import offline_eval.modelstore as modelstore

    main(["status", "--home", str(tmp_path)])
    out = capsys.readouterr().out
    assert "metrics            ready" in out
    assert "RAG references only: no corpus built" in out  # an empty data home
    monkeypatch.setattr(modelstore, "shipped_dir", lambda: tmp_path / "no-models")
    assert main(["status", "--home", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "verify             NOT READY" in out and "no NLI model in" in out
    assert "Not ready: rank, verify, nuggets, comprehensiveness" in out  # no shipped models at all
    monkeypatch.setenv("OFFLINE_EVAL_SPACY_WORKERS", "3")
    main(["status", "--home", str(tmp_path)])
    assert "spaCy work shared with 3 worker process(es)" in capsys.readouterr().out
    monkeypatch.setenv("OFFLINE_EVAL_SPACY_WORKERS", "many")
    assert main(["status", "--home", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "split              NOT READY" in out and "OFFLINE_EVAL_SPACY_WORKERS must be a whole number" in out