"""Comprehensiveness for rows of ``{"id", "query", "references": [str | {"id", "text"}],
"response"}``."""
from __future__ import annotations

import os
from typing import Any, Iterator, Sequence

from offline_eval.coverage.facts import FACT_SETS
from offline_eval.coverage.methods import (DEFAULT_FACTS, METHODS, Coverage, Decompose,
                                                    Entail, comprehensiveness,
                                                    entailer_from_runner)
from offline_eval.errors import InputError
from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.io.jsonl import ReferencesField, get_field


def load_entailer(model: str | None = None, backend: str | None = None,
                  device: str | None = None, batch_size: int = 32) -> Entail:
    """P(entailment) from the NLI model the verifier uses (default: the embedded one)."""
    from offline_eval.nli.verifier import load_nli

    return entailer_from_runner(load_nli(model, backend, device, batch_size).runner)


class SourceFacts:
    """``(query, sentence) -> facts``, and :meth:`sources`: each source decomposed as one
    document, its earlier sentences the context of each (the way the nuggets stage
    decomposes references, through the same
    :class:`~offline_eval.nuggetization.reference_facts.ReferenceFacts`, so in one process
    the two stages decompose a reference once)."""

    def __init__(self, decomposer: str = "syntactic") -> None:
        from offline_eval.nuggetization.reference_facts import ReferenceFacts

        self.facts = ReferenceFacts(decomposer)

    def __call__(self, query: str, sentence: str) -> list[str]:
        return self.facts([(query, sentence)])[0]

    def sources(self, query: str, texts: Sequence[str]) -> list[list[str]]:
        """The facts of each source text."""
        return self.facts([(query, t) for t in texts])


def load_decomposer(name: str = "syntactic") -> Decompose:
    """The comprehensiveness decomposer (a :class:`SourceFacts`) of a claim decomposer name."""
    return SourceFacts(name)


def coverage_row(row_id: str, cov: Coverage) -> dict[str, Any]:
    """The ``offline-eval comprehensiveness`` output row."""
    from offline_eval.io.rows import coverage_json

    return {"id": row_id, **(coverage_json(cov) or {})}


Parsed = tuple[str, str, list[tuple[str, str]], str]


def read_rows(items: Any) -> list[Parsed]:
    """Every row of ``items`` (a JSONL path or rows) validated, ids unique:
    ``(id, query, sources, response)``, each source ``(source id, text)``. A reference is a
    string (source id ``s0``, ``s1``, ... by place) or an ``{"id", "text"}`` object."""
    from offline_eval.io.jsonl import UniqueIds, row_source

    where, source = row_source(items)
    unique = UniqueIds(where)
    rows = []
    refs = ReferencesField(where)
    for line, row in source:
        def get(name: str, kind: Any, **kw: Any) -> Any:
            try:
                return get_field(row, name, kind, **kw)
            except InputError as exc:
                raise InputError(exc.reason, path=where, line=line, field=name) from None

        rid = unique(get("id", (str, int)), line)
        query, response = get("query", str), get("response", str)
        key = refs.key(row, line)
        sources = []
        for i, s in enumerate(get(key, list)):
            if isinstance(s, dict) and isinstance(s.get("id"), (str, int)) \
                    and not isinstance(s.get("id"), bool) and isinstance(s.get("text"), str):
                sources.append((str(s["id"]), s["text"]))
            elif isinstance(s, str):
                sources.append((f"s{i}", s))
            else:
                raise InputError(f"expected str or an object with id and text, got "
                                 f"{type(s).__name__}", path=where, line=line, field=f"{key}[{i}]")
        rows.append((rid, query, sources, response))
    refs.note()
    return rows


def evaluate_rows(rows: Sequence[Parsed], method: str, entail: Entail,
                  decompose: Decompose | None = None, facts: str = DEFAULT_FACTS,
                  source_chars: int = SOURCE_CHARS) -> Iterator[dict[str, Any]]:
    """The coverage row of each parsed row (:func:`read_rows`), in order (``source_chars``:
    see :func:`~offline_eval.coverage.methods.comprehensiveness`)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")
    if facts not in FACT_SETS:
        raise ValueError(f"unknown fact set {facts!r}; valid: {', '.join(FACT_SETS)}")
    for rid, query, sources, response in rows:
        cov = comprehensiveness(query, sources, response, method, entail, decompose, facts,
                                source_chars=source_chars)
        yield coverage_row(rid, cov)


def evaluate(path: str | os.PathLike[str], method: str, entail: Entail,
             decompose: Decompose | None = None, facts: str = DEFAULT_FACTS,
             source_chars: int = SOURCE_CHARS) -> Iterator[dict[str, Any]]:
    """Validate every row, then yield its coverage row (``facts``: ``vital`` | ``all``)."""
    return evaluate_rows(read_rows(path), method, entail, decompose, facts, source_chars)
