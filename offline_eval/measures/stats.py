"""Aggregates and significance tests, as in the VITAL paper's significance tables.

Continuous metrics: paired t-test and Wilcoxon signed-rank, Cohen's d_z, rank-biserial r.
Binary flags: McNemar's exact test on the discordant pairs. p-values are Holm-corrected
across the tests of one family.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from offline_eval.types import AggregateValue

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0


def bootstrap_mean(values: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = BOOTSTRAP_SEED, level: float = 0.95) -> AggregateValue:
    """Mean with a percentile bootstrap CI (deterministic for a given seed).

    >>> bootstrap_mean([1.0, 1.0, 1.0])
    AggregateValue(mean=1.0, low=1.0, high=1.0, n=3, reason=None)
    >>> bootstrap_mean([]).reason
    'no defined values'
    """
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return AggregateValue(None, None, None, 0, "no defined values")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(resamples, x.size))
    means = x[idx].mean(axis=1)
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return AggregateValue(float(x.mean()), float(lo), float(hi), int(x.size))


@dataclass(frozen=True)
class PairedTest:
    """A paired comparison of condition A against condition B."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    cohen_dz: float | None
    t_p: float | None
    wilcoxon_p: float | None
    rank_biserial: float | None


def paired_test(a: Sequence[float], b: Sequence[float]) -> PairedTest:
    """Paired t-test and Wilcoxon signed-rank test of ``a - b``.

    >>> r = paired_test([0.9, 0.8, 0.7, 0.95], [0.5, 0.6, 0.4, 0.55])
    >>> r.n, round(r.mean_diff, 3), r.t_p < 0.05
    (4, 0.325, True)
    """
    from scipy import stats

    x, y = np.asarray(a, float), np.asarray(b, float)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    d = x - y
    n = int(d.size)
    if n == 0:
        return PairedTest(0, float("nan"), float("nan"), float("nan"), None, None, None, None)
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    dz = float(d.mean() / sd) if sd > 0 else None
    t_p = float(stats.ttest_rel(x, y).pvalue) if n > 1 and sd > 0 else None
    nz = d[d != 0]
    w_p = rb = None
    if nz.size > 0:
        w_p = float(stats.wilcoxon(x, y, zero_method="wilcox").pvalue)
        ranks = stats.rankdata(np.abs(nz))
        rb = float((ranks[nz > 0].sum() - ranks[nz < 0].sum()) / ranks.sum())
    return PairedTest(n, float(x.mean()), float(y.mean()), float(d.mean()), dz, t_p, w_p, rb)


@dataclass(frozen=True)
class McNemarTest:
    """McNemar's test on paired binary outcomes."""

    n: int
    rate_a: float
    rate_b: float
    a_only: int
    b_only: int
    p: float


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemarTest:
    """Exact (binomial) McNemar test.

    >>> r = mcnemar([1, 1, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0, 0])
    >>> r.a_only, r.b_only, round(r.p, 4)
    (6, 0, 0.0312)
    """
    from scipy import stats

    x, y = np.asarray(a, bool), np.asarray(b, bool)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} vs {y.size}")
    n10, n01 = int((x & ~y).sum()), int((~x & y).sum())
    p = 1.0 if n10 + n01 == 0 else float(stats.binomtest(n10, n10 + n01, 0.5).pvalue)
    n = int(x.size)
    return McNemarTest(n, float(x.mean()) if n else float("nan"),
                       float(y.mean()) if n else float("nan"), n10, n01, p)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni step-down adjusted p-values (None passes through).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    idx = [i for i, p in enumerate(pvalues) if p is not None]
    m = len(idx)
    order = sorted(idx, key=lambda i: pvalues[i])  # type: ignore[arg-type, return-value]
    out: list[float | None] = list(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        adj = min(1.0, (m - rank) * float(pvalues[i]))  # type: ignore[arg-type]
        running = max(running, adj)
        out[i] = round(running, 12)
    return out
