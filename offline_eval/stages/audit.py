"""The audit stage: the fact-checking-guideline audit of each response."""
from __future__ import annotations

from dataclasses import replace

from offline_eval.audit.rules import audit_response
from offline_eval.types import ResponseResult


class Audit:
    """Fills ``audit`` from verdicts, importance and the response text."""

    name = "offline_eval.stages.audit.v1"
    requires: tuple[str, ...] = ("claims", "deflection")
    assigns: tuple[str, ...] = ("audit",)

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        return [replace(r, audit=audit_response(
            r.item.query, r.item.response, r.claims, deflection=r.deflection, order=r.order,
            date=r.item.date)) for r in batch]
