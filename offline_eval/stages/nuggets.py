"""The ``Nuggets`` stage: nuggets from an item's references (or the top corpus passages
when it has none), labelled vital/okay, with their support by the response.

Requires ``item``; assigns ``nuggets``. Support is left ``None`` when the response is
empty. The metrics stage turns supports into nugget recall, VITAL recall and VITAL-RLR.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.nuggetization.builder import NuggetBuilder, NuggetConfig, nugget_supports
from offline_eval.types import Reference, ResponseResult

if TYPE_CHECKING:
    from offline_eval.index.searcher import SearchIndex
    from offline_eval.nli.verifier import Verifier


def default_verifier(model: str | None = None, backend: str | None = None,
                     device: str | None = None, batch_size: int = 32) -> Any:
    """The NLI verifier of the nuggets stage (the model's ``nuggets`` block)."""
    from offline_eval.nli.verifier import load_nli

    return load_nli(model, backend, device, batch_size, purpose="nuggets")


def default_builder(config: NuggetConfig = NuggetConfig(),
                    decomposer: str = "syntactic") -> NuggetBuilder:
    """Ranker + syntactic decomposer + MiniLM deduplication."""
    from offline_eval.importance.ranker import ImportanceRanker
    from offline_eval.nuggetization.reference_facts import ReferenceFacts
    from offline_eval.runners.embedding import shared_embedder
    embedder = shared_embedder()  # the rank stage's copy when both run in one process
    return NuggetBuilder(ImportanceRanker(embedder=embedder), ReferenceFacts(decomposer),
                         embedder, config)


class Nuggets:
    """Builds nuggets and grades their support.

    Args:
        builder: a :class:`NuggetBuilder`; built on first use by default.
        verifier: an NLI :class:`~offline_eval.nli.verifier.Verifier`; loaded on first
            use by default (only when some response is non-empty).
        corpus: a search index (``search(query, k)``) for items without references.
        k: corpus passages used as references.
        support: grade support at all.
        model, backend, device, batch_size: the NLI model for support (as for the verify
            stage, whose loaded model it shares).
        source_chars: for the default builder, nuggets come from at most this many
            characters of the references, those most relevant to the query (0: every
            reference; a given ``builder`` keeps its own setting).
    """

    name = "offline_eval.stages.nuggets.v1"
    requires: tuple[str, ...] = ()
    assigns: tuple[str, ...] = ("nuggets",)

    def __init__(self, builder: NuggetBuilder | None = None, verifier: Verifier | None = None,
                 corpus: SearchIndex | None = None, k: int = 5, support: bool = True,
                 model: str | None = None, backend: str | None = None,
                 device: str | None = None, batch_size: int = 32,
                 source_chars: int = SOURCE_CHARS) -> None:
        self._builder, self._verifier = builder, verifier
        self.source_chars = source_chars
        self.batch_size = batch_size
        self.corpus, self.k, self.support = corpus, k, support
        self.model, self.backend, self.device = model, backend, device

    def references(self, rec: ResponseResult) -> tuple[Reference, ...]:
        if rec.item.references or self.corpus is None:
            return rec.item.references
        hits = self.corpus.search(rec.item.query, k=self.k)
        return tuple(Reference(e.passage_id, e.text, e.url, e.title)
                     for e in (h.to_evidence() for h in hits))

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        refs = [self.references(r) for r in batch]
        if not any(refs):
            return list(batch)
        if self._builder is None:
            self._builder = default_builder(NuggetConfig(source_chars=self.source_chars))
        built = self._builder.build_many([r.item.query for r in batch], refs)
        out = []
        for rec, nuggets in zip(batch, built):
            if self.support and nuggets and rec.item.response.strip():
                if self._verifier is None:
                    self._verifier = default_verifier(self.model, self.backend, self.device,
                                                      self.batch_size)
                grades = nugget_supports(self._verifier, nuggets, rec.item.response)
                nuggets = tuple(replace(n, support=g) for n, g in zip(nuggets, grades))
            out.append(replace(rec, nuggets=nuggets))
        return out
