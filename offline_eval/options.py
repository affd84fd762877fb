"""Options defined once: each command's options are a frozen dataclass whose fields say their
flag, help and choices (:func:`option`). The command line is generated from them
(:func:`add_options`), a Python call checks them the same way (:func:`make`), and the run
record compares them (:func:`compared`).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     k: int = option(5, "passages per claim", flag="-k", positive=True)
...     method: str = option("qa", "the method", choices=("qa", "nli"))
>>> make(Demo, None, {"k": 3})
Demo(k=3, method='qa')
>>> make(Demo, None, {"kk": 3})
Traceback (most recent call last):
...
TypeError: unknown option 'kk'; valid: k, method
>>> make(Demo, None, {"method": "x"})
Traceback (most recent call last):
...
offline_eval.errors.InputError: method (--method): 'x' is not one of qa, nli
"""
from __future__ import annotations

import argparse
from dataclasses import MISSING, Field, field, fields, replace
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from offline_eval.errors import InputError

T = TypeVar("T")


def option(default: Any, help: str, *, choices: Sequence[Any] | None = None,
           flag: str | None = None, metavar: str | None = None, type: Callable | None = None,
           positive: bool = False, minimum: float | None = None, cli: bool = True,
           compared: bool = True) -> Any:
    """A dataclass field that is also a command-line flag.

    Args:
        default: the default (a bool makes a flag that turns it on, or for a True default
            off: give that one ``flag="--no-..."``).
        help: the flag's help; the default is added to it.
        choices: the valid values (checked in Python calls too).
        flag: the flag when it is not ``--name-with-dashes`` (``-k``).
        type: the flag's parser when the default does not tell it (a None default).
        positive: the value must be > 0; ``minimum``: it must be >= this.
        cli: False for an option only Python calls set.
        compared: False for an option that never changes a row (``--resume`` compares the
            others with the stopped run's).
    """
    return field(default=default, metadata={
        "help": help, "choices": None if choices is None else tuple(choices), "flag": flag,
        "metavar": metavar, "type": type, "positive": positive, "minimum": minimum,
        "cli": cli, "compared": compared})


def flag_of(f: Field) -> str:
    """The command-line flag of an option field."""
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def add_options(parser: argparse.ArgumentParser, cls: type, skip: Iterable[str] = ()) -> None:
    """One flag per option of ``cls`` (name, type, default, help and choices from the field)."""
    skipped = set(skip)
    for f in fields(cls):
        meta = f.metadata
        if f.name in skipped or not meta.get("cli", True) or "help" not in meta:
            continue
        default = None if f.default is MISSING else f.default
        kw: dict[str, Any] = {"dest": f.name, "default": default}
        shown = "" if default is None or isinstance(default, bool) \
            or "(default" in meta["help"] else f" (default {default})"
        kw["help"] = meta["help"] + shown
        if isinstance(default, bool) and meta.get("type") is None:
            # False: the flag turns it on; True: the flag (``--no-x``) turns it off
            kw["action"] = "store_false" if default else "store_true"
        else:
            if meta.get("choices"):
                kw["choices"] = meta["choices"]
            kind = meta.get("type") or (type(default) if default is not None else str)
            if kind is not str:
                kw["type"] = kind
            if meta.get("metavar"):
                kw["metavar"] = meta["metavar"]
        parser.add_argument(flag_of(f), **kw)


def from_args(cls: type[T], args: argparse.Namespace) -> T:
    """The options of ``cls`` that the parsed ``args`` carry (checked by :func:`check`)."""
    return check(cls(**{f.name: getattr(args, f.name) for f in fields(cls)  # type: ignore[arg-type]
                        if hasattr(args, f.name)}))


def make(cls: type[T], options: T | None, overrides: Mapping[str, Any]) -> T:
    """``options`` (or the defaults) with ``overrides`` replacing single fields, checked.

    Raises:
        TypeError: an override that is not an option, naming the valid ones.
        InputError: a value out of its choices or range.
    """
    valid = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    bad = [k for k in overrides if k not in valid]
    if bad:
        raise TypeError(f"unknown option {bad[0]!r}; valid: {', '.join(valid)}")
    if options is not None and not isinstance(options, cls):
        raise TypeError(f"options must be {cls.__name__}, got {type(options).__name__}")
    return check(replace(options or cls(), **overrides))  # type: ignore[type-var]


def check(opts: T) -> T:
    """Every option within its choices and range, or an InputError naming the option and its
    flag."""
    for f in fields(opts):  # type: ignore[arg-type]
        meta, value = f.metadata, getattr(opts, f.name)
        name = f"{f.name} ({flag_of(f)})" if meta.get("cli", True) else f.name
        if value is None:
            continue
        if meta.get("choices") and value not in meta["choices"]:
            raise InputError(f"{name}: {value!r} is not one of "
                             + ", ".join(map(str, meta["choices"])))
        if meta.get("positive") and not value > 0:
            raise InputError(f"{name} must be positive")
        if meta.get("minimum") is not None and not value >= meta["minimum"]:
            raise InputError(f"{name} must be >= {meta['minimum']}")
    return opts


def compared(opts: Any) -> dict[str, Any]:
    """The options that decide a command's rows, by name (what ``--resume`` compares)."""
    return {f.name: getattr(opts, f.name) for f in sorted(fields(opts), key=lambda f: f.name)
            if f.metadata.get("compared", True)}
