"""``offline-eval metrics IN.jsonl [IN2.jsonl ...] [-o OUT.jsonl] [--summary S.json]``:
:func:`offline_eval.metrics`, flags from its options."""
from __future__ import annotations

import argparse

from offline_eval.commands.metrics import MetricsOptions
from offline_eval.options import add_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="compute every metric from already-judged claims",
                       description="Compute every metric from claims that already carry judgments "
                                   "and importance labels (VITAL NQ format or native format). "
                                   "With several files, the summary compares them as paired "
                                   "conditions (paired by id).")
    p.add_argument("inputs", nargs="+", metavar="IN.jsonl")
    p.add_argument("-o", "--output", default="-", help="output JSONL (default: stdout)")
    p.add_argument("--summary", help="write aggregates (and comparisons) as JSON here")
    add_options(p, MetricsOptions)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from offline_eval.commands.metrics import metrics
    from offline_eval.io.jsonl import write_json, write_rows
    from offline_eval.options import from_args

    result = metrics(args.inputs, from_args(MetricsOptions, args))
    write_rows(args.output, result.rows)
    if args.summary:
        write_json(args.summary, result.summary)
    if args.output not in (None, "-"):  # stdout is free: show a human summary there
        print(format_summary(result.summary))
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
