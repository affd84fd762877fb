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

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import IO, Any, Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.io.jsonl import _STDOUT, _renamable, dumps


def file_sha256(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class ResumableWriter:
    """Write rows whole-or-not-at-all, keeping a stopped run's rows for ``--resume``.

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
        self.path = None if path in (None, "-") or str(path) in _STDOUT else Path(path)  # type: ignore[arg-type]
        self.input_path, self.options, self.resume = input_path, dict(options), resume
        self._fh: IO[str] | None = None
        self._target: Path | None = None
        self._done: list[str] = []
        self._started = False
        self._written = 0

    # ---- files ---------------------------------------------------------------------------
    @property
    def partial(self) -> Path:
        assert self._target is not None
        return self._target.with_name(f".{self._target.name}.partial")

    @property
    def record(self) -> Path:
        return self.partial.with_name(self.partial.name + ".json")

    def __enter__(self) -> "ResumableWriter":
        if self.resume and self.path is None:
            raise InputError("--resume needs an output file (-o OUT.jsonl)")
        if self.path is None:
            self._fh = sys.stdout
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._target = _renamable(self.path)
        if self._target is None:  # a device or a pipe: written in place, nothing to resume
            if self.resume:
                raise InputError("--resume needs a regular output file", path=str(self.path))
            self._fh = self.path.open("a", encoding="utf-8")
            return self
        now = {"input_sha256": file_sha256(self.input_path), "options": self.options}
        if self.resume and self.partial.is_file():
            self._done = self._keep_complete_rows(now)
            self._fh = self.partial.open("a", encoding="utf-8")
        else:
            if self.resume:
                print(f"offline-eval: note: no stopped run to resume ({self.partial} is missing); "
                      "starting from the first row", file=sys.stderr)
            self.record.write_text(json.dumps(now, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            self._fh = self.partial.open("w", encoding="utf-8")
        return self

    def _keep_complete_rows(self, now: Mapping[str, Any]) -> list[str]:
        try:
            then = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            then = None
        if then != json.loads(json.dumps(now)):
            what = ("its run record is missing or unreadable" if then is None else
                    "the input file changed" if then.get("input_sha256") != now["input_sha256"]
                    else "the options or models differ: " + ", ".join(
                        f"{k}: {then.get('options', {}).get(k)!r} then, {v!r} now"
                        for k, v in now["options"].items() if then.get("options", {}).get(k) != v))
            raise InputError(f"--resume: cannot continue the stopped run in {self.partial}: {what}; "
                             "run without --resume to start again", path=str(self.path))
        data = self.partial.read_bytes()
        keep = data[: data.rfind(b"\n") + 1]  # a torn last line (a kill mid-write) is dropped
        if len(keep) != len(data):
            with self.partial.open("r+b") as fh:
                fh.truncate(len(keep))
        return [str(json.loads(line)["id"]) for line in keep.decode("utf-8").splitlines() if line]

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
        if self._fh is None or not self._started:
            raise RuntimeError("use ResumableWriter as a context manager and call start() first")
        self._fh.write(dumps(row) + "\n")
        self._fh.flush()
        self._written += 1

    def __exit__(self, exc_type: object, *exc: object) -> None:
        fh, self._fh = self._fh, None
        if fh is None or self.path is None:
            return
        fh.close()
        if self._target is None:
            return
        if exc_type is None:
            os.replace(self.partial, self._target)
            self.record.unlink(missing_ok=True)
        elif self._started and len(self._done) + self._written:
            kept = len(self._done) + self._written
            print(f"offline-eval: the {kept} row(s) finished so far are kept in {self.partial}; "
                  "run the same command with --resume to continue", file=sys.stderr)
