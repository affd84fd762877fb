"""The ``offline-eval`` command: parse, call the API, write. Nothing else.

The row commands' parsers are generated from their options (:data:`ROW_COMMANDS`,
:mod:`offline_eval.commands`); every other subcommand lives in its own module under
``offline_eval/cli/`` exposing ``add_parser(subparsers)``, which sets ``func=`` on its
parser; the function takes the parsed ``argparse.Namespace`` and returns an exit code.
The list of subcommands is :data:`COMMANDS`.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from offline_eval.errors import InputError, ModelError, OfflineEvalError

# Every subcommand, in the order of --help.
COMMANDS: tuple[str, ...] = ("score", "metrics", "decompose", "corpus", "search", "verify", "rank",
                             "nuggets", "comprehensiveness", "models", "status")

#: the row commands and their one-line help
ROW_COMMANDS: dict[str, str] = {
    "decompose": "split responses into atomic claims",
    "verify": "NLI on premise/hypothesis pairs or claims with their references",
    "rank": "label claims vital / okay / less-important",
    "nuggets": "nuggets from references, with their support",
    "comprehensiveness": "which facts in the references the answer misses",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="offline-eval",
        description="Score how factual and how complete an LLM answer is, fully offline.")
    from offline_eval import __version__
    from offline_eval.cli._shared import add_row_command

    parser.add_argument("--version", action="version", version=f"offline-eval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if name in ROW_COMMANDS:
            add_row_command(sub, name, ROW_COMMANDS[name])
        else:
            importlib.import_module(f"offline_eval.cli.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what was asked, for hints
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from offline_eval.cli._shared import check_paths, resume_hint, run_row_command
    from offline_eval.progress import warnings_on_stderr

    try:
        with warnings_on_stderr():
            check_paths(args)
            return run_row_command(args) if getattr(args, "row_command", False) \
                else int(args.func(args) or 0)
    except (InputError, ModelError, OfflineEvalError) as exc:
        print(f"offline-eval: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (InputError, ModelError)) else 1
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file the run could not read or write: no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"offline-eval: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # score says what is saved and how to resume
        print(f"offline-eval: interrupted{': ' + str(exc) if str(exc) else ''}"
              f"{resume_hint(exc, args.argv)}", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
