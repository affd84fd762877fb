"""Rows from and to tables: CSV, TSV and Parquet files (pyarrow) and pandas DataFrames.

Reading gives ``(line, row)`` pairs as :func:`~offline_eval.io.jsonl.read_jsonl` does, so
every reader validates a table as it validates JSONL. ``line`` is the CSV line a record
starts on (a header is line 1) and, for Parquet and DataFrames, the 1-based row number.
In CSV a cell is text: an empty cell is an absent field (empty text in a text column such
as ``query`` or ``response``: :data:`TEXT_COLUMNS`), and a cell outside those columns that
holds a JSON list or object (``references``, ``retrieved_contexts``, ...) is decoded; a
stray quote is an error, not a cell that swallows the rows after it. Parquet keeps its types:
a list column is a list, a null is an absent field, a date is ISO text.

Writing flattens each output row: an object becomes dotted columns (``metrics.vital_precision``,
``audit.verdict``) and a list a JSON string, so nothing is lost and a spreadsheet reads it.
``claims`` rows have one line per claim, led by the answer's ``id``.

>>> flatten({"id": "a", "metrics": {"p": 0.5}, "claims": [{"id": "C1"}]})
{'id': 'a', 'metrics.p': 0.5, 'claims': '[{"id": "C1"}]'}
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import COMPRESSED, inner_suffix, open_input

CSV_SUFFIXES = (".csv", ".tsv")
PARQUET_SUFFIXES = (".parquet", ".pq")
TABLE_SUFFIXES = CSV_SUFFIXES + PARQUET_SUFFIXES
#: what ``score --table-rows`` and :meth:`~offline_eval.scoring.ScoreRun.to_pandas` take
ROW_KINDS = ("responses", "claims")
#: CSV columns where an empty cell is empty text (an empty answer), not an absent field
TEXT_COLUMNS = frozenset({"query", "response", "output", "answer", "question", "user_input",
                          "topic", "input", "text", "title"})


def _needs(extra: str = "tables") -> ImportError:
    return ImportError(f"reading or writing tables needs pyarrow: pip install 'offline-eval[{extra}]'")


def is_table(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a CSV/TSV or Parquet file (by its suffix, past ``.gz``)."""
    return inner_suffix(path) in TABLE_SUFFIXES


def read_rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, row)`` for each row of a JSONL, CSV/TSV or Parquet file (by suffix; JSONL,
    CSV and TSV may be ``.gz`` or ``.bz2``)."""
    from offline_eval.io.jsonl import read_jsonl

    suffix = inner_suffix(path)
    if suffix not in TABLE_SUFFIXES:
        return read_jsonl(path)
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file" if not p.is_dir() else "is a folder; expected a file",
                         path=str(path))
    if suffix in PARQUET_SUFFIXES and p.suffix.lower() in COMPRESSED:
        raise InputError("a Parquet file is compressed inside; decompress this one first",
                         path=str(path))
    return _read_csv(p) if suffix in CSV_SUFFIXES else _read_parquet(p)


def _cell(value: str) -> Any:
    text = value.strip()
    if text[:1] in "[{" and text[-1:] in "]}":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return value
    return value


def _read_csv(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # a long answer is one cell
    delimiter = "\t" if inner_suffix(path) == ".tsv" else ","
    reader = None
    try:
        with io.TextIOWrapper(open_input(path), encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter, strict=True)  # a stray quote is an error
            header = next(reader, None)
            if header is None:
                return
            if len(set(header)) != len(header):
                raise InputError(f"duplicate column names in the header: {header}",
                                 path=str(path), line=1)
            start = reader.line_num + 1
            for cells in reader:
                line, start = start, reader.line_num + 1
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) != len(header):
                    raise InputError(f"{len(cells)} cells for {len(header)} columns",
                                     path=str(path), line=line)
                yield line, {k: v if k in TEXT_COLUMNS else _cell(v)
                             for k, v in zip(header, cells) if v != "" or k in TEXT_COLUMNS}
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason})", path=str(path)) from None
    except (OSError, EOFError, zlib.error) as exc:  # a broken .gz or .bz2
        raise InputError(f"unreadable compressed file ({exc})", path=str(path),
                         line=reader.line_num + 1 if reader is not None else None) from None
    except csv.Error as exc:
        hint = ("; a TSV whose cells start with an unpaired '\"' must quote them as CSV does"
                if delimiter == "\t" else "")
        raise InputError(f"unreadable CSV ({exc}){hint}", path=str(path),
                         line=reader.line_num if reader is not None else None) from None


def _read_parquet(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise _needs() from None
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid and OSError subclasses
        raise InputError(f"unreadable Parquet ({exc})", path=str(path)) from None
    line = 0
    for batch in pf.iter_batches(batch_size=1024):  # read a batch at a time
        for row in batch.to_pylist():
            line += 1
            yield line, _plain(row)


def _plain(value: Any) -> Any:
    """A value of a typed table as JSON would give it: nulls are absent fields (a struct's
    missing keys too), dates and times ISO text."""
    import datetime

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def frame_rows(frame: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, row)`` of a pandas DataFrame, with Python values (numpy scalars and
    NaN become int/float and absent fields, through pyarrow)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise _needs() from None
    try:  # a named index (``df.set_index("id")``) stays a column
        table = pa.Table.from_pandas(frame, preserve_index=None)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"a column pyarrow cannot type ({exc})", path="<DataFrame>") from None
    for n, row in enumerate(table.to_pylist(), 1):
        yield n, _plain(row)


def is_frame(obj: Any) -> bool:
    """A pandas DataFrame, told without importing pandas."""
    return type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pandas")


def flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """One flat record: objects as dotted columns, lists as JSON strings."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, key + ".") if v else {key: None})
        elif isinstance(v, (list, tuple)):
            out[key] = json.dumps(v, ensure_ascii=False, allow_nan=False)
        else:
            out[key] = v
    return out


def claim_records(rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """One record per claim of each scored row, led by the answer's id, query and verdict."""
    for r in rows:
        lead = {"response_id": r.get("id"), "query": r.get("query"),
                "response_verdict": (r.get("audit") or {}).get("verdict")}
        for c in r.get("claims") or []:
            yield {**lead, **flatten({"claim": c})}


def table_records(rows: Iterable[Mapping[str, Any]], kind: str = "responses") -> list[dict[str, Any]]:
    """The records of a table of ``responses`` (one per row) or ``claims``."""
    if kind not in ROW_KINDS:
        raise ValueError(f"unknown table rows {kind!r}; valid: {', '.join(ROW_KINDS)}")
    return [flatten(r) for r in rows] if kind == "responses" else list(claim_records(rows))


def _columns(records: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        seen.update(dict.fromkeys(r))
    return list(seen)


def write_table(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike[str],
                kind: str = "responses") -> int:
    """Write output rows to a CSV/TSV or Parquet file (by suffix); returns the records written.

    Columns are the union of the records' keys in first-seen order; a record without a
    column leaves it empty (null in Parquet). Same rows, same bytes.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise InputError(f"a table file ends in {', '.join(TABLE_SUFFIXES)}", path=str(path))
    records = table_records(rows, kind)
    cols = _columns(records)
    p.parent.mkdir(parents=True, exist_ok=True)
    if suffix in CSV_SUFFIXES:
        with p.open("w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols, delimiter="\t" if suffix == ".tsv" else ",",
                               lineterminator="\n")
            w.writeheader()
            w.writerows({k: _csv_value(v) for k, v in r.items()} for r in records)
        return len(records)
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise _needs() from None
    table = pa.table({c: _array(pa, [r.get(c) for r in records]) for c in cols})
    pq.write_table(table, p)
    return len(records)


def _csv_value(v: Any) -> Any:
    return ("true" if v else "false") if isinstance(v, bool) else v


def _array(pa: Any, values: list[Any]) -> Any:
    """One column; a column mixing types (an int id beside a string one) becomes text."""
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else v if isinstance(v, str)
                         else json.dumps(v) for v in values], type=pa.string())
