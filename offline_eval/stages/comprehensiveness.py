"""The comprehensiveness stage: which facts of an item's references the response misses.

Runs only on items that carry ``references`` (RAG mode); others keep ``None``. The method
is one of :data:`~offline_eval.coverage.methods.METHODS` (see that module for the
definitions). The NLI model is the verifier's, shared in memory with the verify stage.

>>> from offline_eval.types import Item, Reference, ResponseResult
>>> entail = lambda pairs: [1.0 if h.split()[-1] in p else 0.0 for p, h in pairs]
>>> item = Item("1", "When did the Marta enter service?", "The Marta entered service in 2011.",
...             references=(Reference("r1", "The Marta entered service in 2011."),))
>>> rec = Comprehensiveness(method="direct", entail=entail)([ResponseResult(item)])[0]
>>> rec.comprehensiveness.score, [f.text for f in rec.comprehensiveness.covered]
(1.0, ['The Marta entered service in 2011.'])
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from offline_eval.coverage.facts import FACT_SETS
from offline_eval.coverage.methods import DEFAULT_FACTS, METHODS, comprehensiveness
from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.types import ResponseResult

if TYPE_CHECKING:
    from offline_eval.coverage.methods import Entail

__all__ = ["Comprehensiveness"]


class Comprehensiveness:
    """Attach a :class:`~offline_eval.types.Coverage` to items with references.

    Args:
        method: ``nli`` | ``qa`` | ``direct``.
        facts: ``vital`` (the key fact of each source that answers the query) | ``all``.
        entail: ``pairs -> P(entailment)``; default: the NLI model named by ``model``.
        decomposer: the claim decomposer that splits reference sentences into facts.
        model, backend, device, batch_size: the NLI model (as for the verify stage).
        source_chars: the facts come from at most this many characters of the references,
            those most relevant to the query (0: every reference).
    """

    name = "offline_eval.stages.comprehensiveness.v1"
    requires: tuple[str, ...] = ()
    assigns: tuple[str, ...] = ("comprehensiveness",)

    def __init__(self, method: str = "qa", entail: Entail | None = None, decomposer: str = "syntactic",
                 model: str | None = None, backend: str | None = None,
                 device: str | None = None, batch_size: int = 32,
                 facts: str = DEFAULT_FACTS, source_chars: int = SOURCE_CHARS) -> None:
        if method not in METHODS:
            raise ValueError(f"unknown comprehensiveness method {method!r}; valid: {', '.join(METHODS)}")
        if facts not in FACT_SETS:
            raise ValueError(f"unknown fact set {facts!r}; valid: {', '.join(FACT_SETS)}")
        self.method, self.decomposer, self.facts = method, decomposer, facts
        self.source_chars = source_chars
        self.model, self.backend, self.device, self.batch_size = model, backend, device, batch_size
        self._entail, self._decompose = entail, None

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        out = []
        for rec in batch:
            refs = rec.item.references
            if not refs:
                out.append(rec)
                continue
            if self._entail is None:
                from offline_eval.coverage.api import load_entailer

                self._entail = load_entailer(self.model, self.backend, self.device, self.batch_size)
            if self._decompose is None and self.method != "direct":
                from offline_eval.coverage.api import load_decomposer

                self._decompose = load_decomposer(self.decomposer)
            cov = comprehensiveness(rec.item.query, [(r.id, r.text) for r in refs],
                                    rec.item.response, self.method, self._entail, self._decompose,
                                    self.facts, source_chars=self.source_chars)
            out.append(replace(rec, comprehensiveness=cov))
        return out
