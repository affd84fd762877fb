"""``metrics``: every metric from claims that already carry judgments and importance labels
(the VITAL NQ format or the native one), and with several conditions, paired tests
between them."""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from offline_eval.errors import InputError
from offline_eval.measures.report import UNDECIDED_POLICIES
from offline_eval.options import make, option


def parse_weights(text: str) -> dict[str, float]:
    """``vital=1,okay=0.6,less-important=0.4`` as a mapping (the ``--weights`` flag).

    >>> parse_weights("vital=1,okay=0.5")
    {'vital': 1.0, 'okay': 0.5}
    """
    out = {}
    for part in text.split(","):
        key, _, val = part.partition("=")
        try:
            out[key.strip()] = float(val)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad weight {part!r}; use vital=1,okay=0.6,...") from None
    return out


@dataclass(frozen=True)
class MetricsOptions:
    """The options of :func:`offline_eval.metrics` and ``offline-eval metrics``."""

    gamma: int = option(10, "FActScore length penalty γ (0: none)", minimum=0)
    weights: Mapping[str, float] | None = option(
        None, "importance weights (default vital=1,okay=0.6,less-important=0.4)",
        type=parse_weights, metavar="vital=W,okay=W,less-important=W")
    undecided: str = option("exclude", "how null judgments count in precision",
                            choices=UNDECIDED_POLICIES)


@dataclass(frozen=True)
class MetricsRun:
    """What :func:`metrics` returns: the rows (with ``condition`` first when there are
    several conditions) and the summary (``conditions``: aggregates per condition;
    ``comparisons``: paired tests, paired by id, with two conditions or more)."""

    rows: list[dict[str, Any]]
    summary: dict[str, Any] = field(default_factory=dict)


def conditions(items: Any) -> dict[str, Any]:
    """``{condition: source}``: a mapping as given; a list of paths, each named by its file
    name without extension; anything else (one path, or rows) one condition."""
    from offline_eval.api import condition_name

    if isinstance(items, Mapping):
        return dict(items)
    if isinstance(items, (str, os.PathLike)):
        return {condition_name(items): items}
    items = list(items)
    if items and all(isinstance(i, (str, os.PathLike)) for i in items):
        named = {condition_name(p): p for p in items}
        if len(named) != len(items):
            raise InputError("input files must have distinct names (they name the conditions)")
        return named
    return {"rows": items}


def metrics(items: "str | os.PathLike[str] | Iterable[Any] | Mapping[str, Any]",
            options: MetricsOptions | None = None, **overrides: Any) -> MetricsRun:
    """Every metric of judged claims, per row, with the summary.

    Args:
        items: a JSONL path, judged rows, a list of paths (one condition each) or a mapping
            ``{condition: path or rows}``.
        options: :class:`MetricsOptions`; keyword ``overrides`` replace single fields.
    """
    from offline_eval.api import compare, evaluate_judged, summarize
    from offline_eval.measures.report import MetricConfig

    o = make(MetricsOptions, options, overrides)
    cfg = MetricConfig(**{"gamma": o.gamma, "undecided": o.undecided,
                          **({"weights": dict(o.weights)} if o.weights else {})})
    named = conditions(items)
    groups: dict[str, list[dict[str, Any]]] = {name: [] for name in named}
    rows = []
    for name, source in named.items():
        for row in evaluate_judged(source, cfg):
            if len(named) > 1:
                row = {"condition": name, **row}
            rows.append(row)
            groups[name].append(row)
    summary: dict[str, Any] = {"conditions": {g: summarize(r) for g, r in groups.items()}}
    if len(groups) > 1:
        summary["comparisons"] = compare(groups)
    return MetricsRun(rows, summary)
