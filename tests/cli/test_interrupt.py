"""Ctrl-C and SIGTERM during `score`: say how many rows are saved and how to resume."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time

import pytest

from offline_eval.cli import main
from offline_eval.cli.score import _saved_on_interrupt

ROWS = '{"id":"a","status":"ok"}\n{"id":"b","status":"ok"}\n{"id":"c","status":"error"}\n{"id":"d","st'


@pytest.fixture()
def out(tmp_path, monkeypatch):
    path = tmp_path / "o.jsonl"
    path.write_text(ROWS)
    monkeypatch.setattr(sys, "argv", ["offline-eval", "score", "in.jsonl", "-o", str(path), "--overwrite"])
    return path


@pytest.mark.parametrize("how", ["sigint", "sigterm"])
def test_an_interrupt_names_the_saved_rows_and_the_resume_command(out, how):
    with pytest.raises(KeyboardInterrupt) as exc:
        with _saved_on_interrupt(argparse.Namespace(output=str(out)), 5):
            if how == "sigint":
                raise KeyboardInterrupt
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises before this ends
    assert str(exc.value) == (f"2 of 5 rows are saved in {out}; continue with: offline-eval "
                              f"score in.jsonl -o {out} --resume")
    assert signal.getsignal(signal.SIGTERM) is not None  # the old handler is back


def test_main_prints_it_and_exits_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt("2 of 5 rows are saved in o.jsonl; continue with: ...")

    import offline_eval.cli.search as search

    monkeypatch.setattr(search, "run", interrupted)
    assert main(["search", "wiki-vital", "x"]) == 130
    assert capsys.readouterr().err == ("offline-eval: interrupted: 2 of 5 rows are saved in "
                                       "o.jsonl; continue with: ...\n")
