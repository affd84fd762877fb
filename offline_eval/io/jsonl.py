"""JSONL reading and writing with file:line errors and lossless appends."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any, Iterator, Mapping

from offline_eval.errors import InputError

_MISSING = object()


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, row)`` for each non-blank line; rows must be JSON objects.

    Raises:
        InputError: naming ``path:line`` for a missing file, bad UTF-8, bad JSON
            or a row that is not an object.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file", path=str(path))
    with p.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})",
                                 path=str(path), line=lineno) from None
            if not text.strip():
                continue
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})",
                                 path=str(path), line=lineno) from None
            if not isinstance(row, dict):
                raise InputError(f"expected a JSON object, got {type(row).__name__}",
                                 path=str(path), line=lineno)
            yield lineno, row


def get_field(row: Mapping[str, Any], name: str, kind: type | tuple[type, ...], *,
              path: str | None = None, line: int | None = None, default: Any = _MISSING,
              nullable: bool = False) -> Any:
    """Return ``row[name]`` checked against ``kind``; InputError names the field.

    >>> get_field({"query": "q"}, "query", str)
    'q'
    >>> get_field({"query": 3}, "query", str, path="in.jsonl", line=2)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: in.jsonl:2: field 'query': expected str, got int
    """
    if name not in row:
        if default is not _MISSING:
            return default
        raise InputError("missing required field", path=path, line=line, field=name)
    value = row[name]
    if value is None and nullable:
        return None
    # bool is an int subclass: never accept it where a number is expected.
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
        want = " or ".join(k.__name__ for k in _kinds(kind))
        raise InputError(f"expected {want}, got {type(value).__name__}", path=path, line=line,
                         field=name)
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def dumps(row: Mapping[str, Any]) -> str:
    """Deterministic one-line JSON: insertion-ordered keys, no NaN, UTF-8 kept."""
    return json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class JsonlWriter:
    """Appends rows and flushes after each, so a killed run loses no finished row.

    Use ``path=None`` or ``"-"`` for standard output.
    """

    def __init__(self, path: str | os.PathLike[str] | None, append: bool = False) -> None:
        self.path = None if path in (None, "-") else Path(path)  # type: ignore[arg-type]
        self._fh: IO[str] | None = None
        self._append = append

    def __enter__(self) -> "JsonlWriter":
        import sys
        if self.path is None:
            self._fh = sys.stdout
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("a" if self._append else "w", encoding="utf-8")
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        if self._fh is None:
            raise RuntimeError("use JsonlWriter as a context manager")
        self._fh.write(dumps(row) + "\n")
        self._fh.flush()

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None and self.path is not None:
            self._fh.close()
        self._fh = None
