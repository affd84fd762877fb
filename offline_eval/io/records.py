"""A JSON codec for pipeline records, so stages can run in other processes (Ray) without
pickling: every dataclass of :mod:`offline_eval.types` round-trips through plain JSON.

>>> from offline_eval.types import Claim, Item, ResponseResult, Verdict
>>> r = ResponseResult(Item("1", "q", "r"), claims=(Claim("c1", "t").with_verdict(Verdict("supported")),))
>>> decode(encode(r)) == r
True
"""
from __future__ import annotations

import dataclasses
import json
import typing
from types import UnionType
from typing import Any

from offline_eval import types as T

_CLASSES = {cls.__name__: cls for cls in vars(T).values()
            if isinstance(cls, type) and dataclasses.is_dataclass(cls)}


def _enc(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {"__t": type(obj).__name__}
        for f in dataclasses.fields(obj):
            out[f.name] = _enc(getattr(obj, f.name))
        return out
    if isinstance(obj, (list, tuple)):
        return [_enc(x) for x in obj]
    if isinstance(obj, typing.Mapping):
        return {"__m": [[k, _enc(v)] for k, v in obj.items()]}
    return obj


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(T))


def _dec(obj: Any, hint: Any = Any) -> Any:
    if isinstance(obj, dict) and "__t" in obj:
        cls = _CLASSES[obj["__t"]]
        hints = _hints(cls)
        return cls(**{k: _dec(v, hints.get(k, Any)) for k, v in obj.items() if k != "__t"})
    if isinstance(obj, dict) and "__m" in obj:
        return {k: _dec(v, _value_hint(hint)) for k, v in obj["__m"]}
    if isinstance(obj, list):
        inner = _value_hint(hint)
        items = [_dec(x, inner) for x in obj]
        return tuple(items) if typing.get_origin(_strip_optional(hint)) is tuple else items
    return obj


def _strip_optional(hint: Any) -> Any:
    if typing.get_origin(hint) in (typing.Union, UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else hint
    return hint


def _value_hint(hint: Any) -> Any:
    h = _strip_optional(hint)
    args = [a for a in typing.get_args(h) if a is not Ellipsis]
    return args[-1] if args else Any


def encode(record: T.ResponseResult) -> str:
    """One JSON line for a record."""
    return json.dumps(_enc(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode(line: str) -> T.ResponseResult:
    """The record back from :func:`encode`."""
    return _dec(json.loads(line))
