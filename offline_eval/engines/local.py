"""The local engine: batches items through a pipeline and appends finished rows.

Lossless and resumable:

* rows go through the one resumable output, :class:`~offline_eval.io.resume.RunOutput`:
  appended in input order and flushed (and fsynced) as each batch finishes; a
  batch holds at most ``batch_size`` rows and ``batch_chars`` characters of responses and
  references (always at least one row), so an interrupt loses at most the batch in flight;
  batches are cut from the rows still to do alone, never from timing, and rows do not
  depend on them;
* ``resume=True`` keeps the rows already complete (``status == "ok"``), drops error rows and
  a torn last line (from a kill mid-write), and processes only the remaining ids;
* a batch that fails is retried one item at a time, so a failing row gets an error row
  naming its id and the stage, and the others go on.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from offline_eval.errors import InputError, StageError
from offline_eval.io.resume import RunOutput
from offline_eval.pipeline import Pipeline, StageHook
from offline_eval.progress import RunProgress
from offline_eval.types import Item, ResponseResult

RowFn = Callable[[ResponseResult], dict[str, Any]]

#: ``--batch-chars``: a kill loses at most the batch in flight (RESULTS.md ``kills``: its
#: time per batch at each bound), and the RAG stages work per call, so smaller batches cost
#: throughput (``kills``: 160,000 against 40,000, the bound before 2026-12-07)
DEFAULT_BATCH_CHARS = 160_000


@dataclass(frozen=True)
class RunStats:
    """What a run did."""

    done: int
    failed: int
    skipped: int
    seconds: float


def scored_ok(row: Mapping[str, Any]) -> bool:
    """The rows a resume keeps: scored ones (``status == "ok"``); error rows are redone."""
    return row.get("status") == "ok"


def check_resume(rows: Sequence[Mapping[str, Any]], items: Sequence[Item],
                 path: str | None = None) -> None:
    """Refuse to resume into an output that was written from other input.

    Each complete row of the output (``rows``, as :func:`~offline_eval.io.resume.keep_rows`
    read them from ``path``) must have the id of an
    item of ``items`` and, where the row records them, the same query, response and date:
    otherwise the resumed output would mix rows of two inputs (rows for ids no longer there
    would be kept and summarised, and an edited response would keep its old scores).

    Raises:
        InputError: naming the output, how many rows differ and one example of each kind.
    """
    by_id = {str(it.id): it for it in items}
    stale: list[str] = []
    changed: list[str] = []
    for row in rows:
        if row.get("status") != "ok":
            continue
        it = by_id.get(str(row["id"]))
        if it is None:
            stale.append(str(row["id"]))
        elif any(k in row and (row[k] or None) != (v or None) for k, v in  # "" = no date
                 (("query", it.query), ("response", it.response), ("date", it.date))):
            changed.append(str(row["id"]))
    if stale or changed:
        parts = ([f"{len(stale)} row(s) for ids not in the input (e.g. {stale[0]!r})"] if stale else []) + \
                ([f"{len(changed)} row(s) scored from another query, response or date "
                  f"(e.g. {changed[0]!r})"] if changed else [])
        raise InputError(f"cannot resume: it holds {' and '.join(parts)}; it was written from "
                         "other input. Score into a new file, or remove those rows first.",
                         path=path)


def item_chars(item: Item) -> int:
    """What a row weighs for :func:`batches`: its response's and references' characters."""
    return len(item.response) + sum(len(r.text) for r in item.references)


def batches(items: Sequence[Item], batch_size: int, batch_chars: int = 0) -> Iterator[list[Item]]:
    """``items`` in order, cut into batches of at most ``batch_size`` rows and, when
    ``batch_chars`` > 0, at most ``batch_chars`` characters (:func:`item_chars`); a row
    heavier than that is a batch alone. A function of the items alone, never of time.

    >>> from offline_eval.types import Item
    >>> rows = [Item(str(i), "", "x" * n) for i, n in enumerate([5, 5, 5, 20, 1, 1, 1])]
    >>> [[it.id for it in b] for b in batches(rows, 3, 12)]
    [['0', '1'], ['2'], ['3'], ['4', '5', '6']]
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    batch: list[Item] = []
    weight = 0
    for it in items:
        w = item_chars(it)
        if batch and (len(batch) >= batch_size or (batch_chars > 0 and weight + w > batch_chars)):
            yield batch
            batch, weight = [], 0
        batch.append(it)
        weight += w
    if batch:
        yield batch


def error_row(item: Item, exc: Exception) -> dict[str, Any]:
    stage = exc.stage if isinstance(exc, StageError) else "unknown"
    return {"id": item.id, "status": "error", "error": {"stage": stage, "message": str(exc)}}


def run_local(items: Sequence[Item], pipeline: Pipeline, output: str | os.PathLike[str] | RunOutput,
              to_row: RowFn, *, resume: bool = False, batch_size: int = 32,
              batch_chars: int = DEFAULT_BATCH_CHARS, progress: bool | None = None,
              progress_every: float = 30.0) -> RunStats:
    """Score ``items`` into ``output`` (JSONL), in :func:`batches` of ``batch_size`` rows
    and ``batch_chars`` characters (0: rows alone), each batch written, flushed and fsynced
    at once.

    ``output``: a path (``resume`` keeps its scored rows, :func:`scored_ok`, after
    :func:`check_resume`), or an open :class:`~offline_eval.io.resume.RunOutput` (its
    ``kept`` rows are skipped; ``resume`` is then the caller's). ``progress``: show it on
    stderr (:class:`~offline_eval.progress.RunProgress`: a bar on a terminal, a line every
    ``progress_every`` seconds elsewhere); None shows the bar on a terminal only."""
    if isinstance(output, RunOutput):
        opened: Any = nullcontext(output)
    else:
        opened = RunOutput(output, None, resume=resume, keep=scored_ok,
                           check=lambda rows: check_resume(rows, items, str(output)))
    t0 = time.monotonic()
    done = failed = 0
    with opened as out:
        done_ids = out.kept_ids
        todo = [it for it in items if it.id not in done_ids]
        show = sys.stderr.isatty() if progress is None else progress
        bar = RunProgress(len(todo), show, every=progress_every)
        with _closing(bar):
            for batch in batches(todo, batch_size, batch_chars):
                moved = 0.0

                def on_stage(name: str, i: int, n: int, size: int = len(batch)) -> None:
                    nonlocal moved
                    bar.stage(name)
                    step = size * i / n - moved if i else 0.0   # a stage's share of the batch
                    moved += step
                    bar.advance(step)

                rows = _run_batch(batch, pipeline, to_row, on_stage)
                out.write(rows)
                ok = sum(row["status"] == "ok" for row in rows)
                done += ok
                failed += len(rows) - ok
                bar.advance(len(batch) - moved)
    return RunStats(done, failed, len(items) - len(todo), time.monotonic() - t0)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped a run: ``saved`` of ``total`` rows are in ``output``
    (every finished batch is flushed and fsynced; ``resume`` continues it)."""

    def __init__(self, saved: int, total: int, output: Path) -> None:
        super().__init__(f"{saved} of {total} rows are saved in {output}")
        self.saved, self.total, self.output = saved, total, output


@contextmanager
def saved_on_interrupt(output: Path | RunOutput, total: int) -> Iterator[None]:
    """Turns Ctrl-C and SIGTERM into :class:`RunInterrupted`, counting the saved rows of
    ``output`` (a file, or a :class:`~offline_eval.io.resume.RunOutput`'s); the old SIGTERM
    handler is restored after."""
    import signal
    import threading

    if isinstance(output, RunOutput):
        output = output.path or Path("-")

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    main = threading.current_thread() is threading.main_thread()  # only it may set handlers
    old = signal.signal(signal.SIGTERM, on_term) if main else None
    try:
        yield
    except KeyboardInterrupt:
        saved = 0
        if output.is_file():
            with output.open("rb") as fh:
                saved = sum(b'"status":"ok"' in line or b'"status": "ok"' in line for line in fh)
        raise RunInterrupted(saved, total, output) from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, old)


@contextmanager
def _closing(bar: RunProgress) -> Iterator[RunProgress]:
    """The bar closed however the run ends (Ctrl-C included)."""
    try:
        yield bar
    finally:
        bar.close()


def run_batch(batch: Sequence[Item], pipeline: Pipeline, to_row: RowFn,
              on_stage: StageHook | None = None
              ) -> list[tuple[ResponseResult | None, dict[str, Any]]]:
    """``(result, row)`` for each item of a batch, in order; a batch that fails is retried
    one item at a time, and a failing item gets ``(None, error row)``. ``on_stage`` sees the
    whole batch's stages (not the retries')."""
    records = [ResponseResult(item=it) for it in batch]
    try:
        results = pipeline(records) if on_stage is None else pipeline(records, on_stage)
        return [(r, to_row(r)) for r in results]
    except Exception as exc:  # noqa: BLE001
        if len(batch) == 1:
            return [(None, error_row(batch[0], exc))]
    out: list[tuple[ResponseResult | None, dict[str, Any]]] = []
    for it in batch:  # isolate the failing rows
        try:
            r = pipeline([ResponseResult(item=it)])[0]
            out.append((r, to_row(r)))
        except Exception as exc:  # noqa: BLE001 - becomes an error row, the run goes on
            out.append((None, error_row(it, exc)))
    return out


def _run_batch(batch: Sequence[Item], pipeline: Pipeline, to_row: RowFn,
               on_stage: StageHook | None = None) -> list[dict[str, Any]]:
    return [row for _, row in run_batch(batch, pipeline, to_row, on_stage)]
