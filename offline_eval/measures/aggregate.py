"""Streaming, mergeable twins of the per-response metrics.

Each aggregator keeps sufficient state (values for bootstrap, counts for ratios) with
``update``, ``merge`` and ``compute``, so partial results from shards or resumed runs
combine into the same answer as one pass.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from offline_eval.measures.stats import bootstrap_mean
from offline_eval.types import AggregateValue, MetricValue


class MeanAggregator:
    """Mean of defined values over responses, with a bootstrap CI.

    When no response defines the metric, the aggregate's reason is the commonest reason
    the responses gave (ties broken by name), with its count.

    >>> a, b = MeanAggregator(), MeanAggregator()
    >>> a.update(1.0); b.update(0.0); b.update(None)
    >>> a.merge(b).compute().mean, a.n_undefined
    (0.5, 1)
    >>> c = MeanAggregator(); c.update(None, "no nuggets"); c.update(None, "no nuggets")
    >>> c.update(None); c.compute().reason
    'no defined values: no nuggets (2 of 3 responses)'
    """

    def __init__(self) -> None:
        self.values: list[float] = []
        self.n_undefined = 0
        self.reasons: dict[str, int] = {}

    def update(self, value: float | None, reason: str | None = None) -> None:
        if value is None:
            self.n_undefined += 1
            if reason:
                self.reasons[reason] = self.reasons.get(reason, 0) + 1
        else:
            self.values.append(float(value))

    def merge(self, other: "MeanAggregator") -> "MeanAggregator":
        self.values.extend(other.values)
        self.n_undefined += other.n_undefined
        for reason, count in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + count
        return self

    def compute(self) -> AggregateValue:
        # Sorting makes the bootstrap independent of arrival order (shards, resume).
        out = bootstrap_mean(sorted(self.values))
        if out.mean is None and self.reasons:
            reason, count = min(self.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
            out = AggregateValue(None, None, None, 0, f"{out.reason}: {reason} "
                                 f"({count} of {self.n_undefined} responses)")
        return out


class RatioAggregator:
    """A pooled ratio ``Σ num / Σ den`` (e.g. the abstention ratio).

    >>> r = RatioAggregator(); r.update(1, 1); r.update(0, 3); r.compute()
    0.25
    """

    def __init__(self) -> None:
        self.num = 0.0
        self.den = 0.0

    def update(self, num: float, den: float = 1.0) -> None:
        self.num += num
        self.den += den

    def merge(self, other: "RatioAggregator") -> "RatioAggregator":
        self.num += other.num
        self.den += other.den
        return self

    def compute(self) -> float | None:
        return self.num / self.den if self.den else None


class MetricsAggregator:
    """One :class:`MeanAggregator` per metric key, plus the abstention ratio."""

    def __init__(self) -> None:
        self.means: dict[str, MeanAggregator] = {}
        self.abstention = RatioAggregator()
        self.n = 0

    def update(self, metrics: Mapping[str, MetricValue], deflection: bool = False) -> None:
        self.n += 1
        self.abstention.update(float(deflection), 1.0)
        for key, mv in metrics.items():
            self.means.setdefault(key, MeanAggregator()).update(mv.value, mv.reason)

    def update_many(self, rows: Iterable[tuple[Mapping[str, MetricValue], bool]]) -> None:
        for metrics, deflection in rows:
            self.update(metrics, deflection)

    def merge(self, other: "MetricsAggregator") -> "MetricsAggregator":
        self.n += other.n
        self.abstention.merge(other.abstention)
        for key, agg in other.means.items():
            self.means.setdefault(key, MeanAggregator()).merge(agg)
        return self

    def compute(self) -> dict[str, AggregateValue]:
        return {key: self.means[key].compute() for key in sorted(self.means)}
