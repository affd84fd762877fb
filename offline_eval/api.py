"""The Python API. The CLI calls exactly these functions.

>>> import json, tempfile, os
>>> row = {"id": "r1", "query": "Where is the Eiffel Tower?", "claims": [
...     {"id": "c1", "text": "The Eiffel Tower is in Paris.", "judgment": True, "importance": "vital"},
...     {"id": "c2", "text": "It opened in 1890.", "judgment": False, "importance": "okay"}]}
>>> with tempfile.TemporaryDirectory() as d:
...     p = os.path.join(d, "in.jsonl")
...     _ = open(p, "w").write(json.dumps(row) + "\\n")
...     out = list(evaluate_judged(p))
>>> out[0]["metrics"]["factscore_precision"], out[0]["metrics"]["vital_rlp"]
(0.5, 0.0)
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from offline_eval.io.claims_input import read_judged
from offline_eval.io.rows import aggregate_json, mcnemar_json, metrics_row, paired_json
from offline_eval.measures.aggregate import MetricsAggregator
from offline_eval.measures.compare import compare_conditions
from offline_eval.measures.report import MetricConfig
from offline_eval.measures.stats import PairedTest
from offline_eval.pipeline import Pipeline
from offline_eval.stages.metrics import MetricsStage


def evaluate_judged(path: str | os.PathLike[str], config: MetricConfig | None = None,
                    batch_size: int = 64) -> Iterator[dict[str, Any]]:
    """Every metric for claims that already carry judgments and importance labels.

    Accepts the VITAL NQ format and the native format (see
    :mod:`offline_eval.io.claims_input`); yields one output row per input row.
    """
    cfg = config or MetricConfig()
    pipe = Pipeline([MetricsStage(cfg)], provided=("item", "claims", "nuggets", "order", "n2s"))
    for result in pipe.run(read_judged(path), batch_size=batch_size):
        yield metrics_row(result, cfg.undecided)


def summarize(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregates (mean and bootstrap 95% CI) of output rows' ``metrics``."""
    from offline_eval.types import MetricValue

    agg = MetricsAggregator()
    for row in rows:
        reasons = row.get("metric_reasons") or {}
        agg.update({k: MetricValue(v, None if v is not None else reasons.get(k))
                    for k, v in row["metrics"].items()},
                   bool(row.get("deflection", False)))
    return {"n_responses": agg.n, "abstention_ratio": agg.abstention.compute(),
            "metrics": {k: aggregate_json(v) for k, v in agg.compute().items()}}


def compare(groups: Mapping[str, Sequence[Mapping[str, Any]]], pair_by: str = "id") -> list[dict[str, Any]]:
    """Paired tests between conditions; rows are paired by the value of ``pair_by``
    (``id`` across files of one dataset, ``query`` for conditions within one file)."""
    values = {g: {str(r.get(pair_by)): r["metrics"] for r in rows} for g, rows in groups.items()}
    out = []
    for c in compare_conditions(values):
        test = (paired_json(c.test, *c.p_holm) if isinstance(c.test, PairedTest)
                else mcnemar_json(c.test, c.p_holm[0]))
        out.append({"metric": c.metric, "a": c.a, "b": c.b, **test})
    return out


def condition_name(path: str | os.PathLike[str]) -> str:
    """The condition a file stands for: its name without extension."""
    return Path(path).stem
