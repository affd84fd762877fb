"""The VITAL authors' ``scores`` dict, key for key, with their conventions.

Their conventions differ from this library's native metrics in three ways, all
reproduced here: an undecided (null) judgment counts as unsupported; an empty tier
scores 0 rather than undefined; a one-item linear-decay list scores 0.

The recall keys need each nugget's importance and its AutoNuggetizer assignment. The
VITAL NQ files carry only the nugget→subclaim map (N2S), not those, so when a result
has no nuggets these keys are ``None`` and listed in ``unavailable`` with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from offline_eval.measures.decay import DEFAULT_TOPK, linear_decay_score
from offline_eval.measures.precision import DEFAULT_WEIGHTS
from offline_eval.measures.report import judgments_of, ordered_claims
from offline_eval.types import MetricValue, ResponseResult

VITAL_SCORE_KEYS: tuple[str, ...] = (
    "weighted-precision", "weighted-recall", "weighted-f1",
    "vital-precision", "vital-subclaims", "okay-precision", "okay-subclaims",
    "less-important-precision", "less-important-subclaims",
    "linear-decay-precision", "linear-decay-recall", "linear-decay-f1",
    "linear-decay-precision-topk", "linear-decay-recall-topk", "linear-decay-f1-topk",
)
_RECALL_KEYS = ("weighted-recall", "weighted-f1", "linear-decay-recall", "linear-decay-f1",
                "linear-decay-recall-topk", "linear-decay-f1-topk")
NO_NUGGETS_REASON = ("needs each nugget's importance and AutoNuggetizer assignment, "
                     "which the input does not carry (only N2S)")


@dataclass(frozen=True)
class VitalScores:
    """The scores dict and the keys that could not be derived, with reasons."""

    scores: dict[str, float | int | None]
    unavailable: dict[str, str]


def _zero(mv: MetricValue) -> float:
    return 0.0 if mv.value is None else mv.value


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0


def vital_scores(result: ResponseResult, weights: Mapping[str, float] = DEFAULT_WEIGHTS,
                 topk: int = DEFAULT_TOPK) -> VitalScores:
    """Compute the authors' scores for one response."""
    claims = list(result.claims)
    js = judgments_of(claims, "unsupported")
    tiers = {lab: [j for j, c in zip(js, claims) if c.importance == lab]
             for lab in ("vital", "okay", "less-important")}
    num = sum(weights[lab] * sum(v) for lab, v in tiers.items())
    den = sum(weights[lab] * len(v) for lab, v in tiers.items())
    wp = num / den if den > 0 else 0
    ranked = judgments_of(ordered_claims(claims, result.order), "unsupported")
    ldp, ldpk = _zero(linear_decay_score(ranked)), _zero(linear_decay_score(ranked[:topk]))
    s: dict[str, float | int | None] = {"weighted-precision": wp}
    for lab, v in tiers.items():
        s[f"{lab}-precision"] = sum(v) / len(v) if v else 0
        s[f"{lab}-subclaims"] = len(v)
    s["linear-decay-precision"], s["linear-decay-precision-topk"] = ldp, ldpk
    unavailable: dict[str, str] = {}
    if result.nuggets:
        sup = [n.support for n in result.nuggets]
        rec = [(n.importance, s_ not in (None, "not_support")) for n, s_ in zip(result.nuggets, sup)]
        rnum = sum(weights[i] * ok for i, ok in rec if i in ("vital", "okay"))
        rden = sum(weights[i] for i, _ in rec if i in ("vital", "okay"))
        wr = rnum / rden if rden > 0 else 0
        nj = [ok for _, ok in rec]
        ldr, ldrk = _zero(linear_decay_score(nj)), _zero(linear_decay_score(nj[:topk]))
        s.update({"weighted-recall": wr, "weighted-f1": _f1(wp, wr),
                  "linear-decay-recall": ldr, "linear-decay-f1": _f1(ldp, ldr),
                  "linear-decay-recall-topk": ldrk, "linear-decay-f1-topk": _f1(ldpk, ldrk)})
    else:
        for key in _RECALL_KEYS:
            s[key] = None
            unavailable[key] = NO_NUGGETS_REASON
    return VitalScores({k: s[k] for k in VITAL_SCORE_KEYS}, unavailable)
