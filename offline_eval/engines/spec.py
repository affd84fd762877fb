"""Stage specifications: what to build, not the built stage.

A spec is plain data (a registry name or ``module:attr`` target plus JSON-able keyword
arguments), so any engine can build the same pipeline in any process: the local engine
builds it once, the Ray engine once per actor or task.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from offline_eval.pipeline import Pipeline
from offline_eval.registry import resolve


@dataclass(frozen=True)
class StageSpec:
    """``target`` is a registered name or ``module:attr``; ``uses_model`` marks stages that
    load a model (the Ray engine runs those in actor pools); ``uses_gpu`` marks the model
    stages whose model can run on a GPU (the Ray engine gives GPUs to those only)."""

    target: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    uses_model: bool = False
    uses_gpu: bool = False

    def build(self) -> Any:
        if ":" in self.target:
            module, _, attr = self.target.partition(":")
            factory = getattr(importlib.import_module(module), attr)
        else:
            factory = resolve(self.target)
        return factory(**dict(self.kwargs))


def build_pipeline(specs: Sequence[StageSpec], provided: Sequence[str] = ("item",)) -> Pipeline:
    """Build every stage and validate the chain."""
    return Pipeline([s.build() for s in specs], provided=provided)
