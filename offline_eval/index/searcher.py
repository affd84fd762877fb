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
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.index.bm25 import BM25Builder, BM25Index, BM25Params
from offline_eval.index.chunk import ChunkConfig, Document, Passage, chunk_documents, sentence_spans
from offline_eval.home import corpus_path
from offline_eval.index.link import Linker
from offline_eval.index.store import PassageStore, load_arrays, read_header
from offline_eval.index.tokenize import Tokenizer
from offline_eval.types import Evidence


@dataclass(frozen=True)
class Hit:
    """A passage, its BM25 score, and why it was chosen (``subject`` / ``topic`` / ``bm25``,
    see :class:`~offline_eval.types.Evidence`)."""

    passage: Passage
    score: float
    found_by: str = "bm25"
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"id", "doc_id", "title", "url", "score", "found_by", "why", "text"}``."""
        p = self.passage
        return {"id": p.id, "doc_id": p.doc_id, "title": p.title, "url": p.url,
                "score": self.score, "found_by": self.found_by, "why": self.why, "text": p.text}

    def to_evidence(self) -> Evidence:
        p = self.passage
        return Evidence(passage_id=p.id, text=p.text, score=self.score, doc_id=p.doc_id,
                        title=p.title or None, url=p.url, start=p.start, end=p.end,
                        found_by=self.found_by, why=self.why)


class SearchIndex:
    """Tokenizer + BM25 + passages. ``header`` describes an on-disk corpus."""

    def __init__(self, bm25: BM25Index, passages: Sequence[Passage], tokenizer: Tokenizer,
                 header: Mapping[str, Any] | None = None) -> None:
        if len(passages) != bm25.n_docs:
            raise InputError("passages and index disagree; rebuild the corpus")
        self.bm25, self.passages, self.tokenizer = bm25, passages, tokenizer
        self.header = dict(header or {})
        self._linker: Linker | None = None
        self._doc_passages: dict[str, list[int]] | None = None  # set with _linker, once
        self._link_lock = threading.Lock()

    @classmethod
    def from_documents(cls, documents: Iterable[Document], tokenizer: Tokenizer | None = None,
                       chunking: ChunkConfig | None = None,
                       params: BM25Params | None = None) -> "SearchIndex":
        """Chunk and index documents in memory. InputError when nothing to index."""
        return cls.from_passages(list(chunk_documents(documents, chunking)), tokenizer, params)

    @classmethod
    def from_passages(cls, passages: Sequence[Passage], tokenizer: Tokenizer | None = None,
                      params: BM25Params | None = None) -> "SearchIndex":
        """Index passages in memory (e.g. :func:`~offline_eval.index.chunk.chunk_context`'s)."""
        tok = tokenizer or Tokenizer()
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

    def _tokens(self, query: str, extra: str | None) -> list[str]:
        tokens = self.tokenizer(query)
        if extra:
            have = set(tokens)
            tokens += [t for t in dict.fromkeys(self.tokenizer(extra)) if t not in have]
        return tokens

    def search(self, query: str, k: int = 10, extra: str | None = None) -> list[Hit]:
        """The ``k`` best passages for ``query`` by BM25, best first.

        Args:
            extra: optional context (e.g. the question a claim answers); its tokens that
                are not already in ``query`` are added once each.
        """
        return list(self._bm25_hits(self._tokens(query, extra), k))

    def _bm25_hits(self, tokens: list[str], k: int) -> Iterator[Hit]:
        """The ``k`` best passages for ``tokens``, best first, each read when reached."""
        docs, scores = self.bm25.top_k(tokens, k)
        for r, (d, s) in enumerate(zip(docs, scores)):
            yield Hit(self.passages[int(d)], float(s), "bm25", f"BM25 rank {r + 1}")

    def linker(self) -> Linker | None:
        """The subject linker of this corpus's titles (built once, on first use, from each
        document's first passage), or None when no passage has a title."""
        with self._link_lock:
            if self._doc_passages is None:
                by_doc: dict[str, list[int]] = {}
                leads: dict[str, tuple[str, str, str]] = {}
                for i, p in enumerate(self.passages):
                    by_doc.setdefault(p.doc_id, []).append(i)
                    if p.title and p.doc_id not in leads:
                        leads[p.doc_id] = (p.doc_id, p.title, p.text)
                self._linker = Linker.from_documents(leads.values()) if leads else None
                self._doc_passages = by_doc
        return self._linker

    def search_about(self, claim: str, k: int = 10, query: str | None = None,
                     pool: int = 50, guard: bool = True,
                     order: Callable[[str, list[Hit]], list[Hit]] | None = None) -> list[Hit]:
        """Evidence about the claim's subject: the passages of the document its subject links
        to (``subject``), or those of the query's topic (``topic``) when the claim names no
        subject ("It is 8,849 m tall." answering "How tall is Mount Everest?"), names it only
        after a preposition ("She was born in Warsaw." answering "Where was Marie Curie
        born?"), or names one that several documents share, the topic's among them ("Curie");
        by BM25 within the document; then
        BM25 over the corpus (``query`` words added) fills the ``k`` from its
        top ``pool``, keeping only passages of the linked documents or, of another entity's
        article, the sentences that speak of a linked document (it is their subject:
        :meth:`~offline_eval.index.link.Linker.is_subject_of`) or, when the claim shares a
        word of that article's title ("Kuwait's capital city" and "Kuwait City"), that name
        it; so another entity's article never stands in for the subject's ("He worked with
        his sister Caroline Herschel", from William Herschel's, says nothing of hers). With nothing linked
        (no title named, a name several documents share, a corpus without titles) it is
        plain BM25, and each hit's ``why`` says why nothing was linked. ``guard=False``
        lets any BM25 passage fill the ``k``; ``order(claim, pool hits)`` may re-rank the BM25
        pool before it fills (a dense re-ranker; both measured in ``benchmarks/evidence.py``).
        """
        tokens = self._tokens(claim, query)
        linker = self.linker()
        if linker is None:
            return [Hit(h.passage, h.score, "bm25", f"{h.why}; the corpus has no titles")
                    for h in self.search(claim, k, query)]
        subject = linker.subject(claim)
        topic = linker.subject(query) if query else None
        use_topic = topic is not None and topic.doc_id is not None and (
            subject.mention is None or not subject.positional
            or topic.doc_id in subject.candidates)
        linked = ([(topic, "topic")] if use_topic else
                  [(subject, "subject")] if subject.doc_id else [])
        hits: list[Hit] = []
        by_doc = self._doc_passages or {}  # set by linker()
        if linked:
            scores = self.bm25.scores(tokens)
            for link, role in linked:
                idx = sorted(by_doc.get(link.doc_id, []), key=lambda i: (-scores[i], i))
                hits += [Hit(self.passages[i], float(scores[i]), role, link.why) for i in idx]
            hits = hits[:k]
        taken = {h.passage.id for h in hits}
        guard_docs = [link.doc_id for link, _ in linked] if guard else []
        unlinked = "" if linked else f"; no subject linked: {subject.why}"
        cands: Iterable[Hit] = self._bm25_hits(tokens, max(pool, k))  # read as needed
        if order is not None:
            cands = order(claim, list(cands))
        for h in cands:
            if len(hits) >= k:
                break
            p, s = h.passage, h.score
            if p.id in taken:
                continue
            why = f"{h.why}{unlinked}"
            if guard_docs and p.doc_id not in guard_docs:
                part = _part_about(linker, claim, p, guard_docs)
                if part is None:
                    continue  # about another entity: it does not speak of the subject
                named, both, p = part
                title = linker.titles.get(named, named)
                why += (f"; its sentences that name {title!r} (the claim speaks of "
                        f"{linker.titles.get(p.doc_id, p.doc_id)!r} too)" if both else
                        f"; its sentences about {title!r}")
            hits.append(Hit(p, float(s), "bm25", why))
            taken.add(p.id)
        return hits


def _part_about(linker: Any, claim: str, p: Passage,
                docs: Sequence[str]) -> tuple[str, bool, Passage] | None:
    """Of another entity's passage, the part that speaks of one of the linked ``docs``
    (its sentences whose subject it is), or, when the claim speaks of that entity too (shares
    a word of its title), the part that names it: ``(doc, the claim speaks of both, part)``,
    or None."""
    for g in docs:
        if not linker.may_name(p.text, g):
            continue
        both = linker.shares_title(claim, p.doc_id, g)
        part = _naming_part(p, linker.names_subject if both else linker.is_subject_of, g)
        if part is not None:
            return g, both, part
    return None


def _naming_part(p: Passage, names: Callable[[str, str], bool], doc_id: str) -> Passage | None:
    """The part of another entity's passage from its first to its last sentence for which
    ``names(sentence, doc_id)`` holds (offsets kept), so that what it says of its own entity
    is not read; None when no sentence does."""
    spans = [(s, e) for s, e in sentence_spans(p.text) if names(p.text[s:e], doc_id)]
    if not spans:
        return None
    s, e = spans[0][0], spans[-1][1]
    return replace(p, text=p.text[s:e], start=p.start + s, end=p.start + e)


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
    from offline_eval.progress import loading

    folder = corpus_folder(name_or_path, home)
    with loading(f"corpus {Path(folder).name}"):
        return SearchIndex.open(folder)


def search(index: SearchIndex, query: str, k: int = 10, extra: str | None = None,
           subjects: bool = False) -> list[Evidence]:
    """The top-``k`` passages for ``query`` as :class:`~offline_eval.types.Evidence`: by
    :meth:`SearchIndex.search_about` (``extra`` as the query) when ``subjects``, else BM25."""
    hits = index.search_about(query, k, extra) if subjects else index.search(query, k, extra)
    return [h.to_evidence() for h in hits]
