"""Ctrl-C and SIGTERM during `score`: say how many rows are saved and how to resume."""
from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from offline_eval.cli import main
from offline_eval.engines.local import RunInterrupted, saved_on_interrupt

ROWS = '{"id":"a","status":"ok"}\n{"id":"b","status":"ok"}\n{"id":"c","status":"error"}\n{"id":"d","st'


@pytest.fixture()
def out(tmp_path, monkeypatch):
    path = tmp_path / "o.jsonl"
    path.write_text(ROWS)
    monkeypatch.setattr(sys, "argv", ["offline-eval", "score", "in.jsonl", "-o", str(path), "--overwrite"])
    return path


@pytest.mark.parametrize("how", ["sigint", "sigterm"])
def test_an_interrupt_names_the_saved_rows_and_the_resume_command(out, how):
    with pytest.raises(RunInterrupted) as exc:
        with saved_on_interrupt(out, 5):
            if how == "sigint":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises before this ends
    assert str(exc.value) == f"2 of 5 rows are saved in {out}"
    assert (exc.value.saved, exc.value.total) == (2, 5)
    assert signal.getsignal(signal.SIGTERM) is not None  # the old handler is back


def test_main_prints_it_with_the_resume_command_and_exits_130(monkeypatch, capsys, tmp_path):
    from pathlib import Path

    import offline_eval.score_file as score_file

    def interrupted(*args, **kwargs):
        raise RunInterrupted(2, 5, Path("o.jsonl"))

    monkeypatch.setattr(score_file, "score_file", interrupted)
    inp = tmp_path / "in.jsonl"
    inp.write_text("")
    assert main(["score", str(inp), "-o", "o.jsonl", "--overwrite", "-k", "3"]) == 130
    assert capsys.readouterr().err == (
        "offline-eval: interrupted: 2 of 5 rows are saved in o.jsonl; continue with: "
        f"offline-eval score {inp} -o o.jsonl -k 3 --resume\n")


def test_a_plain_interrupt_gets_no_resume_hint(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    import offline_eval.cli.search as search

    monkeypatch.setattr(search, "run", interrupted)
    assert main(["search", "wiki-vital", "x"]) == 130
    assert capsys.readouterr().err == "offline-eval: interrupted\n"
