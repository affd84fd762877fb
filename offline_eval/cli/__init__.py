"""The ``offline-eval`` command: parse, call the API, write. Nothing else.

Each subcommand lives in its own module under ``offline_eval/cli/`` exposing
``add_parser(subparsers)`` which sets ``func=`` on its parser; the function takes the
parsed ``argparse.Namespace`` and returns an exit code. The list of subcommand
modules is :data:`COMMANDS`.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from offline_eval.errors import InputError, ModelError, OfflineEvalError, RenamedFieldWarning

# One line per subcommand module; order is the order in --help.
COMMANDS: tuple[str, ...] = (
    "score",
    "metrics",
    "decompose",
    "corpus",
    "search",
    "verify",
    "rank",
    "nuggets",
    "comprehensiveness",
    "models",
    "status",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="offline-eval",
        description="Score how factual and how complete an LLM answer is, fully offline.")
    from offline_eval import __version__
    parser.add_argument("--version", action="version", version=f"offline-eval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"offline_eval.cli.{name}").add_parser(sub)
    return parser


def _check_paths(args: argparse.Namespace) -> None:
    """Output paths that would destroy an input or fail after the work is done are
    refused before any work starts (see :func:`offline_eval.io.jsonl.check_paths`)."""
    from offline_eval.io.jsonl import check_paths

    ins = [getattr(args, "input", None), *(getattr(args, "inputs", None) or ()), getattr(args, "dev", None)]
    out = getattr(args, "output", None)
    folder = getattr(args, "engine", None) == "ray"  # score --engine ray writes a folder
    check_paths([getattr(args, "summary", None), getattr(args, "html", None),
                 getattr(args, "table", None), None if folder else out],
                [i for i in ins if isinstance(i, str)], [out] if folder else [])


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what was asked, for hints
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    import warnings

    shown = warnings.formatwarning  # our warnings read as one line, not as a code location
    warnings.formatwarning = lambda message, category, *a, **k: (  # type: ignore[assignment]
        f"offline-eval: warning: {message}\n" if issubclass(category, (UserWarning, RenamedFieldWarning))
        else shown(message, category, *a, **k))
    try:
        _check_paths(args)
        if getattr(args, "row_command", False):  # the shared flags of the row commands
            from offline_eval.cli._shared import run_row_command

            return run_row_command(args)
        return int(args.func(args) or 0)
    except (InputError, ModelError) as exc:
        print(f"offline-eval: error: {exc}", file=sys.stderr)
        return 2
    except OfflineEvalError as exc:
        print(f"offline-eval: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file the run could not read or write: no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"offline-eval: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # score says what is saved and how to resume
        print(f"offline-eval: interrupted{': ' + str(exc) if str(exc) else ''}", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = shown


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
