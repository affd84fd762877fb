"""BM25Okapi over a sparse term-major matrix, scoring exactly like ``rank_bm25``.

For a term ``t`` with document frequency ``df`` in ``N`` documents,
``idf(t) = log(N - df + 0.5) - log(df + 0.5)``; negative idfs are replaced by
``epsilon * mean(idf)`` over the whole vocabulary (``rank_bm25.BM25Okapi._calc_idf``).
A document ``d`` of length ``|d|`` scores, for each query token (duplicates count
again), ``idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))``.

The saturation factor ``tf * (k1 + 1) / (tf + ...)`` is precomputed per posting in
float64, so a query touches only the postings of its terms.

>>> idx = BM25Index.build([["cat", "sat"], ["dog", "sat"], ["cat", "cat"], ["bird"],
...                         ["fish", "sat"]])
>>> idx.scores(["cat"]).round(4).tolist()
[0.3204, 0.0, 0.4641, 0.0, 0.0]
>>> docs, scores = idx.top_k(["cat", "unknown"], 5)
>>> docs.tolist(), scores.round(4).tolist()
([2, 0], [0.4641, 0.3204])
"""
from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import count
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from offline_eval.errors import InputError


@dataclass(frozen=True)
class BM25Params:
    """rank_bm25's defaults.

    ``idf``: ``"okapi"`` (rank_bm25's ``BM25Okapi``: ``log((N - df + 0.5) / (df + 0.5))``,
    floored at ``epsilon`` times the mean idf where negative) or ``"lucene"``
    (``log(1 + (N - df + 0.5) / (df + 0.5))``, never negative: Lucene's, for collections
    of a handful of documents, where most shared words would otherwise hit the floor).
    """

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    idf: str = "okapi"


class BM25Builder:
    """Accumulates tokenised documents one at a time; :meth:`finish` makes the index."""

    def __init__(self) -> None:
        # A missing term gets the next number, inside the C-level lookup.
        self.vocab: defaultdict[str, int] = defaultdict(count().__next__)
        self._ids = array("i")
        self._lens = array("q")

    def add(self, tokens: Sequence[str]) -> None:
        """Add one document's tokens (new terms get the next term number)."""
        self._ids.fromlist(list(map(self.vocab.__getitem__, tokens)))
        self._lens.append(len(tokens))

    def finish(self, params: BM25Params | None = None) -> "BM25Index":
        """Build the index; InputError when there are no documents or no terms."""
        import scipy.sparse as sp

        p = params or BM25Params()
        n = len(self._lens)
        if n == 0:
            raise InputError("the corpus is empty: no documents to index")
        if not self.vocab:
            raise InputError("the corpus has no indexable terms (every passage is empty "
                             "after tokenisation)")
        doc_len = np.frombuffer(self._lens, dtype=np.int64)
        ids = np.frombuffer(self._ids, dtype=np.int32)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(doc_len, out=indptr[1:])
        csr = sp.csr_matrix((np.ones(len(ids), dtype=np.int32), ids, indptr),
                            shape=(n, len(self.vocab)))
        csr.sum_duplicates()
        csc = csr.tocsc()
        csc.sort_indices()
        del csr
        avgdl = float(doc_len.sum()) / n
        norm = p.k1 * (1 - p.b + p.b * doc_len / avgdl)
        tf = csc.data.astype(np.float64)
        weights = tf * (p.k1 + 1) / (tf + norm[csc.indices])
        df = np.diff(csc.indptr)
        if p.idf == "lucene":
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
        elif p.idf == "okapi":
            idf = np.log(n - df + 0.5) - np.log(df + 0.5)
            average_idf = float(idf.mean())
            idf[idf < 0] = p.epsilon * average_idf
        else:
            raise ValueError(f"unknown idf {p.idf!r}; valid: okapi, lucene")
        return BM25Index(dict(self.vocab), csc.indptr.astype(np.int64), csc.indices.astype(np.int32),
                         weights, idf, doc_len.astype(np.int32), p, avgdl)


class BM25Index:
    """A term-major BM25 index (arrays may be memory-mapped).

    Args:
        vocab: term -> column.
        indptr: postings of term ``j`` are ``indptr[j]:indptr[j+1]``.
        indices: document of each posting, ascending within a term.
        weights: saturation factor of each posting.
        idf: per-term idf after the epsilon floor.
        doc_len: tokens per document.
    """

    def __init__(self, vocab: Mapping[str, int], indptr: np.ndarray, indices: np.ndarray,
                 weights: np.ndarray, idf: np.ndarray, doc_len: np.ndarray,
                 params: BM25Params, avgdl: float) -> None:
        self.vocab, self.indptr, self.indices, self.weights = vocab, indptr, indices, weights
        self.idf, self.doc_len, self.params, self.avgdl = idf, doc_len, params, avgdl

    @classmethod
    def build(cls, docs: Iterable[Sequence[str]], params: BM25Params | None = None) -> "BM25Index":
        """Index tokenised documents (lists of tokens)."""
        builder = BM25Builder()
        for tokens in docs:
            builder.add(tokens)
        return builder.finish(params)

    @property
    def n_docs(self) -> int:
        return len(self.doc_len)

    def _postings(self, tokens: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray, float]]:
        out = []
        for term, count in Counter(tokens).items():
            j = self.vocab.get(term)
            if j is not None:
                s, e = int(self.indptr[j]), int(self.indptr[j + 1])
                out.append((self.indices[s:e], self.weights[s:e], float(self.idf[j]) * count))
        return out

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """Scores of every document, like ``rank_bm25.BM25Okapi.get_scores(tokens)``."""
        scores = np.zeros(self.n_docs)
        for docs, w, idf in self._postings(tokens):
            scores[docs] += idf * w
        return scores

    def top_k(self, tokens: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(documents, scores)`` of the ``k`` best documents that contain at least one
        query term, best first; ties go to the lower document number."""
        if k <= 0:
            raise ValueError("k must be positive")
        postings = self._postings(tokens)
        if not postings:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        scores = np.zeros(self.n_docs)
        matched = np.zeros(self.n_docs, dtype=bool)
        for docs, w, idf in postings:
            scores[docs] += idf * w
            matched[docs] = True
        cand = np.flatnonzero(matched)
        cs = scores[cand]
        if len(cand) > k:
            kth = np.partition(cs, len(cs) - k)[len(cs) - k]
            keep = cs >= kth
            cand, cs = cand[keep], cs[keep]
        order = np.lexsort((cand, -cs))[:k]
        return cand[order], cs[order]

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays to save, by file stem."""
        return {"indptr": self.indptr, "indices": self.indices, "weights": self.weights,
                "idf": self.idf, "doc_len": self.doc_len}

    def header(self) -> dict[str, Any]:
        """Scalars to save in the JSON header."""
        p = self.params
        return {"k1": p.k1, "b": p.b, "epsilon": p.epsilon, "avgdl": self.avgdl,
                "n_docs": self.n_docs, "n_terms": len(self.vocab),
                "n_postings": int(len(self.indices))}
