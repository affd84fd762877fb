"""The registry holds exactly these versioned names (update when adding one)."""
from __future__ import annotations

import pytest

from offline_eval import registry

EXPECTED = [
    "offline_eval.decompose.generative.v1",
    "offline_eval.decompose.syntactic.v1",
    "offline_eval.metrics.vital.v1",
    "offline_eval.stages.audit.v1",
    "offline_eval.stages.comprehensiveness.v1",
    "offline_eval.stages.decompose.v1",
    "offline_eval.stages.metrics.v1",
    "offline_eval.stages.nuggets.v1",
    "offline_eval.stages.rank.v1",
    "offline_eval.stages.retrieve.v1",
    "offline_eval.stages.split.v1",
    "offline_eval.stages.verify.v1",
]


def test_registered_names_are_the_expected_list():
    assert registry.registered_names() == sorted(EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_every_name_resolves(name):
    assert callable(registry.resolve(name))


def test_conflicting_registration_is_refused():
    registry.registered_names()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(EXPECTED[0], "somewhere:else")


@pytest.mark.parametrize("name", [n for n in EXPECTED if n.startswith("offline_eval.stages.")])
def test_stage_classes_carry_their_registered_name(name):
    stage_cls = registry.resolve(name)
    assert stage_cls.name == name
    assert isinstance(stage_cls.requires, tuple) and isinstance(stage_cls.assigns, tuple)


def test_every_decomposer_name_is_registered():
    from offline_eval.decomposition.base import DECOMPOSERS

    assert {f"offline_eval.decompose.{n}.v1" for n in DECOMPOSERS} <= set(registry.registered_names())
