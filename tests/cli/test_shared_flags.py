"""Every row command takes the shared flags (input positional, -o, --home, --quiet,
--resume, --overwrite, --batch-size), and none replaces an output holding rows without
--overwrite."""
from __future__ import annotations

import argparse
import json

import pytest

from offline_eval.cli import build_parser, main

ROW_COMMANDS = ("verify", "decompose", "rank", "nuggets", "comprehensiveness")
SHARED = ("-o", "--home", "--quiet", "--resume", "--overwrite", "--batch-size")


def _subparsers():
    p = build_parser()
    return next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("name", ("score", *ROW_COMMANDS))
def test_every_row_command_has_the_shared_flags(name):
    sp = _subparsers()[name]
    flags = {o for a in sp._actions for o in a.option_strings}
    assert set(SHARED) <= flags, set(SHARED) - flags
    assert [a.dest for a in sp._actions if not a.option_strings] == ["input"]


@pytest.mark.parametrize("name", ROW_COMMANDS)
def test_an_output_holding_rows_needs_overwrite_or_resume(tmp_path, capsys, name):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text(json.dumps({"id": 1}) + "\n")
    out.write_text('{"id": "1"}\n')
    assert main([name, str(inp), "-o", str(out)]) == 2
    assert "already holds rows; pass --resume" in capsys.readouterr().err
    assert out.read_text() == '{"id": "1"}\n'  # untouched
    assert main([name, str(inp), "-o", str(out), "--resume", "--overwrite"]) == 2
    assert "exclude each other" in capsys.readouterr().err
    assert main([name, str(inp), "-o", str(out), "--batch-size", "0", "--overwrite"]) == 2
    assert "batch_size (--batch-size) must be positive" in capsys.readouterr().err
