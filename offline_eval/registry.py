"""Versioned names -> factories, filled in one place (:func:`_fill`).

A factory is referenced by ``"module:attribute"`` so that registering a name imports
nothing heavy; the module is imported only when the factory is resolved.

>>> "offline_eval.metrics.vital.v1" in registered_names()
True
>>> resolve("no.such.stage.v1")
Traceback (most recent call last):
...
KeyError: "unknown name 'no.such.stage.v1'; registered: ..."
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

_REGISTRY: dict[str, str] = {}


def register(name: str, target: str) -> None:
    """Register ``name`` (``offline_eval.<kind>.<what>.v<N>``) for ``module:attr``."""
    if name in _REGISTRY and _REGISTRY[name] != target:
        raise ValueError(f"{name!r} is already registered for {_REGISTRY[name]!r}")
    _REGISTRY[name] = target


def _fill() -> None:
    # The one place where names are registered. Keep sorted by kind.
    entries = {
        "offline_eval.decompose.generative.v1":
            "offline_eval.decomposition.generative:GenerativeDecomposer",
        "offline_eval.decompose.syntactic.v1":
            "offline_eval.decomposition.syntactic:SyntacticDecomposer",
        "offline_eval.metrics.vital.v1": "offline_eval.measures.report:compute_response_metrics",
        "offline_eval.stages.audit.v1": "offline_eval.stages.audit:Audit",
        "offline_eval.stages.comprehensiveness.v1":
            "offline_eval.stages.comprehensiveness:Comprehensiveness",
        "offline_eval.stages.decompose.v1": "offline_eval.stages.decompose:Decompose",
        "offline_eval.stages.metrics.v1": "offline_eval.stages.metrics:MetricsStage",
        "offline_eval.stages.nuggets.v1": "offline_eval.stages.nuggets:Nuggets",
        "offline_eval.stages.rank.v1": "offline_eval.stages.rank:Rank",
        "offline_eval.stages.retrieve.v1": "offline_eval.stages.retrieve:Retrieve",
        "offline_eval.stages.split.v1": "offline_eval.stages.split:Split",
        "offline_eval.stages.verify.v1": "offline_eval.stages.verify:Verify",
    }
    for name, target in entries.items():
        register(name, target)


def registered_names() -> list[str]:
    """All registered names, sorted."""
    if not _REGISTRY:
        _fill()
    return sorted(_REGISTRY)


def target(name: str) -> str:
    """The ``module:attribute`` registered under ``name`` (nothing is imported)."""
    names = registered_names()
    if name not in _REGISTRY:
        raise KeyError(f"unknown name {name!r}; registered: {', '.join(names)}")
    return _REGISTRY[name]


def resolve(name: str) -> Callable[..., Any]:
    """Import and return the factory registered under ``name``."""
    module, _, attr = target(name).partition(":")
    return getattr(importlib.import_module(module), attr)
