"""The data home: where corpora and their indexes, imported NLI models and the exported
sentence embedder live.

Resolution order: an explicit ``home`` argument (the CLI's ``--home``), then the
environment variable ``OFFLINE_EVAL_HOME``, then the platform's user data directory:
``$XDG_DATA_HOME/offline-eval`` (default ``~/.local/share/offline-eval``) on Linux,
``~/Library/Application Support/offline-eval`` on macOS and
``%LOCALAPPDATA%\\offline-eval`` on Windows. Corpora are folders under
``<home>/corpora/<name>``.

>>> data_home("/data/oe").as_posix()
'/data/oe'
>>> corpus_path("wiki-vital", "/data/oe").as_posix()
'/data/oe/corpora/wiki-vital'
"""
from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from offline_eval.errors import InputError

ENV_VAR = "OFFLINE_EVAL_HOME"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def data_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The data directory (not created here)."""
    if home:
        return Path(home).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "offline-eval"


def corpora_dir(home: str | os.PathLike[str] | None = None) -> Path:
    """``<home>/corpora``."""
    return data_home(home) / "corpora"


def check_name(name: str) -> str:
    """Corpus names are letters, digits, ``.``, ``_`` and ``-``, not starting with a dot.

    >>> check_name("../etc")
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: field 'name': invalid corpus name '../etc': use letters, digits, '.', '_' and '-'
    """
    if not _NAME.fullmatch(name) or name in {".", ".."}:
        raise InputError(f"invalid corpus name {name!r}: use letters, digits, '.', '_' and '-'",
                         field="name")
    return name


def corpus_path(name: str, home: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the corpus ``name``."""
    return corpora_dir(home) / check_name(name)


@contextmanager
def use_home(home: str | os.PathLike[str] | None) -> Iterator[None]:
    """``--home`` for everything the run reads from a data home (corpora, imported NLI models,
    the exported embedder), and for Ray workers, which inherit the variable; restored after."""
    if not home:
        yield
        return
    old = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = str(Path(home).expanduser())
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = old
