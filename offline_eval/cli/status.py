"""``offline-eval status``: which pipeline stages and commands are available here.

A stage is listed as available only when its module exists in this install, so a
stub is never presented as a result.
"""
from __future__ import annotations

import argparse
import importlib.util

# (pipeline stage, module that implements it, what it does)
STAGES: tuple[tuple[str, str, str], ...] = (
    ("split", "offline_eval.stages.split", "spaCy sentences, deflections, non-claims"),
    ("decompose", "offline_eval.stages.decompose", "atomic claims (syntactic / generative)"),
    ("rank", "offline_eval.stages.rank", "importance: vital / okay / less-important"),
    ("retrieve", "offline_eval.stages.retrieve", "BM25 evidence from a corpus or references"),
    ("verify", "offline_eval.stages.verify", "NLI verdicts over evidence"),
    ("nuggets", "offline_eval.stages.nuggets", "nuggets from references and their support"),
    ("metrics", "offline_eval.stages.metrics", "FActScore, VITAL, nugget and decay metrics"),
    ("audit", "offline_eval.stages.audit", "fact-checking-guideline audit"),
)


def available(module: str) -> bool:
    """True when ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="list the pipeline stages and which are available")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = []
    for name, module, what in STAGES:
        ok = available(module)
        if not ok:
            missing.append(name)
        print(f"{name:<10} {'available' if ok else 'NOT YET AVAILABLE':<18} {what}")
    if missing:
        print(f"\nNot yet available: {', '.join(missing)}. Commands that need them are not "
              "offered; `offline-eval metrics` works on claims that already carry judgments.")
    return 0
