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
from typing import Any, Iterator

from offline_eval.errors import InputError


def add_row_command(sub: argparse._SubParsersAction, module: str, help: str) -> None:
    """The parser of a row command (:mod:`offline_eval.commands`): the input, ``-o``, a flag
    per option of its options dataclass, and the shared flags; running it is one call of
    :func:`offline_eval.commands.write`."""
    import importlib

    from offline_eval.options import add_options

    mod = importlib.import_module(f"offline_eval.commands.{module}")
    doc = (mod.__doc__ or "").split("\n\n", 1)
    p = sub.add_parser(mod.COMMAND.name, help=help, description=doc[-1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN.jsonl", help="the rows (JSONL)")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", default=None,
                   help="output JSONL (default: standard output)")
    add_options(p, mod.COMMAND.options)
    add_row_flags(p)
    p.set_defaults(func=lambda args: _write(mod.COMMAND, args))


def _write(command: Any, args: argparse.Namespace) -> int:
    from offline_eval.commands import write
    from offline_eval.options import from_args

    write(command, args.input, args.output, from_args(command.options, args), args.resume)
    return 0


def add_row_flags(p: argparse.ArgumentParser) -> None:
    """``--resume``, ``--overwrite``, ``--home``, ``--quiet``, as ``score`` has them;
    :func:`run_row_command` applies them."""
    p.add_argument("--resume", action="store_true",
                   help="keep the rows a stopped run of the same input and options finished "
                        "(in .OUT.partial) and compute only the rest")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an output that already holds rows (refused without it)")
    p.add_argument("--home", help="data home for corpora and imported models (default "
                   "$OFFLINE_EVAL_HOME or the user data dir)")
    p.add_argument("--quiet", action="store_true", help="no model-loading lines on stderr")
    p.set_defaults(row_command=True)


def run_row_command(args: argparse.Namespace) -> int:
    """Check the output and the shared flags, then run the command in its data home."""
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
