"""The engines that run the ``score`` pipeline over items: one interface, two engines.

An :class:`Engine` takes the stage specs, the validated items (and the file they came
from), the output and the row builder, and appends one row per item to its rows file,
resumably. :class:`LocalEngine` runs in this process (:func:`~offline_eval.engines.local.run_local`);
:class:`RayEngine` on a Ray cluster (:func:`~offline_eval.engines.ray_engine.run_ray`), its
workers reading the input file as native JSONL.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence

from offline_eval.engines.local import DEFAULT_BATCH_CHARS, RowFn
from offline_eval.engines.spec import StageSpec
from offline_eval.types import Item


class Engine(Protocol):
    """What :func:`offline_eval.score_file.score_file` runs."""

    def rows_path(self, output: str | os.PathLike[str]) -> Path:
        """The JSONL file the rows go to, for ``output``."""
        ...

    def run(self, specs: Sequence[StageSpec], items: Sequence[Item], source: tuple[str, str],
            output: str | os.PathLike[str], to_row: RowFn, *, resume: bool = False) -> Any:
        """Score ``items`` (read from ``source`` = (path, format)) into :meth:`rows_path`;
        returns the run's counts (``done``, ``failed``, ``skipped``, ``seconds``)."""
        ...


@dataclass(frozen=True)
class LocalEngine:
    """This process, batch by batch (at most ``batch_size`` rows and ``batch_chars``
    characters a batch; 0: rows alone); Ctrl-C and SIGTERM say what is saved."""

    batch_size: int = 32
    progress: bool = True
    progress_every: float = 30.0
    batch_chars: int = DEFAULT_BATCH_CHARS

    def rows_path(self, output: str | os.PathLike[str]) -> Path:
        return Path(output)

    def run(self, specs: Sequence[StageSpec], items: Sequence[Item], source: tuple[str, str],
            output: str | os.PathLike[str], to_row: RowFn, *, resume: bool = False) -> Any:
        from offline_eval.engines.local import run_local, saved_on_interrupt
        from offline_eval.engines.spec import build_pipeline

        pipeline = build_pipeline(specs)  # validated before any model loads
        with saved_on_interrupt(self.rows_path(output), len(items)):
            return run_local(items, pipeline, output, to_row, resume=resume,
                             batch_size=self.batch_size, batch_chars=self.batch_chars,
                             progress=self.progress,
                             progress_every=self.progress_every)


@dataclass(frozen=True)
class RayEngine:
    """A Ray cluster (``address``; None: a local instance), ``actors`` per model stage."""

    address: str | None = None
    actors: int = 1
    num_gpus_per_actor: float = 0.0
    batch_size: int = 32
    limits: Any = None

    def rows_path(self, output: str | os.PathLike[str]) -> Path:
        from offline_eval.engines.ray_engine import OUTPUT_NAME
        return Path(output) / OUTPUT_NAME

    def run(self, specs: Sequence[StageSpec], items: Sequence[Item], source: tuple[str, str],
            output: str | os.PathLike[str], to_row: RowFn, *, resume: bool = False) -> Any:
        from offline_eval.engines.local import check_resume
        from offline_eval.engines.ray_engine import native_input, run_ray

        if resume:
            check_resume(self.rows_path(output), items)
        return run_ray(native_input(source[0], str(output), source[1]), specs, output, to_row,
                       address=self.address, actors=self.actors,
                       num_gpus_per_actor=self.num_gpus_per_actor, batch_size=self.batch_size,
                       resume=resume, limits=self.limits)
