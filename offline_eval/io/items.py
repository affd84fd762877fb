"""Reader for ``score`` input rows: ``{"id","query","response","date"?,"references"?}``.

All rows are validated, and ids checked for duplicates, before any work starts.
"""
from __future__ import annotations

import os
import re
from typing import Any, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import UniqueIds, get_field, read_jsonl
from offline_eval.types import Item, Reference


_ISO_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}([T ][\d:.+\-Z]*)?)?)?$")


def _reference(ref: Any, i: int, path: str, line: int) -> Reference:
    field = f"references[{i}]"
    if isinstance(ref, str):
        return Reference(id=f"ref{i}", text=ref)
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
    return Reference(id=str(rid), text=text, url=url, title=title)


def parse_item(row: Mapping[str, Any], path: str, line: int) -> Item:
    """Validate one row into an :class:`Item`."""
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
    response = get("response", str)
    date = get("date", str, default=None, nullable=True) or None
    if date is not None and not _ISO_DATE.match(date):
        raise InputError(f"{date!r} is not an ISO date (YYYY-MM-DD, YYYY-MM or YYYY)",
                         path=path, line=line, field="date")
    refs = get("references", list, default=[], nullable=True) or []
    meta = {k: v for k, v in row.items()
            if k not in ("id", "query", "response", "date", "references")}
    return Item(id=str(rid), query=query, response=response, date=date,
                references=tuple(_reference(r, i, path, line) for i, r in enumerate(refs)),
                meta=meta)


def read_items(path: str | os.PathLike[str]) -> list[Item]:
    """Read and validate every row; duplicate ids are an error naming both lines."""
    items: list[Item] = []
    unique = UniqueIds(path)
    for line, row in read_jsonl(path):
        item = parse_item(row, str(path), line)
        unique(item.id, line)
        items.append(item)
    return items
