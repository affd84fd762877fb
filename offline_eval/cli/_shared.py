"""What the commands share: the generated parsers of the row commands with their shared
flags, the checks of output paths, and the resume hint after a stopped run."""
from __future__ import annotations

import argparse
from typing import Any, Sequence


def add_row_command(sub: argparse._SubParsersAction, module: str, help: str) -> None:
    """The parser of a row command (:mod:`offline_eval.commands`): the input, ``-o``, a flag
    per option of its options dataclass, and the shared flags ``--resume``, ``--overwrite``,
    ``--home``, ``--quiet`` (as ``score`` has them; :func:`run_row_command` applies them);
    running it is one call of :func:`offline_eval.commands.write`."""
    import importlib

    from offline_eval.options import add_options

    mod = importlib.import_module(f"offline_eval.commands.{module}")
    doc = (mod.__doc__ or "").split("\n\n", 1)
    p = sub.add_parser(mod.COMMAND.name, help=help, description=doc[-1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN.jsonl", help="the rows (JSONL; .gz or .bz2 too)")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", default=None,
                   help="output JSONL (default: standard output)")
    add_options(p, mod.COMMAND.options)
    p.add_argument("--resume", action="store_true",
                   help="keep the rows a stopped run of the same input and options left in "
                        "the output (OUT.run.json records them) and compute only the rest")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an output that already holds rows (refused without it)")
    p.add_argument("--home", help="data home for corpora and imported models (default "
                   "$OFFLINE_EVAL_HOME or the user data dir)")
    p.add_argument("--quiet", action="store_true", help="no model-loading lines on stderr")
    p.set_defaults(row_command=True, func=lambda args: _write(mod.COMMAND, args))


def _write(command: Any, args: argparse.Namespace) -> int:
    from offline_eval.commands import write
    from offline_eval.options import from_args

    write(command, args.input, args.output, from_args(command.options, args), args.resume,
          args.overwrite)
    return 0


def run_row_command(args: argparse.Namespace) -> int:
    """Check the output and the shared flags, then run the command in its data home."""
    from offline_eval.home import use_home
    from offline_eval.progress import show_progress

    show_progress(not args.quiet)
    with use_home(args.home):
        return int(args.func(args) or 0)


def resume_hint(exc: BaseException, argv: Sequence[str]) -> str:
    """``; continue with: offline-eval ... --resume`` after a stopped run (else nothing)."""
    import shlex

    from offline_eval.engines.local import RunInterrupted

    if not isinstance(exc, RunInterrupted):
        return ""
    again = [a for a in argv if a not in ("--overwrite", "--resume")]
    return f"; continue with: offline-eval {shlex.join(again)} --resume"


def check_paths(args: argparse.Namespace) -> None:
    """Output paths that would destroy an input or fail after the work is done are
    refused before any work starts (see :func:`offline_eval.io.jsonl.check_paths`)."""
    from offline_eval.io.jsonl import check_paths as check

    ins = [getattr(args, "input", None), *(getattr(args, "inputs", None) or ()), getattr(args, "dev", None)]
    out = getattr(args, "output", None)
    folder = getattr(args, "engine", None) == "ray"  # score --engine ray writes a folder
    check([getattr(args, "summary", None), getattr(args, "html", None),
           getattr(args, "table", None), None if folder else out],
          [i for i in ins if isinstance(i, str)], [out] if folder else [])
