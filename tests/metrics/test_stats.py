from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from offline_eval.measures import MeanAggregator, MetricsAggregator, bootstrap_mean, holm, mcnemar, paired_test
from offline_eval.measures.compare import compare_conditions
from offline_eval.types import MetricValue


def test_bootstrap_is_deterministic_and_brackets_the_mean():
    x = np.random.default_rng(1).random(50)
    a, b = bootstrap_mean(x), bootstrap_mean(x)
    assert a == b
    assert a.low <= a.mean <= a.high


def test_streaming_merge_equals_one_pass():
    vals = list(np.random.default_rng(2).random(40))
    one = MeanAggregator()
    for v in vals:
        one.update(v)
    left, right = MeanAggregator(), MeanAggregator()
    for v in vals[:13]:
        left.update(v)
    for v in reversed(vals[13:]):
        right.update(v)
    assert left.merge(right).compute() == one.compute()


def test_metrics_aggregator_counts_abstentions():
    agg = MetricsAggregator()
    agg.update({"p": MetricValue(1.0)}, deflection=False)
    agg.update({"p": MetricValue(None, "empty")}, deflection=True)
    assert agg.abstention.compute() == 0.5
    assert agg.compute()["p"].n == 1


def test_paired_test_matches_scipy():
    rng = np.random.default_rng(3)
    a, b = rng.random(30), rng.random(30)
    r = paired_test(a, b)
    assert r.t_p == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert r.wilcoxon_p == pytest.approx(stats.wilcoxon(a, b).pvalue)


def test_paired_test_rejects_unequal_lengths():
    with pytest.raises(ValueError, match="differ in length"):
        paired_test([1.0], [1.0, 2.0])


def test_mcnemar_exact():
    r = mcnemar([1] * 10 + [0] * 10, [0] * 2 + [1] * 8 + [0] * 10)
    assert (r.a_only, r.b_only) == (2, 0)
    assert r.p == pytest.approx(stats.binomtest(2, 2, 0.5).pvalue)


def test_holm_monotone_and_capped():
    p = [0.001, 0.02, 0.5, None, 0.04]
    adj = holm(p)
    assert adj[3] is None
    assert adj[0] == pytest.approx(0.004)
    assert adj[1] == pytest.approx(0.06)
    assert adj[4] == pytest.approx(0.08)
    assert adj[2] == pytest.approx(0.5)


def test_compare_conditions_pairs_by_id():
    vals = {"normal": {str(i): {"factscore_precision": 0.9, "vital_rlp": 0.0} for i in range(20)},
            "wrong": {str(i): {"factscore_precision": 0.5 + i / 100, "vital_rlp": 1.0} for i in range(20)}}
    out = compare_conditions(vals)
    fs = [c for c in out if c.metric == "factscore_precision"][0]
    rlp = [c for c in out if c.metric == "vital_rlp"][0]
    assert fs.test.n == 20 and fs.test.mean_diff > 0
    assert rlp.test.b_only == 20 and rlp.p_holm[0] < 0.001
