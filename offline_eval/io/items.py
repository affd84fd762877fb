"""Reader for ``score`` input rows: ``{"id","query","response","date"?,"references"?}``,
from JSONL, CSV/TSV or Parquet files, DataFrames or dicts, native or in a peer tool's format
(:mod:`offline_eval.io.formats`).

All rows are validated, and ids checked for duplicates, before any work starts. A response
or a reference longer than its limit (:class:`Limits`) is refused there, naming the file,
line and field, so no row is half scored; with ``truncate`` it is cut at the limit instead
(at a word boundary where there is one), with a warning naming the row.
"""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import UniqueIds, get_field
from offline_eval.types import Item, Reference


_ISO_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}([T ][\d:.+\-Z]*)?)?)?$")


@dataclass(frozen=True)
class Limits:
    """Size limits of one input row, in characters (``score --max-response-chars``,
    ``--max-reference-chars``, ``--truncate``). The defaults are far above any LLM answer
    (about 15,000 words) and a long document, and keep one row's memory bounded."""

    response_chars: int = 100_000
    reference_chars: int = 1_000_000
    truncate: bool = False
    #: all of a row's references together: past it the most relevant are kept (a warning
    #: says so; :mod:`offline_eval.io.focus`), which bounds a RAG row's time
    references_chars: int = 200_000

    def __post_init__(self) -> None:
        if min(self.response_chars, self.reference_chars, self.references_chars) <= 0:
            raise ValueError("size limits must be positive")


DEFAULT_LIMITS = Limits()


def _fit(text: str, limit: int, truncate: bool, flag: str, path: str, line: int, field: str,
         notes: list[str]) -> str:
    if len(text) <= limit:
        return text
    if not truncate:
        raise InputError(f"{len(text):,} characters, over the limit of {limit:,} ({flag}; "
                         "--truncate cuts it instead)", path=path, line=line, field=field)
    cut = text[:limit]
    space = cut.rfind(" ", max(0, limit - 200))
    cut = cut[:space] if space > 0 else cut
    note = f"{field} cut from {len(text):,} to {len(cut):,} characters ({flag})"
    notes.append(note)
    warnings.warn(f"{path}:{line}: {note}", UserWarning, stacklevel=2)
    return cut


def _reference(ref: Any, i: int, path: str, line: int, limits: Limits = DEFAULT_LIMITS,
               notes: list[str] | None = None, key: str = "references") -> Reference:
    field = f"{key}[{i}]"
    fit = lambda t, f: _fit(t, limits.reference_chars, limits.truncate,  # noqa: E731
                            "--max-reference-chars", path, line, f, [] if notes is None else notes)
    if isinstance(ref, str):
        return Reference(id=f"ref{i}", text=fit(ref, field))
    if not isinstance(ref, Mapping):
        raise InputError(f"expected a string or an object, got {type(ref).__name__}",
                         path=path, line=line, field=field)
    try:
        text = get_field(ref, "text", str)
        rid = get_field(ref, "id", (str, int), default=f"ref{i}")
        url = get_field(ref, "url", str, default=None, nullable=True)
        title = get_field(ref, "title", str, default=None, nullable=True)
    except InputError as exc:
        raise InputError(exc.reason, path=path, line=line, field=f"{field}.{exc.field}") from None
    return Reference(id=str(rid), text=fit(text, f"{field}.text"), url=url, title=title)


def _note(notes: list[str], path: str, line: int, note: str) -> None:
    """A warning for the row (kept in its ``warnings``) and for the terminal."""
    notes.append(note)
    warnings.warn(f"{path}:{line}: {note}", UserWarning, stacklevel=3)


def parse_item(row: Mapping[str, Any], path: str, line: int,
               limits: Limits = DEFAULT_LIMITS) -> Item:
    """Validate one row into an :class:`Item` (sizes checked against ``limits``)."""
    def get(name: str, kind: Any, **kw: Any) -> Any:
        try:
            return get_field(row, name, kind, **kw)
        except InputError as exc:
            raise InputError(exc.reason, path=path, line=line, field=name) from None

    rid = get("id", (str, int))
    query = get("query", str)
    if not query.strip():
        raise InputError("must not be empty: importance and relevance are judged against the query",
                         path=path, line=line, field="query")
    notes: list[str] = []
    response = _fit(get("response", str), limits.response_chars, limits.truncate,
                    "--max-response-chars", path, line, "response", notes)
    date = get("date", str, default=None, nullable=True) or None
    if date is not None and not _ISO_DATE.match(date):
        raise InputError(f"{date!r} is not an ISO date (YYYY-MM-DD, YYYY-MM or YYYY)",
                         path=path, line=line, field="date")
    key = "references"
    refs = get(key, list, default=[], nullable=True) or []
    if key in row and not refs:
        notes.append("references is empty, so this row is checked against the corpus")
        warnings.warn(f"{path}:{line}: references is empty, so this row is checked against the "
                      "corpus (omit the field to say so, or give its references)", UserWarning,
                      stacklevel=2)
    meta = {k: v for k, v in row.items() if k not in ("id", "query", "response", "date", key)}
    parsed = [_reference(r, i, path, line, limits, notes, key) for i, r in enumerate(refs)]
    empty = [i for i, r in enumerate(parsed) if not r.text.strip()]
    if empty:
        _note(notes, path, line, f"references{empty} {'is' if len(empty) == 1 else 'are'} empty "
              "and dropped" + ("; with none left, this row is checked against the corpus"
                               if len(empty) == len(parsed) else ""))
    from offline_eval.io.focus import focus_references

    live = [i for i, r in enumerate(parsed) if r.text.strip()]
    references, cuts = focus_references([parsed[i] for i in live], query, response,
                                        limits.references_chars, live)
    for cut in cuts:
        _note(notes, path, line, cut)
    return Item(id=str(rid), query=query, response=response, date=date, references=references,
                meta=meta, warnings=tuple(notes))


def read_items(path: "str | os.PathLike[str] | Iterable[Mapping[str, Any] | Item]",
               limits: Limits = DEFAULT_LIMITS, fmt: str = "native",
               chosen: Callable[[str], None] | None = None) -> list[Item]:
    """Read and validate every row; duplicate ids are an error naming both lines.

    Args:
        path: a JSONL, CSV/TSV or Parquet file, a pandas DataFrame, or dict rows (or
            :class:`~offline_eval.types.Item` records, taken as they are).
        fmt: the rows' format (:data:`offline_eval.io.formats.CHOICES`); ``auto`` tells it
            from the first row and refuses rows no format fits.
        chosen: called with the format ``auto`` picked, so a caller can say which.
    """
    from offline_eval.io.formats import CHOICES, detect, to_native, unknown_format
    from offline_eval.io.tables import frame_rows, is_frame, read_rows

    if fmt not in CHOICES:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(CHOICES)}")
    if isinstance(path, (str, os.PathLike)):
        source, rows = str(path), read_rows(path)
    elif is_frame(path):
        source, rows = "<DataFrame>", frame_rows(path)
    else:
        source, rows = "<items>", enumerate(path, 1)
    items: list[Item] = []
    unique = UniqueIds(source)
    for n, (line, row) in enumerate(rows, 1):
        if isinstance(row, Item):  # already validated (a Python caller's records)
            unique(row.id, line)
            items.append(row)
            continue
        if not isinstance(row, Mapping):
            raise InputError(f"expected an object, got {type(row).__name__}", path=source,
                             line=line)
        if fmt == "auto":
            fmt = detect(row) or ""
            if not fmt:
                raise InputError(unknown_format(row), path=source, line=line)
            if chosen:
                chosen(fmt)
        item = parse_item(to_native(row, fmt, source, line, n), source, line, limits)
        unique(item.id, line)
        items.append(item)
    return items
