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
    plain_at: int | None = None  # where the plain strings' document goes
    groups: dict[str, list[str]] = {}
    meta: dict[str, tuple[Mapping[str, Any], int]] = {}  # first object of an id, its slot
    for e in evidence:
        if isinstance(e, Evidence):
            out.append(e)
        elif isinstance(e, Mapping):
            key = str(e.get("id", ""))
            if key not in groups:
                groups[key], meta[key] = [], (e, len(out))
                out.append(Evidence(passage_id=key, text=""))
            if str(e.get("text") or "").strip():
                groups[key].append(str(e["text"]).strip())
        else:
            if plain_at is None:
                plain_at = len(out)
                out.append(Evidence(passage_id=PLAIN_ID, text=""))
            if str(e).strip():
                plain.append(str(e).strip())
    for key, texts in groups.items():
        m, at = meta[key]
        out[at] = Evidence(passage_id=key, text="\n".join(texts), doc_id=key,
                           title=m.get("title"), url=m.get("url"))
    if plain_at is not None:
        out[plain_at] = Evidence(passage_id=PLAIN_ID, text="\n".join(plain), doc_id=PLAIN_ID)
    out = [e for e in out if e.text.strip()]
    return out[:top_k] if top_k is not None else out
