"""Nugget-based recall metrics.

Sources: AutoNuggetizer (Pradeep et al., 2024) for the four nugget-recall variants;
VITAL for VITAL recall, weighted recall and the nugget→subclaim map (N2S).
A nugget's support is ``support``, ``partial_support`` or ``not_support``.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from offline_eval.measures._util import ratio
from offline_eval.types import MetricValue

NUGGET_RECALL_VARIANTS = ("strict_vital", "strict_all", "vital", "all")


def nugget_recall(supports: Sequence[str | None], importances: Sequence[str | None],
                  variant: str) -> MetricValue:
    """AutoNuggetizer recall. ``strict_*`` counts only full support; the others count
    ``partial_support`` as 0.5. ``*_vital`` restricts to vital nuggets.

    >>> nugget_recall(["support", "partial_support"], ["vital", "okay"], "all").value
    0.75
    >>> nugget_recall([], [], "strict_all").reason
    'no nuggets'
    """
    if variant not in NUGGET_RECALL_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; valid: {', '.join(NUGGET_RECALL_VARIANTS)}")
    vital_only = variant.endswith("vital")
    partial = 0.0 if variant.startswith("strict") else 0.5
    sel = [s for s, imp in zip(supports, importances, strict=True)
           if not vital_only or imp == "vital"]
    got = sum(1.0 if s == "support" else partial if s == "partial_support" else 0.0 for s in sel)
    return ratio(got, len(sel), "no vital nuggets" if vital_only else "no nuggets")


def vital_recall(supports: Sequence[str | None], importances: Sequence[str | None]) -> MetricValue:
    """Supported vital nuggets / vital nuggets; partial support counts (lenient).

    >>> vital_recall(["partial_support", "not_support"], ["vital", "vital"]).value
    0.5
    """
    sel = [s for s, imp in zip(supports, importances, strict=True) if imp == "vital"]
    return ratio(sum(s in ("support", "partial_support") for s in sel), len(sel),
                 "no vital nuggets")


def weighted_recall(supports: Sequence[str | None], importances: Sequence[str | None],
                    weights: Mapping[str, float]) -> MetricValue:
    """``Σ w(label)·[support ≠ not_support] / Σ w(label)`` over labelled nuggets.

    >>> weighted_recall(["support", "not_support"], ["vital", "okay"], {"vital": 1, "okay": 0.5}).value
    0.6666666666666666
    """
    num = den = 0.0
    for s, imp in zip(supports, importances, strict=True):
        if imp not in weights:
            continue
        den += weights[imp]
        num += weights[imp] * (s in ("support", "partial_support"))
    return ratio(num, den, "no nuggets with an importance label")


def supports_from_n2s(n2s: Mapping[str, Sequence[str]], judgments: Mapping[str, bool | None],
                      nugget_ids: Sequence[str]) -> list[str]:
    """Derive nugget support through N2S: ``support`` when any subclaim mapped to the
    nugget is supported, else ``not_support``.

    >>> supports_from_n2s({"N0": ["S1"], "N1": []}, {"S1": True}, ["N0", "N1"])
    ['support', 'not_support']
    """
    return ["support" if any(judgments.get(s) is True for s in n2s.get(n, ())) else "not_support"
            for n in nugget_ids]
