"""Readers for claims that already carry judgments and importance labels.

Two row formats are accepted (detected per row):

* **VITAL** (the authors' NQ files): ``query``, ``response`` ({"id","text"} or a
  string), ``decomposition[].decomp[]`` with ``id``, ``text``, ``judgment``
  (bool or null) and ``importance``, plus optional ``N2S`` and
  ``subclaim-importance-order``.
* **native**: ``id``, ``query``, ``response``?, ``claims[]`` with ``id``, ``text``,
  ``judgment`` (bool/null) or ``verdict`` (a verdict label), ``importance``?,
  ``rank``?; optional ``nuggets[]`` with ``id``, ``text``?, ``importance``?,
  ``support``?; optional ``order`` (claim ids), ``n2s`` and ``deflection`` (bool).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import get_field
from offline_eval.types import (IMPORTANCE_LABELS, NUGGET_SUPPORT_LABELS, VERDICT_LABELS, Claim,
                                Item, Nugget, ResponseResult, Verdict)


class _Ctx:
    def __init__(self, path: str, line: int) -> None:
        self.path, self.line = path, line

    def get(self, row: Mapping[str, Any], name: str, kind: Any, prefix: str = "", **kw: Any) -> Any:
        try:
            return get_field(row, name, kind, **kw)
        except InputError as exc:
            raise InputError(exc.reason, path=self.path, line=self.line,
                             field=prefix + name) from None

    def fail(self, field: str, message: str) -> InputError:
        return InputError(message, path=self.path, line=self.line, field=field)

    def label(self, value: Any, valid: tuple[str, ...], field: str) -> Any:
        if value is not None and value not in valid:
            raise self.fail(field, f"unknown value {value!r}; valid: {', '.join(valid)}")
        return value

    def ids(self, values: Any, field: str, known: set[str] | None = None, what: str = "claim") -> tuple[str, ...]:
        """A list of ids (strings or integers), each one of ``known`` when given."""
        if not isinstance(values, list):
            raise self.fail(field, f"expected a list of {what} ids, got {type(values).__name__}")
        out = []
        for i, v in enumerate(values):
            if not isinstance(v, (str, int)) or isinstance(v, bool):
                raise self.fail(f"{field}[{i}]", f"expected a {what} id, got {type(v).__name__}")
            if known is not None and str(v) not in known:
                raise self.fail(f"{field}[{i}]", f"unknown {what} id {v!r}")
            out.append(str(v))
        return tuple(out)

    def n2s(self, row: Mapping[str, Any], name: str, claims: set[str] | None = None,
            nuggets: set[str] | None = None) -> dict[str, tuple[str, ...]]:
        """``{nugget id: [claim id, ...]}``, ids checked against ``nuggets`` / ``claims``."""
        out = {}
        for k, v in self.get(row, name, dict, default={}).items():
            if nuggets is not None and str(k) not in nuggets:
                raise self.fail(f"{name}.{k}", f"unknown nugget id {k!r}")
            out[str(k)] = self.ids(v, f"{name}.{k}", claims)
        return out


def _response_text(ctx: _Ctx, row: Mapping[str, Any]) -> tuple[str | None, str]:
    resp = row.get("response", "")
    if isinstance(resp, Mapping):
        rid = resp.get("id")
        return (None if rid is None else str(rid)), ctx.get(resp, "text", str, "response.")
    if not isinstance(resp, str):
        raise ctx.fail("response", f"expected str or object, got {type(resp).__name__}")
    return None, resp


def parse_vital_row(row: Mapping[str, Any], path: str, line: int) -> ResponseResult:
    """One VITAL NQ row -> a ResponseResult (id falls back to the line number)."""
    ctx = _Ctx(path, line)
    query = ctx.get(row, "query", str)
    rid, text = _response_text(ctx, row)
    claims: list[Claim] = []
    for si, sent in enumerate(ctx.get(row, "decomposition", list)):
        pre = f"decomposition[{si}]."
        if not isinstance(sent, Mapping):
            raise ctx.fail(pre[:-1], "expected an object")
        sentence = ctx.get(sent, "sentence", str, pre, default=None)
        for ai, atom in enumerate(ctx.get(sent, "decomp", list, pre)):
            apre = f"{pre}decomp[{ai}]."
            if not isinstance(atom, Mapping):
                raise ctx.fail(apre[:-1], "expected an object")
            claims.append(Claim(
                id=ctx.get(atom, "id", str, apre), text=ctx.get(atom, "text", str, apre),
                sentence_index=si, sentence=sentence,
                judgment=ctx.get(atom, "judgment", bool, apre, nullable=True),
                importance=ctx.label(ctx.get(atom, "importance", str, apre, nullable=True,
                                             default=None), IMPORTANCE_LABELS,
                                     apre + "importance")))
    _check_unique(ctx, [c.id for c in claims], "decomposition[].decomp[].id")
    # the authors' files are read as they are: types are checked, ids are not matched
    order = ctx.ids(row.get("subclaim-importance-order", []), "subclaim-importance-order")
    n2s = ctx.n2s(row, "N2S")
    item = Item(id=str(row.get("id", rid if rid is not None else f"line{line}")), query=query,
                response=text, meta={"format": "vital"})
    return ResponseResult(item=item, claims=tuple(claims), order=order, n2s=n2s)


def parse_native_row(row: Mapping[str, Any], path: str, line: int) -> ResponseResult:
    """One native row -> a ResponseResult."""
    ctx = _Ctx(path, line)
    rid = ctx.get(row, "id", (str, int))
    query = ctx.get(row, "query", str)
    _, text = _response_text(ctx, row)
    claims = []
    for i, c in enumerate(ctx.get(row, "claims", list)):
        pre = f"claims[{i}]."
        if not isinstance(c, Mapping):
            raise ctx.fail(pre[:-1], "expected an object")
        claim = Claim(id=str(ctx.get(c, "id", (str, int), pre)), text=ctx.get(c, "text", str, pre),
                      importance=ctx.label(c.get("importance"), IMPORTANCE_LABELS, pre + "importance"),
                      rank=ctx.get(c, "rank", int, pre, default=None, nullable=True))
        if "verdict" in c:
            label = ctx.label(ctx.get(c, "verdict", str, pre), VERDICT_LABELS, pre + "verdict")
            claim = claim.with_verdict(Verdict(label=label))
        else:
            claim = replace(claim, judgment=ctx.get(c, "judgment", bool, pre, nullable=True))
        claims.append(claim)
    _check_unique(ctx, [c.id for c in claims], "claims[].id")
    nuggets = []
    for i, n in enumerate(ctx.get(row, "nuggets", list, default=[])):
        pre = f"nuggets[{i}]."
        if not isinstance(n, Mapping):
            raise ctx.fail(pre[:-1], "expected an object")
        nuggets.append(Nugget(
            id=str(ctx.get(n, "id", (str, int), pre, default=f"N{i}")),
            text=ctx.get(n, "text", str, pre, default=""),
            importance=ctx.label(n.get("importance"), IMPORTANCE_LABELS, pre + "importance"),
            support=ctx.label(n.get("support"), NUGGET_SUPPORT_LABELS, pre + "support")))
    _check_unique(ctx, [n.id for n in nuggets], "nuggets[].id")
    claim_ids = {c.id for c in claims}
    order = ctx.ids(row.get("order", []), "order", claim_ids)
    n2s = ctx.n2s(row, "n2s", claim_ids, {n.id for n in nuggets} if nuggets else None)
    item = Item(id=str(rid), query=query, response=text, meta={"format": "native"})
    deflection = ctx.get(row, "deflection", bool, default=False)
    return ResponseResult(item=item, claims=tuple(claims), nuggets=tuple(nuggets), order=order,
                          n2s=n2s, deflection=deflection)


def _check_unique(ctx: _Ctx, ids: list[str], field: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise ctx.fail(field, f"duplicate id {i!r}")
        seen.add(i)


def read_judged(items: Any) -> Iterator[ResponseResult]:
    """Read judged claims in either format from a JSONL path or rows; ids must be unique."""
    from offline_eval.io.jsonl import UniqueIds, row_source

    where, source = row_source(items)
    unique = UniqueIds(where)
    for line, row in source:
        fmt = parse_vital_row if "decomposition" in row else parse_native_row
        result = fmt(dict(row), where, line)
        unique(result.id, line)
        yield result
