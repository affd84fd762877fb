"""JSONL reading and writing with file:line errors and lossless appends."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

from offline_eval.errors import InputError

_MISSING = object()


#: compressed inputs, read as the file inside (``rows.jsonl.gz`` is JSONL)
COMPRESSED = (".gz", ".bz2")


def inner_suffix(path: str | os.PathLike[str]) -> str:
    """The suffix that says a file's format, past a compression suffix, lower case.

    >>> inner_suffix("rows.JSONL.gz"), inner_suffix("psgs_w100.tsv"), inner_suffix("x.gz")
    ('.jsonl', '.tsv', '')
    """
    p = Path(path)
    if p.suffix.lower() in COMPRESSED:
        p = Path(p.stem)
    return p.suffix.lower()


def open_input(path: Path) -> IO[bytes]:
    """``path`` opened for reading bytes, decompressed as it is read when it ends in
    ``.gz`` or ``.bz2`` (decompression errors surface as OSError or EOFError on read)."""
    name = path.name.lower()
    if name.endswith(".gz"):
        import gzip
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".bz2"):
        import bz2
        return bz2.open(path, "rb")  # type: ignore[return-value]
    return path.open("rb")


def _numbered_lines(fh: IO[bytes], path: str) -> Iterator[tuple[int, bytes]]:
    """``(line, bytes)``; a broken compressed stream is an InputError naming the line."""
    import zlib

    lineno = 0
    try:
        for lineno, raw in enumerate(fh, start=1):
            yield lineno, raw
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"unreadable compressed file ({exc})", path=path,
                         line=lineno + 1) from None


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, row)`` for each non-blank line; rows must be JSON objects.
    A ``.gz`` or ``.bz2`` file is read decompressed.

    Raises:
        InputError: naming ``path:line`` for a missing file, bad UTF-8, bad JSON, a broken
            compressed stream or a row that is not an object.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError("is a folder; expected a JSONL file", path=str(path))
    if not p.is_file():
        raise InputError("no such file", path=str(path))
    with open_input(p) as fh:
        for lineno, raw in _numbered_lines(fh, str(path)):
            try:
                # a byte-order mark (files saved by some Windows tools) is not part of the row
                text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
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


def row_source(items: "str | os.PathLike[str] | Iterable[Any]", text: str | None = None
               ) -> tuple[str, Iterator[tuple[int, Mapping[str, Any]]]]:
    """Where rows come from and ``(line, row)`` pairs: a JSONL path (:func:`read_jsonl`), or
    a Python caller's rows, named ``<items>`` and numbered from 1, each a mapping (or, with
    ``text``, a plain string: the row ``{"id": N, text: string}``).

    >>> where, rows = row_source([{"id": 1}, "x"])
    >>> where, next(rows)
    ('<items>', (1, {'id': 1}))
    >>> next(rows)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: <items>:2: expected an object, got str
    """
    if isinstance(items, (str, os.PathLike)):
        return str(items), read_jsonl(items)
    if isinstance(items, Mapping):
        raise InputError("expected rows (a list of objects) or a JSONL path, got one object",
                         path="<items>")

    def objects() -> Iterator[tuple[int, Mapping[str, Any]]]:
        for n, row in enumerate(items, 1):
            if text and isinstance(row, str):
                row = {"id": n, text: row}
            if not isinstance(row, Mapping):
                raise InputError(f"expected an object, got {type(row).__name__}",
                                 path="<items>", line=n)
            yield n, row
    return "<items>", objects()


def get_field(row: Mapping[str, Any], name: str, kind: type | tuple[type, ...], *,
              path: str | None = None, line: int | None = None, default: Any = _MISSING,
              nullable: bool = False, items: type | None = None) -> Any:
    """Return ``row[name]`` checked against ``kind`` (and, with ``items``, every element of
    the list against ``items``); InputError names the field.

    >>> get_field({"query": "q"}, "query", str)
    'q'
    >>> get_field({"query": 3}, "query", str, path="in.jsonl", line=2)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: in.jsonl:2: field 'query': expected str, got int
    >>> get_field({"evidence": ["a", 3]}, "evidence", list, items=str)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: field 'evidence': expected a list of str
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
    if items is not None and not all(isinstance(v, items) for v in value):
        raise InputError(f"expected a list of {items.__name__}", path=path, line=line, field=name)
    return value


#: the older names of a row's ``references`` (``verify`` read ``evidence``, ``comprehensiveness``
#: ``sources``), still read for one release with a note
REFERENCE_ALIASES: tuple[str, ...] = ("evidence", "sources")


class ReferencesField:
    """Finds the field that holds a row's references: ``references``, or an older name
    (:data:`REFERENCE_ALIASES`), which :meth:`note` reports once per file.

    >>> refs = ReferencesField("in.jsonl"); refs.key({"evidence": []}, 1)
    'evidence'
    >>> refs.key({"references": [], "sources": []}, 2)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: in.jsonl:2: field 'sources': give the references once, as 'references'
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path, self.used = str(path), set()  # type: str, set[str]

    def key(self, row: Mapping[str, Any], line: int) -> str:
        present = [k for k in ("references", *REFERENCE_ALIASES) if k in row]
        if len(present) > 1:
            raise InputError("give the references once, as 'references'", path=self.path,
                             line=line, field=present[1])
        key = present[0] if present else "references"
        if key != "references":
            self.used.add(key)
        return key

    def note(self) -> None:
        """One warning per older name the file used."""
        import warnings

        from offline_eval.errors import RenamedFieldWarning

        for key in sorted(self.used):
            warnings.warn(f"{self.path}: field {key!r} is read as 'references', its name in every "
                          "command; the old name is kept for one release (CHANGELOG.md)",
                          RenamedFieldWarning, stacklevel=2)


class UniqueIds:
    """Refuses a row id seen before in the same file, naming both lines.

    >>> ids = UniqueIds("in.jsonl"); ids(1, 1)
    '1'
    >>> ids("1", 3)
    Traceback (most recent call last):
    ...
    offline_eval.errors.InputError: in.jsonl:3: field 'id': duplicate id '1' (first on line 1)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path, self.seen = str(path), {}  # type: dict[str, int]

    def __call__(self, rid: Any, line: int) -> str:
        rid = str(rid)
        if rid in self.seen:
            raise InputError(f"duplicate id {rid!r} (first on line {self.seen[rid]})",
                             path=self.path, line=line, field="id")
        self.seen[rid] = line
        return rid


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def dumps(row: Mapping[str, Any]) -> str:
    """Deterministic one-line JSON: insertion-ordered keys, no NaN, UTF-8 kept."""
    return json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


_STDOUT = ("/dev/stdout", "/proc/self/fd/1")


class JsonlWriter:
    """Writes rows, flushing after each.

    Use ``path=None`` or ``"-"`` for standard output. A file is written whole or not at
    all: rows go to a hidden ``.NAME.partial`` file beside it, which replaces ``path`` when
    the ``with`` block ends without an error; on an error or an interrupt it is removed and
    an existing ``path`` is left as it was (a failed run never truncates a good output). A
    killed process leaves the ``.partial`` file with every row finished so far.
    ``append=True`` appends to ``path`` directly instead, and a device or pipe
    (``/dev/stdout``, anything under /dev or /proc) is written in place; a symlink's target
    is the file replaced, never the link.
    """

    def __init__(self, path: str | os.PathLike[str] | None, append: bool = False) -> None:
        # "-" and /dev/stdout are this process's standard output (one stream, one offset)
        self.path = None if path in (None, "-") or str(path) in _STDOUT else Path(path)  # type: ignore[arg-type]
        self._fh: IO[str] | None = None
        self._append = append
        self._tmp: Path | None = None
        self._target: Path | None = None

    def __enter__(self) -> "JsonlWriter":
        import sys
        if self.path is None:
            self._fh = sys.stdout
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            target = _renamable(self.path)
            if self._append or target is None:
                # appending, or a device, pipe or /dev/stdout: write in place (append mode, so
                # a /dev/stdout redirected to a file is neither truncated nor overwritten)
                self._fh = self.path.open("a", encoding="utf-8")
            else:
                self._target = target
                self._tmp = partial_path(target)
                self._fh = self._tmp.open("w", encoding="utf-8")
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        if self._fh is None:
            raise RuntimeError("use JsonlWriter as a context manager")
        self._fh.write(dumps(row) + "\n")
        self._fh.flush()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if self._fh is not None and self.path is not None:
            self._fh.close()
            if self._tmp is not None:
                if exc_type is None:
                    os.replace(self._tmp, self._target)
                else:
                    self._tmp.unlink(missing_ok=True)
        self._fh, self._tmp = None, None


def partial_path(target: Path) -> Path:
    """The hidden file rows go to before they replace ``target``: ``.NAME.partial``."""
    return target.with_name(f".{target.name}.partial")


def _renamable(path: Path) -> Path | None:
    """The regular file a finished output may be renamed onto: ``path`` or, for a symlink,
    the file it points to (renaming onto the link would replace the link). None for a
    device, a pipe or anything under /dev or /proc (``/dev/stdout`` may point to a
    regular file when the shell redirects: it must still be written in place)."""
    if str(path.absolute()).startswith(("/dev/", "/proc/")):
        return None
    target = path.resolve() if path.is_symlink() else path
    if str(target).startswith(("/dev/", "/proc/")) or (target.exists() and not target.is_file()):
        return None
    return target


def check_paths(outputs: Sequence[str | os.PathLike[str] | None],
                inputs: Sequence[str | os.PathLike[str] | None] = (),
                folders: Sequence[str | os.PathLike[str] | None] = ()) -> None:
    """Refuse output paths that would fail late or lose data, before any work starts.

    ``outputs`` are files to be written (None and ``"-"`` are skipped), ``folders`` output
    folders; neither may be one of ``inputs`` (writing would destroy the input), a file
    may not be an existing folder nor a folder an existing file, and no parent may be a
    file.

    Raises:
        InputError: naming the path and what is wrong with it.
    """
    ins = [Path(p) for p in inputs if p not in (None, "-")]
    for out, want_dir in [(o, False) for o in outputs] + [(f, True) for f in folders]:
        if out in (None, "-"):
            continue
        p = Path(out)  # type: ignore[arg-type]
        if p.exists() and p.is_dir() != want_dir:
            raise InputError("is a folder; expected a file" if not want_dir else
                             "is a file; expected a folder", path=str(p))
        for i in ins:
            if p.exists() and i.exists() and os.path.samefile(p, i):
                raise InputError(f"is the input file {i}; write the output elsewhere (it would "
                                 "destroy the input)", path=str(p))
        parent = p.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if parent.exists() and not parent.is_dir():
            raise InputError(f"cannot write here: {parent} is a file", path=str(p))


def write_rows(path: str | os.PathLike[str] | None, rows: Iterable[Mapping[str, Any]]) -> None:
    """Every row to ``path`` (None or ``-``: standard output) through :class:`JsonlWriter`."""
    with JsonlWriter(path) as out:
        for row in rows:
            out.write(row)


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """``obj`` as indented JSON (a summary): strict (no NaN), one trailing newline, its folder
    made."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(obj, indent=2, allow_nan=False) + "\n", encoding="utf-8")
