"""``offline-eval metrics IN.jsonl [IN2.jsonl ...] [-o OUT.jsonl] [--summary S.json]``."""
from __future__ import annotations

import argparse
import json
import sys

from offline_eval.errors import InputError
from offline_eval.io.jsonl import JsonlWriter


def _weights(text: str) -> dict[str, float]:
    out = {}
    for part in text.split(","):
        key, _, val = part.partition("=")
        try:
            out[key.strip()] = float(val)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad weight {part!r}; use vital=1,okay=0.6,...")
    return out


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="compute every metric from already-judged claims",
                       description="Compute every metric from claims that already carry judgments "
                                   "and importance labels (VITAL NQ format or native format). "
                                   "With several files, the summary compares them as paired "
                                   "conditions (paired by id).")
    p.add_argument("inputs", nargs="+", metavar="IN.jsonl")
    p.add_argument("-o", "--output", default="-", help="output JSONL (default: stdout)")
    p.add_argument("--summary", help="write aggregates (and comparisons) as JSON here")
    p.add_argument("--gamma", type=int, default=10, help="FActScore length penalty γ (default 10)")
    p.add_argument("--weights", type=_weights, default=None,
                   help="importance weights, default vital=1,okay=0.6,less-important=0.4")
    p.add_argument("--undecided", choices=("exclude", "unsupported"), default="exclude",
                   help="how null judgments count in precision (default: exclude)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from offline_eval.api import compare, condition_name, evaluate_judged, summarize
    from offline_eval.metrics.report import MetricConfig

    kw = {"gamma": args.gamma, "undecided": args.undecided}
    if args.weights:
        kw["weights"] = args.weights
    cfg = MetricConfig(**kw)
    names = [condition_name(p) for p in args.inputs]
    if len(set(names)) != len(names):
        raise InputError("input files must have distinct names (they name the conditions)")
    groups: dict[str, list[dict]] = {}
    with JsonlWriter(args.output) as out:
        for path, name in zip(args.inputs, names):
            rows = groups.setdefault(name, [])
            for row in evaluate_judged(path, cfg):
                if len(args.inputs) > 1:
                    row = {"condition": name, **row}
                out.write(row)
                rows.append(row)
    if args.summary:
        summary = {"conditions": {g: summarize(r) for g, r in groups.items()}}
        if len(groups) > 1:
            summary["comparisons"] = compare(groups)
        with open(args.summary, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2, allow_nan=False)
            fh.write("\n")
        print(f"summary written to {args.summary}", file=sys.stderr)
    return 0
