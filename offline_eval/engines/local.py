"""The local engine: batches items through a pipeline and appends finished rows.

Lossless and resumable:

* rows are appended in input order and flushed (and fsynced) as each batch finishes; a
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

import json
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from offline_eval.errors import InputError, StageError
from offline_eval.io.jsonl import dumps
from offline_eval.pipeline import Pipeline, StageHook
from offline_eval.progress import RunProgress
from offline_eval.types import Item, ResponseResult

RowFn = Callable[[ResponseResult], dict[str, Any]]

#: ``--batch-chars``: the longest batch measured in RAG mode on a 2-core CPU took 10.1 s,
#: where a row's references weigh 21,000 characters (RESULTS.md ``kills``)
DEFAULT_BATCH_CHARS = 40_000


@dataclass(frozen=True)
class RunStats:
    """What a run did."""

    done: int
    failed: int
    skipped: int
    seconds: float


def complete_ids(path: Path) -> set[str]:
    """Ids of complete rows in an existing output; rewrites the file without the rest.

    The rewrite goes to a temporary file that replaces the output atomically.
    """
    if not path.exists():
        return set()
    keep: list[str] = []
    ids: set[str] = set()
    with path.open("rb") as fh:
        for raw in fh:
            try:
                row = json.loads(raw)
            except ValueError:
                continue  # a torn line from a kill mid-write
            if isinstance(row, dict) and row.get("status") == "ok" and "id" in row:
                if row["id"] not in ids:
                    ids.add(row["id"])
                    keep.append(raw.decode("utf-8").rstrip("\n"))
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in keep))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)      # the rename survives a crash of the machine too
    return ids


def fsync_dir(folder: Path) -> None:
    """Make a file's creation or rename in ``folder`` durable (where the OS allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # Windows cannot open a folder; its renames are journalled by NTFS
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_resume(path: Path, items: Sequence[Item]) -> None:
    """Refuse to resume into an output that was written from other input.

    Each complete row of ``path`` must have the id of an item of ``items`` and, where the
    row records them, the same query, response and date: otherwise the resumed output would
    mix rows of two inputs (rows for ids no longer there would be kept and summarised, and
    an edited response would keep its old scores).

    Raises:
        InputError: naming the output, how many rows differ and one example of each kind.
    """
    if not path.exists():
        return
    by_id = {str(it.id): it for it in items}
    stale: list[str] = []
    changed: list[str] = []
    with path.open("rb") as fh:
        for raw in fh:
            try:
                row = json.loads(raw)
            except ValueError:
                continue  # a torn line: complete_ids drops it
            if not (isinstance(row, dict) and row.get("status") == "ok" and "id" in row):
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
                         path=str(path))


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


def run_local(items: Sequence[Item], pipeline: Pipeline, output: str | os.PathLike[str],
              to_row: RowFn, *, resume: bool = False, batch_size: int = 32,
              batch_chars: int = DEFAULT_BATCH_CHARS, progress: bool | None = None,
              progress_every: float = 30.0) -> RunStats:
    """Score ``items`` into ``output`` (JSONL), in :func:`batches` of ``batch_size`` rows
    and ``batch_chars`` characters (0: rows alone).

    ``progress``: show it on stderr (:class:`~offline_eval.progress.RunProgress`: a bar on a
    terminal, a line every ``progress_every`` seconds elsewhere); None shows the bar on a
    terminal only."""
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    if resume:
        check_resume(out, items)
    done_ids = complete_ids(out) if resume else set()
    todo = [it for it in items if it.id not in done_ids]
    show = sys.stderr.isatty() if progress is None else progress
    bar = RunProgress(len(todo), show, every=progress_every)
    t0 = time.monotonic()
    done = failed = 0
    with out.open("a" if resume else "w", encoding="utf-8") as fh, _closing(bar):
        fsync_dir(out.parent)   # the output's own entry, before any row relies on it
        for batch in batches(todo, batch_size, batch_chars):
            moved = 0.0

            def on_stage(name: str, i: int, n: int, size: int = len(batch)) -> None:
                nonlocal moved
                bar.stage(name)
                step = size * i / n - moved if i else 0.0   # a stage's share of the batch
                moved += step
                bar.advance(step)

            rows = _run_batch(batch, pipeline, to_row, on_stage)
            fh.write("".join(dumps(row) + "\n" for row in rows))
            fh.flush()
            os.fsync(fh.fileno())  # the batch survives a crash of the machine, not only of us
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
def saved_on_interrupt(output: Path, total: int) -> Iterator[None]:
    """Turns Ctrl-C and SIGTERM into :class:`RunInterrupted`, counting the saved rows;
    the old SIGTERM handler is restored after."""
    import signal
    import threading

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
