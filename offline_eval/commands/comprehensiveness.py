"""``comprehensiveness``: which facts of the references the answer misses.

Rows ``{"id", "query", "references": [str | {"id", "text"}], "response"}`` (``sources`` is
read too, for one release) -> ``{"id", "method", "score", "covered", "missing"}``. No LLM:
``nli`` decomposes the references and checks entailment, ``qa`` asks cloze questions,
``direct`` checks reference sentences (cheapest).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from offline_eval.commands import RowCommand
from offline_eval.coverage.api import Parsed, read_rows
from offline_eval.coverage.facts import FACT_SETS
from offline_eval.coverage.methods import METHODS
from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.options import option
from offline_eval.runners.base import BACKENDS, DEVICES


@dataclass(frozen=True)
class ComprehensivenessOptions:
    """The options of :func:`offline_eval.comprehensiveness` and ``offline-eval
    comprehensiveness``."""

    method: str = option("qa", "how a fact counts as covered", choices=METHODS)
    facts: str = option("vital", "vital (default): per source, the key fact that answers the "
                        "query, conflicting answers being separate viewpoints; all: every "
                        "query-relevant fact, weighted by importance", choices=FACT_SETS)
    source_chars: int = option(SOURCE_CHARS, "facts come from at most this many characters of "
                               "a row's references, those that share a word with its query, "
                               "most relevant first (0: all of them)", minimum=0)
    nli_model: str | None = option(None, "NLI model name or folder (default: the embedded one)")
    backend: str | None = option(None, "NLI runtime (default: the model's measured default)",
                                 choices=BACKENDS)
    device: str | None = option(None, "default: best available", choices=DEVICES)
    batch_size: int = option(32, "pairs per forward pass (rows do not depend on it)",
                             positive=True, compared=False)


def models(o: ComprehensivenessOptions) -> dict[str, Any]:
    from offline_eval.provenance import nli_record

    return {"nli": nli_record(o.nli_model, o.backend, o.device)}


def compute(rows: Sequence[Parsed], o: ComprehensivenessOptions) -> Iterator[dict[str, Any]]:
    """Output rows, in order; the models load on the first row."""
    if not rows:
        return
    from offline_eval.coverage.api import evaluate_rows, load_decomposer, load_entailer

    entail = load_entailer(o.nli_model, o.backend, o.device, o.batch_size)
    decompose = None if o.method == "direct" else load_decomposer()
    yield from evaluate_rows(rows, o.method, entail, decompose, o.facts, o.source_chars)


COMMAND = RowCommand("comprehensiveness", ComprehensivenessOptions, read_rows,
                     lambda r: r[0], models, compute)
