"""``offline-eval verify IN.jsonl [-o OUT.jsonl] [--nli-model NAME|DIR] [--backend onnx|torch]
[--device cpu|cuda] [--batch-size N]``: NLI on pairs or claims.

Two row formats (they may be mixed):

- ``{"id", "premise", "hypothesis"}`` -> ``{"id", "label", "probs": {label: prob}}``;
- ``{"id", "claim", "references": [...]}`` ->
  ``{"id", "verdict", "rule", "reason", "p_supported", "probs", "decisive_evidence",
  "evidence_source"}``. ``references`` (``evidence`` is read too, for one release) is a
  list of strings (one document, in order: a
  page's lines or passages) or of ``{"id", "text"}`` objects (``title``, ``url``
  optional; grouped by ``id``, one document each). ``probs`` are those of the window that
  decided, ``decisive_evidence`` its text and ``evidence_source`` its passage and document.

Claims take the same verdict path as in ``score`` (:meth:`Verifier.judge`): the decision,
then the number and name rules.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from offline_eval.cli._shared import add_row_flags
from offline_eval.cli._resume import nli_model, run_options
from offline_eval.runners.base import BACKENDS, DEVICES

#: rows verified, then written, at a time: a stopped run keeps every finished chunk
CHUNK = 1024


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="NLI on premise/hypothesis pairs or claims with their references",
                       description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="JSONL input")
    p.add_argument("-o", "--output", help="JSONL output (default: stdout)")
    p.add_argument("--nli-model", default=None, help="model name or folder (default: nli-minilm)")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="runtime (default: the model's default)")
    p.add_argument("--device", choices=DEVICES, default=None, help="default: best available")
    p.add_argument("--batch-size", type=int, default=32)
    add_row_flags(p)
    p.set_defaults(func=run)


def _rows(path: str) -> list[tuple[int, str, dict]]:
    from offline_eval.errors import InputError
    from offline_eval.io.jsonl import ReferencesField, UniqueIds, get_field, read_jsonl

    rows = []
    unique, refs = UniqueIds(path), ReferencesField(path)
    for line, row in read_jsonl(path):
        rid = get_field(row, "id", (str, int), path=path, line=line)
        unique(rid, line)
        if "claim" in row:
            get_field(row, "claim", str, path=path, line=line)
            key = refs.key(row, line)
            ev = _evidence(get_field(row, key, list, path=path, line=line), path, line, key)
            rows.append((line, "claim", {"id": rid, "claim": row["claim"], "evidence": ev}))
        elif "premise" in row or "hypothesis" in row:
            pair = {"id": rid}
            for name in ("premise", "hypothesis"):
                pair[name] = get_field(row, name, str, path=path, line=line)
                if not pair[name].strip():  # a label for no text would be noise
                    raise InputError("must not be empty", path=path, line=line, field=name)
            rows.append((line, "pair", pair))
        else:
            raise InputError("a row needs premise+hypothesis or claim+references", path=path,
                             line=line)
    refs.note()
    return rows


def _evidence(items: list, path: str, line: int, key: str = "references") -> list:
    """Evidence strings, or ``{"id", "text"}`` objects checked field by field."""
    from offline_eval.errors import InputError

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


def _rounded(probs) -> dict[str, float]:
    """Probabilities to 6 decimals, as in `score` rows (output bytes stay stable)."""
    return {k: round(float(p), 6) for k, p in probs.items()}


def run(args: argparse.Namespace) -> int:
    from offline_eval.errors import InputError
    from offline_eval.io.resume import ResumableWriter
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import load_config, uncalibrated_warning
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    if args.batch_size <= 0:
        raise InputError("--batch-size must be positive")
    rows = _rows(args.input)
    path = resolve_model(args.nli_model)
    note = uncalibrated_warning(path) if any(kind == "claim" for _, kind, _ in rows) else None
    if note:  # (pairs get raw NLI labels anyway)
        print(f"offline-eval: warning: {note}", file=sys.stderr)
    with ResumableWriter(args.output, args.input, run_options(args, nli=nli_model(args)),
                         resume=args.resume) as w:
        done = w.start([r["id"] for _, _, r in rows])
        if done == len(rows):
            return 0
        verifier = Verifier(load_runner(path, args.backend, args.device, args.batch_size),
                            load_config(path))
        for start in range(done, len(rows), CHUNK):
            for row in _verify_chunk(verifier, rows[start:start + CHUNK]):
                w.write(row)
    return 0


def _verify_chunk(verifier: Any, rows: list[tuple[int, str, dict]]) -> list[dict]:
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
                            "start": v.evidence.start, "end": v.evidence.end}})
    return out
