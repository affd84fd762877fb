"""``offline-eval score IN.jsonl -o OUT.jsonl``: the main job."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Iterator

from offline_eval.decomposition.base import GRANULARITIES
from offline_eval.cli._shared import data_home, show_progress
from offline_eval.io.formats import CHOICES
from offline_eval.io.items import DEFAULT_LIMITS, Limits
from offline_eval.io.tables import ROW_KINDS
from offline_eval.stages.retrieve import RETRIEVALS
from offline_eval.runners.base import BACKENDS, DEVICES


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score responses end to end: claims, importance, evidence, "
                                     "verdicts, metrics and the audit",
                       description="Score {id, query, response, date?, references?} rows. Rows are "
                                   "appended as they finish; --resume continues a killed run.")
    p.add_argument("input", metavar="IN", help="the rows: JSONL, CSV/TSV or Parquet (by suffix)")
    p.add_argument("-o", "--output", required=True,
                   help="output JSONL (a folder with --engine ray)")
    p.add_argument("--format", choices=CHOICES, default="native",
                   help="the rows' format: native {id, query, response, date?, references?} "
                        "(default), a peer tool's (factscore, veriscore, ragas, nuggetizer), or "
                        "auto (told from the first row, and said)")
    p.add_argument("--table", metavar="FILE.csv|FILE.parquet",
                   help="also write the rows as a CSV/TSV or Parquet table (objects as dotted "
                        "columns, lists as JSON text)")
    p.add_argument("--table-rows", choices=ROW_KINDS, default="responses",
                   help="--table lines: one per answer (default) or one per claim")
    p.add_argument("--corpus", default="wiki-vital", help="corpus name or folder (default wiki-vital)")
    p.add_argument("--decomposer", choices=("syntactic", "generative"), default="syntactic")
    p.add_argument("--granularity", choices=GRANULARITIES, default="clause",
                   help="claim granularity: clause (default, the guideline's) or atomic "
                        "(finer, FActScore-style; --decomposer syntactic only)")
    p.add_argument("--decomposer-model", help="T5/BART folder or LoRA adapter folder for --decomposer "
                   "generative (default: models/decomposer-smollm2)")
    p.add_argument("--nli-model", help="NLI model name or folder (default: the embedded nli-minilm)")
    p.add_argument("--backend", choices=BACKENDS, help="default: the model's measured default")
    p.add_argument("--device", choices=DEVICES, help="default: best available")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("-k", type=int, default=5, help="evidence passages per claim")
    p.add_argument("--retrieval", choices=RETRIEVALS, default="subject",
                   help="corpus-mode evidence: subject (default: the passages of the claim's "
                        "linked subject, then the query's topic, then BM25 naming them) or bm25")
    p.add_argument("--comprehensiveness", choices=("qa", "nli", "direct", "none"), default="qa",
                   help="method for items with references (default qa; none skips it)")
    p.add_argument("--comprehensiveness-facts", choices=("vital", "all"), default="vital",
                   help="facts comprehensiveness checks (default vital: the key fact per source)")
    p.add_argument("--gamma", type=int, default=10, help="FActScore length penalty γ (default 10)")
    p.add_argument("--undecided", choices=("exclude", "unsupported"), default="exclude",
                   help="how inconclusive claims count in precision (default: exclude)")
    p.add_argument("--home", help="data home for corpora, imported models and the exported embedder "
                   "(default $OFFLINE_EVAL_HOME or the user data dir)")
    p.add_argument("--max-response-chars", type=int, default=DEFAULT_LIMITS.response_chars,
                   help=f"refuse a longer response before any work (default "
                        f"{DEFAULT_LIMITS.response_chars:,})")
    p.add_argument("--max-reference-chars", type=int, default=DEFAULT_LIMITS.reference_chars,
                   help=f"refuse a longer reference (default {DEFAULT_LIMITS.reference_chars:,})")
    p.add_argument("--max-references-chars", type=int, default=DEFAULT_LIMITS.references_chars,
                   help="read at most this many characters of a row's references, the parts "
                        "most relevant to its query and answer, with a warning (default "
                        f"{DEFAULT_LIMITS.references_chars:,})")
    p.add_argument("--truncate", action="store_true",
                   help="cut a response or reference over its limit, with a warning, instead of "
                        "refusing the input")
    p.add_argument("--html", help="write a self-contained HTML report here")
    p.add_argument("--summary", help="write the run summary JSON here")
    p.add_argument("--group-by", help="input field naming the condition, e.g. group")
    p.add_argument("--pair-by", default="query", help="field pairing rows across groups (default query)")
    p.add_argument("--resume", action="store_true", help="skip ids already complete in the output")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an output that already holds scored rows (refused without it)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress and no model-loading lines on stderr")
    p.add_argument("--progress-every", type=float, default=30.0, metavar="SECONDS",
                   help="when stderr is not a terminal, a progress line this often (default 30)")
    p.add_argument("--engine", choices=("local", "ray"), default="local")
    p.add_argument("--address", help="Ray cluster address (auto|HOST:PORT); default: a local instance")
    p.add_argument("--actors", type=int, default=1, help="Ray actors per model stage")
    p.add_argument("--num-gpus-per-actor", type=float, default=0.0)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with data_home(args.home):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import read_items
    from offline_eval.io.rows import score_row
    from offline_eval.scoring import ScoreOptions, score_specs, summarize_run

    from offline_eval.errors import InputError

    show_progress(not args.quiet)
    if args.batch_size <= 0 or args.k <= 0 or args.gamma <= 0 or args.progress_every <= 0:
        raise InputError("--batch-size, -k, --gamma and --progress-every must be positive")
    if args.granularity != "clause" and args.decomposer != "syntactic":
        raise InputError(f"--granularity {args.granularity} needs --decomposer syntactic")
    _check_output(args)
    if min(args.max_response_chars, args.max_reference_chars, args.max_references_chars) <= 0:
        raise InputError("--max-response-chars, --max-reference-chars and "
                         "--max-references-chars must be positive")
    limits = Limits(args.max_response_chars, args.max_reference_chars, args.truncate,
                    args.max_references_chars)
    from offline_eval.io.tables import is_table

    if args.engine == "local" and is_table(args.output):
        raise InputError("-o writes the resumable JSONL rows; for a CSV or Parquet table add "
                         f"--table {args.output}", path=args.output)
    if args.table:
        if Path(args.table).suffix.lower() in (".parquet", ".pq"):
            try:
                import pyarrow  # noqa: F401  (checked before the run, not after it)
            except ImportError:
                raise InputError("--table FILE.parquet needs pyarrow: pip install "
                                 "'offline-eval[tables]'") from None
        if not is_table(args.table):
            raise InputError("--table: a table file ends in .csv, .tsv, .parquet or .pq",
                             path=args.table)
    fmt = [args.format]

    def said(chosen: str) -> None:
        fmt[0] = chosen
        print(f"offline-eval: --format auto: {args.input} reads as {chosen}", file=sys.stderr)

    # validates every row and rejects duplicate ids first
    items = read_items(args.input, limits, args.format, chosen=said)
    if not items:
        print(f"offline-eval: warning: {args.input} has no rows", file=sys.stderr)
    _check_sources(args, items)
    opts = ScoreOptions(corpus=args.corpus, decomposer=args.decomposer,
                        granularity=args.granularity,
                        decomposer_model=args.decomposer_model, nli_model=args.nli_model,
                        backend=args.backend, device=args.device, batch_size=args.batch_size,
                        k=args.k, retrieval=args.retrieval, home=args.home, gamma=args.gamma, undecided=args.undecided,
                        comprehensiveness=None if args.comprehensiveness == "none"
                        else args.comprehensiveness,
                        comprehensiveness_facts=args.comprehensiveness_facts)
    specs = score_specs(opts)
    record = _check_record(args, opts, specs, items)
    to_row = partial(score_row, undecided=opts.undecided, group_by=args.group_by or "group")
    if args.engine == "ray":
        from offline_eval.engines.local import check_resume
        from offline_eval.engines.ray_engine import OUTPUT_NAME, run_ray

        if args.resume:
            check_resume(Path(args.output) / OUTPUT_NAME, items)
        stats = run_ray(_native_input(args, fmt[0]), specs, args.output, to_row, address=args.address,
                        actors=args.actors, num_gpus_per_actor=args.num_gpus_per_actor,
                        batch_size=args.batch_size, resume=args.resume, limits=limits)
        out_path = Path(args.output) / OUTPUT_NAME
    else:
        from offline_eval.engines.local import run_local

        pipeline = build_pipeline(specs)  # validated before any model loads
        with _saved_on_interrupt(args, len(items)):
            stats = run_local(items, pipeline, args.output, to_row, resume=args.resume,
                              batch_size=args.batch_size, progress=not args.quiet,
                              progress_every=args.progress_every)
        out_path = Path(args.output)
    rows = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines() if line]
    summary = summarize_run(rows, args.group_by, args.pair_by)  # no wall-clock time: same run, same bytes
    summary["run"] = record
    if args.summary:
        Path(args.summary).parent.mkdir(parents=True, exist_ok=True)
        Path(args.summary).write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n",
                                      encoding="utf-8")
    if args.table:
        from offline_eval.io.tables import write_table

        write_table(rows, args.table, args.table_rows)
    if args.html:
        from offline_eval.report import render_report

        render_report(sorted(rows, key=lambda r: str(r.get("id"))), summary, args.html)
    _print_summary(summary, stats, sys.stdout if args.output != "-" else sys.stderr)
    return 1 if stats.failed else 0


def _native_input(args: argparse.Namespace, fmt: str) -> str:
    """The input Ray workers read: the file itself when it is native JSONL, else its rows
    mapped onto the native format (as the driver read them), as JSONL in the output folder."""
    from offline_eval.io.formats import to_native
    from offline_eval.io.tables import is_table, read_rows

    if fmt == "native" and not is_table(args.input):
        return args.input
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    native = out / "input.native.jsonl"
    with native.open("w", encoding="utf-8") as fh:
        for n, (line, row) in enumerate(read_rows(args.input), 1):
            fh.write(json.dumps(to_native(row, fmt, args.input, line, n), ensure_ascii=False)
                     + "\n")
    return str(native)


@contextmanager
def _saved_on_interrupt(args: argparse.Namespace, total: int) -> Iterator[None]:
    """Ctrl-C or SIGTERM: say how many rows are saved and how to continue (exit code 130).
    Every finished batch is already flushed; ``--resume`` drops a torn last line."""
    import signal
    import shlex

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    except KeyboardInterrupt:
        out = Path(args.output)
        saved = 0
        if out.is_file():
            with out.open("rb") as fh:
                saved = sum(b'"status":"ok"' in line or b'"status": "ok"' in line for line in fh)
        argv = [a for a in getattr(args, "argv", sys.argv[1:]) if a not in ("--overwrite", "--resume")]
        raise KeyboardInterrupt(f"{saved} of {total} rows are saved in {out}; continue with: "
                                f"offline-eval {shlex.join(argv)} --resume") from None
    finally:
        signal.signal(signal.SIGTERM, old)


def _check_output(args: argparse.Namespace) -> None:
    """The rows file (``scores.jsonl`` in the folder with ``--engine ray``) is kept unless
    ``--resume`` or ``--overwrite`` says what to do with it (as for every row command)."""
    from offline_eval.cli._shared import refuse_filled_output

    out = Path(args.output)
    if args.engine == "ray":
        from offline_eval.engines.ray_engine import OUTPUT_NAME
        out = out / OUTPUT_NAME
    refuse_filled_output(out, args.resume, args.overwrite)


def _check_record(args: argparse.Namespace, opts: object, specs: list, items: list) -> dict:
    """The run record (:mod:`offline_eval.provenance`), written beside the output before any
    row is scored. ``--resume`` first compares it with the record of the run that wrote the
    output and refuses another configuration (flags, models, runtimes, corpus or library
    versions), so a file never mixes rows scored two ways."""
    from offline_eval.errors import InputError
    from offline_eval.provenance import differences, record_path, run_record, write_record

    record = run_record(opts, specs, needs_corpus=any(not it.references for it in items))
    path = record_path(args.output, args.engine)
    if path is None:
        return record
    if args.resume and path.is_file():
        try:
            then = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"unreadable run record ({exc}); pass --overwrite to start again",
                             path=str(path)) from None
        diffs = differences(then, record)
        if diffs:
            more = f"; and {len(diffs) - 6} more" if len(diffs) > 6 else ""
            raise InputError("--resume: the output was scored with another configuration: "
                             + "; ".join(diffs[:6]) + more + ". Resume with the same flags, "
                             "models and versions, or pass --overwrite to start again",
                             path=str(path))
    elif args.resume and Path(args.output).exists():
        print(f"offline-eval: warning: {path} is missing, so --resume cannot check that the rows "
              "already in the output were scored with these flags and models", file=sys.stderr)
    write_record(path, record)
    return record


def _check_sources(args: argparse.Namespace, items: list) -> None:
    """The NLI model, the corpus (when an item has no references) and the --group-by field
    are checked before any row is scored: a wrong name fails the run at once, not row by row."""
    from offline_eval.errors import InputError
    from offline_eval.index.searcher import open_corpus
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import uncalibrated_warning

    note = uncalibrated_warning(resolve_model(args.nli_model))
    if note:
        print(f"offline-eval: warning: {note}", file=sys.stderr)
    if any(not it.references for it in items):
        open_corpus(args.corpus, args.home)
    if args.group_by and items:
        g = args.group_by
        if not any(g in it.meta for it in items):
            raise InputError(f"--group-by {g}: no input row has that field")
        for it in items:
            v = it.meta.get(g)
            if v is not None and not isinstance(v, (str, int, float, bool)):
                raise InputError(f"--group-by {g}: row {it.id!r} has a {type(v).__name__} there; "
                                 "expected a string, a number or a boolean", path=args.input, field=g)
        missing = sum(g not in it.meta for it in items)
        if missing:
            print(f"offline-eval: warning: {missing} row(s) have no {g!r} field; they form the "
                  "group 'None'", file=sys.stderr)


def _print_summary(summary: dict, stats: object, fh) -> None:
    m = summary["metrics"]
    show = ("factscore_precision", "vital_precision", "weighted_precision",
            "linear_decay_precision", "vital_rlp")
    print(f"scored {summary['n_responses']} responses ({summary['n_failed']} failed, "
          f"{getattr(stats, 'skipped', 0)} resumed) in {getattr(stats, 'seconds', 0):.1f}s; "
          f"abstention ratio {summary['abstention_ratio'] if summary['abstention_ratio'] is None else round(summary['abstention_ratio'], 3)}", file=fh)
    v = summary.get("verdicts")
    if v:
        n = max(1, sum(v["responses"].values()))
        print("  answers: " + ", ".join(f"{k.replace('_', ' ')} {c} ({100 * c / n:.0f}%)"
                                        for k, c in v["responses"].items() if c), file=fh)
        print("  claims: " + ", ".join(f"{k} {c}" for k, c in v["claims"].items() if c), file=fh)
    worst = summary.get("worst") or []
    if worst:
        print("  worst answers (as in --summary and the report):", file=fh)
    for w in worst[:5]:
        claim = next(iter(w["claims"]), None)
        what = f": {claim['text']!r} ({claim['audit']})" if claim else ""
        print(f"    {w['id']}  {w['verdict'].replace('_', ' ')}, "
              f"{w['severity'] or 'no'} severity{what}", file=fh)
    for k in show:
        a = m.get(k)
        if a and a["mean"] is not None:
            print(f"  {k:<26} {a['mean']:.3f}  [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}]  n={a['n']}", file=fh)
    for g, s in summary.get("groups", {}).items():
        vals = "  ".join(f"{k}={s['metrics'][k]['mean']:.3f}" for k in show
                         if k in s["metrics"] and s["metrics"][k]["mean"] is not None)
        print(f"  [{g}] n={s['n_responses']}  {vals}", file=fh)
    w = summary.get("warnings") or {}
    if w.get("n_rows"):
        ids = ", ".join(w["ids"][:5]) + (", ..." if w["n_rows"] > 5 else "")
        print(f"offline-eval: warning: {w['n_rows']} row(s) scored with a warning ({ids}): "
              + "; ".join(f"{m} ({n})" for m, n in w["messages"].items()), file=sys.stderr)
