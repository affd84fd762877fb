"""``offline-eval score IN -o OUT.jsonl``: :func:`offline_eval.score_file.score_file`,
flags from :class:`~offline_eval.scoring.ScoreOptions` and
:class:`~offline_eval.score_file.ScoreJob`."""
from __future__ import annotations

import argparse
import sys

from offline_eval.options import add_options
from offline_eval.score_file import ScoreJob
from offline_eval.scoring import ScoreOptions


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score responses end to end: claims, importance, evidence, "
                                     "verdicts, metrics and the audit",
                       description="Score {id, query, response, date?, references?} rows. Rows are "
                                   "appended as they finish; --resume continues a killed run.")
    p.add_argument("input", metavar="IN", help="the rows: JSONL, CSV/TSV or Parquet (by "
                   "suffix; JSONL, CSV and TSV may be .gz or .bz2)")
    p.add_argument("-o", "--output", required=True,
                   help="output JSONL (a folder with --engine ray)")
    add_options(p, ScoreOptions)
    add_options(p, ScoreJob)
    p.add_argument("--resume", action="store_true", help="skip ids already complete in the output")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an output that already holds scored rows (refused without it)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress and no model-loading lines on stderr")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from offline_eval.home import use_home
    from offline_eval.progress import show_progress
    from offline_eval.options import from_args
    from offline_eval.score_file import score_file, summary_lines, warning_line

    show_progress(not args.quiet)
    with use_home(args.home):
        done = score_file(args.input, args.output, from_args(ScoreOptions, args),
                          from_args(ScoreJob, args), resume=args.resume,
                          overwrite=args.overwrite, progress=not args.quiet)
    print("\n".join(summary_lines(done.summary, done.stats)),
          file=sys.stdout if args.output != "-" else sys.stderr)
    note = warning_line(done.summary)
    if note:
        print(f"offline-eval: warning: {note}", file=sys.stderr)
    return 1 if done.stats.failed else 0
