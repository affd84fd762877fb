"""``score``: text in, verdicts, metrics and the audit out.

The stages, in order: split -> decompose -> rank -> retrieve -> verify -> nuggets ->
comprehensiveness -> metrics -> audit.
:func:`score_specs` turns :class:`ScoreOptions` into stage specs that any engine builds;
:func:`score` runs them in this process and returns the records, the rows ``offline-eval
score`` writes, and the run summary.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from offline_eval.audit.tally import (CLAIM_VERDICTS, RESPONSE_VERDICTS, WORST_LISTED,
                                      verdict_counts, worst_responses)
from offline_eval.coverage.facts import FACT_SETS
from offline_eval.coverage.methods import METHODS
from offline_eval.decomposition.base import DECOMPOSERS, GRANULARITIES, check_granularity
from offline_eval.engines.spec import StageSpec
from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.measures.report import UNDECIDED_POLICIES
from offline_eval.options import make, option
from offline_eval.runners.base import BACKENDS, DEVICES
from offline_eval.stages.retrieve import RETRIEVALS
from offline_eval.types import RunSummary, VerdictCounts

__all__ = ["CLAIM_VERDICTS", "RESPONSE_VERDICTS", "ScoreOptions", "ScoreRun", "score",
           "score_specs", "summarize_run", "verdict_counts", "WORST_LISTED"]


@dataclass(frozen=True)
class ScoreOptions:
    """What decides the rows of :func:`score` and ``offline-eval score`` (each field is also
    its flag: ``nli_model`` is ``--nli-model``).

    Attributes:
        corpus: corpus name or folder for evidence (items with references use those).
        decomposer: ``syntactic`` or ``generative``.
        granularity: ``clause`` (the guideline's clause-level claims) or ``atomic``
            (finer, FActScore-style; ``syntactic`` only). Always recorded in the
            decompose stage's spec, so two runs differ in spec when it differs.
        decomposer_model: a seq2seq checkpoint folder for the generative decomposer.
        nli_model: NLI model name or folder (default: the embedded one).
        backend: ``onnx`` | ``torch`` | None (the model's measured default).
        device: ``cpu`` | ``cuda`` | None (best available).
        batch_size: pairs per forward pass.
        k: evidence passages per claim.
        retrieval: ``subject`` (the claim's linked subject first) or ``bm25`` (corpus mode).
        home: the data home (corpora, imported models).
        gamma: FActScore length penalty.
        undecided: how inconclusive claims count in precision.
        comprehensiveness: ``nli`` | ``qa`` | ``direct`` for items with references, or None
            (``"none"``) to skip it.
        comprehensiveness_facts: ``vital`` | ``all``, the facts comprehensiveness checks.
        source_chars: nuggets and comprehensiveness facts come from at most this many
            characters of a row's references, those that share a word with its query, most
            relevant first (:func:`~offline_eval.io.focus.query_sources`; 0: every reference).
            The verify stage reads every reference.
    """

    corpus: str | None = option("wiki-vital", "corpus name or folder")
    decomposer: str = option("syntactic", "the claim decomposer", choices=DECOMPOSERS)
    granularity: str = option("clause", "claim granularity: clause (default, the guideline's) "
                              "or atomic (finer, FActScore-style; --decomposer syntactic only)",
                              choices=GRANULARITIES)
    decomposer_model: str | None = option(None, "T5/BART folder or LoRA adapter folder for "
                                          "--decomposer generative (default: "
                                          "models/decomposer-smollm2)")
    nli_model: str | None = option(None, "NLI model name or folder (default: the embedded "
                                   "nli-minilm)")
    backend: str | None = option(None, "default: the model's measured default",
                                 choices=BACKENDS)
    device: str | None = option(None, "default: best available", choices=DEVICES)
    batch_size: int = option(32, "pairs per forward pass, and answers per pipeline batch "
                             "(rows do not depend on it)", positive=True)
    k: int = option(5, "evidence passages per claim", flag="-k", positive=True)
    retrieval: str = option("subject", "corpus-mode evidence: subject (default: the passages "
                            "of the claim's linked subject, then the query's topic, then BM25 "
                            "naming them) or bm25", choices=RETRIEVALS)
    home: str | None = option(None, "data home for corpora, imported models and the exported "
                              "embedder (default $OFFLINE_EVAL_HOME or the user data dir)")
    gamma: int = option(10, "FActScore length penalty γ", positive=True)
    undecided: str = option("exclude", "how inconclusive claims count in precision",
                            choices=UNDECIDED_POLICIES)
    comprehensiveness: str | None = option("qa", "method for items with references (none "
                                           "skips it)", choices=(*METHODS, "none"))
    comprehensiveness_facts: str = option("vital", "facts comprehensiveness checks (default "
                                          "vital: the key fact per source)", choices=FACT_SETS)
    source_chars: int = option(SOURCE_CHARS, "nuggets and comprehensiveness facts come from at "
                               "most this many characters of a row's references, those that "
                               "share a word with its query, most relevant first (0: every "
                               "reference; verify reads them all)", minimum=0)

    def __post_init__(self) -> None:
        if self.comprehensiveness == "none":
            object.__setattr__(self, "comprehensiveness", None)
        check_granularity(self.decomposer, self.granularity)


@dataclass(frozen=True)
class ScoreRun:
    """What :func:`score` returns: the typed records (``results``), the output rows in input
    order (``rows``, as ``offline-eval score`` writes them) and the run summary."""

    results: Sequence[Any]
    rows: Sequence[dict[str, Any]]
    summary: RunSummary

    def to_pandas(self, rows: str = "responses") -> Any:
        """The rows as a pandas DataFrame: one line per answer (``"responses"``, objects as
        dotted columns, lists as JSON text, as ``score --table`` writes them) or per claim
        (``"claims"``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install 'offline-eval[tables]'") from None
        from offline_eval.io.tables import table_records

        return pd.DataFrame.from_records(table_records(self.rows, rows))


def score(items: "str | os.PathLike[str] | Iterable[Any]", options: ScoreOptions | None = None,
          *, batch_size: int | None = None, group_by: str | None = None,
          limits: Any = None, format: str = "native", **overrides: Any) -> ScoreRun:
    """Score answers in this process: what ``offline-eval score`` does, without the files.

    Args:
        items: a JSONL, CSV or Parquet path, a pandas DataFrame, or rows (``{"id", "query",
            "response", "date"?, "references"?}`` dicts) or :class:`~offline_eval.types.Item`
            records; rows are validated as the CLI validates a file (errors name
            ``<items>:N`` or ``<DataFrame>:N`` and the field; duplicate ids are refused). A
            row that fails gets an error row, as in the CLI, and the others go on.
        options: the run's options; keyword ``overrides`` replace single fields of it
            (``score(rows, corpus="my-notes", k=3)``).
        batch_size: responses per pipeline batch (rows do not depend on it).
        group_by: the item field naming the condition, for per-group summaries.
        limits: size limits of a row (:class:`~offline_eval.io.items.Limits`; the CLI's
            defaults when None).
        format: the rows' format: ``native`` or a peer tool's (``factscore``, ``veriscore``,
            ``ragas``, ``nuggetizer``; :mod:`offline_eval.io.formats`), or ``auto``.

    Raises:
        TypeError: an override that is not an option, naming the valid ones.

    >>> score([], comprehensiveness=None).summary["n_responses"]
    0
    >>> score([], corpus_name="x")
    Traceback (most recent call last):
    ...
    TypeError: unknown option 'corpus_name'; valid: corpus, decomposer, granularity, decomposer_model, nli_model, backend, device, batch_size, k, retrieval, home, gamma, undecided, comprehensiveness, comprehensiveness_facts, source_chars
    """
    from offline_eval.engines.local import run_batch
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import DEFAULT_LIMITS, read_items
    from offline_eval.io.rows import score_row

    opts = make(ScoreOptions, options, overrides)
    lim = limits or DEFAULT_LIMITS
    records = read_items(items, lim, format)
    pipeline = build_pipeline(score_specs(opts))
    to_row = lambda r: score_row(r, undecided=opts.undecided, group_by=group_by or "group")  # noqa: E731
    size = batch_size or opts.batch_size
    results, rows = [], []
    for start in range(0, len(records), size):  # a failing row gets an error row, as in the CLI
        for r, row in run_batch(records[start:start + size], pipeline, to_row):
            results += [r] if r is not None else []
            rows.append(row)
    return ScoreRun(results, rows, summarize_run(rows, group_by))


def _clean(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def score_specs(o: ScoreOptions) -> list[StageSpec]:
    """The stage specs of the ``score`` pipeline for these options."""
    return [
        StageSpec("offline_eval.stages.split.v1", {}, uses_model=True),
        StageSpec("offline_eval.stages.decompose.v1", _clean(
            {"decomposer": o.decomposer, "granularity": o.granularity,
             "model_dir": o.decomposer_model}), uses_model=True,
            uses_gpu=o.decomposer == "generative"),
        StageSpec("offline_eval.stages.rank.v1", {}, uses_model=True),
        StageSpec("offline_eval.stages.retrieve.v1", _clean(
            {"corpus": o.corpus, "k": o.k, "home": o.home, "retrieval": o.retrieval}),
            uses_model=True),
        StageSpec("offline_eval.stages.verify.v1", _clean(
            {"model": o.nli_model, "backend": o.backend, "device": o.device,
             "batch_size": o.batch_size}), uses_model=True, uses_gpu=True),
        # nuggets from the item's references (RAG mode); items without references get none
        StageSpec("offline_eval.stages.nuggets.v1", _clean(
            {"model": o.nli_model, "backend": o.backend, "device": o.device,
             "batch_size": o.batch_size, "source_chars": o.source_chars}),
            uses_model=True, uses_gpu=True),
        *([StageSpec("offline_eval.stages.comprehensiveness.v1", _clean(
            {"method": o.comprehensiveness, "facts": o.comprehensiveness_facts,
             "source_chars": o.source_chars,
             "decomposer": "syntactic", "model": o.nli_model,
             "backend": o.backend, "device": o.device, "batch_size": o.batch_size}),
            uses_model=True, uses_gpu=True)] if o.comprehensiveness else []),
        StageSpec("offline_eval.stages.metrics.v1", {"gamma": o.gamma, "undecided": o.undecided}),
        StageSpec("offline_eval.stages.audit.v1"),
    ]


def _warnings(rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Rows scored with a warning (text that does not look like English, a cut word): how
    many, the first ids, and each message's count."""
    flagged = [r for r in rows if r.get("warnings")]
    counts: dict[str, int] = {}
    for r in flagged:
        for w in r["warnings"]:
            counts[w] = counts.get(w, 0) + 1
    return {"n_rows": len(flagged), "ids": [str(r["id"]) for r in flagged[:20]],
            "messages": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))}


def summarize_run(rows: Iterable[Mapping[str, Any]], group_by: str | None = None,
                  pair_by: str = "query") -> RunSummary:
    """The run summary from written rows: aggregates, failures, the audit added up, the
    worst answers, warnings, groups and paired tests."""
    from offline_eval.api import compare, summarize

    ok, failed = [], 0
    for r in rows:
        if r.get("status") == "ok":
            ok.append(r)
        else:
            failed += 1
    ok.sort(key=lambda r: str(r["id"]))
    counts = verdict_counts(ok)
    groups = comparisons = None
    if group_by:
        by: dict[str, list] = {}
        for r in ok:
            by.setdefault(str(r.get("group")), []).append(r)
        groups = {g: summarize(rs) for g, rs in by.items()}
        if len(by) > 1:
            comparisons = compare(by, pair_by=pair_by)
    return RunSummary(**summarize(ok), n_failed=failed,
                      verdicts=VerdictCounts(counts["responses"], counts["claims"]),
                      worst=worst_responses(ok, WORST_LISTED), warnings=_warnings(ok),
                      groups=groups, comparisons=comparisons)
