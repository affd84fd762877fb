"""Tables and peer formats end to end, with the shipped models on the tiny corpus: a CSV
input, a RAGAS file and a DataFrame score to the same rows as the native JSONL, and
``--table`` / ``ScoreRun.to_pandas`` give one line per answer or per claim."""
from __future__ import annotations

import csv
import json

import pytest

import offline_eval
from offline_eval.cli import main

from tests.score.test_score_cli import FIXTURE, ITEMS

pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    h = tmp_path_factory.mktemp("home")
    assert main(["corpus", "build", "tiny", "--from", str(FIXTURE), "--home", str(h)]) == 0
    return h


def _score(home, inp, out, *extra):
    return main(["score", str(inp), "-o", str(out), "--corpus", "tiny", "--home", str(home),
                 "--quiet", "--comprehensiveness", "none", *extra])


@pytest.fixture(scope="module")
def native(home, tmp_path_factory):
    d = tmp_path_factory.mktemp("native")
    inp = d / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ITEMS), encoding="utf-8")
    assert _score(home, inp, d / "out.jsonl") == 0
    return (d / "out.jsonl").read_bytes()


def test_csv_input_scores_to_the_same_bytes_and_tables_come_out(home, native, tmp_path, capsys):
    inp = tmp_path / "in.csv"
    cols = ["id", "query", "response", "group", "references"]
    with inp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in ITEMS:
            w.writerow({**r, "references": json.dumps(r["references"]) if "references" in r else ""})
    out = tmp_path / "out.jsonl"
    assert _score(home, inp, out, "--format", "auto", "--table", str(tmp_path / "t.parquet")) == 0
    assert out.read_bytes() == native
    assert f"--format auto: {inp} reads as native" in capsys.readouterr().err
    rows = [json.loads(x) for x in native.decode().splitlines()]
    table = pq.read_table(tmp_path / "t.parquet").to_pylist()
    assert [t["id"] for t in table] == [r["id"] for r in rows]
    tower = next(t for t in table if t["id"] == "tower-wrong")
    want = next(r for r in rows if r["id"] == "tower-wrong")
    assert tower["audit.verdict"] == want["audit"]["verdict"]
    assert tower["metrics.factscore_precision"] == want["metrics"]["factscore_precision"]
    assert json.loads(tower["claims"]) == want["claims"]
    # one line per claim, led by the answer's id, and the same bytes on a second run
    claims = tmp_path / "claims.csv"
    assert _score(home, inp, out, "--overwrite", "--table", str(claims), "--table-rows", "claims") == 0
    lines = list(csv.DictReader(claims.open(encoding="utf-8")))
    assert [(x["response_id"], x["claim.text"], x["claim.verdict"]) for x in lines] == \
        [(r["id"], c["text"], c["verdict"]) for r in rows for c in r["claims"]]
    first = claims.read_bytes()
    assert _score(home, inp, out, "--overwrite", "--table", str(claims), "--table-rows", "claims") == 0
    assert claims.read_bytes() == first


def test_ragas_file_scores_like_the_native_rag_row(home, native, tmp_path):
    rag = next(r for r in ITEMS if r["id"] == "rag")
    inp = tmp_path / "ragas.jsonl"
    inp.write_text(json.dumps({"id": "rag", "user_input": rag["query"], "response": rag["response"],
                               "retrieved_contexts": rag["references"], "group": "normal"}) + "\n")
    out = tmp_path / "out.jsonl"
    assert _score(home, inp, out, "--format", "ragas") == 0
    want = next(r for r in map(json.loads, native.decode().splitlines()) if r["id"] == "rag")
    assert json.loads(out.read_text()) == want


def test_output_must_be_jsonl_and_table_a_table(home, tmp_path, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps(ITEMS[0]) + "\n")
    assert _score(home, inp, tmp_path / "out.parquet") == 2
    assert "for a CSV or Parquet table add --table" in capsys.readouterr().err
    assert _score(home, inp, tmp_path / "out.jsonl", "--table", str(tmp_path / "t.xlsx")) == 2
    assert "--table: a table file ends in" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_dataframe_in_dataframe_out(home, native):
    df = pd.DataFrame([{k: v for k, v in r.items() if k != "references"} for r in ITEMS[:2]])
    run = offline_eval.score(df, corpus="tiny", home=str(home), comprehensiveness=None)
    want = [json.loads(x) for x in native.decode().splitlines()][:2]
    assert run.rows == want
    answers = run.to_pandas()
    assert list(answers["id"]) == ["tower", "tower-wrong"]
    assert list(answers["audit.verdict"]) == [r["audit"]["verdict"] for r in want]
    claims = run.to_pandas("claims")
    assert len(claims) == sum(len(r["claims"]) for r in want)
    assert list(claims["claim.verdict"]) == [c["verdict"] for r in want for c in r["claims"]]
    with pytest.raises(ValueError, match="valid: responses, claims"):
        run.to_pandas("sentences")


def test_ray_reads_peer_and_table_input_as_the_driver_did(tmp_path):
    """Ray workers read JSONL lines: a peer or table input reaches them as the native rows
    the driver validated (same ids from row numbers), a native JSONL file as itself."""
    from offline_eval.io.items import read_items
    from offline_eval.engines.ray_engine import native_input

    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps({"question": "q?", "response": "An answer."}) + "\n\n" +
                   json.dumps({"question": "r?", "response": "Another."}) + "\n")
    out = str(tmp_path / "ray-out")
    native_path = native_input(str(inp), out, "veriscore")
    assert read_items(native_path) == read_items(inp, fmt="veriscore")
    assert [it.id for it in read_items(native_path)] == ["1", "2"]  # rows, not lines
    assert native_input(str(inp), out, "native") == str(inp)  # a native JSONL file is read as it is


def test_ray_input_from_a_csv_table_counts_rows(tmp_path):
    from offline_eval.io.items import read_items
    from offline_eval.engines.ray_engine import native_input

    inp = tmp_path / "in.csv"
    inp.write_text("question,response\nq?,An answer.\nr?,Another.\n", encoding="utf-8")
    native_path = native_input(str(inp), str(tmp_path / "ray-out"), "veriscore")
    assert native_path.endswith("input.native.jsonl")
    assert read_items(native_path) == read_items(inp, fmt="veriscore")
    assert [it.id for it in read_items(native_path)] == ["1", "2"]
