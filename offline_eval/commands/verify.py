"""``verify``: NLI on premise/hypothesis pairs, or verdicts for claims with their references.

Two row kinds (they may be mixed):

- ``{"id", "premise", "hypothesis"}`` -> ``{"id", "label", "probs": {label: prob}}``;
- ``{"id", "claim", "references": [...]}`` ->
  ``{"id", "verdict", "verdict_rule", "verdict_reason", "compared", "p_supported", "probs",
  "decisive_evidence", "evidence_source"}`` (the key names of a ``score`` row's claims; the
  older ``rule`` and ``reason`` follow them, for one release). ``references`` (``evidence`` is read too, for
  one release) is a list of strings (one document, in order: a page's lines or passages)
  or of ``{"id", "text"}`` objects (``title``, ``url`` optional; grouped by ``id``, one
  document each, and all of them one context, read as one text and cited by the object
  that holds the deciding window; objects with a ``doc_id`` are retrieved passages, each
  its own). ``probs`` are those of the window that decided, ``decisive_evidence`` its
  text and ``evidence_source`` its passage and document.

Claims take the same verdict path as in ``score`` (:meth:`Verifier.judge`): the decision,
then the number and name rules.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from offline_eval.commands import RowCommand, chunks
from offline_eval.errors import InputError
from offline_eval.options import option
from offline_eval.runners.base import BACKENDS, DEVICES

if TYPE_CHECKING:
    from offline_eval.nli.verifier import Verifier

#: rows verified, then written, at a time: a stopped run keeps every finished chunk
CHUNK = 1024


@dataclass(frozen=True)
class VerifyOptions:
    """The options of :func:`offline_eval.verify` and ``offline-eval verify``."""

    nli_model: str | None = option(None, "NLI model name or folder (default: the embedded "
                                   "nli-minilm)")
    backend: str | None = option(None, "runtime (default: the model's measured default)",
                                 choices=BACKENDS)
    device: str | None = option(None, "default: best available", choices=DEVICES)
    batch_size: int = option(32, "pairs per forward pass (rows do not depend on it)",
                             positive=True, compared=False)


def read(items: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """Every row validated (ids unique): ``(line, "pair" | "claim", row)``."""
    from offline_eval.io.jsonl import ReferencesField, UniqueIds, get_field, row_source

    where, source = row_source(items)
    rows = []
    unique, refs = UniqueIds(where), ReferencesField(where)
    for line, row in source:
        rid = get_field(row, "id", (str, int), path=where, line=line)
        unique(rid, line)
        if "claim" in row:
            get_field(row, "claim", str, path=where, line=line)
            key = refs.key(row, line)
            given = get_field(row, key, (list, str), path=where, line=line)
            ev = _references([given] if isinstance(given, str) else given, where, line, key)
            rows.append((line, "claim", {"id": rid, "claim": row["claim"], "evidence": ev}))
        elif "premise" in row or "hypothesis" in row:
            pair = {"id": rid}
            for name in ("premise", "hypothesis"):
                pair[name] = get_field(row, name, str, path=where, line=line)
                if not pair[name].strip():  # a label for no text would be noise
                    raise InputError("must not be empty", path=where, line=line, field=name)
            rows.append((line, "pair", pair))
        else:
            raise InputError("a row needs premise+hypothesis or claim+references", path=where,
                             line=line)
    refs.note()
    return rows


def _references(items: list, path: str, line: int, key: str = "references") -> list:
    """Reference strings, or ``{"id", "text"}`` objects checked field by field."""
    for i, e in enumerate(items):
        if isinstance(e, str):
            continue
        if not isinstance(e, dict):
            raise InputError(f"expected str or an object with id and text, got {type(e).__name__}",
                             path=path, line=line, field=f"{key}[{i}]")
        for name, kinds in (("id", (str, int)), ("text", (str,))):
            if name not in e or not isinstance(e[name], kinds) or isinstance(e[name], bool):
                raise InputError(f"needs {name!r} ({' or '.join(k.__name__ for k in kinds)})",
                                 path=path, line=line, field=f"{key}[{i}].{name}")
        for name in ("title", "url"):
            if e.get(name) is not None and not isinstance(e[name], str):
                raise InputError("expected str", path=path, line=line, field=f"{key}[{i}].{name}")
    return items


def models(o: VerifyOptions) -> dict[str, Any]:
    from offline_eval.provenance import nli_record

    return {"nli": nli_record(o.nli_model, o.backend, o.device)}


def compute(rows: Sequence[tuple[int, str, dict[str, Any]]], o: VerifyOptions
            ) -> Iterator[dict[str, Any]]:
    """Output rows, in order; the model loads on the first row."""
    if not rows:
        return
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import uncalibrated_warning
    from offline_eval.nli.verifier import load_nli

    note = uncalibrated_warning(resolve_model(o.nli_model)) \
        if any(kind == "claim" for _, kind, _ in rows) else None
    if note:  # (pairs get raw NLI labels anyway)
        warnings.warn(note, UserWarning, stacklevel=2)
    verifier = load_nli(o.nli_model, o.backend, o.device, o.batch_size)
    for chunk in chunks(rows, CHUNK):
        yield from verify_chunk(verifier, chunk)


def _rounded(probs: Any) -> dict[str, float]:
    """Probabilities to 6 decimals, as in ``score`` rows (output bytes stay stable)."""
    return {k: round(float(p), 6) for k, p in probs.items()}


def verify_chunk(verifier: Verifier, rows: Sequence[tuple[int, str, dict]]) -> list[dict]:
    """Output rows for ``rows``, in order (pairs and claims each go to the model at once)."""
    from offline_eval.nli.decide import judged_row

    pairs = [r for _, kind, r in rows if kind == "pair"]
    claims = [r for _, kind, r in rows if kind == "claim"]
    pair_out = iter(verifier.classify_pairs([(r["premise"], r["hypothesis"]) for r in pairs]))
    claim_out = iter(verifier.judge([(r["claim"], r["evidence"]) for r in claims]))
    out = []
    for _, kind, r in rows:
        if kind == "pair":
            probs = next(pair_out)
            out.append({"id": r["id"], "label": max(probs, key=probs.get), "probs": _rounded(probs)})
        else:
            j = next(claim_out)
            v = j.verdict
            out.append({"id": r["id"], **judged_row(j), "probs": _rounded(v.probs),
                        "decisive_evidence": v.evidence.text if v.evidence else None,
                        "evidence_source": None if v.evidence is None else {
                            "passage_id": v.evidence.passage_id, "doc_id": v.evidence.doc_id,
                            "title": v.evidence.title, "url": v.evidence.url,
                            "start": v.evidence.start, "end": v.evidence.end},
                        # their names before 0.2, written for one release (CHANGELOG.md)
                        "rule": v.rule, "reason": v.reason})
    return out


COMMAND = RowCommand("verify", VerifyOptions, read, lambda r: str(r[2]["id"]), models, compute)
