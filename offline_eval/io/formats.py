"""Peer input formats: the rows other factuality tools read, mapped onto ``score``'s own.

=============  ===============================================================================
format         fields read (the first of each ``a``/``b`` pair that is present)
=============  ===============================================================================
``native``     ``id``, ``query``, ``response``, ``date``?, ``references``?
``factscore``  ``topic``, ``output``, ``input``? (the prompt; else the topic is the query)
``veriscore``  ``question``, ``response``
``ragas``      ``user_input``/``question``, ``response``/``answer``,
               ``retrieved_contexts``/``contexts``?, ``reference``/``ground_truth``? (kept
               as one more reference, id ``reference``: the ground-truth answer is
               evidence too)
``nuggetizer`` ``query`` ``{qid, text}``, ``candidates`` ``[{docid, doc: {segment, title?}}]``
               (or ``{docid, segment, title?}``), ``answer``/``response`` (a string, or a
               list of ``{text}`` sentences as TREC RAG writes them)
=============  ===============================================================================

A peer row without ``id`` takes its place in the input as id: ``"1"`` for the first row
(of a JSONL file, a table or a DataFrame alike). Fields
the format does not read are kept in the row, as in a native row (``--group-by`` can name
them). Errors name the peer format's own field: ``in.jsonl:3: field 'output': missing
required field (factscore format)``.

>>> to_native({"topic": "Marie Curie", "output": "She was born in Warsaw."}, "factscore", "f", 1)
{'id': '1', 'query': 'Marie Curie', 'response': 'She was born in Warsaw.'}
>>> detect({"user_input": "q", "response": "a", "retrieved_contexts": ["c"]})
'ragas'
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from offline_eval.errors import InputError
from offline_eval.io.jsonl import get_field

#: the formats ``--format`` takes; ``auto`` picks one of these from the first row
FORMATS: tuple[str, ...] = ("native", "factscore", "veriscore", "ragas", "nuggetizer")
CHOICES: tuple[str, ...] = ("auto", *FORMATS)


def detect(row: Mapping[str, Any]) -> str | None:
    """The format a row is written in, or None when no known format fits."""
    keys = set(row)
    if isinstance(row.get("query"), Mapping) and "candidates" in keys:
        return "nuggetizer"
    if {"id", "query", "response"} <= keys:
        return "native"
    if {"topic", "output"} <= keys:
        return "factscore"
    if ("user_input" in keys or "answer" in keys or keys & {"retrieved_contexts", "contexts"}) \
            and keys & {"user_input", "question"} and keys & {"response", "answer"}:
        return "ragas"
    if {"question", "response"} <= keys:
        return "veriscore"
    return None


def unknown_format(row: Mapping[str, Any]) -> str:
    """The refusal for a row no format fits: its fields and what each format needs."""
    keys = ", ".join(sorted(map(str, row))[:12]) or "none"
    return (f"cannot tell the input format from the fields ({keys}); known formats: native "
            "(id, query, response), factscore (topic, output), veriscore (question, response), "
            "ragas (user_input, response, retrieved_contexts), nuggetizer (query {qid, text}, "
            "candidates, answer); pass --format to choose one")


class _Row:
    """Field access that names the peer format in its errors."""

    def __init__(self, row: Mapping[str, Any], fmt: str, path: str, line: int,
                 ordinal: int) -> None:
        self.row, self.fmt, self.path, self.line, self.ordinal = row, fmt, path, line, ordinal
        self.used: set[str] = set()

    def error(self, field: str, reason: str) -> InputError:
        return InputError(f"{reason} ({self.fmt} format)", path=self.path, line=self.line,
                          field=field)

    def get(self, *names: str, kind: Any = str, required: bool = True) -> Any:
        """The first of ``names`` present (all of them marked used); a missing required field
        names the first."""
        self.used.update(names)
        for name in names:
            if name in self.row and self.row[name] is not None:
                try:
                    return get_field(self.row, name, kind)
                except InputError as exc:
                    raise self.error(name, exc.reason) from None
        if required:
            raise self.error(names[0], "missing required field" + (
                f" (or {', '.join(repr(n) for n in names[1:])})" if len(names) > 1 else ""))
        return None

    def native(self, query: str, response: str, references: list | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.row.get("id", str(self.ordinal)), "query": query,
                               "response": response}
        self.used.update({"id", "query", "response"})
        if references is not None:  # else a row's own "references" are read as they are
            out["references"] = references
            self.used.add("references")
        out.update({k: v for k, v in self.row.items() if k not in self.used})
        return out


def _factscore(r: _Row) -> dict[str, Any]:
    topic = r.get("topic")
    prompt = r.get("input", required=False)
    if prompt and prompt.strip():
        r.used.discard("topic")  # the query is the prompt; the topic stays in the row
        return r.native(prompt, r.get("output"))
    return r.native(topic, r.get("output"))


def _veriscore(r: _Row) -> dict[str, Any]:
    return r.native(r.get("question"), r.get("response"))


def _texts(r: _Row, field: str, values: list) -> list[str]:
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise r.error(f"{field}[{i}]", f"expected a string, got {type(v).__name__}")
    return values


def _ragas(r: _Row) -> dict[str, Any]:
    query, response = r.get("user_input", "question"), r.get("response", "answer")
    names = [n for n in ("retrieved_contexts", "contexts") if r.row.get(n) is not None]
    contexts = _texts(r, names[0], r.get(*names, kind=list)) if names else []
    r.used.update({"retrieved_contexts", "contexts"})
    refs: list[Any] = list(contexts)
    reference = r.get("reference", "ground_truth", required=False)
    if reference and reference.strip():
        refs.append({"id": "reference", "text": reference, "title": "reference answer"})
    return r.native(query, response, refs if refs else None)


def _nuggetizer(r: _Row) -> dict[str, Any]:
    q = r.get("query", kind=Mapping)
    qid, text = q.get("qid"), q.get("text")
    if not isinstance(qid, (str, int)) or isinstance(qid, bool):
        raise r.error("query.qid", "expected a string or an integer")
    if not isinstance(text, str):
        raise r.error("query.text", "expected a string")
    refs = []
    for i, c in enumerate(r.get("candidates", kind=list)):
        doc = c.get("doc", c) if isinstance(c, Mapping) else None
        seg = doc.get("segment") if isinstance(doc, Mapping) else None
        if not isinstance(seg, str):
            raise r.error(f"candidates[{i}].doc.segment", "expected a string")
        ref = {"id": str(c.get("docid", f"ref{i}")), "text": seg}
        if isinstance(doc.get("title"), str):
            ref["title"] = doc["title"]
        refs.append(ref)
    answer = r.get("answer", "response", kind=(str, list))
    if isinstance(answer, list):
        parts = [a.get("text") if isinstance(a, Mapping) else a for a in answer]
        if not all(isinstance(p, str) for p in parts):
            raise r.error("answer", "expected a string or a list of {text} sentences")
        answer = " ".join(p.strip() for p in parts if p.strip())
    r.used.add("id")
    out = r.native(text, answer, refs)
    out["id"] = str(r.row["id"]) if "id" in r.row else str(qid)
    return out


_CONVERT: dict[str, Callable[[_Row], dict[str, Any]]] = {
    "factscore": _factscore, "veriscore": _veriscore, "ragas": _ragas, "nuggetizer": _nuggetizer}


def to_native(row: Mapping[str, Any], fmt: str, path: str, line: int,
              ordinal: int | None = None) -> dict[str, Any]:
    """``row``, written in ``fmt``, as a native ``score`` row (not yet validated);
    ``ordinal`` is the row's place in the input (default ``line``), a peer row's id when it
    has none."""
    if fmt == "native":
        return dict(row)
    if fmt not in _CONVERT:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(CHOICES)}")
    return _CONVERT[fmt](_Row(row, fmt, path, line, line if ordinal is None else ordinal))
