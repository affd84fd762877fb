"""One public function per command, and the one way their rows are written.

Each row command (``verify``, ``decompose``, ``rank``, ``nuggets``, ``comprehensiveness``)
is a :class:`RowCommand`: its options dataclass, a reader that validates every row before
any model loads, and the computation that yields one output row per input row, in order.
:func:`run` is the Python call (``offline_eval.verify(rows, nli_model=...)``) and
:func:`write` the command line's (a resumable file, :class:`~offline_eval.io.resume.RunOutput`):
both run the same reader and computation, so the CLI and the API give the same rows.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from pathlib import Path

from offline_eval.errors import InputError
from offline_eval.options import compared, make



@dataclass(frozen=True)
class RowCommand:
    """A command that writes one row per input row.

    Attributes:
        name: the command's name.
        options: its options dataclass (:mod:`offline_eval.options`).
        read: items (a JSONL path or rows) -> the parsed rows, every one validated.
        row_id: a parsed row's id.
        models: options -> the records of the models that decide the rows (for ``--resume``).
        compute: (parsed rows, options) -> output rows, in order; models load on the first row.
    """

    name: str
    options: type
    read: Callable[[Any], Sequence[Any]]
    row_id: Callable[[Any], str]
    models: Callable[[Any], dict[str, Any]]
    compute: Callable[[Sequence[Any], Any], Iterator[dict[str, Any]]]


def run(command: RowCommand, items: Any, options: Any = None,
        overrides: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The output rows of ``items``, in order (``overrides`` replace single options; a
    misspelled one is a TypeError naming the valid ones)."""
    opts = make(command.options, options, overrides or {})
    return list(command.compute(command.read(items), opts))


def write(command: RowCommand, input_path: str | os.PathLike[str],
          output: str | os.PathLike[str] | None, options: Any = None, resume: bool = False,
          overwrite: bool = False) -> int:
    """Validate every row of ``input_path``, then write the output rows to ``output`` (None:
    standard output) through the resumable output
    (:class:`~offline_eval.io.resume.RunOutput`, ``batch_size`` rows a write); ``resume``
    keeps the rows a stopped run of the same input, options and models finished, and an
    output that already holds rows is replaced only with ``overwrite``. Returns how many
    rows were computed."""
    import sys

    from offline_eval.io.resume import RunOutput, refuse_filled_output
    from offline_eval.modelstore import sha256_file

    refuse_filled_output(output, resume, overwrite)
    options = make(command.options, options, {})
    parsed = command.read(input_path)
    record = {"command": command.name, "input_sha256": sha256_file(Path(input_path)),
              "options": {**compared(options),
                          **{f"model:{k}": v for k, v in command.models(options).items()}}}
    def first_rows(rows: list[dict[str, Any]]) -> None:  # before the output is touched
        ids = [str(r["id"]) for r in rows]
        if ids != [command.row_id(r) for r in parsed[:len(ids)]]:
            raise InputError("--resume: the rows already written are not the first rows of the "
                             "input; run with --overwrite to start again", path=str(output))

    with RunOutput(output, record, resume=resume, check=first_rows) as out:
        done = [str(r["id"]) for r in out.kept]
        if done:
            print(f"offline-eval: resuming after {len(done)} finished row(s)", file=sys.stderr)
        size = max(1, int(getattr(options, "batch_size", 32)))
        batch: list[dict[str, Any]] = []
        try:
            for row in command.compute(parsed[len(done):], options):
                batch.append(row)
                if len(batch) >= size:
                    out.write(batch)
                    batch = []
            out.write(batch)
        except BaseException:
            if out.path is not None and len(done) + out.written:
                print(f"offline-eval: the {len(done) + out.written} row(s) finished so far are "
                      f"kept in {out.path}; run the same command with --resume to continue",
                      file=sys.stderr)
            raise
    return len(parsed) - len(done)


def chunks(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """``rows`` in consecutive slices of ``size``."""
    for start in range(0, len(rows), size):
        yield rows[start:start + size]
