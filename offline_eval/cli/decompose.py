"""``offline-eval decompose IN.jsonl [-o OUT.jsonl] [--decomposer syntactic|generative]
[--granularity clause|atomic] [--decomposer-model DIR] [--device cpu|cuda] [--batch-size N]``:
responses to claims.

Input rows: ``{"id", "response", "query"?}``. Output rows::

    {"id", "deflection": bool,
     "sentences": [{"text", "start", "end", "kind": "claim|deflection|non_claim",
                    "reason"?, "claims": [str, ...]}],
     "claims": [str, ...], "reason"?, "warnings"?}

``claims`` lists all kept claims in order; ``reason`` explains an empty or
claim-less response; ``warnings`` flags text that does not look like English.
``--granularity atomic`` (syntactic only) writes finer, FActScore-style claims.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from offline_eval.cli._shared import add_row_flags
from offline_eval.cli._resume import run_options
from offline_eval.decomposition.base import GRANULARITIES
from offline_eval.runners.base import DEVICES


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("decompose", help="split responses into atomic claims",
                       description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="JSONL input with id, response and optional query")
    p.add_argument("-o", "--output", help="JSONL output (default: stdout)")
    p.add_argument("--decomposer", choices=("syntactic", "generative"), default="syntactic")
    p.add_argument("--granularity", choices=GRANULARITIES, default="clause",
                   help="clause: the guideline's clause-level claims (default); atomic: finer, "
                        "FActScore-style claims (--decomposer syntactic only)")
    p.add_argument("--decomposer-model", default=None,
                   help="for --decomposer generative: a T5/BART checkpoint folder or a LoRA "
                        "adapter folder for SmolLM2-135M (default: models/decomposer-smollm2)")
    p.add_argument("--device", choices=DEVICES, default="cpu")
    p.add_argument("--batch-size", type=int, default=16)
    add_row_flags(p)
    p.set_defaults(func=run)


def _items(path: str) -> list:
    """Every row validated (ids unique) before any model loads."""
    from offline_eval.io.jsonl import UniqueIds, get_field, read_jsonl
    from offline_eval.types import Item

    out, unique = [], UniqueIds(path)
    for line, row in read_jsonl(path):
        rid = unique(get_field(row, "id", (str, int), path=path, line=line), line)
        response = get_field(row, "response", str, path=path, line=line)
        query = get_field(row, "query", str, path=path, line=line, default="", nullable=True) or ""
        out.append(Item(id=rid, query=query, response=response))
    return out


def run(args: argparse.Namespace) -> int:
    from offline_eval.decomposition.api import decompose_items, to_row
    from offline_eval.errors import InputError
    from offline_eval.io.resume import ResumableWriter

    if args.batch_size <= 0:
        raise InputError("--batch-size must be positive")
    if args.decomposer_model and args.decomposer != "generative":
        raise InputError("--decomposer-model needs --decomposer generative")
    if args.granularity != "clause" and args.decomposer != "syntactic":
        raise InputError(f"--granularity {args.granularity} needs --decomposer syntactic")
    options: dict[str, object] = {"granularity": args.granularity}
    if args.decomposer == "generative":
        options.update(model_dir=args.decomposer_model, device=args.device,
                       batch_size=args.batch_size)
    items = _items(args.input)
    models = {}
    if args.decomposer == "generative":
        from offline_eval.decomposition.generative import default_model_dir
        from offline_eval.provenance import files_digest

        folder = Path(args.decomposer_model) if args.decomposer_model else default_model_dir()
        models["decomposer"] = files_digest(folder)
    with ResumableWriter(args.output, args.input, run_options(args, **models),
                         resume=args.resume) as out:
        done = out.start([it.id for it in items])
        for rec in decompose_items(items[done:], args.decomposer,
                                   records_per_batch=args.batch_size, **options):
            out.write(to_row(rec))
    return 0
