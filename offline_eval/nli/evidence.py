"""Evidence as the verifier reads it: documents and passages, whatever shape it came in.

The same page must give the same verdict whether it arrives as one string, as a list of its
lines or as passages of one document. So, before anything is scored:

* plain strings given for one claim are **one document**, joined in order by line breaks
  (a list of a page's lines, or the snippets a user gathered for the claim; a line break
  ends a sentence, so a line without a full stop is never merged with the next);
* ``{"id", "text"}`` objects (``title``, ``url`` optional) group by ``id``, in order of
  first appearance: each id is one document, and together they are **one context**, read
  as a row's RAG references are: one passage, the documents joined in order by a blank line,
  whose ``doc_id`` names them all (``"a+b"``); the verdict then cites the one that holds the
  deciding window (:func:`cite_references`). Objects with a ``doc_id`` field, as
  ``offline-eval search --json`` writes, are retrieved passages instead, one per ``id``;
* :class:`~offline_eval.types.Evidence` passages (what the retrieve stage returns) stay
  passages: they are ranked, and several may share a ``doc_id``.

>>> [e.text for e in as_passages(["Ada was born in 1815.", "She died in 1852."])]
['Ada was born in 1815.\\nShe died in 1852.']
>>> [(e.doc_id, e.text) for e in as_passages([{"id": "a", "text": "X."}, {"id": "b", "text": "Y."},
...                                            {"id": "a", "text": "Z."}])]
[('a+b', 'X.\\nZ.\\n\\nY.')]
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from offline_eval.types import Evidence

#: the passage id (and doc_id) of the document formed by plain evidence strings
PLAIN_ID = "evidence"


def _objects(evidence: Sequence[Any]) -> dict[str, tuple[Mapping[str, Any], list[str]]]:
    """``{"id", "text"}`` objects grouped by id, in order of first appearance: the id's first
    object (its title, url and ``doc_id``) and its texts, stripped, empty ones dropped."""
    out: dict[str, tuple[Mapping[str, Any], list[str]]] = {}
    for e in evidence:
        if isinstance(e, Mapping) and not isinstance(e, Evidence):
            texts = out.setdefault(str(e.get("id", "")), (e, []))[1]
            if str(e.get("text") or "").strip():
                texts.append(str(e["text"]).strip())
    return out


def one_context(evidence: Sequence[Any]) -> bool:
    """Whether a claim's ``evidence`` is one context (plain strings and ``{"id", "text"}``
    objects, whose sentences the assembled window may join across documents), rather than
    retrieved passages (:class:`~offline_eval.types.Evidence`, or an id whose first object
    names its ``doc_id``, as :func:`as_passages` reads it).

    >>> one_context(["A.", {"id": "a", "text": "B."}, {"id": "a", "text": "C.", "doc_id": "x"}])
    True
    >>> one_context([{"id": "a", "text": "B.", "doc_id": "x"}, {"id": "a", "text": "C."}])
    False
    """
    return not any(isinstance(e, Evidence) for e in evidence) and not any(
        m.get("doc_id") for m, _ in _objects(evidence).values())


def as_passages(evidence: Sequence[Any], top_k: int | None = None) -> list[Evidence]:
    """The passages a claim's ``evidence`` stands for (see the module docstring), the
    first ``top_k`` of them when given. Empty strings are dropped."""
    out: list[Evidence] = []
    plain: list[str] = []
    plain_at: int | None = None  # where the plain strings' document goes
    slot: dict[str, int] = {}  # where each object id's document goes
    for e in evidence:
        if isinstance(e, Evidence):
            out.append(e)
        elif isinstance(e, Mapping):
            key = str(e.get("id", ""))
            if key not in slot:
                slot[key] = len(out)
                out.append(Evidence(passage_id=key, text=""))
        else:
            if plain_at is None:
                plain_at = len(out)
                out.append(Evidence(passage_id=PLAIN_ID, text=""))
            if str(e).strip():
                plain.append(str(e).strip())
    objects = _objects(evidence)
    for key, (m, texts) in objects.items():
        out[slot[key]] = Evidence(passage_id=key, text="\n".join(texts), doc_id=str(m.get("doc_id") or key),
                                  title=m.get("title"), url=m.get("url"))
    context = [k for k, (m, _) in objects.items() if not m.get("doc_id")]
    if len(context) > 1:  # one context: its documents joined, in order, at the first one's slot
        from offline_eval.index.chunk import CONTEXT_JOIN, flat_blank_lines
        parts = [out[slot[k]] for k in context if out[slot[k]].text.strip()]
        titles, urls = {p.title for p in parts}, {p.url for p in parts}
        ids = "+".join(p.passage_id for p in parts)
        out[slot[context[0]]] = Evidence(
            passage_id=ids, text=CONTEXT_JOIN.join(flat_blank_lines(p.text) for p in parts), doc_id=ids,
            title=titles.pop() if len(titles) == 1 else None, url=urls.pop() if len(urls) == 1 else None)
        for k in context[1:]:
            out[slot[k]] = Evidence(passage_id=k, text="")
    if plain_at is not None:
        out[plain_at] = Evidence(passage_id=PLAIN_ID, text="\n".join(plain), doc_id=PLAIN_ID)
    out = [e for e in out if e.text.strip()]
    return out[:top_k] if top_k is not None else out


def given_references(evidence: Sequence[Any]) -> list[Any]:
    """The documents of a claim's ``{"id", "text"}`` objects (those without a ``doc_id``),
    as :class:`~offline_eval.types.Reference`, for :func:`cite_references`: an id's text as
    read (stripped; the texts of a repeated id joined by a line break), which a citation's
    offsets index.

    >>> [(r.id, r.text) for r in given_references([{"id": "a", "text": "X."}, "Y.", {"id": "a", "text": "Z."}])]
    [('a', 'X.\\nZ.')]
    """
    from offline_eval.types import Reference
    return [Reference(k, "\n".join(t), m.get("url"), m.get("title"))
            for k, (m, t) in _objects(evidence).items() if t and not m.get("doc_id")]


def doc_ids(doc_id: str | None) -> list[str]:
    """The document ids a ``doc_id`` names (a passage of several references joins theirs
    with ``+``), each once, in order.

    >>> doc_ids("r1+r2"), doc_ids(None)
    (['r1', 'r2'], [])
    """
    return list(dict.fromkeys(d for d in (doc_id or "").split("+") if d))


def cite_references(evidence: Evidence | None, references: Sequence[Any]) -> Evidence | None:
    """A RAG verdict's deciding window, cited by the references that hold it.

    A window cut from a passage of several references (``doc_id`` ``"r1+r2"``) names, when
    one reference holds all of it, that reference alone, with its title, url and the
    window's offsets in its text; otherwise every reference that holds one of its sentences,
    without offsets, and a title and url only when they share them. ``references`` are the
    item's (``id``, ``text``, ``title``, ``url``). Other evidence is returned as it is.

    >>> from offline_eval.types import Reference
    >>> refs = [Reference("a", "Ada was born in 1815.", url="ua"), Reference("b", "She died in 1852.")]
    >>> e = cite_references(Evidence("a#0", "She died in 1852.", doc_id="a+b", start=23, end=40), refs)
    >>> e.doc_id, e.start, e.end, e.url
    ('b', 0, 17, None)
    >>> cite_references(Evidence("assembled:a#0", "Ada was born in 1815. She died in 1852.", doc_id="a+b+b"), refs).doc_id
    'a+b'
    """
    from dataclasses import replace

    from offline_eval.index.chunk import flat_blank_lines
    from offline_eval.text import split_sentences
    if evidence is None or "+" not in (evidence.doc_id or ""):
        return evidence
    known = {(getattr(r, "id", None) or f"ref{i}"): r for i, r in enumerate(references)}
    ids = doc_ids(evidence.doc_id)
    held = [(d, known[d], flat_blank_lines(known[d].text)) for d in ids if d in known]
    if not held:
        return evidence
    joined = evidence.passage_id == evidence.doc_id  # the whole of verify's objects, not a passage
    text = evidence.text
    for d, r, flat in held:
        at = flat.find(text)  # the same length as r.text: offsets into it
        if at >= 0:
            return replace(evidence, doc_id=d, title=r.title or None, url=r.url,
                           start=at, end=at + len(text), passage_id=d if joined else evidence.passage_id)
    sentences = split_sentences(text)
    holders = {d for d, _, flat in held if any(s in flat for s in sentences)} or {d for d, _, _ in held}
    holding = [(d, known.get(d)) for d in ids if d in holders or d not in known]  # others: plain strings
    titles = {getattr(known.get(d), "title", None) or None for d, _ in holding}
    urls = {getattr(known.get(d), "url", None) for d, _ in holding}
    return replace(evidence, doc_id="+".join(d for d, _ in holding),
                   title=titles.pop() if len(titles) == 1 else None,
                   url=urls.pop() if len(urls) == 1 else None, start=None, end=None)
