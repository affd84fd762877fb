"""Factcheck-GPT (``benchmark.jsonl``) as responses with references and labelled claims.

Each row holds a ChatGPT ``response``, its human-corrected ``revised_response``, the
response-level label ``response_factuality`` (True, False or "NA"), and per sentence the
human claims with ``claims_factuality_label`` (True, False or "unknown"), the human
evidence text for each claim ("NA" when none; a trailing ``Link: URL`` line gives its
source) and five automatically retrieved web passages per claim.

>>> row = {"prompt": "Q?", "response": "A.", "revised_response": "A.", "response_factuality": True,
...        "sentences": {"sentence1": {"claims": ["A."], "claims_factuality_label": [True],
...        "human_evidence": ["A is so.\\nLink: https://x.org/a"], "auto_evidence": [["A indeed."]]}}}
>>> r = parse_row(row, 1)
>>> r.factual, [e.text for e in r.claims[0].evidence], r.claims[0].evidence[0].url
(True, ['A is so.', 'A indeed.'], 'https://x.org/a')
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import read_jsonl
from offline_eval.types import Reference

__all__ = ["FactcheckClaim", "FactcheckResponse", "parse_row", "read_factcheck"]

_LINK = re.compile(r"^\s*Link:\s*(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class FactcheckClaim:
    """A human claim, its label (None for "unknown") and its evidence, human first."""

    id: str
    text: str
    label: bool | None
    evidence: tuple[Reference, ...]


@dataclass(frozen=True)
class FactcheckResponse:
    """One response with its revision, its label (None for "NA"), the pooled evidence of
    all its claims (deduplicated) and its claims."""

    id: str
    query: str
    response: str
    revised: str
    factual: bool | None
    references: tuple[Reference, ...]
    claims: tuple[FactcheckClaim, ...]


def _label(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _human(text: Any, rid: str) -> Reference | None:
    if not isinstance(text, str) or text.strip() in ("", "NA"):
        return None
    link = _LINK.search(text)
    body = _LINK.sub("", text).strip()
    return Reference(rid, body, link.group(1) if link else None) if body else None


def parse_row(row: Mapping[str, Any], line: int, path: str | None = None) -> FactcheckResponse:
    """One ``benchmark.jsonl`` row; the response id is ``fc<line>``.

    Raises:
        InputError: naming ``path:line`` and the field, for a malformed ``sentences``.
    """
    rid = f"fc{line}"
    claims: list[FactcheckClaim] = []
    pooled: dict[str, Reference] = {}
    sentences = row.get("sentences")
    if not isinstance(sentences, Mapping):
        raise InputError("expected an object", path=path, line=line, field="sentences")
    for key, sent in sentences.items():
        if not isinstance(sent, Mapping):
            raise InputError("expected an object", path=path, line=line, field=f"sentences.{key}")
        texts = sent.get("claims") or []
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise InputError("expected a list of strings", path=path, line=line,
                             field=f"sentences.{key}.claims")
        labels = sent.get("claims_factuality_label") or [None] * len(texts)
        human = sent.get("human_evidence") or [None] * len(texts)
        auto = sent.get("auto_evidence") or [[] for _ in texts]
        for j, text in enumerate(texts):
            cid = f"{rid}.{key}.{j}"
            ev = [r for r in [_human(human[j] if j < len(human) else None, f"{cid}.h")] if r]
            ev += [Reference(f"{cid}.a{k}", p) for k, p in enumerate(auto[j] if j < len(auto) else [])
                   if isinstance(p, str) and p.strip()]
            claims.append(FactcheckClaim(cid, text, _label(labels[j] if j < len(labels) else None),
                                         tuple(ev)))
            for r in ev:
                pooled.setdefault(r.text, r)
    return FactcheckResponse(rid, str(row.get("prompt", "")), str(row.get("response", "")),
                             str(row.get("revised_response", "")),
                             _label(row.get("response_factuality")), tuple(pooled.values()),
                             tuple(claims))


def read_factcheck(path: str | os.PathLike[str]) -> list[FactcheckResponse]:
    """Every row of ``benchmark.jsonl``."""
    return [parse_row(row, line, str(path)) for line, row in read_jsonl(path)]
