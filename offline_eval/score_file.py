"""``score_file``: score a file of answers into a resumable output, the run behind
``offline-eval score``.

Before any row is scored: every row is validated (duplicate ids refused), the NLI model,
the corpus (when a row has no references) and the ``group_by`` field are checked, an output
that already holds rows is kept unless ``resume`` or ``overwrite`` says what to do with it,
and the output is opened through the one resumable writer,
:class:`~offline_eval.io.resume.RunOutput`, with the run record
(:mod:`offline_eval.provenance`; with ``resume``, compared first with the record of the run
that wrote it). Then the local or the Ray engine writes the rows into it; the summary, the
table and the HTML report are written from the finished output.
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, Sequence

from offline_eval.engines.local import DEFAULT_BATCH_CHARS
from offline_eval.errors import InputError
from offline_eval.io.formats import CHOICES
from offline_eval.io.items import DEFAULT_LIMITS, Limits
from offline_eval.io.tables import ROW_KINDS
from offline_eval.options import check, option
from offline_eval.scoring import ScoreOptions, score_specs, summarize_run
from offline_eval.types import Item, RunSummary


@dataclass(frozen=True)
class ScoreJob:
    """How a file run reads, writes and runs (what :class:`ScoreOptions` leaves to the file
    run; none of it changes a row)."""

    format: str = option("native", "the rows' format: native {id, query, response, date?, "
                         "references?} (default), a peer tool's (factscore, veriscore, ragas, "
                         "nuggetizer), or auto (told from the first row, and said)",
                         choices=CHOICES)
    table: str | None = option(None, "also write the rows as a CSV/TSV or Parquet table "
                               "(objects as dotted columns, lists as JSON text)",
                               metavar="FILE.csv|FILE.parquet")
    table_rows: str = option("responses", "--table lines: one per answer (default) or one per "
                             "claim", choices=ROW_KINDS)
    max_response_chars: int = option(DEFAULT_LIMITS.response_chars, "refuse a longer response "
                                     "before any work", positive=True)
    max_reference_chars: int = option(DEFAULT_LIMITS.reference_chars, "refuse a longer "
                                      "reference", positive=True)
    max_references_chars: int = option(DEFAULT_LIMITS.references_chars, "read at most this "
                                       "many characters of a row's references, the parts most "
                                       "relevant to its query and answer, with a warning",
                                       positive=True)
    truncate: bool = option(False, "cut a response or reference over its limit, with a "
                            "warning, instead of refusing the input")
    html: str | None = option(None, "write a self-contained HTML report here")
    summary: str | None = option(None, "write the run summary JSON here")
    group_by: str | None = option(None, "input field naming the condition, e.g. group")
    pair_by: str = option("query", "field pairing rows across groups")
    progress_every: float = option(30.0, "when stderr is not a terminal, a progress line this "
                                   "often", metavar="SECONDS", positive=True)
    batch_chars: int = option(DEFAULT_BATCH_CHARS, "local engine: a batch also holds at most "
                              "this many characters of responses and references (at least one "
                              "row; 0: --batch-size alone), so that an interrupt loses little "
                              "work; rows do not depend on it", minimum=0)
    engine: str = option("local", "where the pipeline runs", choices=("local", "ray"))
    address: str | None = option(None, "Ray cluster address (auto|HOST:PORT); default: a local "
                                 "instance")
    actors: int = option(1, "Ray actors per model stage", positive=True)
    num_gpus_per_actor: float = option(0.0, "GPUs per Ray actor", minimum=0.0)

    def engine_for(self, batch_size: int, progress: bool = True) -> Any:
        """The :class:`~offline_eval.engines.Engine` these settings name."""
        from offline_eval.engines import LocalEngine, RayEngine

        if self.engine == "ray":
            return RayEngine(self.address, self.actors, self.num_gpus_per_actor, batch_size,
                             self.limits)
        return LocalEngine(batch_size, progress, self.progress_every, self.batch_chars)

    @property
    def limits(self) -> Limits:
        return Limits(self.max_response_chars, self.max_reference_chars, self.truncate,
                      self.max_references_chars)


@dataclass(frozen=True)
class ScoreFileRun:
    """What :func:`score_file` did: the summary (with the run record) and the engine's
    counts (``done``, ``failed``, ``skipped`` by ``resume``, ``seconds``)."""

    summary: RunSummary
    stats: Any


def score_file(input_path: str | os.PathLike[str], output: str | os.PathLike[str],
               options: ScoreOptions | None = None, job: ScoreJob | None = None, *,
               resume: bool = False, overwrite: bool = False,
               progress: bool = True) -> ScoreFileRun:
    """Score ``input_path`` (JSONL, CSV/TSV or Parquet) into ``output`` (JSONL; a folder
    with the Ray engine), then write the summary, table and report ``job`` asks for.

    Raises:
        InputError: a bad row (file:line and field), option, output or ``resume`` mismatch,
            before any row is scored.
    """
    from offline_eval.home import use_home

    opts = check(options or ScoreOptions())
    with use_home(opts.home):  # models and corpora are looked up in it, as in the CLI
        return _score_file(str(input_path), str(output), opts, check(job or ScoreJob()),
                           resume, overwrite, progress)


def _score_file(input_path: str, output: str, opts: ScoreOptions, job: ScoreJob, resume: bool,
                overwrite: bool, progress: bool) -> ScoreFileRun:
    from offline_eval.io.items import read_items
    from offline_eval.io.resume import refuse_filled_output

    from offline_eval.spacy_workers import default_workers
    default_workers()  # a bad OFFLINE_EVAL_SPACY_WORKERS stops the run here, not every batch
    engine = job.engine_for(opts.batch_size, progress)
    rows_path = engine.rows_path(output)
    refuse_filled_output(rows_path, resume, overwrite)
    _check_outputs(job, output)
    fmt = [job.format]

    def said(chosen: str) -> None:
        fmt[0] = chosen
        print(f"offline-eval: --format auto: {input_path} reads as {chosen}", file=sys.stderr)

    items = read_items(input_path, job.limits, job.format, chosen=said)
    if not items:
        warnings.warn(f"{input_path} has no rows", UserWarning, stacklevel=2)
    _check_sources(opts, job, items, input_path)
    specs = score_specs(opts)
    from offline_eval.engines.local import check_resume, scored_ok
    from offline_eval.io.resume import RunOutput
    from offline_eval.provenance import record_path, run_record

    # The run record is written beside the output before any row is scored; resume first
    # compares it with the record of the run that wrote the output and refuses another
    # configuration (flags, models, runtimes, corpus or library versions), so a file never
    # mixes rows scored two ways.
    record = run_record(opts, specs, needs_corpus=any(not it.references for it in items))
    to_row = partial(_score_row, undecided=opts.undecided, group_by=job.group_by or "group")
    with RunOutput(rows_path if output != "-" else None, record, resume=resume,
                   record_at=record_path(output, job.engine), keep=scored_ok,
                   check=lambda done: check_resume(done, items, str(rows_path)),
                   collect=True) as out:
        stats = engine.run(specs, items, (input_path, fmt[0]), out, to_row)
    lines = out.streamed if out.path is None else \
        rows_path.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line]
    # no wall-clock time in it: same run, same bytes
    summary = replace(summarize_run(rows, job.group_by, job.pair_by), run=record)
    _write_outputs(job, rows, summary)
    return ScoreFileRun(summary, stats)


def _score_row(r: Any, **kw: Any) -> dict[str, Any]:
    from offline_eval.io.rows import score_row
    return score_row(r, **kw)


def _check_outputs(job: ScoreJob, output: str) -> None:
    from offline_eval.io.jsonl import COMPRESSED
    from offline_eval.io.tables import is_table

    if job.engine == "local" and is_table(output):
        raise InputError("-o writes the resumable JSONL rows; for a CSV or Parquet table add "
                         f"--table {output}", path=output)
    if job.table:
        if Path(job.table).suffix.lower() in (".parquet", ".pq"):
            try:
                import pyarrow  # noqa: F401  (checked before the run, not after it)
            except ImportError:
                raise InputError("--table FILE.parquet needs pyarrow: pip install "
                                 "'offline-eval[tables]'") from None
        if not is_table(job.table) or Path(job.table).suffix.lower() in COMPRESSED:
            raise InputError("--table: a table file ends in .csv, .tsv, .parquet or .pq "
                             "(written uncompressed)", path=job.table)


def _write_outputs(job: ScoreJob, rows: list[dict[str, Any]], summary: RunSummary) -> None:
    if job.summary:
        from offline_eval.io.jsonl import write_json
        write_json(job.summary, summary.to_json())
    if job.table:
        from offline_eval.io.tables import write_table
        write_table(rows, job.table, job.table_rows)
    if job.html:
        from offline_eval.report import render_report
        render_report(sorted(rows, key=lambda r: str(r.get("id"))), summary.to_json(), job.html)


def _check_sources(opts: ScoreOptions, job: ScoreJob, items: Sequence[Item],
                   input_path: str) -> None:
    """The NLI model, the corpus (when an item has no references) and the group_by field
    are checked before any row is scored: a wrong name fails the run at once, not row by row."""
    from offline_eval.index.searcher import open_corpus
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import uncalibrated_warning

    note = uncalibrated_warning(resolve_model(opts.nli_model))
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
    if any(not it.references for it in items):
        open_corpus(opts.corpus, opts.home)
    g = job.group_by
    if not g or not items:
        return
    if not any(g in it.meta for it in items):
        raise InputError(f"--group-by {g}: no input row has that field")
    for it in items:
        v = it.meta.get(g)
        if v is not None and not isinstance(v, (str, int, float, bool)):
            raise InputError(f"--group-by {g}: row {it.id!r} has a {type(v).__name__} there; "
                             "expected a string, a number or a boolean", path=input_path,
                             field=g)
    missing = sum(g not in it.meta for it in items)
    if missing:
        warnings.warn(f"{missing} row(s) have no {g!r} field; they form the group 'None'",
                      UserWarning, stacklevel=3)


def summary_lines(summary: RunSummary, stats: Any) -> list[str]:
    """The terminal summary: counts, the audit added up, the worst answers, key metrics
    (mean and 95% CI) and per-group means."""
    m = summary.metrics
    show = ("factscore_precision", "vital_precision", "weighted_precision",
            "linear_decay_precision", "vital_rlp")
    ratio = summary.abstention_ratio
    lines = [f"scored {summary.n_responses} responses ({summary.n_failed} failed, "
             f"{getattr(stats, 'skipped', 0)} resumed) in {getattr(stats, 'seconds', 0):.1f}s; "
             f"abstention ratio {ratio if ratio is None else round(ratio, 3)}"]
    v = summary.verdicts
    n = max(1, sum(v.responses.values()))
    lines.append("  answers: " + ", ".join(f"{k.replace('_', ' ')} {c} ({100 * c / n:.0f}%)"
                                           for k, c in v.responses.items() if c))
    lines.append("  claims: " + ", ".join(f"{k} {c}" for k, c in v.claims.items() if c))
    if summary.worst:
        lines.append("  worst answers (as in --summary and the report):")
    for w in summary.worst[:5]:
        claim = next(iter(w["claims"]), None)
        what = f": {claim['text']!r} ({claim['audit']})" if claim else ""
        lines.append(f"    {w['id']}  {w['verdict'].replace('_', ' ')}, "
                     f"{w['severity'] or 'no'} severity{what}")
    for k in show:
        a = m.get(k)
        if a and a["mean"] is not None:
            lines.append(f"  {k:<26} {a['mean']:.3f}  [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}]  "
                         f"n={a['n']}")
    for g, s in (summary.groups or {}).items():
        vals = "  ".join(f"{k}={s['metrics'][k]['mean']:.3f}" for k in show
                         if k in s["metrics"] and s["metrics"][k]["mean"] is not None)
        lines.append(f"  [{g}] n={s['n_responses']}  {vals}")
    return lines


def warning_line(summary: RunSummary) -> str | None:
    """One line for the rows scored with a warning, or None."""
    w = summary.warnings or {}
    if not w.get("n_rows"):
        return None
    ids = ", ".join(w["ids"][:5]) + (", ..." if w["n_rows"] > 5 else "")
    return (f"{w['n_rows']} row(s) scored with a warning ({ids}): "
            + "; ".join(f"{m} ({n})" for m, n in w["messages"].items()))
