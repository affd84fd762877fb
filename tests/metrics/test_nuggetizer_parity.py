"""Nugget recall equals the reference `nuggetizer.calculate_nugget_scores` (0.0.5)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline_eval.measures.recall import nugget_recall

metrics = pytest.importorskip("nuggetizer.core.metrics")

nuggets_st = st.lists(st.tuples(st.sampled_from(["vital", "okay"]),
                                st.sampled_from(["support", "partial_support", "not_support"])),
                      min_size=0, max_size=30)


@settings(max_examples=300, deadline=None)
@given(nuggets_st)
def test_matches_nuggetizer(nuggets):
    ref = metrics.calculate_nugget_scores("q", [{"importance": i, "assignment": a}
                                                for i, a in nuggets])
    imps, sups = [i for i, _ in nuggets], [a for _, a in nuggets]
    for variant in ("strict_vital", "strict_all", "vital", "all"):
        ours = nugget_recall(sups, imps, variant)
        want = getattr(ref, f"{variant}_score")
        if ours.value is None:  # nuggetizer gives 0.0 for an empty set; we give null + reason
            assert want == 0.0 and ours.reason
        else:
            assert ours.value == pytest.approx(want, abs=1e-12)
