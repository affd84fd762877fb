from __future__ import annotations

import json

import pytest

from offline_eval.cli import main
from offline_eval.commands.rank import rank_rows, read
from offline_eval.errors import InputError


def write(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(p)


def test_rank_file_output_shape(tmp_path, fake_ranker):
    path = write(tmp_path, [
        {"id": "a", "query": "q", "claims": [{"id": "x", "text": "t1"}, {"id": 2, "text": "t2"}]},
        {"id": 7, "query": "q", "claims": []},
        {"id": "b", "query": "q"},
    ])
    rows = list(rank_rows(read(path), fake_ranker))
    assert rows[0] == {"id": "a", "claims": [
        {"id": "x", "importance": "vital", "importance_score": 0.0, "score": 0.0},
        {"id": "2", "importance": "less-important", "importance_score": -1.0, "score": -1.0}],
        "order": ["x", "2"]}  # score: importance_score's old name, kept one release
    assert rows[1] == {"id": "7", "claims": [], "order": []}
    assert rows[2] == {"id": "b", "claims": [], "order": []}


def test_plain_string_claims_take_their_place_as_id(tmp_path, fake_ranker):
    rows = list(rank_rows(read(write(tmp_path, [{"id": "a", "query": "q", "claims": ["t1", "t2"]}])),
                          fake_ranker))
    assert [c["id"] for c in rows[0]["claims"]] == ["0", "1"]
    assert rows == list(rank_rows(read(write(tmp_path, [{"id": "a", "query": "q", "claims": [
        {"id": "0", "text": "t1"}, {"id": "1", "text": "t2"}]}])), fake_ranker))


@pytest.mark.parametrize("row,match", [
    ({"id": "a", "claims": []}, r"in.jsonl:2: field 'query': missing required field"),
    ({"id": "a", "query": " ", "claims": []}, r"in.jsonl:2: field 'query': must not be empty"),
    ({"id": "a", "query": "q", "claims": [{"id": "x", "text": "1"}, {"id": "x", "text": "2"}]},
     r"in.jsonl:2: field 'claims\[1\].id': duplicate claim id 'x'"),
    ({"id": "a", "query": "q", "claims": [3]}, r"in.jsonl:2: field 'claims\[0\]': expected a string"),
    ({"id": "a", "query": "q", "claims": ["t", {"id": 0, "text": "u"}]},
     r"in.jsonl:2: field 'claims\[1\].id': duplicate claim id '0'"),
])
def test_bad_input_names_file_and_line(tmp_path, row, match, fake_ranker):
    path = write(tmp_path, [{"id": "ok", "query": "q", "claims": []}, row])
    with pytest.raises(InputError, match=match):
        list(rank_rows(read(path), fake_ranker))


def test_cli_reports_bad_input_with_exit_code_2(tmp_path, capsys):
    path = write(tmp_path, [{"id": "a", "claims": [{"id": "x", "text": "t"}]}])
    assert main(["rank", path]) == 2
    assert "in.jsonl:1: field 'query'" in capsys.readouterr().err


def test_cli_empty_claims_need_no_model(tmp_path):
    path = write(tmp_path, [{"id": "a", "query": "q", "claims": []}])
    out = tmp_path / "out.jsonl"
    assert main(["rank", path, "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == {"id": "a", "claims": [], "order": []}


def test_cli_rejects_unknown_backend(tmp_path, capsys):
    path = write(tmp_path, [{"id": "a", "query": "q", "claims": []}])
    with pytest.raises(SystemExit) as exc:
        main(["rank", path, "--backend", "tf"])
    assert exc.value.code == 2 and "invalid choice: 'tf'" in capsys.readouterr().err


def test_cli_rejects_negative_parse_workers(tmp_path, capsys):
    path = write(tmp_path, [{"id": "a", "query": "q", "claims": []}])
    assert main(["rank", path, "--parse-workers", "-1"]) == 2
    assert "parse_workers (--parse-workers) must be >= 0" in capsys.readouterr().err
