"""The metrics stage: fills ``metrics`` from judged, importance-labelled claims."""
from __future__ import annotations

from dataclasses import replace

from offline_eval.measures.report import MetricConfig, compute_response_metrics
from offline_eval.types import ResponseResult


class MetricsStage:
    """Computes every per-response metric (see :mod:`offline_eval.measures.report`)."""

    name = "offline_eval.stages.metrics.v1"
    requires: tuple[str, ...] = ("claims",)
    assigns: tuple[str, ...] = ("metrics",)

    def __init__(self, config: MetricConfig | None = None, **settings: object) -> None:
        self.config = config or MetricConfig(**settings)  # type: ignore[arg-type]

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        return [replace(r, metrics=compute_response_metrics(r, self.config)) for r in batch]
