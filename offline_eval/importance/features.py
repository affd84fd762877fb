"""The feature matrix for the claims of one response, in :data:`FEATURES` order.

Inputs are the claims' :class:`~offline_eval.importance.signals.ClaimView` (or their
parses) and unit embeddings computed elsewhere (the ranker batches them), so this module
is pure numpy over precomputed values and easy to test.
"""
from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from offline_eval.importance import signals as sg

#: Column names, in order. The shipped combiner stores the names it was fitted on.
FEATURES: tuple[str, ...] = (
    "cos_query",        # cosine(query, claim), MiniLM
    "cos_rank",         # percentile of cos_query within the response (1 = highest)
    "cos_gap",          # cos_query minus the response's best
    "overlap",          # share of the query's focus lemmas found in the claim
    "overlap_rank",     # percentile of overlap within the response
    "head_phrase",      # share of the query's head noun phrase repeated in the claim
    "subject_focus",    # the claim's subject shares a lemma with the query focus
    "predicate_focus",  # the claim's predicate shares a lemma with the query focus
    "type_match",       # claim carries an entity/number/date of the expected answer type
    "type_match_rank",  # type_match and cos_rank together: the best typed candidate
    "new_entity",       # claim names an entity absent from the query
    "redundancy",       # max cosine with claims ranked higher by cos_query
    "centrality",       # mean cosine with the other claims of the response
    "claim_position",   # claim index / (n - 1)
    "sentence_position",  # sentence index / max sentence index
    "first_sentence",   # claim comes from the first sentence
    "log_length",       # log(1 + number of tokens)
    "novelty",          # share of the claim's content lemmas absent from the query
    "restatement",      # the claim adds no content word to the query
    "cos_novel",        # cos_query when the claim adds something, else 0
    "answer_link",      # shares new (non-query) words with the best answer candidate
    "sentence_cos",     # mean cos_query of the claims from the same sentence
    "sentence_rank",    # percentile of sentence_cos over the response's sentences
)


_BASIC = FEATURES.index("novelty")  # columns filled per claim; the rest per response


@dataclass(frozen=True)
class QueryView:
    """What the features need from a query: its parse and answer type, precomputed."""

    focus: frozenset[str]
    head: frozenset[str]
    words: frozenset[str]
    answer_type: str | None

    @classmethod
    def from_doc(cls, doc: Any, answer_type: str | None) -> "QueryView":
        return cls(frozenset(sg.focus_lemmas(doc)), frozenset(sg.head_phrase(doc)),
                   frozenset(sg.content_lemmas(doc)), answer_type)


def percentile(values: np.ndarray) -> np.ndarray:
    """Rank of each value within ``values`` scaled to [0, 1]; 1 is the highest, ties
    share their mean rank, and a single value gets 1.

    >>> percentile(np.array([0.1, 0.5, 0.3])).tolist()
    [0.0, 1.0, 0.5]
    """
    n = len(values)
    if n <= 1:
        return np.ones(n)
    from scipy.stats import rankdata
    return (rankdata(values) - 1.0) / (n - 1.0)


def response_features(query: QueryView, query_vec: np.ndarray, claims: Sequence[sg.Parsed],
                      claim_vecs: np.ndarray, sentence_index: Sequence[int]) -> np.ndarray:
    """Features of each claim of one response (its :class:`~.signals.ClaimView` or its
    parse); shape ``(n_claims, len(FEATURES))``."""
    views = [sg.as_view(c) for c in claims]
    n = len(views)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return out
    cos = claim_vecs @ query_vec
    sims = claim_vecs @ claim_vecs.T
    cos_rank = percentile(cos)
    words = [v.words for v in views]
    overlap = np.array([sg.share(w, set(query.focus)) for w in words])
    sent = np.asarray(sentence_index, dtype=np.float64)
    order = np.argsort(-cos, kind="stable")
    redundancy = np.zeros(n)
    for pos, i in enumerate(order[1:], start=1):
        redundancy[i] = sims[i, order[:pos]].max()
    for i, view in enumerate(views):
        tmatch = sg.type_match(query.answer_type, view, query.words)
        others = np.delete(sims[i], i)
        out[i, :_BASIC] = (
            cos[i], cos_rank[i], cos[i] - cos.max(), overlap[i], 0.0,
            sg.share(words[i], set(query.head)),
            1.0 if view.subject & query.focus else 0.0,
            1.0 if view.predicate & query.focus else 0.0,
            tmatch, tmatch * cos_rank[i],
            1.0 if sg.new_entities(query.words, view) else 0.0,
            redundancy[i], float(others.mean()) if len(others) else 0.0,
            i / (n - 1) if n > 1 else 0.0,
            sent[i] / sent.max() if sent.max() > 0 else 0.0,
            1.0 if sent[i] == sent.min() else 0.0,
            float(np.log1p(view.length)),
        )
    out[:, FEATURES.index("overlap_rank")] = percentile(overlap)
    _add_answer_features(out, query, words, cos, sent)
    return out


def _add_answer_features(out: np.ndarray, query: QueryView, words: Sequence[Set[str]],
                         cos: np.ndarray, sent: np.ndarray) -> None:
    """Fill the novelty, answer-candidate and sentence-level columns of ``out`` from each
    claim's content lemmas (``words``)."""
    col = FEATURES.index
    new = [w - query.words for w in words]
    novelty = np.array([len(nw) / len(w) if w else 0.0 for nw, w in zip(new, words)])
    out[:, col("novelty")] = novelty
    out[:, col("restatement")] = (novelty == 0).astype(np.float64)
    out[:, col("cos_novel")] = np.where(novelty > 0, cos, 0.0)
    # The best answer candidate: the claim adding new words with the highest
    # cosine, preferring one that carries the expected answer type.
    typed = out[:, col("type_match")]
    candidate = np.where(novelty > 0, cos + typed, -np.inf)
    if np.isfinite(candidate).any():
        answer = new[int(np.argmax(candidate))]
        out[:, col("answer_link")] = [sg.share(nw, answer) for nw in new]
    groups = {s: float(cos[sent == s].mean()) for s in np.unique(sent)}
    sentence_cos = np.array([groups[s] for s in sent])
    ranks = dict(zip(groups, percentile(np.array(list(groups.values())))))
    out[:, col("sentence_cos")] = sentence_cos
    out[:, col("sentence_rank")] = [ranks[s] for s in sent]
