"""Size limits of score rows: refused before any work with file:line and field, or cut."""
from __future__ import annotations

import json

import pytest

from offline_eval.cli import main
from offline_eval.errors import InputError
from offline_eval.io.items import Limits, read_items


def write(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


ROWS = [{"id": "a", "query": "q?", "response": "Paris is in France."},
        {"id": "b", "query": "q?", "response": "word " * 30},
        {"id": "c", "query": "q?", "response": "ok", "references": ["x" * 20, {"id": "r", "text": "y" * 50}]}]


def test_a_long_response_or_reference_is_refused_naming_line_and_field(tmp_path):
    p = write(tmp_path, ROWS)
    with pytest.raises(InputError) as exc:
        read_items(p, Limits(response_chars=100))
    assert (exc.value.line, exc.value.field) == (2, "response")
    assert "150 characters, over the limit of 100 (--max-response-chars" in str(exc.value)
    with pytest.raises(InputError) as exc:
        read_items(p, Limits(reference_chars=30))
    assert (exc.value.line, exc.value.field) == (3, "references[1].text")
    assert len(read_items(p)) == 3  # the defaults hold all of them


def test_truncate_cuts_at_a_word_with_a_warning_naming_the_row(tmp_path):
    p = write(tmp_path, ROWS)
    with pytest.warns(UserWarning, match=r"in\.jsonl:2: response cut from 150 to 99 characters"):
        items = read_items(p, Limits(response_chars=100, truncate=True))
    assert items[1].response == ("word " * 20).strip() and items[0].response == ROWS[0]["response"]
    assert items[1].warnings == ("response cut from 150 to 99 characters (--max-response-chars)",)
    assert items[0].warnings == ()


def test_the_cli_refuses_before_any_work(tmp_path, capsys):
    p = write(tmp_path, ROWS)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(p), "-o", str(out), "--max-response-chars", "100"]) == 2
    assert f"{p}:2: field 'response'" in capsys.readouterr().err
    assert not out.exists() or out.read_text() == ""
    assert main(["score", str(p), "-o", str(out), "--max-response-chars", "0"]) == 2
