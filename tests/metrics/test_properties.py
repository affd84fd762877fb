"""Property tests: ranges, order invariance, empty input; never NaN."""
from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from offline_eval.measures import METRIC_KEYS, compute_response_metrics, cumulative_precision
from offline_eval.types import Claim, Item, Nugget, ResponseResult

claim_st = st.tuples(st.sampled_from([True, False, None]),
                     st.sampled_from(["vital", "okay", "less-important", None]))
nugget_st = st.tuples(st.sampled_from(["vital", "okay", None]),
                      st.sampled_from(["support", "partial_support", "not_support"]))


def build(claims, nuggets, with_order=True):
    cs = tuple(Claim(f"c{i}", "t", judgment=j, importance=imp) for i, (j, imp) in enumerate(claims))
    ns = tuple(Nugget(f"n{i}", "t", importance=imp, support=s) for i, (imp, s) in enumerate(nuggets))
    order = tuple(c.id for c in cs) if with_order else ()
    return ResponseResult(item=Item("x", "q", "r"), claims=cs, nuggets=ns, order=order)


@settings(max_examples=300, deadline=None)
@given(st.lists(claim_st, max_size=25), st.lists(nugget_st, max_size=15))
def test_every_metric_in_unit_interval_or_null_with_reason(claims, nuggets):
    m = compute_response_metrics(build(claims, nuggets))
    assert list(m) == list(METRIC_KEYS)
    for key, mv in m.items():
        if mv.value is None:
            assert mv.reason, key
        else:
            assert not math.isnan(mv.value) and 0.0 <= mv.value <= 1.0, key


ORDER_FREE = ("factscore_precision", "factscore_precision_gamma", "vital_precision",
              "okay_precision", "less_important_precision", "weighted_precision",
              "weighted_recall", "nugget_recall_strict_vital", "nugget_recall_strict_all",
              "nugget_recall_vital", "nugget_recall_all", "vital_recall", "vital_rlp", "vital_rlr")


@settings(max_examples=200, deadline=None)
@given(st.lists(claim_st, max_size=25), st.lists(nugget_st, max_size=15), st.randoms())
def test_set_metrics_invariant_to_claim_and_nugget_order(claims, nuggets, rnd):
    a = compute_response_metrics(build(claims, nuggets, with_order=False))
    c2, n2 = list(claims), list(nuggets)
    rnd.shuffle(c2)
    rnd.shuffle(n2)
    b = compute_response_metrics(build(c2, n2, with_order=False))
    for key in ORDER_FREE:
        va, vb = a[key].value, b[key].value
        assert (va is None and vb is None) or abs(va - vb) < 1e-12, key


def test_empty_response_gives_defined_values():
    m = compute_response_metrics(build([], []))
    assert all(mv.value is None and mv.reason for k, mv in m.items() if k != "vital_rlp")
    assert m["vital_rlp"].value == 0.0 and m["vital_rlp"].reason


def test_all_null_judgments_are_undefined_not_nan():
    m = compute_response_metrics(build([(None, "vital")] * 4, []))
    assert m["factscore_precision"].value is None
    assert m["factscore_precision"].reason == "no decided claims"


def test_linear_decay_rewards_errors_late_in_the_order():
    early = compute_response_metrics(build([(False, "vital")] + [(True, "okay")] * 5, []))
    late = compute_response_metrics(build([(True, "okay")] * 5 + [(False, "vital")], []))
    assert late["linear_decay_precision"].value > early["linear_decay_precision"].value
    assert late["factscore_precision"].value == early["factscore_precision"].value


@given(st.lists(st.sampled_from([True, False, None]), max_size=30))
def test_cumulative_curve_ends_at_factscore(js):
    from offline_eval.measures import factscore_precision
    curve = cumulative_precision(js)
    assert len(curve) == len(js)
    if js:
        assert curve[-1] == factscore_precision(js).value


def test_gamma_penalty_only_for_short_responses():
    short = compute_response_metrics(build([(True, "okay")] * 5, []))
    long = compute_response_metrics(build([(True, "okay")] * 12, []))
    assert short["factscore_precision_gamma"].value == math.exp(1 - 10 / 5)
    assert long["factscore_precision_gamma"].value == 1.0
    random.seed(0)
