"""The engines that run the ``score`` pipeline over items: one interface, two engines.

An :class:`Engine` takes the stage specs, the validated items (and the file they came
from), the open output (:class:`~offline_eval.io.resume.RunOutput`, the one resumable
writer: its ``kept`` rows are skipped) and the row builder, and writes one row per other
item to it, a batch at a time. :class:`LocalEngine` runs in this process (:func:`~offline_eval.engines.local.run_local`);
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
from offline_eval.errors import InputError
from offline_eval.io.resume import RunOutput
from offline_eval.types import Item


class Engine(Protocol):
    """What :func:`offline_eval.score_file.score_file` runs."""

    def rows_path(self, output: str | os.PathLike[str]) -> Path:
        """The JSONL file the rows go to, for ``output``."""
        ...

    def run(self, specs: Sequence[StageSpec], items: Sequence[Item], source: tuple[str, str],
            out: RunOutput, to_row: RowFn) -> Any:
        """Score the ``items`` (read from ``source`` = (path, format)) that ``out`` has not
        kept into ``out`` (opened on :meth:`rows_path`); returns the run's counts (``done``,
        ``failed``, ``skipped``, ``seconds``)."""
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
            out: RunOutput, to_row: RowFn) -> Any:
        from offline_eval.engines.local import run_local, saved_on_interrupt
        from offline_eval.engines.spec import build_pipeline

        pipeline = build_pipeline(specs)  # validated before any model loads
        with saved_on_interrupt(out, len(items)):
            return run_local(items, pipeline, out, to_row,
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
            out: RunOutput, to_row: RowFn) -> Any:
        from offline_eval.engines.ray_engine import native_input, run_ray

        if out.path is None:
            raise InputError("--engine ray writes its rows into a folder: give -o OUT_DIR, "
                             "not standard output")
        folder = out.path.parent
        return run_ray(native_input(source[0], str(folder), source[1]), specs, folder, to_row,
                       address=self.address, actors=self.actors,
                       num_gpus_per_actor=self.num_gpus_per_actor, batch_size=self.batch_size,
                       limits=self.limits, out=out)
