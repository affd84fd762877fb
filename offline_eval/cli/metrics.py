"""``offline-eval metrics IN.jsonl [IN2.jsonl ...] [-o OUT.jsonl] [--summary S.json]``."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

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
    from offline_eval.measures.report import MetricConfig

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
    summary: dict = {"conditions": {g: summarize(r) for g, r in groups.items()}}
    if len(groups) > 1:
        summary["comparisons"] = compare(groups)
    if args.summary:
        Path(args.summary).parent.mkdir(parents=True, exist_ok=True)
        with open(args.summary, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=2, allow_nan=False)
            fh.write("\n")
    if args.output not in (None, "-"):  # stdout is free: show a human summary there
        print(format_summary(summary))
    return 0


SHOWN = ("factscore_precision", "vital_precision", "weighted_precision",
         "linear_decay_precision", "vital_recall", "vital_rlp")


def format_summary(summary: dict) -> str:
    """A fixed-width table: one row per condition, mean [95% CI] per metric."""
    lines = [f"{'condition':<12} {'n':>4}  " + "  ".join(f"{k:>24}" for k in SHOWN)]
    for name, s in summary["conditions"].items():
        cells = []
        for k in SHOWN:
            a = s["metrics"].get(k, {})
            cells.append("n/a" if a.get("mean") is None else
                         f"{a['mean']:.3f} [{a['ci95'][0]:.2f},{a['ci95'][1]:.2f}]")
        lines.append(f"{name:<12} {s['n_responses']:>4}  " + "  ".join(f"{c:>24}" for c in cells))
    for c in summary.get("comparisons", []):
        if c["metric"] in SHOWN:
            p = c.get("t_p_holm", c.get("p_holm"))
            diff = c.get("mean_diff", (c.get("rate_a") or 0) - (c.get("rate_b") or 0))
            lines.append(f"{c['a']} vs {c['b']}: {c['metric']} diff {diff:+.3f} "
                         f"(n={c['n']}, Holm p={p if p is None else f'{p:.2g}'})")
    return "\n".join(lines)
