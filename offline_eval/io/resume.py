"""Resumable output for the commands that write one row per input row, in input order
(``verify``, ``decompose``, ``rank``, ``nuggets``, ``comprehensiveness``).

Rows go to the hidden ``.NAME.partial`` file beside the output (as with
:class:`~offline_eval.io.jsonl.JsonlWriter`), which replaces the output when the run
succeeds. What it adds: beside the partial file, ``.NAME.partial.json`` records the run (the
sha256 of the input file and the command's options, models included), and a run that stops
early (an error, Ctrl-C or ``kill -9``) keeps both. ``--resume`` then keeps every complete
row of the partial file (a torn last line is dropped), checks that the input and options
are the ones recorded and that the kept rows are the first rows of the input, and computes
only the rest, so no finished row is lost and none is computed twice. Without ``--resume``
a leftover partial file is started again.

>>> import json, tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp()); src = d / "in.jsonl"; _ = src.write_text('{"id": 1}\\n{"id": 2}\\n')
>>> out = d / "out.jsonl"
>>> try:
...     with ResumableWriter(out, src, {"opt": 1}, resume=False) as w:
...         w.start(["1", "2"]); w.write({"id": "1"}); raise KeyboardInterrupt
... except KeyboardInterrupt:
...     pass
0
>>> with ResumableWriter(out, src, {"opt": 1}, resume=True) as w:
...     n = w.start(["1", "2"]); w.write({"id": "2"})
>>> n, [json.loads(x)["id"] for x in out.read_text().splitlines()]
(1, ['1', '2'])
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.io.jsonl import JsonlWriter, _renamable, partial_path


class ResumableWriter(JsonlWriter):
    """A :class:`~offline_eval.io.jsonl.JsonlWriter` that keeps a stopped run's rows for
    ``--resume`` instead of removing them.

    Args:
        path: the output (None, ``"-"`` or a device: standard output or in place, not
            resumable).
        input_path: the input file, recorded by its sha256.
        options: what else decides the rows (flags, model manifests), recorded and compared.
        resume: keep the rows of a stopped run of the same input and options.

    Call :meth:`start` with the input's ids, in order, before writing: it returns how many
    rows are already done (skip that many inputs).
    """

    def __init__(self, path: str | os.PathLike[str] | None, input_path: str | os.PathLike[str],
                 options: Mapping[str, Any], resume: bool = False) -> None:
        super().__init__(path)
        self.input_path, self.options, self.resume = input_path, dict(options), resume
        self._done: list[str] = []
        self._started = False
        self._written = 0

    @property
    def record(self) -> Path:
        """``.NAME.partial.json``: the input's sha256 and the options of the stopped run."""
        assert self._tmp is not None
        return self._tmp.with_name(self._tmp.name + ".json")

    def __enter__(self) -> "ResumableWriter":
        target = _renamable(self.path) if self.path is not None else None
        if target is None:  # standard output, a device or a pipe: written as it comes
            if self.resume:
                raise InputError("--resume needs a regular output file (-o OUT.jsonl)",
                                 path=None if self.path is None else str(self.path))
            super().__enter__()
            return self
        from offline_eval.modelstore import sha256_file
        from offline_eval.provenance import write_record

        target.parent.mkdir(parents=True, exist_ok=True)
        self._target, self._tmp = target, partial_path(target)
        now = {"input_sha256": sha256_file(Path(self.input_path)), "options": self.options}
        if self.resume and self._tmp.is_file():
            self._done = self._keep_complete_rows(now)
            self._fh = self._tmp.open("a", encoding="utf-8")
        else:
            if self.resume:
                print(f"offline-eval: note: no stopped run to resume ({self._tmp} is missing); "
                      "starting from the first row", file=sys.stderr)
            write_record(self.record, now)
            self._fh = self._tmp.open("w", encoding="utf-8")
        return self

    def _keep_complete_rows(self, now: Mapping[str, Any]) -> list[str]:
        assert self._tmp is not None
        try:
            then = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            then = None
        from offline_eval.provenance import differences

        if not isinstance(then, dict):
            what = "its run record is missing or unreadable"
        elif then.get("input_sha256") != now["input_sha256"]:
            what = "the input file changed"
        else:
            diffs = differences(then.get("options", {}), json.loads(json.dumps(now["options"])))
            what = "the options or models differ: " + "; ".join(diffs) if diffs else ""
        if what:
            raise InputError(f"--resume: cannot continue the stopped run in {self._tmp}: {what}; "
                             "run without --resume to start again", path=str(self.path))
        data = self._tmp.read_bytes()
        keep = data[: data.rfind(b"\n") + 1]  # a torn last line (a kill mid-write) is dropped
        if len(keep) != len(data):
            with self._tmp.open("r+b") as fh:
                fh.truncate(len(keep))
        ids = []
        for n, line in enumerate(keep.decode("utf-8", errors="replace").splitlines(), start=1):
            try:
                ids.append(str(json.loads(line)["id"]))
            except (ValueError, KeyError, TypeError):
                raise InputError("not a row this command wrote; run without --resume to start "
                                 "again", path=str(self._tmp), line=n) from None
        return ids

    def start(self, ids: Sequence[Any]) -> int:
        """How many leading inputs are done; checks they are the rows already written."""
        ids = [str(i) for i in ids]
        n = len(self._done)
        if ids[:n] != self._done:
            raise InputError("--resume: the rows already written are not the first rows of the "
                             "input; run without --resume to start again", path=str(self.path))
        self._started = True
        if n:
            print(f"offline-eval: resuming after {n} finished row(s)", file=sys.stderr)
        return n

    def write(self, row: Mapping[str, Any]) -> None:
        if not self._started:
            raise RuntimeError("call start() before writing")
        super().write(row)
        self._written += 1

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._tmp is None:  # standard output or in place
            super().__exit__(exc_type, *exc)
            return
        record = self.record
        if exc_type is None:  # the partial file replaces the output
            super().__exit__(exc_type, *exc)
            record.unlink(missing_ok=True)
            return
        if self._fh is not None:  # stopped: the partial file and its record stay
            self._fh.close()
        kept = len(self._done) + self._written
        if self._started and kept:
            print(f"offline-eval: the {kept} row(s) finished so far are kept in {self._tmp}; "
                  "run the same command with --resume to continue", file=sys.stderr)
        self._fh, self._tmp = None, None


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
