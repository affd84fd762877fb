"""The retrieve stage: top-k evidence passages for every claim.

Two sources, chosen per item:

- **RAG mode**: an item that carries ``references`` is searched on its own; its
  references, read as one context in order, are chunked into passages (a passage may hold
  several short references and cites them all) and indexed in memory, and the corpus is
  not used.
- **Corpus mode**: any other item is searched in the corpus given to the stage (a
  :class:`~offline_eval.index.searcher.SearchIndex`, a corpus folder or a corpus name
  in the data home, e.g. ``"wiki-vital"``), opened on first use. With
  ``retrieval="subject"`` (the default) the evidence is about the claim's subject, in this
  order (:meth:`~offline_eval.index.searcher.SearchIndex.search_about`): the passages of
  the document the claim's subject links to by title or alias, then those of the query's
  topic, then BM25 over the corpus, keeping of other documents only their sentences that
  speak of a linked document (or name it, when the claim speaks of that document too).
  With nothing linked it is plain BM25; ``retrieval="bm25"`` is plain BM25 always. Each
  evidence item's ``found_by`` and ``why`` say why it was chosen.

The BM25 query is the claim text; with ``expand_query=True`` the words of the item's query
that are not already in the claim are added once each (topic context, e.g. the
question's subject when the claim says "it").

>>> from offline_eval.types import Claim, Item, Reference, ResponseResult
>>> item = Item("q1", "Tell me about Paris", "Paris is in France.", references=(
...     Reference("r1", "Paris is the capital and largest city of France."),
...     Reference("r2", "Berlin is the capital of Germany.")))
>>> rec = ResponseResult(item, claims=(Claim("c1", "Paris is in France."),))
>>> [e.passage_id for e in Retrieve(k=1)([rec])[0].claims[0].evidence]
['r1#0']
"""
from __future__ import annotations

import os
from dataclasses import replace

from offline_eval.errors import InputError, StageError
from offline_eval.index.chunk import ChunkConfig, Document, chunk_context
from offline_eval.index.searcher import SearchIndex, open_corpus, search
from offline_eval.index.tokenize import Tokenizer
from offline_eval.types import Item, ResponseResult

__all__ = ["Retrieve", "search", "reference_index", "RETRIEVALS"]

#: the corpus-mode retrieval orders (see the module docstring)
RETRIEVALS: tuple[str, ...] = ("subject", "bm25")


def reference_index(item: Item, tokenizer: Tokenizer | None = None,
                    chunking: ChunkConfig | None = None) -> SearchIndex:
    """An in-memory index of the item's references (RAG mode), read as one context in
    order (:func:`~offline_eval.index.chunk.chunk_context`): short references pack together
    into passages, and a passage's ``doc_id`` names every reference it holds."""
    docs = [Document(ref.id or f"ref{i}", ref.text, ref.title or "", ref.url)
            for i, ref in enumerate(item.references) if ref.text.strip()]
    if not docs:
        raise InputError(f"item {item.id!r}: its references have no text", field="references")
    return SearchIndex.from_passages(chunk_context(docs, chunking), tokenizer)


class Retrieve:
    """Sets ``Claim.evidence`` to the top-``k`` passages for each claim.

    Args:
        corpus: a SearchIndex, a corpus folder, a corpus name, or None (RAG only).
        k: passages per claim.
        expand_query: add the item's query words to each claim's query.
        home: the data home for corpus names (see :mod:`offline_eval.home`).
        tokenizer: the tokenizer for RAG references (corpora carry their own).
        chunking: passage sizes for RAG references.
        retrieval: ``subject`` (linked subject, query topic, then BM25) or ``bm25``, for
            corpus mode; RAG references are always ranked by BM25.
    """

    name = "offline_eval.stages.retrieve.v1"
    requires: tuple[str, ...] = ("claims",)
    assigns: tuple[str, ...] = ("claims",)

    def __init__(self, corpus: SearchIndex | str | os.PathLike[str] | None = None, k: int = 5,
                 expand_query: bool = True, home: str | os.PathLike[str] | None = None,
                 tokenizer: Tokenizer | None = None, chunking: ChunkConfig | None = None,
                 retrieval: str = "subject") -> None:
        if k <= 0:
            raise ValueError("k must be positive")
        if retrieval not in RETRIEVALS:
            raise ValueError(f"unknown retrieval {retrieval!r}; expected one of {', '.join(RETRIEVALS)}")
        self.retrieval = retrieval
        self.k, self.expand_query, self.home = k, expand_query, home
        self.tokenizer, self.chunking = tokenizer, chunking
        self._corpus = corpus if isinstance(corpus, SearchIndex) else None
        self._corpus_ref = None if isinstance(corpus, SearchIndex) else corpus

    def corpus(self) -> SearchIndex:
        """The corpus index, opened on first use."""
        if self._corpus is None:
            if self._corpus_ref is None:
                raise StageError(self.name, "an item has no references and no corpus was given; "
                                            "pass corpus='wiki-vital' or a corpus of your own")
            self._corpus = open_corpus(self._corpus_ref, self.home)
        return self._corpus

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        out = []
        for rec in batch:
            if not rec.claims:
                out.append(rec)
                continue
            item = rec.item
            rag = bool(item.references)
            index = reference_index(item, self.tokenizer, self.chunking) if rag else self.corpus()
            extra = item.query if self.expand_query else None
            about = not rag and self.retrieval == "subject"
            claims = tuple(replace(c, evidence=tuple(search(index, c.text, self.k, extra, about)))
                           for c in rec.claims)
            out.append(replace(rec, claims=claims))
        return out
