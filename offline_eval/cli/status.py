"""``offline-eval status``: :func:`offline_eval.status.status`, one line per stage."""
from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="check which pipeline stages can run here")
    p.add_argument("--home", help="data home (default $OFFLINE_EVAL_HOME or the user data dir)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from offline_eval.status import status

    stages = status(args.home)
    for s in stages:
        detail = s.problem or s.note
        print(f"{s.name:<18} {'ready' if s.ready else 'NOT READY':<10} {s.what}"
              + (f"\n{'':<29} {detail}" if detail else ""))
    missing = [s.name for s in stages if not s.ready]
    if missing:
        print(f"\nNot ready: {', '.join(missing)}. `offline-eval metrics` works on claims that "
              "already carry judgments.")
    return 1 if missing else 0
