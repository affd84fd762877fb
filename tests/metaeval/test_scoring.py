"""Detection scores against naive references."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, strategies as st

from offline_eval.metaeval.scoring import auroc, balanced_accuracy, confusion, f1


def naive_auroc(y, s):
    pos = [b for a, b in zip(y, s) if a]
    neg = [b for a, b in zip(y, s) if not a]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=40))
def test_auroc_matches_pairwise_count(rows):
    y, s = [r[0] for r in rows], [float(r[1]) for r in rows]
    if all(y) or not any(y):
        assert auroc(y, s) is None
    else:
        assert auroc(y, s) == pytest.approx(naive_auroc(y, s))


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40))
def test_balanced_accuracy_and_f1_match_their_definitions(rows):
    y, p = [r[0] for r in rows], [r[1] for r in rows]
    c = confusion(y, p)
    assert c.tp + c.fp + c.fn + c.tn == len(rows)
    recalls = []
    if any(y):
        recalls.append(sum(a and b for a, b in rows) / sum(y))
    if not all(y):
        recalls.append(sum((not a) and (not b) for a, b in rows) / (len(y) - sum(y)))
    assert balanced_accuracy(y, p) == pytest.approx(sum(recalls) / len(recalls))
    prec = c.precision
    rec = c.recall
    if c.tp:
        assert f1(y, p) == pytest.approx(2 * prec * rec / (prec + rec))


def test_constant_predictor_scores_half():
    y = [True, False, False, True, False]
    assert balanced_accuracy(y, [True] * 5) == 0.5
    assert auroc(y, [1.0] * 5) == 0.5


def test_f1_undefined_without_positives():
    assert f1([False, False], [False, False]) is None


def test_length_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="differ in length"):
        auroc([True, False], [0.1])
