"""Decomposition for Python users and the CLI: items in, records (or JSON rows) out.

>>> from offline_eval.types import Item
>>> rec = next(decompose_items([Item("a", "", "Sorry, the system is temporarily unavailable.")]))
>>> to_row(rec)["deflection"], to_row(rec)["claims"]
(True, [])
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator

from offline_eval.decomposition.base import Decomposer
from offline_eval.pipeline import Pipeline
from offline_eval.stages.decompose import Decompose
from offline_eval.stages.split import Split
from offline_eval.types import Item, ResponseResult


def decompose_pipeline(decomposer: Decomposer | str = "syntactic", **options: Any) -> Pipeline:
    """The Split + Decompose pipeline."""
    return Pipeline([Split(), Decompose(decomposer, **options)])


def decompose_items(items: Iterable[Item], decomposer: Decomposer | str = "syntactic", *,
                    records_per_batch: int = 16, **options: Any) -> Iterator[ResponseResult]:
    """Split and decompose each item; yields one record per item, in order.

    ``options`` go to the decomposer factory (``granularity``, ``model_dir``,
    ``device``, ``batch_size``); ``granularity="atomic"`` gives FActScore-style claims.
    """
    pipe = decompose_pipeline(decomposer, **options)
    return pipe.run((ResponseResult(item=it) for it in items), batch_size=records_per_batch)


def to_row(rec: ResponseResult) -> dict[str, Any]:
    """The ``offline-eval decompose`` output row for one record."""
    by_sentence: dict[int, list[str]] = {}
    for c in rec.claims:
        by_sentence.setdefault(c.sentence_index, []).append(c.text)
    sentences = []
    for i, s in enumerate(rec.sentences):
        row: dict[str, Any] = {"text": s.text, "start": s.start, "end": s.end, "kind": s.kind}
        if s.reason:
            row["reason"] = s.reason
        row["claims"] = by_sentence.get(i, [])
        sentences.append(row)
    out: dict[str, Any] = {"id": rec.id, "deflection": rec.deflection, "sentences": sentences,
                           "claims": [c.text for c in rec.claims]}
    split = rec.notes.get("split", {})
    if split.get("reason"):
        out["reason"] = split["reason"]
    warnings = list(split.get("warnings", [])) + list(rec.notes.get("decompose", {}).get("warnings", []))
    if warnings:
        out["warnings"] = warnings
    return out
