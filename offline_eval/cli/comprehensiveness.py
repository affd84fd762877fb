"""``offline-eval comprehensiveness IN.jsonl [-o OUT.jsonl] [--method nli|qa|direct]
[--facts vital|all]``."""
from __future__ import annotations

import argparse

from offline_eval.cli._shared import add_row_flags
from offline_eval.cli._resume import nli_model, run_options
from offline_eval.runners.base import BACKENDS, DEVICES


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("comprehensiveness", help="which facts in the references the answer misses",
                       description="Rows {id, query, references: [str], response} -> {id, method, "
                                   "score, covered, missing} ('sources' is read too, for one "
                                   "release). No LLM: nli decomposes the references "
                                   "and checks entailment, qa asks cloze questions, direct checks "
                                   "reference sentences (cheapest).")
    p.add_argument("input", metavar="IN.jsonl")
    p.add_argument("-o", "--output", default="-")
    p.add_argument("--method", choices=("nli", "qa", "direct"), default="qa")
    p.add_argument("--facts", choices=("vital", "all"), default="vital",
                   help="vital (default): per source, the key fact that answers the query, "
                        "conflicting answers being separate viewpoints; all: every "
                        "query-relevant fact, weighted by importance")
    p.add_argument("--nli-model", help="NLI model name or folder (default: the embedded one)")
    p.add_argument("--backend", choices=BACKENDS)
    p.add_argument("--device", choices=DEVICES)
    p.add_argument("--batch-size", type=int, default=32)
    add_row_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from offline_eval.coverage.api import (evaluate_rows, load_decomposer, load_entailer,
                                                    read_rows)
    from offline_eval.io.resume import ResumableWriter

    rows = read_rows(args.input)  # every row validated before any model loads
    with ResumableWriter(args.output, args.input, run_options(args, nli=nli_model(args)),
                         resume=args.resume) as out:
        done = out.start([rid for rid, _, _, _ in rows])
        if done < len(rows):
            entail = load_entailer(args.nli_model, args.backend, args.device, args.batch_size)
            decompose = None if args.method == "direct" else load_decomposer()
            for row in evaluate_rows(rows[done:], args.method, entail, decompose, args.facts):
                out.write(row)
    return 0
