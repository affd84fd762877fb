"""Atomic facts of reference texts, with the same splitter and decomposer that turn a
response into claims (library functions, not the pipeline stages).

One decomposition per reference: the nuggets stage and the comprehensiveness stage both
read an item's references through :class:`ReferenceFacts`, and the facts of a reference
decomposed by a named, batch-invariant decomposer are remembered for the process (by a
digest of the query and the text, the last :data:`MEMO` of them), so the second stage
takes them from memory instead of splitting, parsing and decomposing the text again.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from offline_eval.memo import Memo, digest

if TYPE_CHECKING:
    from spacy.language import Language

    from offline_eval.decomposition.base import Decomposer

#: references whose facts are remembered, per process (a RAG batch of 32 rows reads a few
#: hundred; a key is a digest, so a long reference is not held twice)
MEMO = 4096
_MEMO: Memo[tuple[str, ...]] = Memo(MEMO)


class ReferenceFacts:
    """Callable: ``[(query, text), ...] -> [[fact, ...], ...]``.

    Each text is split into sentences and decomposed as one document, its own earlier
    sentences being the context of each (a pronoun resolves to what the text named before
    it, as in a response), with the query's topic.

    Args:
        decomposer: a decomposer name (``"syntactic"``, ``"generative"``) or instance.
        nlp: a spaCy pipeline with sentence boundaries (default: the splitter's).
        **options: passed to ``get_decomposer`` when ``decomposer`` is a name.
    """

    def __init__(self, decomposer: str | Decomposer = "syntactic", nlp: Language | None = None,
                 **options: Any) -> None:
        self._spec, self._nlp, self._options = decomposer, nlp, options
        self._decomposer: Decomposer | None = None if isinstance(decomposer, str) else decomposer
        # remembered only where a text's facts are a function of the text, the query and the
        # decomposer's name and options: the default splitter, a decomposer that does not
        # depend on its batch mates (checked once it is loaded)
        self._memo_key = (json.dumps([decomposer, options], sort_keys=True, default=repr)
                          if isinstance(decomposer, str) and nlp is None else None)

    def __call__(self, jobs: Sequence[tuple[str, str]]) -> list[list[str]]:
        from offline_eval.decomposition.base import get_decomposer
        if self._decomposer is None:
            self._decomposer = get_decomposer(str(self._spec), **self._options)
        if self._memo_key is not None and not getattr(self._decomposer, "batch_invariant", False):
            self._memo_key = None
        if self._memo_key is None:
            return self._decompose(jobs)
        keys = [(self._memo_key, digest(q, t)) for q, t in jobs]
        found = [_MEMO.get(k) for k in keys]
        todo: dict[tuple[str, bytes], int] = {}   # each text once, by its first job
        for i, f in enumerate(found):
            if f is None:
                todo.setdefault(keys[i], i)
        fresh = dict(zip(todo, map(tuple, self._decompose([jobs[i] for i in todo.values()])
                                   if todo else [])))
        for k, facts in fresh.items():
            _MEMO.put(k, facts)
        found = [f if f is not None else fresh[k] for f, k in zip(found, keys)]
        return [list(f) for f in found]  # type: ignore[arg-type]

    def _decompose(self, jobs: Sequence[tuple[str, str]]) -> list[list[str]]:
        from offline_eval.decomposition.base import Request
        from offline_eval.decomposition.nlp import load_spacy
        from offline_eval.decomposition.splitting import split_responses
        if self._nlp is None:
            self._nlp = load_spacy(mode="split")
        requests, where = [], []
        splits = split_responses([text for _, text in jobs], self._nlp)   # one spaCy stream
        for k, ((query, _), split) in enumerate(zip(jobs, splits)):
            units = split.sentences
            targets = tuple(i for i, s in enumerate(units) if s.kind == "claim")
            if targets:
                requests.append(Request(query, tuple(s.text for s in units), targets))
                where.append(k)
        out: list[list[str]] = [[] for _ in jobs]
        results = self._decomposer.decompose_batch(requests) if requests else []  # type: ignore[union-attr]
        for k, per_sentence in zip(where, results):
            out[k] = [c for sc in per_sentence for c in sc.claims]
        return out
