"""Evidence as the verifier reads it: documents and passages, whatever shape it came in.

The same page must give the same verdict whether it arrives as one string, as a list of its
lines or as passages of one document. So, before anything is scored:

* plain strings given for one claim are **one document**, joined in order by line breaks
  (a list of a page's lines, or the snippets a user gathered for the claim; a line break
  ends a sentence, so a line without a full stop is never merged with the next);
* ``{"id", "text"}`` objects (``title``, ``url`` optional) group by ``id``, in order of
  first appearance, as ``references`` do: each id is one document;
* :class:`~offline_eval.types.Evidence` passages (what the retrieve stage returns) stay
  passages: they are ranked, and several may share a ``doc_id``.

>>> [e.text for e in as_passages(["Ada was born in 1815.", "She died in 1852."])]
['Ada was born in 1815.\\nShe died in 1852.']
>>> [(e.doc_id, e.text) for e in as_passages([{"id": "a", "text": "X."}, {"id": "b", "text": "Y."},
...                                            {"id": "a", "text": "Z."}])]
[('a', 'X.\\nZ.'), ('b', 'Y.')]
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from offline_eval.types import Evidence

#: the passage id (and doc_id) of the document formed by plain evidence strings
PLAIN_ID = "evidence"


def as_passages(evidence: Sequence[Any], top_k: int | None = None) -> list[Evidence]:
    """The passages a claim's ``evidence`` stands for (see the module docstring), the
    first ``top_k`` of them when given. Empty strings are dropped."""
    out: list[Evidence] = []
    plain: list[str] = []
    groups: dict[str, list[str]] = {}
    meta: dict[str, Mapping[str, Any]] = {}
    slot: dict[str, int] = {}  # where each document goes, in order of first appearance
    for e in evidence:
        if isinstance(e, Evidence):
            out.append(e)
        elif isinstance(e, Mapping):
            key = str(e.get("id", ""))
            if key not in groups:
                groups[key], meta[key], slot[key] = [], e, len(out)
                out.append(Evidence(passage_id=key, text=""))
            text = str(e.get("text") or "").strip()
            if text:
                groups[key].append(text)
        else:
            if not plain:
                slot[PLAIN_ID + "\0"] = len(out)
                out.append(Evidence(passage_id=PLAIN_ID, text=""))
            if str(e).strip():
                plain.append(str(e).strip())
    for key, texts in groups.items():
        m = meta[key]
        out[slot[key]] = Evidence(passage_id=key, text="\n".join(texts), doc_id=key,
                                  title=m.get("title"), url=m.get("url"))
    if plain:
        out[slot[PLAIN_ID + "\0"]] = Evidence(passage_id=PLAIN_ID, text="\n".join(plain),
                                              doc_id=PLAIN_ID)
    out = [e for e in out if e.text.strip()] or out[:0]
    return out[:top_k] if top_k is not None else out
