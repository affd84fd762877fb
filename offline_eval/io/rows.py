"""Serialise results and summaries to JSON-ready dicts (one fixed shape each)."""
from __future__ import annotations

from typing import Any, Mapping

from offline_eval.metrics.report import claim_counts, cumulative_curve
from offline_eval.metrics.stats import McNemarTest, PairedTest
from offline_eval.metrics.vital_compat import vital_scores
from offline_eval.types import AggregateValue, MetricValue, ResponseResult


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
