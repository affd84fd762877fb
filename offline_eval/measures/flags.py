"""Response-level error flags (VITAL): 1.0 when the response has the error, else 0.0.

VITAL-RLP: any vital subclaim is unsupported. VITAL-RLR: any vital nugget is
unsupported by the response (lenient: partial support counts as support). A response
with no vital subclaims (nuggets) has no such error; the reason says so.
"""
from __future__ import annotations

from typing import Sequence

from offline_eval.types import MetricValue


def vital_rlp(judgments: Sequence[bool | None], labels: Sequence[str | None]) -> MetricValue:
    """1.0 when a decided vital subclaim is unsupported.

    >>> vital_rlp([True, False], ["vital", "vital"]).value
    1.0
    """
    sel = [j for j, lab in zip(judgments, labels, strict=True) if lab == "vital" and j is not None]
    if not sel:
        return MetricValue(0.0, "no decided vital subclaims")
    return MetricValue(float(not all(sel)))


def vital_rlr(supports: Sequence[str | None], importances: Sequence[str | None]) -> MetricValue:
    """1.0 when a vital nugget is not supported at all.

    >>> vital_rlr(["partial_support"], ["vital"]).value
    0.0
    """
    sel = [s for s, imp in zip(supports, importances, strict=True) if imp == "vital"]
    if not sel:
        return MetricValue(0.0, "no vital nuggets")
    return MetricValue(float(any(s not in ("support", "partial_support") for s in sel)))
