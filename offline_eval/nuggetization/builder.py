"""Nuggets from references: decompose, deduplicate, rank, cap; then their support by
a response and the recall metrics.

A nugget is a fact an answer to the query should contain. Building them reuses the
library pieces the pipeline stages use (splitting, a decomposer, the importance
ranker, the NLI verifier), never a stage.

>>> support_of("supported", 0.9)
'support'
>>> support_of("unverifiable", 0.3), support_of("contradicted", 0.05)
('partial_support', 'not_support')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from offline_eval.io.focus import SOURCE_CHARS, query_sources
from offline_eval.types import Nugget, NuggetSupport, Reference

if TYPE_CHECKING:
    from offline_eval.importance.ranker import ImportanceRanker
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.base import Runner

#: A nugget that the verifier does not call supported is partially supported when
#: its P(supported) reaches this.
PARTIAL_SUPPORT = 0.25


def support_of(label: str, p_supported: float, partial: float = PARTIAL_SUPPORT) -> NuggetSupport:
    """AutoNuggetizer's grade from a verdict label and the verifier's P(supported)."""
    if label == "supported":
        return "support"
    return "partial_support" if p_supported >= partial else "not_support"


def dedupe(vectors: np.ndarray, threshold: float) -> list[list[int]]:
    """Greedy clusters of unit vectors: each row joins the first kept row whose cosine
    reaches ``threshold``, else starts a cluster. Returns clusters of row indices.

    >>> dedupe(np.array([[1.0, 0.0], [0.99, 0.141], [0.0, 1.0]]), 0.95)
    [[0, 1], [2]]
    """
    clusters: list[list[int]] = []
    kept: list[int] = []
    for i in range(len(vectors)):
        sims = vectors[kept] @ vectors[i] if kept else np.zeros(0)
        if len(sims) and sims.max() >= threshold:
            clusters[int(np.argmax(sims))].append(i)
        else:
            kept.append(i)
            clusters.append([i])
    return clusters


@dataclass(frozen=True)
class NuggetConfig:
    """Knobs of nugget building.

    Attributes:
        max_nuggets: cap per item (AutoNuggetizer uses 30).
        dedupe_threshold: cosine (MiniLM) at or above which two facts are one nugget.
        keep_less_important: keep facts the ranker calls less-important (as okay).
        source_chars: nuggets come from at most this many characters of an item's
            references, those most relevant to its query
            (:func:`~offline_eval.io.focus.query_sources`; 0: every reference).
    """

    max_nuggets: int = 30
    dedupe_threshold: float = 0.9
    keep_less_important: bool = False
    source_chars: int = SOURCE_CHARS


class NuggetBuilder:
    """Builds nuggets for a query from reference texts.

    Args:
        ranker: an :class:`~offline_eval.importance.ranker.ImportanceRanker`.
        decompose: maps ``(query, text)`` pairs to lists of atomic facts.
        embedder: a runner mapping texts to unit vectors (for deduplication).
        config: see :class:`NuggetConfig`.
    """

    def __init__(self, ranker: ImportanceRanker,
                 decompose: Callable[[Sequence[tuple[str, str]]], list[list[str]]],
                 embedder: Runner,
                 config: NuggetConfig = NuggetConfig()) -> None:
        self.ranker, self.decompose, self.embedder = ranker, decompose, embedder
        self.config = config

    def build_many(self, queries: Sequence[str],
                   references: Sequence[Sequence[Reference]]) -> list[tuple[Nugget, ...]]:
        """Nuggets per query, most important first."""
        from offline_eval.importance.ranker import RankRequest
        references = [query_sources(refs, q, self.config.source_chars)
                      for q, refs in zip(queries, references)]
        jobs = [(q, r) for q, refs in zip(queries, references) for r in refs]
        facts_per_ref = iter(self.decompose([(q, r.text) for q, r in jobs]) if jobs else [])
        pools: list[list[tuple[str, str]]] = []
        for refs in references:
            pools.append([(f, r.id) for r in refs for f in next(facts_per_ref)])
        # one embedding call for every pool: a fixed-batch vector depends on its text alone,
        # and a call per item would fill up a part-empty batch of each width per item
        texts = list(dict.fromkeys(f for pool in pools for f, _ in pool))
        row = {t: i for i, t in enumerate(texts)}
        every = self.embedder.predict(texts) if texts else np.zeros((0, 1))
        merged: list[list[tuple[str, tuple[str, ...]]]] = []
        for pool in pools:
            vecs = every[[row[f] for f, _ in pool]] if pool else np.zeros((0, 1))
            merged.append([(pool[c[0]][0], tuple(dict.fromkeys(pool[i][1] for i in c)))
                           for c in dedupe(vecs, self.config.dedupe_threshold)])
        rankings = self.ranker.rank_many([RankRequest(q, tuple(f for f, _ in m))
                                          for q, m in zip(queries, merged)])
        out = []
        for m, rk in zip(merged, rankings):
            nuggets = []
            for i in rk.order:
                label = rk.labels[i]
                if label == "less-important" and not self.config.keep_less_important:
                    continue
                nuggets.append(Nugget(id=f"N{len(nuggets)}", text=m[i][0],
                                      importance="vital" if label == "vital" else "okay",
                                      source_ids=m[i][1]))
                if len(nuggets) >= self.config.max_nuggets:
                    break
            out.append(tuple(nuggets))
        return out


def nugget_supports(verifier: Verifier, nuggets: Sequence[Nugget], response: str,
                    partial: float = PARTIAL_SUPPORT) -> list[NuggetSupport]:
    """Support of each nugget by ``response``: NLI of the nugget against the response
    (the verifier chunks it into windows)."""
    if not nuggets:
        return []
    judged = verifier.judge([(n.text, [response]) for n in nuggets])
    return [support_of(j.verdict.label, j.p_supported or 0.0, partial) for j in judged]


def recall_metrics(nuggets: Sequence[Nugget]) -> dict[str, Any]:
    """Nugget recall (four AutoNuggetizer variants), VITAL recall and VITAL-RLR."""
    from offline_eval.measures.flags import vital_rlr
    from offline_eval.measures.recall import NUGGET_RECALL_VARIANTS, nugget_recall, vital_recall
    sup = [n.support for n in nuggets]
    imp = [n.importance for n in nuggets]
    out = {f"nugget_recall_{v}": nugget_recall(sup, imp, v) for v in NUGGET_RECALL_VARIANTS}
    out["vital_recall"] = vital_recall(sup, imp)
    out["vital_rlr"] = vital_rlr(sup, imp)
    return out
