"""Choosing the combiner's fit by cross-validation grouped by query, never on scores of
queries it was fitted on.

A configuration is a model kind, an L2 strength and the sample weight of the weak
(non-human) responses. :func:`select_config` scores each configuration of a fixed grid
by out-of-fold pooled weighted kappa over the given queries and returns the best;
nested inside an outer cross-validation (``benchmarks/importance.py``) it makes the
reported agreement an estimate of the whole procedure, selection included.

>>> [len(f) for f in grouped_folds(range(7), k=3, seed=0)]
[3, 2, 2]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from offline_eval.importance.combiner import HUMAN_PROPORTIONS, Combiner, cut_by_rank
from offline_eval.importance.fit import MODELS, fit_combiner
from offline_eval.measures.agreement import weighted_kappa

LEVEL = {"vital": 2, "okay": 1, "less-important": 0}


@dataclass(frozen=True)
class FitConfig:
    """One point of the grid: ``model`` (see :data:`MODELS`), ``c`` and ``weak_weight``."""

    model: str = "two-logistic"
    c: float = 0.01
    weak_weight: float = 4.0

    def label(self) -> str:
        return f"{self.model}, C={self.c:g}, weak weight {self.weak_weight:g}"


#: The grid, fixed before any held-out score was seen.
GRID: tuple[FitConfig, ...] = tuple(FitConfig(m, c, w) for m in MODELS
                                    for c in (0.003, 0.01, 0.03) for w in (0.0, 1.0, 4.0))


@dataclass(frozen=True)
class Labelled:
    """Feature matrices and human levels of responses, with the query id of each."""

    features: tuple[np.ndarray, ...]
    levels: tuple[np.ndarray, ...]
    groups: tuple[int, ...]


def grouped_folds(groups: Sequence[int], k: int = 5, seed: int = 0) -> list[set[int]]:
    """``k`` disjoint sets of group ids (a shuffled round robin; sizes differ by <= 1)."""
    ids = sorted(set(groups))
    perm = np.random.default_rng(seed).permutation(len(ids))
    return [{ids[j] for j in perm[i::k]} for i in range(k)]


def fit(config: FitConfig, data: Labelled, rows: Sequence[int],
        weak: Labelled | None = None, names: Sequence[str] = ()) -> Combiner:
    """Fit ``config`` on responses ``rows`` of ``data`` plus, with a positive
    ``weak_weight``, every response of ``weak``."""
    feats = [data.features[i] for i in rows]
    levels = [data.levels[i] for i in rows]
    weights = [1.0] * len(rows)
    if weak is not None and config.weak_weight > 0:
        feats += list(weak.features)
        levels += list(weak.levels)
        weights += [config.weak_weight] * len(weak.features)
    names = tuple(names) or tuple(f"f{j}" for j in range(feats[0].shape[1]))
    return fit_combiner(feats, levels, names, c=config.c, weights=weights, model=config.model)


def cut_levels(scores: np.ndarray, proportions: Sequence[float] = HUMAN_PROPORTIONS) -> np.ndarray:
    """Levels (2/1/0) from cutting ``scores`` by rank."""
    return np.array([LEVEL[x] for x in cut_by_rank(scores, proportions)], dtype=np.int64)


def out_of_fold_scores(config: FitConfig, data: Labelled, weak: Labelled | None = None,
                       k: int = 5, seed: int = 0) -> list[np.ndarray]:
    """Scores of every response of ``data`` from a combiner fitted without its query."""
    scores: list[np.ndarray] = [np.zeros(0)] * len(data.features)
    for test in grouped_folds(data.groups, k, seed):
        train = [i for i, g in enumerate(data.groups) if g not in test]
        comb = fit(config, data, train, weak)
        for i, g in enumerate(data.groups):
            if g in test:
                scores[i] = comb.score(data.features[i])
    return scores


def pooled_kappa(data: Labelled, scores: Sequence[np.ndarray]) -> float:
    """Weighted kappa of the rank-cut labels against ``data.levels``, pooled over responses."""
    return weighted_kappa(np.concatenate(data.levels),
                          np.concatenate([cut_levels(s) for s in scores]))


def select_config(data: Labelled, weak: Labelled | None = None,
                  grid: Sequence[FitConfig] = GRID, k: int = 5,
                  seed: int = 0) -> tuple[FitConfig, dict[FitConfig, float]]:
    """The configuration of ``grid`` with the best out-of-fold pooled kappa on ``data``
    (ties: the first in grid order), and every configuration's kappa."""
    table = {cfg: pooled_kappa(data, out_of_fold_scores(cfg, data, weak, k, seed))
             for cfg in grid}
    best = max(grid, key=lambda cfg: table[cfg])
    return best, table


def subset(data: Labelled, rows: Sequence[int]) -> Labelled:
    """The responses ``rows`` of ``data``."""
    return Labelled(tuple(data.features[i] for i in rows), tuple(data.levels[i] for i in rows),
                    tuple(data.groups[i] for i in rows))
