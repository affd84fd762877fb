"""The one resumable output: every command's rows go through :class:`RunOutput`, those of
``score`` (its local and Ray engines) and of the row commands (``verify``, ``decompose``,
``rank``, ``nuggets``, ``comprehensiveness``).

* The output fills as rows finish, in batches: each batch is one write, flushed and
  fsynced, so an interrupt, a ``kill -9`` or a crash of the machine loses at most the batch
  in flight.
* Beside it, ``OUT.run.json`` records what decides the rows (``score``: flags, models,
  runtimes and versions, :mod:`offline_eval.provenance`; a row command: its options, models
  and the input's sha256). It is written, whole and fsynced, before the first row.
* ``resume=True`` first compares that record with this run's and refuses a difference,
  naming it; then keeps the complete rows of the output (a torn last line from a kill
  mid-write is dropped, and so are the rows ``keep`` refuses, such as ``score``'s error
  rows, which are computed again), rewriting the file atomically when it drops any.
  ``kept`` holds them, in file order; the caller computes only the rest.
* Standard output (``None`` or ``"-"``) and devices are written as rows come, and cannot
  be resumed.

An output that already holds rows is never replaced by accident: see
:func:`refuse_filled_output`.

>>> import json, tempfile
>>> from pathlib import Path
>>> out = Path(tempfile.mkdtemp()) / "out.jsonl"
>>> try:
...     with RunOutput(out, {"opt": 1}) as w:
...         w.write([{"id": "1"}]); raise KeyboardInterrupt
... except KeyboardInterrupt:
...     pass
>>> with RunOutput(out, {"opt": 1}, resume=True) as w:
...     done = [r["id"] for r in w.kept]; w.write([{"id": "2"}])
>>> done, [json.loads(x)["id"] for x in out.read_text().splitlines()]
(['1'], ['1', '2'])
"""
from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.io.jsonl import _STDOUT, COMPRESSED, _renamable, dumps

#: the rows a resume keeps: every row a command wrote (the row commands)
Keep = Callable[[Mapping[str, Any]], bool]


def every_row(row: Mapping[str, Any]) -> bool:
    return True


def record_beside(output: str | os.PathLike[str]) -> Path:
    """``OUT.run.json``: where the record of a run writing ``output`` lives."""
    out = Path(output)
    return out.with_name(out.name + ".run.json")


class RunOutput:
    """A resumable JSONL output (the module's docstring says how it behaves).

    Args:
        path: the output file (None or ``"-"``: standard output).
        record: what decides the rows, compared on ``resume`` and written before any row
            (None: no record).
        resume: keep the rows of a stopped run with the same record.
        record_at: where the record goes (default ``OUT.run.json``).
        keep: which complete rows a resume keeps (default: all); a row whose ``id`` was
            kept already is dropped.
        check: called on resume with every complete row of the output, before anything is
            dropped from it (raise to refuse the resume; the file is then left as it was).

    Attributes:
        kept: the rows a resume kept, in file order (empty without ``resume``).
        written: rows written by this run.
        streamed: on standard output with ``collect``, the lines written (for a caller that
            needs the rows afterwards; otherwise nothing is held).
    """

    def __init__(self, path: str | os.PathLike[str] | None, record: Mapping[str, Any] | None,
                 *, resume: bool = False, record_at: Path | None = None,
                 keep: Keep = every_row,
                 check: Callable[[list[dict[str, Any]]], None] | None = None,
                 collect: bool = False) -> None:
        stream = path in (None, "-") or str(path) in _STDOUT
        self.path = None if stream else Path(path)  # type: ignore[arg-type]
        if self.path is not None and self.path.suffix.lower() in COMPRESSED:
            raise InputError("rows are written as plain JSONL, so that a run can resume; name "
                             "the output .jsonl and compress it when the run is done",
                             path=str(path))
        self.record, self.resume, self.keep, self.check = record, resume, keep, check
        self.collect = collect
        self.streamed: list[str] = []
        self.record_at = record_at if record_at is not None or self.path is None \
            else record_beside(self.path)
        self.kept: list[dict[str, Any]] = []
        self.written = 0
        self._fh: IO[str] | None = None
        self._sync = False

    @property
    def kept_ids(self) -> set[str]:
        return {str(r["id"]) for r in self.kept}

    def __enter__(self) -> "RunOutput":
        target = None if self.path is None else _renamable(self.path)
        if self.path is None or target is None:  # stdout, a device, a pipe
            if self.resume:
                raise InputError("--resume needs a regular output file (-o OUT.jsonl)",
                                 path=None if self.path is None else str(self.path))
            self._fh = sys.stdout if self.path is None else self.path.open("a", encoding="utf-8")
            return self
        self.path = target  # a symlink's file: a resume's rewrite replaces it, not the link
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.resume:
            self._compare_record()
            if not self.path.is_file():
                print(f"offline-eval: note: no stopped run to resume ({self.path} is missing); "
                      "starting from the first row", file=sys.stderr)
            if self.check is not None:
                self.check(keep_rows(self.path, every_row, rewrite=False))
            self.kept = keep_rows(self.path, self.keep)
        # a new run empties the output, durably, before its record replaces the old one: old
        # rows never sit beside a record that does not describe them
        self._fh = self.path.open("a" if self.resume else "w", encoding="utf-8")
        self._sync = True
        os.fsync(self._fh.fileno())
        fsync_dir(self.path.parent)  # the output's own entry, before any row relies on it
        if self.record is not None and self.record_at is not None:
            try:
                write_record(self.record_at, self.record)
            except BaseException:
                self._fh.close()
                self._fh = None
                raise
        return self

    def _compare_record(self) -> None:
        from offline_eval.provenance import differences

        assert self.path is not None
        at = self.record_at
        if self.record is None or at is None:
            return
        if not at.is_file():
            if self.path.is_file() and self.path.stat().st_size:
                warnings.warn(f"{at} is missing, so --resume cannot check that the rows already "
                              f"in {self.path} were written with these flags and models",
                              UserWarning, stacklevel=4)
            return
        try:
            then = json.loads(at.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"unreadable run record ({exc}); pass --overwrite to start again",
                             path=str(at)) from None
        diffs = ["the input file changed" if d.startswith("input_sha256:") else d
                 for d in differences(then, json.loads(json.dumps(self.record)))]
        if diffs:
            more = f"; and {len(diffs) - 6} more" if len(diffs) > 6 else ""
            raise InputError("--resume: the output was written with another configuration: "
                             + "; ".join(diffs[:6]) + more + ". Resume with the same input, "
                             "flags, models and versions, or pass --overwrite to start again",
                             path=str(at))

    def write(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """One batch of rows: one write, flushed, and fsynced on a regular file."""
        self.write_lines([dumps(row) for row in rows])

    def write_lines(self, lines: Sequence[str]) -> None:
        """One batch of rows already serialised (one JSON object a line, no newline)."""
        if self._fh is None:
            raise RuntimeError("use RunOutput as a context manager")
        if not lines:
            return
        self._fh.write("".join(line + "\n" for line in lines))
        self._fh.flush()
        if self._sync:
            os.fsync(self._fh.fileno())  # the batch survives a crash of the machine too
        elif self.path is None and self.collect:
            self.streamed.extend(lines)
        self.written += len(lines)

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None and self._fh is not sys.stdout:
            self._fh.close()
        self._fh = None


def _is_row(raw: bytes) -> bool:
    try:
        row = json.loads(raw)
    except ValueError:
        return False
    return isinstance(row, dict) and "id" in row


def keep_rows(path: Path, keep: Keep = every_row, rewrite: bool = True) -> list[dict[str, Any]]:
    """The complete rows of ``path`` that ``keep`` accepts, each id once, in file order; the
    file is rewritten without the rest (atomically, fsynced with its folder) when there is
    any, and a torn last line (a kill mid-write) is dropped (``rewrite=False``: only read).
    From the first line that holds a NUL byte on, the file is torn too: a row never holds
    one (JSON escapes it), and a crash of the machine leaves zero-filled blocks where the
    unsynced last batch was, possibly before rows of that batch that did reach the disk
    (those are computed again).

    Raises:
        InputError: a line before the last that is not a row (a JSON object with an
            ``id``), naming file and line: not a file this command wrote.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    nul = data.find(b"\0")
    body = data if nul < 0 else data[:data.rfind(b"\n", 0, nul) + 1]
    lines = body.split(b"\n")
    tail = lines.pop() + data[len(body):]  # after the last good newline: empty, or torn
    if nul >= 0 and rewrite:
        after = sum(1 for raw in data[nul:].split(b"\n") if _is_row(raw.lstrip(b"\0")))
        warnings.warn(f"{path}:{len(lines) + 1}: zero-filled from here on (the machine stopped "
                      f"mid-write); the rows from this line on are computed again"
                      + (f", {after} complete one(s) after the zeros included" if after else ""),
                      UserWarning, stacklevel=2)
    rows: list[dict[str, Any]] = []
    kept: list[bytes] = []
    seen: set[str] = set()
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError:
            row = None
        if not isinstance(row, dict) or "id" not in row:
            raise InputError("not a row this command wrote; pass --overwrite to start again",
                             path=str(path), line=n)
        if keep(row) and str(row["id"]) not in seen:
            seen.add(str(row["id"]))
            rows.append(row)
            kept.append(raw)
    if not rewrite or (len(kept) == len(lines) and not tail):
        return rows  # nothing to drop
    if len(kept) == len(lines):  # only a torn tail: cut it off
        with path.open("r+b") as fh:
            fh.truncate(len(data) - len(tail))
            fh.flush()
            os.fsync(fh.fileno())
        return rows
    tmp = path.with_name(f".{path.name}.resume")
    with tmp.open("wb") as fh:
        fh.write(b"".join(raw + b"\n" for raw in kept))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)  # the rename survives a crash of the machine too
    return rows


def write_record(path: Path, record: Mapping[str, Any]) -> None:
    """Write ``record`` (JSON, keys sorted) to ``path`` whole or not at all, fsynced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(record, indent=2, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


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


def refuse_filled_output(out: str | os.PathLike[str] | None, resume: bool,
                         overwrite: bool) -> None:
    """A finished (or killed) run's rows are never thrown away by accident: an output file
    that already holds rows needs ``--resume`` (continue it) or ``--overwrite`` (start again).
    Standard output and devices are always written."""
    if resume and overwrite:
        raise InputError("--resume and --overwrite exclude each other")
    if not out or str(out) == "-" or resume or overwrite or not Path(out).is_file() \
            or os.path.abspath(out).startswith(("/dev/", "/proc/")):
        return
    with open(out, "rb") as fh:
        if any(line.strip() for line in fh):
            raise InputError("already holds rows; pass --resume to continue that run, or "
                             "--overwrite to replace it", path=str(out))
