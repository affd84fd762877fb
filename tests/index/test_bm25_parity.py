"""BM25Index scores equal rank_bm25.BM25Okapi within 1e-6 (random corpora, edge cases)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline_eval.errors import InputError
from offline_eval.index.bm25 import BM25Index, BM25Params

rank_bm25 = pytest.importorskip("rank_bm25")

WORDS = [f"w{i}" for i in range(30)]
docs_st = st.lists(st.lists(st.sampled_from(WORDS), min_size=0, max_size=25), min_size=1,
                   max_size=40).filter(lambda c: any(c))
query_st = st.lists(st.sampled_from(WORDS + ["unknown", "zz"]), min_size=0, max_size=8)


def assert_parity(corpus, query, **params):
    ours = BM25Index.build(corpus, BM25Params(**params)).scores(query)
    ref = rank_bm25.BM25Okapi(corpus, **params).get_scores(query)
    # rank_bm25 divides 0 by 0 for an empty document when b == 1 (its length norm is 0):
    # NaN there; we score such a document 0, as it contains no query term.
    empty = np.array([len(d) == 0 for d in corpus])
    assert not np.isnan(ours).any()
    assert np.all(~np.isnan(ref) | empty)
    ref = np.where(np.isnan(ref) & empty, 0.0, ref)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-6)
    return ours


@settings(max_examples=200, deadline=None)
@given(docs_st, query_st)
def test_random_corpora_match_rank_bm25(corpus, query):
    assert_parity(corpus, query)


@settings(max_examples=50, deadline=None)
@given(docs_st, query_st, st.floats(0.1, 3.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_random_parameters_match_rank_bm25(corpus, query, k1, b, epsilon):
    assert_parity(corpus, query, k1=k1, b=b, epsilon=epsilon)


@settings(max_examples=100, deadline=None)
@given(docs_st, query_st, st.integers(1, 10))
def test_top_k_agrees_with_full_ranking(corpus, query, k):
    index = BM25Index.build(corpus)
    full = index.scores(query)
    docs, scores = index.top_k(query, k)
    matched = [i for i, d in enumerate(corpus) if set(d) & set(query) & set(index.vocab)]
    expected = sorted(matched, key=lambda i: (-full[i], i))[:k]
    assert docs.tolist() == expected
    np.testing.assert_allclose(scores, full[expected], atol=1e-12)


CORPUS = [["paris", "capital", "france"], ["berlin", "capital", "germany"],
          ["rome", "capital", "italy"], ["paris", "paris", "texas"], ["madrid"]]


@pytest.mark.parametrize("query", [
    [],                                    # empty query
    ["unknown"],                           # unknown term
    ["paris", "paris", "paris"],           # duplicate terms count again
    ["capital"],                           # negative idf -> epsilon * average idf
    ["paris", "unknown", "capital", "paris"],
])
def test_edge_queries(query):
    scores = assert_parity(CORPUS, query)
    if not query or query == ["unknown"]:
        assert not scores.any()


def test_duplicate_query_terms_add_up():
    index = BM25Index.build(CORPUS)
    np.testing.assert_allclose(index.scores(["paris", "paris"]), 2 * index.scores(["paris"]))


def test_one_document_corpus():
    # every idf is negative, so the epsilon floor is negative too; rank_bm25 keeps it
    scores = assert_parity([["a", "b", "a"]], ["a", "b", "c"])
    assert scores[0] < 0


def test_identical_documents():
    scores = assert_parity([["x", "y"]] * 4, ["x"])
    assert len(set(scores.tolist())) == 1


def test_two_documents_zero_idf():
    assert_parity([["a", "b"], ["a", "c"]], ["b", "a", "c"])


def test_empty_documents_inside_a_corpus():
    assert_parity([["a"], [], ["b", "a"], []], ["a", "b"])


def test_empty_corpus_is_a_clear_error():
    with pytest.raises(InputError, match="empty"):
        BM25Index.build([])


def test_corpus_without_terms_is_a_clear_error():
    with pytest.raises(InputError, match="no indexable terms"):
        BM25Index.build([[], []])


def test_top_k_rejects_non_positive_k():
    with pytest.raises(ValueError):
        BM25Index.build(CORPUS).top_k(["paris"], 0)


def test_top_k_with_no_match_is_empty():
    docs, scores = BM25Index.build(CORPUS).top_k(["unknown"], 3)
    assert docs.size == 0 and scores.size == 0


def test_larger_random_corpus_with_zipf_terms():
    rng = np.random.default_rng(0)
    vocab = np.array([f"t{i}" for i in range(2000)])
    corpus = [list(vocab[np.minimum(rng.zipf(1.3, rng.integers(1, 60)), 2000) - 1])
              for _ in range(500)]
    for _ in range(20):
        query = list(vocab[np.minimum(rng.zipf(1.3, 6), 2000) - 1])
        assert_parity(corpus, query)


def test_lucene_idf_is_never_negative_and_follows_its_formula():
    import math

    from offline_eval.index.bm25 import BM25Index, BM25Params

    docs = [["a", "b"], ["a", "c"], ["a", "b", "d"]]
    index = BM25Index.build(docs, BM25Params(k1=1.2, b=0.75, idf="lucene"))
    want = {t: math.log(1 + (3 - df + 0.5) / (df + 0.5)) for t, df in (("a", 3), ("b", 2), ("c", 1))}
    for term, value in want.items():
        assert abs(index.idf[index.vocab[term]] - value) < 1e-12 and value > 0
    okapi = BM25Index.build(docs)  # rank_bm25's: "a", in every document, gets the epsilon floor
    assert okapi.idf[okapi.vocab["a"]] < index.idf[index.vocab["a"]]
    try:
        BM25Index.build(docs, BM25Params(idf="tfidf"))
    except ValueError as exc:
        assert "tfidf" in str(exc)
    else:
        raise AssertionError("an unknown idf must be refused")
