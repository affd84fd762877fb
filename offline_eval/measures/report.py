"""Every per-response metric, computed from one :class:`ResponseResult`.

The key set is fixed (:data:`METRIC_KEYS`); undefined values are ``None`` with a reason.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from offline_eval.measures.decay import DEFAULT_TOPK, linear_decay_score
from offline_eval.measures.flags import vital_rlp, vital_rlr
from offline_eval.measures.precision import (DEFAULT_WEIGHTS, cumulative_precision,
                                            factscore_precision, label_precision,
                                            weighted_precision)
from offline_eval.measures.recall import (NUGGET_RECALL_VARIANTS, nugget_recall,
                                         supports_from_n2s, vital_recall, weighted_recall)
from offline_eval.measures._util import harmonic
from offline_eval.types import Claim, MetricValue, ResponseResult

UNDECIDED_POLICIES = ("exclude", "unsupported")


@dataclass(frozen=True)
class MetricConfig:
    """Metric settings.

    Attributes:
        gamma: FActScore length penalty γ for ``factscore_precision_gamma``.
        weights: importance weights for the weighted metrics.
        topk: k of the linear-decay top-k variants.
        undecided: ``exclude`` drops claims without a decision (inconclusive) from
            precision; ``unsupported`` counts them as unsupported (the VITAL authors').
    """

    gamma: int = 10
    weights: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    topk: int = DEFAULT_TOPK
    undecided: str = "exclude"

    def __post_init__(self) -> None:
        if self.undecided not in UNDECIDED_POLICIES:
            raise ValueError(f"unknown undecided policy {self.undecided!r}; "
                             f"valid: {', '.join(UNDECIDED_POLICIES)}")


METRIC_KEYS: tuple[str, ...] = (
    "factscore_precision", "factscore_precision_gamma",
    "vital_precision", "okay_precision", "less_important_precision",
    "weighted_precision", "weighted_recall", "weighted_f1",
    "linear_decay_precision", "linear_decay_recall", "linear_decay_f1",
    "linear_decay_precision_topk", "linear_decay_recall_topk", "linear_decay_f1_topk",
    *(f"nugget_recall_{v}" for v in NUGGET_RECALL_VARIANTS),
    "vital_recall", "vital_rlp", "vital_rlr",
)

_NUGGETS = "the reference's nuggets"
# One line per metric, for the report and the docs (a test holds one for every key).
METRIC_MEANINGS: Mapping[str, str] = {
    "factscore_precision": "share of the decided claims that the evidence supports (FActScore)",
    "factscore_precision_gamma": "FActScore with its length penalty: near 0 for answers of "
                                 "few claims, so read it only on long answers",
    "vital_precision": "share of the decided vital claims that are supported",
    "okay_precision": "share of the decided okay claims that are supported",
    "less_important_precision": "share of the decided less-important claims that are supported",
    "weighted_precision": "supported share with claims weighted by importance (vital 1, okay "
                          "0.6, less important 0.4)",
    "weighted_recall": f"{_NUGGETS} the answer supports, weighted by importance",
    "weighted_f1": "harmonic mean of weighted precision and weighted recall",
    "linear_decay_precision": "precision over the claims in importance order, the first "
                              "weighing most",
    "linear_decay_recall": f"share of {_NUGGETS} supported, the first weighing most",
    "linear_decay_f1": "harmonic mean of the linear-decay precision and recall",
    "linear_decay_precision_topk": f"linear-decay precision over the first {DEFAULT_TOPK} "
                                   "claims",
    "linear_decay_recall_topk": f"linear-decay recall over the first {DEFAULT_TOPK} nuggets",
    "linear_decay_f1_topk": f"harmonic mean of the two over the first {DEFAULT_TOPK}",
    "nugget_recall_strict_vital": "vital nuggets the answer fully supports / vital nuggets",
    "nugget_recall_strict_all": "nuggets the answer fully supports / nuggets",
    "nugget_recall_vital": "vital nuggets supported, partial support counting half",
    "nugget_recall_all": "nuggets supported, partial support counting half",
    "vital_recall": "vital nuggets the answer supports at least in part / vital nuggets",
    "vital_rlp": "share of answers with a decided vital claim unsupported (an error flag: "
                 "lower is better)",
    "vital_rlr": "share of answers that leave a vital nugget unsupported (an error flag: "
                 "lower is better)",
}


def ordered_claims(claims: Sequence[Claim], order: Sequence[str] = ()) -> list[Claim]:
    """Claims in importance order: ``order`` (ids) when given, then by ``rank``, else as is.

    Claims missing from ``order`` follow in response order.
    """
    if order:
        pos = {cid: i for i, cid in enumerate(order)}
        return sorted(claims, key=lambda c: pos.get(c.id, len(pos)))
    if claims and all(c.rank is not None for c in claims):
        return sorted(claims, key=lambda c: c.rank)  # type: ignore[arg-type, return-value]
    return list(claims)


def judgments_of(claims: Sequence[Claim], undecided: str = "exclude") -> list[bool | None]:
    """Claim judgments under the undecided policy."""
    js = [c.judgment for c in claims]
    return [bool(j) for j in js] if undecided == "unsupported" else js


def nugget_supports(result: ResponseResult) -> list[str | None]:
    """Each nugget's support, derived through N2S where the nugget carries none."""
    derived = supports_from_n2s(result.n2s, {c.id: c.judgment for c in result.claims},
                                [n.id for n in result.nuggets]) if result.n2s else None
    return [n.support if n.support is not None or derived is None else derived[i]
            for i, n in enumerate(result.nuggets)]


def compute_response_metrics(result: ResponseResult,
                             config: MetricConfig | None = None) -> dict[str, MetricValue]:
    """All metrics of :data:`METRIC_KEYS` for one response."""
    cfg = config or MetricConfig()
    claims = list(result.claims)
    js = judgments_of(claims, cfg.undecided)
    labels = [c.importance for c in claims]
    ranked = [j for j in judgments_of(ordered_claims(claims, result.order), cfg.undecided)
              if j is not None]
    sup = nugget_supports(result)
    imps = [n.importance for n in result.nuggets]
    nug_js = [s in ("support", "partial_support") for s in sup]

    m: dict[str, MetricValue] = {
        "factscore_precision": factscore_precision(js),
        "factscore_precision_gamma": factscore_precision(js, cfg.gamma),
        "vital_precision": label_precision(js, labels, "vital"),
        "okay_precision": label_precision(js, labels, "okay"),
        "less_important_precision": label_precision(js, labels, "less-important"),
        "weighted_precision": weighted_precision(js, labels, cfg.weights),
        "weighted_recall": weighted_recall(sup, imps, cfg.weights),
        "linear_decay_precision": linear_decay_score(ranked, "no decided claims"),
        "linear_decay_recall": linear_decay_score(nug_js, "no nuggets"),
        "linear_decay_precision_topk": linear_decay_score(ranked[:cfg.topk], "no decided claims"),
        "linear_decay_recall_topk": linear_decay_score(nug_js[:cfg.topk], "no nuggets"),
    }
    m["weighted_f1"] = harmonic(m["weighted_precision"], m["weighted_recall"])
    m["linear_decay_f1"] = harmonic(m["linear_decay_precision"], m["linear_decay_recall"])
    m["linear_decay_f1_topk"] = harmonic(m["linear_decay_precision_topk"],
                                         m["linear_decay_recall_topk"])
    for v in NUGGET_RECALL_VARIANTS:
        m[f"nugget_recall_{v}"] = nugget_recall(sup, imps, v)
    m["vital_recall"] = vital_recall(sup, imps)
    m["vital_rlp"] = vital_rlp(js, labels)
    m["vital_rlr"] = vital_rlr(sup, imps) if result.nuggets else MetricValue(None, "no nuggets")
    return {k: m[k] for k in METRIC_KEYS}


def claim_counts(claims: Sequence[Claim]) -> dict[str, int]:
    """Fixed-key counts: claims, decided, supported, and per importance label."""
    return {
        "claims": len(claims),
        "decided": sum(c.judgment is not None for c in claims),
        "supported": sum(c.judgment is True for c in claims),
        "vital": sum(c.importance == "vital" for c in claims),
        "okay": sum(c.importance == "okay" for c in claims),
        "less_important": sum(c.importance == "less-important" for c in claims),
    }


def cumulative_curve(result: ResponseResult, undecided: str = "exclude") -> list[float | None]:
    """Cumulative precision by claim position in importance order."""
    return cumulative_precision(judgments_of(ordered_claims(result.claims, result.order), undecided))
