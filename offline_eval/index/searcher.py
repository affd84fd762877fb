"""Search over passages: a tokenizer, a BM25 index and the passages, together.

Build one in memory from documents (RAG references, tests) or open a corpus folder
written by :func:`~offline_eval.index.store.write_corpus` (memory-mapped).

>>> from offline_eval.index.chunk import Document
>>> idx = SearchIndex.from_documents([
...     Document("paris", "Paris is the capital of France.", title="Paris"),
...     Document("berlin", "Berlin is the capital of Germany.", title="Berlin"),
...     Document("rome", "Rome is the capital of Italy.", title="Rome")])
>>> [(h.passage.id, round(h.score, 3)) for h in idx.search("What is the capital of France?", 2)]
[('paris#0', 0.551), ('berlin#0', 0.04)]
>>> search(idx, "capital of Germany", k=1)[0].doc_id
'berlin'
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.index.bm25 import BM25Builder, BM25Index, BM25Params
from offline_eval.index.chunk import ChunkConfig, Document, Passage, chunk_documents
from offline_eval.index.home import corpus_path
from offline_eval.index.store import PassageStore, load_arrays, read_header
from offline_eval.index.tokenize import Tokenizer
from offline_eval.types import Evidence


@dataclass(frozen=True)
class Hit:
    """A passage and its BM25 score."""

    passage: Passage
    score: float

    def to_json(self) -> dict[str, Any]:
        """``{"id", "doc_id", "title", "url", "score", "text"}``."""
        p = self.passage
        return {"id": p.id, "doc_id": p.doc_id, "title": p.title, "url": p.url,
                "score": self.score, "text": p.text}

    def to_evidence(self) -> Evidence:
        p = self.passage
        return Evidence(passage_id=p.id, text=p.text, score=self.score, doc_id=p.doc_id,
                        title=p.title or None, url=p.url, start=p.start, end=p.end)


class SearchIndex:
    """Tokenizer + BM25 + passages. ``header`` describes an on-disk corpus."""

    def __init__(self, bm25: BM25Index, passages: Sequence[Passage], tokenizer: Tokenizer,
                 header: Mapping[str, Any] | None = None) -> None:
        if len(passages) != bm25.n_docs:
            raise InputError("passages and index disagree; rebuild the corpus")
        self.bm25, self.passages, self.tokenizer = bm25, passages, tokenizer
        self.header = dict(header or {})

    @classmethod
    def from_documents(cls, documents: Iterable[Document], tokenizer: Tokenizer | None = None,
                       chunking: ChunkConfig | None = None,
                       params: BM25Params | None = None) -> "SearchIndex":
        """Chunk and index documents in memory. InputError when nothing to index."""
        tok = tokenizer or Tokenizer()
        passages = list(chunk_documents(documents, chunking))
        builder = BM25Builder()
        for p in passages:
            builder.add(tok(p.contents))
        return cls(builder.finish(params), passages, tok)

    @classmethod
    def open(cls, folder: str | os.PathLike[str]) -> "SearchIndex":
        """Open a corpus folder (memory-mapped); InputError on a bad or old format."""
        header = read_header(folder)
        tok = Tokenizer.from_json(header["tokenizer"])
        return cls(load_arrays(folder, header), PassageStore(Path(folder)), tok, header)

    def search(self, query: str, k: int = 10, extra: str | None = None) -> list[Hit]:
        """The ``k`` best passages for ``query``, best first.

        Args:
            extra: optional context (e.g. the question a claim answers); its tokens that
                are not already in ``query`` are added once each.
        """
        tokens = self.tokenizer(query)
        if extra:
            have = set(tokens)
            tokens += [t for t in dict.fromkeys(self.tokenizer(extra)) if t not in have]
        docs, scores = self.bm25.top_k(tokens, k)
        return [Hit(self.passages[int(d)], float(s)) for d, s in zip(docs, scores)]


def corpus_folder(name_or_path: str | os.PathLike[str],
                  home: str | os.PathLike[str] | None = None) -> Path:
    """The folder of a corpus given by folder path, or by name under the data home."""
    p = Path(name_or_path)
    if (p / "header.json").is_file():
        return p
    folder = corpus_path(str(name_or_path), home)
    if not folder.is_dir():
        hint = "" if str(name_or_path) == "wiki-vital" else " --from PATH"
        raise InputError(f"no corpus named {str(name_or_path)!r} in {folder.parent}; build it "
                         f"with: offline-eval corpus build {name_or_path}{hint}")
    return folder


def open_corpus(name_or_path: str | os.PathLike[str],
                home: str | os.PathLike[str] | None = None) -> SearchIndex:
    """Open a corpus by folder path, or by name under the data home."""
    return SearchIndex.open(corpus_folder(name_or_path, home))


def search(index: SearchIndex, query: str, k: int = 10, extra: str | None = None
           ) -> list[Evidence]:
    """The top-``k`` passages for ``query`` as :class:`~offline_eval.types.Evidence`."""
    return [h.to_evidence() for h in index.search(query, k, extra)]
