"""The VITAL authors' NQ subset as normal / missing / wrong triples, and where they differ.

Each condition file (``normal.jsonl``, ``missing.jsonl``, ``wrong.jsonl``) holds one row
per query, in the same order, with the response and its decomposition (sentences ->
claims with GPT-4o judgments and importance labels; see
:mod:`offline_eval.io.claims_input`). A ``wrong`` response is its ``normal`` response with
one sentence rewritten; a ``missing`` response lacks one or more of its sentences.
:func:`sentence_diff` finds them from the files' own sentence lists.

>>> sentence_diff(["A.", "B.", "C."], ["A.", "B2.", "C."])
(('B.',), ('B2.',))
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Sequence

from offline_eval.errors import InputError
from offline_eval.io.claims_input import parse_vital_row
from offline_eval.io.jsonl import read_jsonl
from offline_eval.types import Claim, ResponseResult

CONDITIONS: tuple[str, ...] = ("normal", "missing", "wrong")

__all__ = ["CONDITIONS", "VitalTriple", "read_triples", "sentence_diff", "overlaps",
           "unjudged"]


@dataclass(frozen=True)
class VitalTriple:
    """One query in the three conditions.

    Attributes:
        id: the response id the files share.
        query: the query.
        given: condition -> the file's record (claims with judgments, importance, order).
        edited: the sentences of ``wrong`` that ``normal`` does not have (the error).
        replaced: the sentences of ``normal`` that the edit replaced.
        dropped: the sentences of ``normal`` that ``missing`` lacks.
    """

    id: str
    query: str
    given: Mapping[str, ResponseResult]
    edited: tuple[str, ...]
    replaced: tuple[str, ...]
    dropped: tuple[str, ...]

    def text(self, condition: str) -> str:
        return self.given[condition].item.response


def sentence_diff(a: Sequence[str], b: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Sentences only in ``a`` and only in ``b``, from a sequence alignment."""
    only_a: list[str] = []
    only_b: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, list(a), list(b), autojunk=False).get_opcodes():
        if op != "equal":
            only_a += a[i1:i2]
            only_b += b[j1:j2]
    return tuple(only_a), tuple(only_b)


def _sentences(rec: ResponseResult) -> list[str]:
    out: list[str] = []
    for c in rec.claims:
        if c.sentence is not None and (not out or out[-1] != c.sentence):
            out.append(c.sentence)
    return out


def read_triples(folder: str | os.PathLike[str]) -> list[VitalTriple]:
    """Read the three condition files of ``folder`` into triples (rows match by line)."""
    rows = {c: [(line, r) for line, r in read_jsonl(Path(folder) / f"{c}.jsonl")] for c in CONDITIONS}
    if len({len(v) for v in rows.values()}) != 1:
        counts = ", ".join(f"{c}.jsonl {len(v)} rows" for c, v in rows.items())
        raise InputError(f"the condition files differ in length ({counts})", path=str(folder))
    out = []
    for k in range(len(rows["normal"])):
        given = {c: parse_vital_row(rows[c][k][1], str(Path(folder) / f"{c}.jsonl"), rows[c][k][0])
                 for c in CONDITIONS}
        if len({g.item.query for g in given.values()}) != 1:
            raise InputError(f"row {k + 1} holds a different query in "
                             + " / ".join(f"{c}.jsonl:{rows[c][k][0]}" for c in CONDITIONS),
                             path=str(Path(folder) / "normal.jsonl"), line=rows["normal"][k][0],
                             field="query")
        norm = _sentences(given["normal"])
        replaced, edited = sentence_diff(norm, _sentences(given["wrong"]))
        dropped, _ = sentence_diff(norm, _sentences(given["missing"]))
        out.append(VitalTriple(given["normal"].id, given["normal"].item.query, given,
                               edited, replaced, dropped))
    return out


def overlaps(text: str, sentences: Sequence[str], start: int, end: int) -> bool:
    """Whether ``text[start:end]`` overlaps one of ``sentences`` (located in ``text``).

    >>> overlaps("One. Two.", ["Two."], 5, 9), overlaps("One. Two.", ["Two."], 0, 4)
    (True, False)
    """
    for s in sentences:
        a = text.find(s)
        if a >= 0 and start < a + len(s) and a < end:
            return True
    return False


def unjudged(rec: ResponseResult) -> ResponseResult:
    """The record with its claims' judgments removed (importance and order kept), ready
    for the retrieve and verify stages."""
    claims = tuple(Claim(c.id, c.text, c.sentence_index, c.sentence, c.importance,
                         c.importance_score, c.rank) for c in rec.claims)
    return replace(rec, claims=claims)
