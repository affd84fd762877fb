"""``decompose``: responses to claims.

Input rows: ``{"id", "response", "query"?}`` (in Python, a plain string is a response whose
id is its place, from 1). Output rows::

    {"id", "deflection": bool,
     "sentences": [{"text", "start", "end", "kind": "claim|deflection|non_claim",
                    "reason"?, "claims": [str, ...]}],
     "claims": [str, ...], "reason"?, "warnings"?}

``claims`` lists all kept claims in order; ``reason`` explains an empty or
claim-less response; ``warnings`` flags text that does not look like English.
``granularity="atomic"`` (syntactic only) writes finer, FActScore-style claims.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from offline_eval.commands import RowCommand
from offline_eval.decomposition.base import DECOMPOSERS, GRANULARITIES, check_granularity
from offline_eval.errors import InputError
from offline_eval.options import option
from offline_eval.runners.base import DEVICES
from offline_eval.types import Item


@dataclass(frozen=True)
class DecomposeOptions:
    """The options of :func:`offline_eval.decompose` and ``offline-eval decompose``."""

    decomposer: str = option("syntactic", "the claim decomposer", choices=DECOMPOSERS)
    granularity: str = option("clause", "clause: the guideline's clause-level claims "
                              "(default); atomic: finer, FActScore-style claims (--decomposer "
                              "syntactic only)", choices=GRANULARITIES)
    decomposer_model: str | None = option(
        None, "for --decomposer generative: a T5/BART checkpoint folder or a LoRA adapter "
        "folder for SmolLM2-135M (default: models/decomposer-smollm2)")
    device: str = option("cpu", "where the generative decomposer runs", choices=DEVICES)
    batch_size: int = option(16, "rows per batch (rows do not depend on it)", positive=True,
                             compared=False)

    def __post_init__(self) -> None:
        if self.decomposer_model and self.decomposer != "generative":
            raise InputError("--decomposer-model needs --decomposer generative")
        check_granularity(self.decomposer, self.granularity)


def read(items: Any) -> list[Item]:
    """Every row validated (ids unique) before any model loads."""
    from offline_eval.io.jsonl import UniqueIds, get_field, row_source

    where, source = row_source(items, text="response")
    out, unique = [], UniqueIds(where)
    for line, row in source:
        rid = unique(get_field(row, "id", (str, int), path=where, line=line), line)
        response = get_field(row, "response", str, path=where, line=line)
        query = get_field(row, "query", str, path=where, line=line, default="",
                          nullable=True) or ""
        out.append(Item(id=rid, query=query, response=response))
    return out


def models(o: DecomposeOptions) -> dict[str, Any]:
    if o.decomposer != "generative":
        return {}
    from offline_eval.decomposition.generative import default_model_dir
    from offline_eval.provenance import files_digest

    folder = Path(o.decomposer_model) if o.decomposer_model else default_model_dir()
    return {"decomposer": files_digest(folder)}


def compute(items: Sequence[Item], o: DecomposeOptions) -> Iterator[dict[str, Any]]:
    """Output rows, in order (:func:`~offline_eval.decomposition.api.to_row`)."""
    from offline_eval.decomposition.api import decompose_items, to_row

    kw: dict[str, Any] = {"granularity": o.granularity}
    if o.decomposer == "generative":
        kw.update(model_dir=o.decomposer_model, device=o.device, batch_size=o.batch_size)
    for rec in decompose_items(items, o.decomposer, records_per_batch=o.batch_size, **kw):
        yield to_row(rec)


COMMAND = RowCommand("decompose", DecomposeOptions, read, lambda it: str(it.id), models, compute)
