"""Generated input files for every reader (the fuzz harness of ``tests/test_fuzz.py`` and
``benchmarks/fuzz.py``).

Each reader gets files of one to three lines: JSON objects built from that reader's field
names (and stray ones) with values of every JSON type, nested rows and references among
them, plus lines that are not JSON, not an object, empty, or not UTF-8. The claim checked:
a reader either returns or raises :class:`~offline_eval.errors.OfflineEvalError` (an
InputError naming file:line and field); any other exception is a traceback a user would see.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

# reader name -> the fields its rows use
FIELDS: dict[str, tuple[str, ...]] = {
    "score": ("id", "query", "response", "date", "references", "group"),
    "verify": ("id", "premise", "hypothesis", "claim", "evidence"),
    "claims": ("id", "query", "response", "claims", "decomposition", "nuggets", "text",
               "verdict", "importance", "judgment", "support", "subclaims", "label"),
    "rank": ("id", "query", "claims", "text"),
    "nuggets": ("id", "query", "response", "references"),
    "decompose": ("id", "query", "response"),
    "comprehensiveness": ("id", "query", "sources", "response"),
    "corpus": ("id", "text", "title", "url"),
}

_scalars = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
            | st.floats(allow_nan=True, allow_infinity=True)
            | st.text(max_size=40) | st.sampled_from(["", " ", "\n", "2024-02-30", "2025-03",
                                                      "supported", "vital", "ok", "x" * 300]))


def _values(fields: tuple[str, ...]) -> st.SearchStrategy[Any]:
    keys = st.sampled_from(fields + ("extra", "Id", ""))
    return st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(keys, inner, max_size=5), max_leaves=12)


_ids = st.integers(0, 5) | st.sampled_from(["a", "b", "c1", "N1", ""])
_text = st.text(min_size=1, max_size=60) | st.sampled_from([
    "Paris is the capital of France.", "It opened in 1874 and is 42 metres tall.", " ", ""])
_date = st.sampled_from(["2024-02-29", "2025-03", "2025", "2024-13-01", "yesterday", ""])
_ref = _text | st.fixed_dictionaries({"id": _ids, "text": _text},
                                     optional={"url": st.none() | _text, "title": st.none() | _text})
_claim = st.fixed_dictionaries({"id": _ids, "text": _text}, optional={
    "judgment": st.none() | st.booleans(),
    "verdict": st.sampled_from(["supported", "contradicted", "unverifiable", "inconclusive", "x"]),
    "importance": st.sampled_from(["vital", "okay", "less-important", "huge"]),
    "rank": st.integers(-1, 5), "sentence_index": st.integers(-1, 5)})
_nugget = st.fixed_dictionaries({"id": _ids}, optional={
    "text": _text, "importance": st.sampled_from(["vital", "okay", "x"]),
    "support": st.sampled_from(["support", "partial_support", "not_support", "maybe"])})

# a well-formed row of each reader, which mutations then break one field at a time
VALID: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "score": st.fixed_dictionaries({"id": _ids, "query": _text, "response": _text}, optional={
        "date": _date, "references": st.lists(_ref, max_size=4), "group": _scalars}),
    "verify": st.fixed_dictionaries({"id": _ids, "premise": _text, "hypothesis": _text})
    | st.fixed_dictionaries({"id": _ids, "claim": _text, "evidence": st.lists(_ref, max_size=3)}),
    "claims": st.fixed_dictionaries({"id": _ids, "query": _text, "claims": st.lists(
        _claim, max_size=4)}, optional={"response": _text, "nuggets": st.lists(_nugget, max_size=3),
                                        "order": st.lists(_ids, max_size=3),
                                        "deflection": st.booleans()}),
    "rank": st.fixed_dictionaries({"id": _ids, "query": _text,
                                   "claims": st.lists(_claim, max_size=4)}),
    "nuggets": st.fixed_dictionaries({"id": _ids, "query": _text}, optional={
        "response": _text, "references": st.lists(_ref, max_size=4)}),
    "decompose": st.fixed_dictionaries({"id": _ids, "response": _text},
                                       optional={"query": _text}),
    "comprehensiveness": st.fixed_dictionaries({"id": _ids, "query": _text, "response": _text,
                                                "sources": st.lists(_text, max_size=4)}),
    "corpus": st.fixed_dictionaries({"id": _ids, "text": _text},
                                    optional={"title": st.none() | _text, "url": st.none() | _text}),
}


def _mutated(reader: str) -> st.SearchStrategy[dict[str, Any]]:
    """A valid row with one field replaced by any JSON value, dropped, or one added."""
    fields = FIELDS[reader]

    def mutate(row: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        keys = sorted(row) or ["id"]
        return st.one_of(
            st.tuples(st.sampled_from(keys), _values(fields)).map(lambda kv: {**row, kv[0]: kv[1]}),
            st.sampled_from(keys).map(lambda k: {x: v for x, v in row.items() if x != k}),
            st.tuples(st.sampled_from(fields + ("extra",)), _values(fields))
            .map(lambda kv: {**row, kv[0]: kv[1]}))

    return VALID[reader].flatmap(mutate)


def rows(reader: str) -> st.SearchStrategy[dict[str, Any]]:
    """Rows for the reader: well-formed, one field broken, or any object of its field names."""
    fields = FIELDS[reader]
    anything = st.dictionaries(st.sampled_from(fields + ("extra",)), _values(fields), max_size=7)
    return st.one_of(VALID[reader], _mutated(reader), _mutated(reader), anything)


def lines(reader: str) -> st.SearchStrategy[bytes]:
    """One line: a row, or JSON that is not an object, or bytes that are not JSON."""
    as_json = rows(reader).map(lambda r: json.dumps(r, allow_nan=True).encode())
    other = (_values(FIELDS[reader]).map(lambda v: json.dumps(v, allow_nan=True).encode())
             | st.binary(max_size=30) | st.sampled_from([b"", b"{", b"\xff\xfe", b"[]", b"null"]))
    return st.one_of(as_json, as_json, as_json, other)


def files(reader: str) -> st.SearchStrategy[bytes]:
    return st.lists(lines(reader), min_size=1, max_size=3).map(
        lambda ls: b"".join(x.replace(b"\n", b" ") + b"\n" for x in ls))


def reader(name: str) -> Callable[[str], Any]:
    """The function that reads a ``name`` input file, all of it."""
    if name == "score":
        from offline_eval.io.items import read_items
        return read_items
    if name == "verify":
        from offline_eval.commands.verify import read
        return read
    if name == "claims":
        from offline_eval.io.claims_input import read_judged
        return lambda p: list(read_judged(p))
    if name == "rank":
        from offline_eval.commands.rank import read
        return read
    if name == "nuggets":
        from offline_eval.commands.nuggets import read
        return read
    if name == "decompose":
        from offline_eval.commands.decompose import read
        return read
    if name == "comprehensiveness":
        from offline_eval.coverage.api import read_rows
        return read_rows
    if name == "corpus":
        from offline_eval.index.documents import DocumentReader
        return lambda p: list(DocumentReader(p))
    raise ValueError(f"unknown reader {name!r}; valid: {', '.join(FIELDS)}")


def outcome(name: str, data: bytes, path: Path) -> str:
    """``read`` (it returned), ``refused`` (an OfflineEvalError); anything else propagates."""
    import warnings

    from offline_eval.errors import OfflineEvalError

    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader(name)(str(path))
    except OfflineEvalError:
        return "refused"
    return "read"
