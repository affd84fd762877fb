"""What every command shares: the data home (``--home``), the library's progress lines
(``--quiet``), and for the commands that write one row per input row (``verify``,
``decompose``, ``rank``, ``nuggets``, ``comprehensiveness``) the shared flags and the rule
that an output holding rows is replaced only on ``--overwrite``."""
from __future__ import annotations

import argparse
import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from offline_eval.cli._resume import add_resume_flag
from offline_eval.errors import InputError


def add_row_flags(p: argparse.ArgumentParser, batch_size: int | None = None) -> None:
    """``--resume``, ``--overwrite``, ``--home``, ``--quiet`` (and ``--batch-size`` when
    ``batch_size`` is given), as ``score`` has them; :func:`run_row_command` applies them."""
    add_resume_flag(p)
    p.add_argument("--overwrite", action="store_true",
                   help="replace an output that already holds rows (refused without it)")
    p.add_argument("--home", help="data home for corpora and imported models (default "
                   "$OFFLINE_EVAL_HOME or the user data dir)")
    p.add_argument("--quiet", action="store_true", help="no model-loading lines on stderr")
    if batch_size is not None:
        p.add_argument("--batch-size", type=int, default=batch_size,
                       help=f"rows per batch (default {batch_size}; rows do not depend on it)")
    p.set_defaults(row_command=True)


def run_row_command(args: argparse.Namespace) -> int:
    """Check the output and the shared flags, then run the command in its data home."""
    if getattr(args, "batch_size", 1) <= 0:
        raise InputError("--batch-size must be positive")
    refuse_filled_output(args.output, args.resume, args.overwrite)
    show_progress(not args.quiet)
    with data_home(args.home):
        return int(args.func(args) or 0)


def refuse_filled_output(out: str | os.PathLike[str] | None, resume: bool,
                         overwrite: bool) -> None:
    """A finished (or killed) run's rows are never thrown away by accident: an output file
    that already holds rows needs ``--resume`` (continue it) or ``--overwrite`` (start again).
    Standard output and devices are always written."""
    if resume and overwrite:
        raise InputError("--resume and --overwrite exclude each other")
    if not out or str(out) == "-" or resume or overwrite or not Path(out).is_file() \
            or os.path.abspath(out).startswith(("/dev/", "/proc/")):
        return
    with open(out, "rb") as fh:
        if any(line.strip() for line in fh):
            raise InputError("already holds rows; pass --resume to continue that run, or "
                             "--overwrite to replace it", path=str(out))


@contextmanager
def data_home(home: str | None) -> Iterator[None]:
    """``--home`` for everything the run reads from a data home (corpora, imported NLI models,
    the exported embedder), and for Ray workers, which inherit the variable; restored after."""
    from offline_eval.index.home import ENV_VAR

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


class _Stderr(logging.Handler):
    """Writes ``offline-eval: MESSAGE`` to the stderr of the moment (tests swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        # through tqdm, so a line said while the bar is drawn does not break it
        tqdm.write(f"offline-eval: {record.getMessage()}", file=sys.stderr)


_HANDLER = _Stderr(logging.INFO)


def show_progress(on: bool) -> None:
    """The library's INFO lines (one per model loaded) on stderr, or none. transformers'
    own weight-loading bars are silenced either way: the line says the same."""
    log = logging.getLogger("offline_eval")
    if on and _HANDLER not in log.handlers:
        log.addHandler(_HANDLER)
        log.setLevel(logging.INFO)
        log.propagate = False   # said once, here, not again by a root handler
    elif not on and _HANDLER in log.handlers:
        log.removeHandler(_HANDLER)
        log.setLevel(logging.NOTSET)
        log.propagate = True
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # nothing to silence
        return
    hf_logging.disable_progress_bar()
