"""``--resume`` for the commands that write one row per input row (see
:mod:`offline_eval.io.resume`): the flag, and the options a stopped run is compared on."""
from __future__ import annotations

import argparse
from typing import Any

#: arguments that never change a row
_NOT_COMPARED = {"func", "command", "input", "output", "resume", "quiet", "batch_size", "argv",
                 "parse_workers", "overwrite", "home", "row_command"}


def add_resume_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--resume", action="store_true",
                   help="keep the rows a stopped run of the same input and options finished "
                        "(in .OUT.partial) and compute only the rest")


def run_options(args: argparse.Namespace, **models: Any) -> dict[str, Any]:
    """The command's options that decide its rows, plus ``models`` (their records)."""
    opts = {k: v for k, v in sorted(vars(args).items()) if k not in _NOT_COMPARED}
    return {**opts, **{f"model:{k}": v for k, v in models.items()}}


def nli_model(args: argparse.Namespace) -> dict[str, Any]:
    """The NLI model of ``--nli-model/--backend/--device``, by manifest and runtime."""
    from offline_eval.provenance import nli_record

    return nli_record(args.nli_model, args.backend, args.device)
