"""``BM25Index.top_k`` scores a block of documents at a time: the same documents and the same
float scores as scoring the whole index at once, ties included (fixed seeds)."""
from __future__ import annotations

import random

import numpy as np
import pytest

import offline_eval.index.bm25 as bm25
from offline_eval.index.bm25 import BM25Index, BM25Params


def corpus(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    vocab = [f"t{i}" for i in range(600)]
    weights = [1 / (i + 1) ** 1.1 for i in range(len(vocab))]   # Zipf: a few frequent terms
    docs = [rng.choices(vocab, weights, k=rng.randint(5, 80)) for _ in range(n)]
    return docs + [list(docs[i]) for i in range(0, n, 97)]      # exact duplicates: ties


def whole(index: BM25Index, query: list[str], k: int) -> tuple[list[int], list[float]]:
    """Every document scored at once (``scores``), the top ``k`` by score, then document."""
    scores = index.scores(query)
    matched = np.zeros(index.n_docs, dtype=bool)
    for docs, _, _ in index._postings(query):
        matched[docs] = True
    cand = np.flatnonzero(matched)
    order = np.lexsort((cand, -scores[cand]))[:k]
    return cand[order].tolist(), scores[cand][order].tolist()


@pytest.mark.parametrize("block, seed, idf", [(7, 1, "okapi"), (256, 2, "okapi"),
                                              (1000, 3, "lucene"), (1 << 18, 4, "okapi")])
def test_blocks_give_the_scores_of_the_whole_index(monkeypatch, block, seed, idf):
    index = BM25Index.build(corpus(2_000, seed), BM25Params(idf=idf))
    monkeypatch.setattr(bm25, "BLOCK_DOCS", block)
    rng = random.Random(seed)
    vocab = [f"t{i}" for i in range(620)]                         # some unknown terms
    for _ in range(150):
        query = rng.choices(vocab[:30], k=rng.randint(1, 4)) + rng.choices(vocab, k=rng.randint(0, 5))
        for k in (1, 3, 10, 60):
            docs, scores = index.top_k(query, k)
            assert (docs.tolist(), scores.tolist()) == whole(index, query, k), (query, k)
    assert index.top_k(["nothing"], 5)[0].tolist() == []
