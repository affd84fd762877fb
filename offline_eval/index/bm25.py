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
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

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


#: ``BM25Builder(spill=...)``: tokens held in memory before they are written out as a shard
#: (about 4 bytes a token, and a few times that while the shard is turned term-major)
SHARD_TOKENS = 40_000_000
#: postings merged at once when the shards become the index's arrays
MERGE_POSTINGS = 16_000_000
#: documents ``top_k`` scores at a time (2 MB of float64 scores: stays in the CPU's cache;
#: at 10M synthetic passages, p50 44.6 ms against 63.6 ms in one 80 MB array, RESULTS.md)
BLOCK_DOCS = 1 << 18


class BM25Builder:
    """Accumulates tokenised documents one at a time; :meth:`finish` makes the index in
    memory, :meth:`write` writes its arrays to a folder.

    ``spill``: a folder for shards. Every ``shard_tokens`` tokens, the documents so far are
    turned term-major and written there, so memory holds one shard, not the corpus;
    :meth:`write` then merges the shards into the index's arrays a block of terms at a
    time. The arrays are the same bytes either way (one vocabulary numbered by first
    occurrence, postings in document order, the same float64 arithmetic), and so are the
    scores.
    """

    def __init__(self, spill: Path | None = None, shard_tokens: int | None = None) -> None:
        # A missing term gets the next number, inside the C-level lookup.
        self.vocab: defaultdict[str, int] = defaultdict(count().__next__)
        self._ids = array("i")
        self._lens = array("q")
        self.spill, self.shard_tokens = spill, shard_tokens or SHARD_TOKENS
        self._shards: list[Path] = []
        self._shard_docs: list[int] = []
        self._all_lens = array("q")  # every document's length, shards included

    def add(self, tokens: Sequence[str]) -> None:
        """Add one document's tokens (new terms get the next term number)."""
        self._ids.fromlist(list(map(self.vocab.__getitem__, tokens)))
        self._lens.append(len(tokens))
        if self.spill is not None and len(self._ids) >= self.shard_tokens:
            self._write_shard()

    def _write_shard(self) -> None:
        assert self.spill is not None
        self.spill.mkdir(parents=True, exist_ok=True)
        lens = np.frombuffer(self._lens, dtype=np.int64)
        indptr, indices, tf = _term_major(np.frombuffer(self._ids, dtype=np.int32), lens,
                                          len(self.vocab))
        shard = self.spill / f"shard-{len(self._shards):05d}"
        shard.mkdir()
        for name, arr in (("indptr", indptr), ("indices", indices), ("tf", tf)):
            np.save(shard / f"{name}.npy", arr)
        self._shards.append(shard)
        self._shard_docs.append(len(self._lens))
        self._all_lens.extend(self._lens)
        self._ids, self._lens = array("i"), array("q")

    def _check(self) -> None:
        if len(self._lens) + len(self._all_lens) == 0:
            raise InputError("the corpus is empty: no documents to index")
        if not self.vocab:
            raise InputError("the corpus has no indexable terms (every passage is empty "
                             "after tokenisation)")

    def finish(self, params: BM25Params | None = None) -> "BM25Index":
        """Build the index in memory; InputError when there are no documents or no terms."""
        self._check()
        if self._shards:
            raise RuntimeError("a builder that wrote shards finishes with write(folder)")
        p = params or BM25Params()
        doc_len = np.frombuffer(self._lens, dtype=np.int64)
        indptr, indices, tf = _term_major(np.frombuffer(self._ids, dtype=np.int32), doc_len,
                                          len(self.vocab))
        n = len(doc_len)
        avgdl = float(doc_len.sum()) / n
        weights = _weights(tf, doc_len[indices], avgdl, p)
        idf = _idf(np.diff(indptr), n, p)
        return BM25Index(dict(self.vocab), indptr, indices, weights, idf,
                         doc_len.astype(np.int32), p, avgdl)

    def write(self, folder: Path, params: BM25Params | None = None) -> "BM25Index":
        """Write the index's arrays (``{name}.npy`` of :meth:`BM25Index.arrays`) into
        ``folder`` and return the index on them, memory-mapped. Without shards this is
        :meth:`finish` then ``np.save``; with shards, the rest becomes one last shard and
        the shards are merged, ``MERGE_POSTINGS`` postings at a time, then removed."""
        self._check()
        p = params or BM25Params()
        if not self._shards:
            index = self.finish(p)
            for name, arr in index.arrays().items():
                np.save(folder / f"{name}.npy", arr)
            return index
        if len(self._lens):
            self._write_shard()
        # the shards' postings are read a block at a time with plain reads, not memory-mapped:
        # mapped pages, once read, count in the process's memory until the kernel reclaims them
        # (so are their indptr arrays, each as long as the vocabulary at that shard)
        shards = [{k: _NpyReader(d / f"{k}.npy") for k in ("indptr", "indices", "tf")}
                  for d in self._shards]
        n_terms = len(self.vocab)
        doc_len = np.frombuffer(self._all_lens, dtype=np.int64)
        n = len(doc_len)
        avgdl = float(doc_len.sum()) / n
        firsts = np.concatenate([[0], np.cumsum(self._shard_docs)[:-1]])  # first document
        df = np.zeros(n_terms, dtype=np.int64)
        for sh in shards:  # a shard knows the terms seen up to it
            df[:sh["indptr"].n - 1] += np.diff(sh["indptr"].read(0, sh["indptr"].n))
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        np.save(folder / "indptr.npy", indptr)
        with _NpyStream(folder / "indices.npy", np.int32, int(indptr[-1])) as out_docs, \
                _NpyStream(folder / "weights.npy", np.float64, int(indptr[-1])) as out_w:
            for j0, j1 in _blocks(indptr, MERGE_POSTINGS):
                terms, docs, tfs = [], [], []
                for sh, first in zip(shards, firsts):
                    v = sh["indptr"].n - 1
                    if j0 >= v:
                        continue
                    ip = sh["indptr"].read(j0, min(j1, v) + 1)  # this block's terms
                    a, b = int(ip[0]), int(ip[-1])
                    terms.append(np.repeat(np.arange(j0, min(j1, v)), np.diff(ip)))
                    docs.append(sh["indices"].read(a, b).astype(np.int64) + first)
                    tfs.append(sh["tf"].read(a, b))
                t = np.concatenate(terms)
                order = np.argsort(t, kind="stable")  # shards in document order: stays so
                d = np.concatenate(docs)[order]
                out_docs.write(d.astype(np.int32))
                out_w.write(_weights(np.concatenate(tfs)[order], doc_len[d], avgdl, p))
        np.save(folder / "idf.npy", _idf(df, n, p))
        np.save(folder / "doc_len.npy", doc_len.astype(np.int32))
        for sh in shards:
            for reader in sh.values():
                reader.close()
        del shards
        import shutil
        for d in self._shards:
            shutil.rmtree(d, ignore_errors=True)
        try:
            self.spill.rmdir()  # type: ignore[union-attr]  (made by the first shard)
        except OSError:
            pass  # not empty: it held files of its own
        arrays = {k: np.load(folder / f"{k}.npy", mmap_mode="r")
                  for k in ("indptr", "indices", "weights", "idf", "doc_len")}
        return BM25Index(dict(self.vocab), arrays["indptr"], arrays["indices"], arrays["weights"],
                         arrays["idf"], arrays["doc_len"], p, avgdl)


def _best(docs: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The documents scoring at least the ``k``-th best score (ties kept)."""
    if len(docs) <= k:
        return docs, scores
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    keep = scores >= kth
    return docs[keep], scores[keep]


def _term_major(ids: np.ndarray, doc_len: np.ndarray, n_terms: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token ids of consecutive documents -> ``(indptr, indices, tf)`` term-major: the
    documents of term ``j`` (ascending) are ``indices[indptr[j]:indptr[j+1]]``."""
    import scipy.sparse as sp

    n = len(doc_len)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(doc_len, out=indptr[1:])
    csr = sp.csr_matrix((np.ones(len(ids), dtype=np.int32), ids, indptr), shape=(n, n_terms))
    csr.sum_duplicates()
    csc = csr.tocsc()
    csc.sort_indices()
    del csr
    return csc.indptr.astype(np.int64), csc.indices.astype(np.int32), csc.data


def _weights(tf: np.ndarray, dl: np.ndarray, avgdl: float, p: BM25Params) -> np.ndarray:
    """Each posting's saturation factor, ``tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``."""
    norm = p.k1 * (1 - p.b + p.b * dl / avgdl)
    tf = tf.astype(np.float64)
    return tf * (p.k1 + 1) / (tf + norm)


def _idf(df: np.ndarray, n: int, p: BM25Params) -> np.ndarray:
    if p.idf == "lucene":
        return np.log1p((n - df + 0.5) / (df + 0.5))
    if p.idf == "okapi":
        idf = np.log(n - df + 0.5) - np.log(df + 0.5)
        average_idf = float(idf.mean())
        idf[idf < 0] = p.epsilon * average_idf
        return idf
    raise ValueError(f"unknown idf {p.idf!r}; valid: okapi, lucene")


def _blocks(indptr: np.ndarray, postings: int) -> Iterator[tuple[int, int]]:
    """Consecutive term ranges of about ``postings`` postings each (a term is never split)."""
    n_terms, j0 = len(indptr) - 1, 0
    while j0 < n_terms:
        j1 = int(np.searchsorted(indptr, indptr[j0] + postings, side="right")) - 1
        j1 = min(max(j1, j0 + 1), n_terms)
        yield j0, j1
        j0 = j1


class _NpyReader:
    """Slices of a 1-D ``.npy`` file read with plain reads (a copy each, nothing mapped)."""

    def __init__(self, path: Path) -> None:
        import numpy.lib.format as npf

        self.fh = open(path, "rb")
        major, _ = npf.read_magic(self.fh)
        read_header = npf.read_array_header_1_0 if major == 1 else npf.read_array_header_2_0
        shape, _, self.dtype = read_header(self.fh)
        self.n, self.offset = shape[0], self.fh.tell()

    def read(self, a: int, b: int) -> np.ndarray:
        self.fh.seek(self.offset + a * self.dtype.itemsize)
        out = np.fromfile(self.fh, dtype=self.dtype, count=b - a)
        if len(out) != b - a:
            raise RuntimeError(f"{self.fh.name}: read {len(out)} of {b - a} values at {a}")
        return out

    def close(self) -> None:
        self.fh.close()


class _NpyStream:
    """A 1-D ``.npy`` file of known length written front to back, as ``np.save`` would."""

    def __init__(self, path: Path, dtype: Any, n: int) -> None:
        self.path, self.dtype, self.n, self.done = path, np.dtype(dtype), n, 0

    def __enter__(self) -> "_NpyStream":
        import numpy.lib.format as npf

        self.fh = open(self.path, "wb")
        npf.write_array_header_1_0(self.fh, {"descr": npf.dtype_to_descr(self.dtype),
                                             "fortran_order": False, "shape": (self.n,)})
        return self

    def write(self, arr: np.ndarray) -> None:
        self.fh.write(np.ascontiguousarray(arr, dtype=self.dtype).tobytes())
        self.done += len(arr)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.fh.close()
        if exc_type is None and self.done != self.n:
            raise RuntimeError(f"{self.path}: wrote {self.done} of {self.n} values")


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
        query term, best first; ties go to the lower document number.

        Documents are scored a block of :data:`BLOCK_DOCS` at a time, into buffers that stay
        in the CPU's cache (a 10M-document index would otherwise scatter into an 80 MB
        array), and each block keeps its best ``k`` (ties included) for the final choice.
        Each document's terms are added in the same order as :meth:`scores` adds them, so
        the documents and float scores are the same as scoring the whole index at once."""
        if k <= 0:
            raise ValueError("k must be positive")
        postings = self._postings(tokens)
        if not postings:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        n = self.n_docs
        size = max(1, min(BLOCK_DOCS, n))
        edges = np.minimum(np.arange(0, n + size, size), n)  # 0, size, ..., n
        cuts = [np.searchsorted(docs, edges) for docs, _, _ in postings]
        scores, matched = np.zeros(size), np.zeros(size, dtype=bool)
        kept_docs, kept_scores = [], []
        for b in range(len(edges) - 1):
            lo, touched = int(edges[b]), False
            for (docs, w, idf), cut in zip(postings, cuts):
                s, e = int(cut[b]), int(cut[b + 1])
                if s < e:
                    at = docs[s:e] - lo
                    scores[at] += idf * w[s:e]
                    matched[at] = True
                    touched = True
            if touched:
                cand = np.flatnonzero(matched)
                cs = scores[cand]
                scores[cand], matched[cand] = 0.0, False
                cand, cs = _best(cand, cs, k)
                kept_docs.append(cand + lo)
                kept_scores.append(cs)
        cand, cs = _best(np.concatenate(kept_docs), np.concatenate(kept_scores), k)
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
