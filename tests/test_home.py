"""The data home: --home, then $OFFLINE_EVAL_HOME, then the user data dir."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from offline_eval.errors import InputError
from offline_eval.home import corpus_path, data_home


def test_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(tmp_path / "env"))
    assert data_home(tmp_path / "flag") == tmp_path / "flag"
    assert data_home() == tmp_path / "env"
    monkeypatch.delenv("OFFLINE_EVAL_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert data_home() == tmp_path / "xdg" / "offline-eval"
    assert data_home().name == "offline-eval"


@pytest.mark.parametrize("name", ["", ".hidden", "a/b", "..", "x" * 101, "sp ace"])
def test_bad_corpus_names(name):
    with pytest.raises(InputError):
        corpus_path(name, "/h")


def test_good_corpus_name():
    assert corpus_path("my_corpus-1.v2", "/h") == Path("/h/corpora/my_corpus-1.v2")
