"""Nothing is lost: outputs that would destroy an input or fail late are refused up front,
a failed run leaves an existing output as it was, every JSONL command refuses duplicate
ids, and bad fields are named with their path. All checks run before any model loads."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_eval.cli import main
from offline_eval.engines.local import check_resume, scored_ok
from offline_eval.io.resume import keep_rows
from offline_eval.errors import InputError
from offline_eval.types import Item

JUDGED = {"id": "r1", "query": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet.",
          "claims": [{"id": "c1", "text": "Shakespeare wrote Hamlet.", "verdict": "supported",
                      "importance": "vital"}]}
ITEM = {"id": "a", "query": "Who wrote Hamlet?", "response": "Shakespeare wrote Hamlet."}


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("command,row", [
    (["metrics"], JUDGED), (["decompose"], ITEM), (["verify"], {"id": "p", "premise": "a", "hypothesis": "b"}),
    (["rank"], {"id": "r", "query": "q", "claims": []}), (["nuggets"], ITEM),
    (["comprehensiveness"], {**ITEM, "sources": ["Hamlet is a play."]}), (["score"], ITEM),
])
def test_output_that_is_the_input_is_refused(tmp_path, capsys, command, row):
    p = write(tmp_path / "in.jsonl", [row])
    before = p.read_bytes()
    assert main([*command, str(p), "-o", str(p)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert p.read_bytes() == before


def test_a_failed_run_keeps_the_previous_output(tmp_path, capsys):
    good = write(tmp_path / "good.jsonl", [JUDGED, {**JUDGED, "id": "r2"}])
    bad = write(tmp_path / "bad.jsonl", [JUDGED, {**JUDGED, "id": "r2"}, "{broken"])
    out = tmp_path / "out.jsonl"
    assert main(["metrics", str(good), "-o", str(out)]) == 0
    kept = out.read_bytes()
    assert len(kept.splitlines()) == 2
    assert main(["metrics", str(bad), "-o", str(out)]) == 2
    assert "bad.jsonl:3" in capsys.readouterr().err
    assert out.read_bytes() == kept  # not truncated, no partial rows
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []


def test_output_paths_that_would_fail_late_are_refused(tmp_path, capsys):
    p = write(tmp_path / "in.jsonl", [JUDGED])
    (tmp_path / "adir").mkdir()
    assert main(["metrics", str(p), "-o", str(tmp_path / "adir")]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["metrics", str(p), "-o", str(p.parent / "in.jsonl" / "x.jsonl")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main(["metrics", str(p), "-o", str(tmp_path / "o.jsonl"),
                 "--summary", str(tmp_path / "new" / "dir" / "s.json")]) == 0
    assert json.loads((tmp_path / "new" / "dir" / "s.json").read_text())["conditions"]


def test_a_byte_order_mark_is_accepted(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(JUDGED).encode() + b"\n")
    out = tmp_path / "o.jsonl"
    assert main(["metrics", str(p), "-o", str(out)]) == 0
    assert json.loads(out.read_text())["id"] == "r1"


@pytest.mark.parametrize("command,row", [
    (["decompose"], ITEM), (["verify"], {"id": "a", "premise": "x", "hypothesis": "y"}),
    (["rank"], {"id": "a", "query": "q", "claims": []}), (["nuggets"], ITEM),
])
def test_duplicate_ids_are_refused_before_any_model_loads(tmp_path, capsys, command, row):
    p = write(tmp_path / "in.jsonl", [row, {**row, "id": "a"}])
    assert main([*command, str(p)]) == 2
    err = capsys.readouterr().err
    assert "in.jsonl:2: field 'id': duplicate id 'a' (first on line 1)" in err


def test_rank_names_the_claim_field_with_its_path(tmp_path, capsys):
    p = write(tmp_path / "in.jsonl", [{"id": "k", "query": "q", "claims": [{"text": "Paris."}]}])
    assert main(["rank", str(p)]) == 2
    assert "field 'claims[0].id': missing required field" in capsys.readouterr().err


@pytest.mark.parametrize("change,field", [
    ({"n2s": {"n1": 5}}, "n2s.n1"),
    ({"order": ["c1", "zz"]}, "order[1]"),
    ({"order": [{"a": 1}]}, "order[0]"),
    ({"nuggets": [{"id": "n1"}, {"id": "n1"}]}, "nuggets[].id"),
    ({"nuggets": [{"id": "n1"}], "n2s": {"n2": ["c1"]}}, "n2s.n2"),
])
def test_judged_claims_ids_and_maps_are_checked(tmp_path, capsys, change, field):
    p = write(tmp_path / "in.jsonl", [{**JUDGED, **change}])
    assert main(["metrics", str(p)]) == 2
    assert f"in.jsonl:1: field '{field}'" in capsys.readouterr().err


def test_vital_order_elements_must_be_ids(tmp_path, capsys):
    row = {"query": "q", "response": "r", "decomposition": [{"sentence": "r", "decomp": [
        {"id": "s1", "text": "r", "judgment": True, "importance": "vital"}]}],
           "subclaim-importance-order": [{"x": 1}]}
    assert main(["metrics", str(write(tmp_path / "v.jsonl", [row]))]) == 2
    assert "field 'subclaim-importance-order[0]': expected a claim id" in capsys.readouterr().err


@pytest.mark.parametrize("row,extra,message", [
    ({**ITEM, "query": " "}, [], "field 'query': must not be empty"),
    ({**ITEM, "date": "yesterday-ish"}, [], "field 'date': 'yesterday-ish' is not an ISO date"),
    ({**ITEM, "references": ["Hamlet is a play."]}, ["--group-by", "nosuch"],
     "--group-by nosuch: no input row has that field"),
    (ITEM, ["--corpus", "nosuch"], "no corpus named 'nosuch'"),
    (ITEM, ["--nli-model", "/nonexistent/model"], "not found"),
])
def test_score_refuses_bad_rows_and_names_before_work(tmp_path, capsys, row, extra, message):
    p = write(tmp_path / "in.jsonl", [row])
    out = tmp_path / "out.jsonl"
    assert main(["score", str(p), "-o", str(out), "--home", str(tmp_path / "home"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_resume_refuses_an_output_written_from_other_input(tmp_path):
    out = tmp_path / "out.jsonl"
    rows = [{"id": "a", "status": "ok", "query": "q", "response": "r1", "date": None},
            {"id": "b", "status": "ok", "query": "q", "response": "r2", "date": None},
            {"id": "c", "status": "error"}]
    write(out, rows)
    same = [Item("a", "q", "r1"), Item("b", "q", "r2"), Item("c", "q", "r3")]
    check_resume(keep_rows(out, scored_ok, rewrite=False), same)  # matching rows (and an error row, to be redone): fine
    with pytest.raises(InputError, match=r"1 row\(s\) for ids not in the input \(e.g. 'b'\)"):
        check_resume(keep_rows(out, scored_ok, rewrite=False), same[:1])
    with pytest.raises(InputError, match=r"1 row\(s\) scored from another query, response or date"):
        check_resume(keep_rows(out, scored_ok, rewrite=False),
                     [Item("a", "q", "r1 edited"), same[1]])


def test_verify_and_search_refuse_empty_text(tmp_path, capsys):
    p = write(tmp_path / "in.jsonl", [{"id": "a", "premise": "", "hypothesis": "x"}])
    assert main(["verify", str(p)]) == 2
    assert "in.jsonl:1: field 'premise': must not be empty" in capsys.readouterr().err
    assert main(["search", "wiki-vital", "  "]) == 2
    assert "the query is empty" in capsys.readouterr().err


def test_a_device_output_is_written_in_place(tmp_path, capfd):
    # /dev/stdout is not a regular file: no hidden .partial file may be renamed over it
    p = write(tmp_path / "in.jsonl", [JUDGED])
    assert main(["metrics", str(p), "-o", "/dev/stdout"]) == 0
    out = capfd.readouterr().out
    rows = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    assert [r["id"] for r in rows] == ["r1"]
    assert Path("/dev/stdout").is_symlink() or not Path("/dev/stdout").is_file()  # left alone


def test_an_output_symlink_keeps_pointing_at_its_file(tmp_path):
    p = write(tmp_path / "in.jsonl", [JUDGED])
    real = tmp_path / "data" / "out.jsonl"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "out.jsonl"
    link.symlink_to(real)
    assert main(["metrics", str(p), "-o", str(link)]) == 0
    assert link.is_symlink() and json.loads(real.read_text())["id"] == "r1"


def test_an_input_folder_is_named_as_such(tmp_path, capsys):
    assert main(["metrics", str(tmp_path)]) == 2
    assert "is a folder; expected a JSONL file" in capsys.readouterr().err
