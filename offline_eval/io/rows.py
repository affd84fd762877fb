"""Serialise results and summaries to JSON-ready dicts (one fixed shape each)."""
from __future__ import annotations

from typing import Any, Mapping

from offline_eval.measures.report import claim_counts, cumulative_curve
from offline_eval.measures.stats import McNemarTest, PairedTest
from offline_eval.measures.vital_compat import vital_scores
from offline_eval.types import AggregateValue, Coverage, MetricValue, ResponseResult


def metric_values(metrics: Mapping[str, MetricValue]) -> tuple[dict[str, Any], dict[str, str]]:
    """``({key: value}, {key: reason})`` with reasons only for undefined values."""
    return ({k: v.value for k, v in metrics.items()},
            {k: v.reason for k, v in metrics.items() if v.reason is not None})


def metrics_row(result: ResponseResult, undecided: str = "exclude") -> dict[str, Any]:
    """The output row of ``offline-eval metrics`` for one response."""
    values, reasons = metric_values(result.metrics)
    row: dict[str, Any] = {
        "id": result.id,
        "deflection": result.deflection,
        "metrics": values,
        "metric_reasons": reasons,
        "counts": claim_counts(result.claims),
        "cumulative_precision": cumulative_curve(result, undecided),
    }
    if result.item.meta.get("format") == "vital":
        vs = vital_scores(result)
        row["scores"] = vs.scores
        row["scores_unavailable"] = vs.unavailable
    return row


def aggregate_json(agg: AggregateValue) -> dict[str, Any]:
    return {"mean": agg.mean, "ci95": [agg.low, agg.high], "n": agg.n, "reason": agg.reason}


def paired_json(t: PairedTest, p_t: float | None, p_w: float | None) -> dict[str, Any]:
    return {"n": t.n, "mean_a": t.mean_a, "mean_b": t.mean_b, "mean_diff": t.mean_diff,
            "cohen_dz": t.cohen_dz, "t_p_holm": p_t, "wilcoxon_p_holm": p_w,
            "rank_biserial": t.rank_biserial}


def mcnemar_json(t: McNemarTest, p: float | None) -> dict[str, Any]:
    return {"n": t.n, "rate_a": t.rate_a, "rate_b": t.rate_b, "a_only": t.a_only,
            "b_only": t.b_only, "p_holm": p}


def _evidence_json(ev: Any) -> dict[str, Any] | None:
    if ev is None:
        return None
    return {"passage_id": ev.passage_id, "doc_id": ev.doc_id, "title": ev.title, "url": ev.url,
            "score": _r(ev.score), "text": ev.text, "start": ev.start, "end": ev.end,
            "found_by": ev.found_by, "why": ev.why}


def coverage_json(cov: Coverage | None) -> dict[str, Any] | None:
    """A comprehensiveness result: method, score, covered facts, missing facts (with importance)."""
    if cov is None:
        return None
    return {"method": cov.method, "score": _r(cov.score), "reason": cov.reason,
            "covered": [{"fact": f.text, "source_ids": list(f.source_ids)} for f in cov.covered],
            "missing": [{"fact": f.text, "source_ids": list(f.source_ids), "importance": f.importance}
                        for f in cov.missing]}


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 6)


def row_warnings(result: ResponseResult) -> list[str]:
    """What a reader of the row must know about how it was scored: what reading it found (a
    text cut at its size limit, empty references), then the split stage's (text that does
    not look like English, a word cut into pieces)."""
    split = result.notes.get("split") or {}
    return list(result.item.warnings) + list(split.get("warnings") or [])


def score_row(result: ResponseResult, undecided: str = "exclude",
              group_by: str | None = "group") -> dict[str, Any]:
    """The output row of ``offline-eval score`` for one response (schema in the README).

    ``group`` is the item's ``group_by`` field when it has one. Probabilities and scores
    are rounded to 6 decimals, so batch composition cannot change the bytes.
    """
    audits = {a.claim_id: a for a in result.audit.claims} if result.audit else {}
    claims = []
    for c in result.claims:
        a = audits.get(c.id)
        claims.append({
            "id": c.id, "text": c.text, "sentence_index": c.sentence_index, "sentence": c.sentence,
            "importance": c.importance, "importance_score": _r(c.importance_score), "rank": c.rank,
            "verdict": c.verdict.label if c.verdict else None,
            "probs": {k: _r(v) for k, v in c.verdict.probs.items()} if c.verdict else {},
            "verdict_reason": c.verdict.reason if c.verdict else None,
            "verdict_rule": c.verdict.rule if c.verdict else None,
            # what the verifier's rule compared, else what the audit's number rule did
            "compared": next((f.to_json() for f in (c.verdict.compared if c.verdict else None,
                                                    a.compared if a else None) if f), None),
            "judgment": c.judgment,
            "evidence": [_evidence_json(e) for e in c.evidence],
            "decisive_evidence": _evidence_json(c.verdict.evidence) if c.verdict else None,
            "audit": None if a is None else {"verdict": a.verdict, "magnitude": a.magnitude,
                                             "core": a.core, "timeliness": a.timeliness,
                                             "reasons": list(a.reasons)},
        })
    g = result.audit
    base = metrics_row(result, undecided)
    return {
        "id": result.id, "status": "ok", "query": result.item.query,
        "response": result.item.response, "date": result.item.date,
        **({"group": result.item.meta[group_by]} if group_by in result.item.meta else {}),
        "deflection": result.deflection,
        "warnings": row_warnings(result),
        "sentences": [{"text": s.text, "start": s.start, "end": s.end, "kind": s.kind,
                       "reason": s.reason} for s in result.sentences],
        "claims": claims,
        "nuggets": [{"id": n.id, "text": n.text, "importance": n.importance, "support": n.support,
                     "source_ids": list(n.source_ids)} for n in result.nuggets],
        "order": list(result.order),
        "comprehensiveness": coverage_json(result.comprehensiveness),
        "metrics": base["metrics"], "metric_reasons": base["metric_reasons"],
        "counts": base["counts"], "cumulative_precision": base["cumulative_precision"],
        "audit": None if g is None else {"deflection": g.deflection, "relevance": g.relevance,
                                         "timeliness": g.timeliness, "verdict": g.verdict,
                                         "reasons": list(g.reasons)},
    }
