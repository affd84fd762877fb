"""Runs stages in order over batches of :class:`~offline_eval.types.ResponseResult`.

Each stage is a small callable ``stage(batch) -> batch`` with class attributes
``name``, ``requires`` and ``assigns`` (field names of ``ResponseResult``). The
pipeline validates the order before anything heavy is loaded: every required
field must be assigned by an earlier stage or be provided by the input.
"""
from __future__ import annotations

from dataclasses import fields
from typing import Callable, Iterable, Iterator, Protocol, Sequence, runtime_checkable

from offline_eval.errors import StageError
from offline_eval.types import ResponseResult

RECORD_FIELDS = frozenset(f.name for f in fields(ResponseResult))
Batch = list[ResponseResult]
StageHook = Callable[[str, int, int], None]


@runtime_checkable
class Stage(Protocol):
    """What the pipeline expects of a stage."""

    name: str
    requires: tuple[str, ...]
    assigns: tuple[str, ...]

    def __call__(self, batch: Batch) -> Batch: ...


class Pipeline:
    """An ordered, validated list of stages.

    Args:
        stages: the stages, in order.
        provided: record fields the input already carries (``item`` always).
    """

    def __init__(self, stages: Sequence[Stage], provided: Iterable[str] = ("item",)) -> None:
        self.stages = list(stages)
        self.provided = frozenset(provided) | {"item"}
        self.validate()

    def validate(self) -> None:
        """Check names and the requires/assigns chain; raises StageError."""
        available = set(self.provided)
        for stage in self.stages:
            name = getattr(stage, "name", type(stage).__name__)
            for attr in ("requires", "assigns"):
                unknown = set(getattr(stage, attr, ())) - RECORD_FIELDS
                if unknown:
                    raise StageError(name, f"{attr} names unknown fields {sorted(unknown)}")
            missing = set(stage.requires) - available
            if missing:
                raise StageError(name, f"requires {sorted(missing)}, which no earlier stage "
                                       f"assigns (available: {sorted(available)})")
            available |= set(stage.assigns)

    def __call__(self, batch: Batch, on_stage: "StageHook | None" = None) -> Batch:
        """Run every stage over ``batch``; ``on_stage(name, i, n)`` is called before
        stage ``i`` of ``n`` starts, and ``on_stage(name, n, n)`` once the last has ended
        (``name`` then being that stage's), for progress displays."""
        for i, stage in enumerate(self.stages):
            if on_stage is not None:
                on_stage(stage.name, i, len(self.stages))
            try:
                out = stage(batch)
            except StageError:
                raise
            except Exception as exc:  # wrap with the stage's name
                raise StageError(stage.name, f"{type(exc).__name__}: {exc}") from exc
            if not isinstance(out, list) or len(out) != len(batch) or not all(
                    isinstance(r, ResponseResult) for r in out):
                raise StageError(stage.name, "must return a list of ResponseResult of the "
                                             "same length as its input")
            batch = out
        if on_stage is not None and self.stages:
            on_stage(self.stages[-1].name, len(self.stages), len(self.stages))
        return batch

    def run(self, records: Iterable[ResponseResult], batch_size: int = 32) -> Iterator[ResponseResult]:
        """Stream records through the stages in batches."""
        buf: Batch = []
        for rec in records:
            buf.append(rec)
            if len(buf) >= batch_size:
                yield from self(buf)
                buf = []
        if buf:
            yield from self(buf)
