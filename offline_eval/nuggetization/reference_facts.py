"""Atomic facts of reference texts, with the same splitter and decomposer that turn a
response into claims (library functions, not the pipeline stages)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from spacy.language import Language

    from offline_eval.decomposition.base import Decomposer


class ReferenceFacts:
    """Callable: ``[(query, text), ...] -> [[fact, ...], ...]``.

    Args:
        decomposer: a decomposer name (``"syntactic"``, ``"generative"``) or instance.
        nlp: a spaCy pipeline with sentence boundaries (default: the splitter's).
        **options: passed to ``get_decomposer`` when ``decomposer`` is a name.
    """

    def __init__(self, decomposer: str | Decomposer = "syntactic", nlp: Language | None = None,
                 **options: Any) -> None:
        self._spec, self._nlp, self._options = decomposer, nlp, options
        self._decomposer: Decomposer | None = None if isinstance(decomposer, str) else decomposer

    def __call__(self, jobs: Sequence[tuple[str, str]]) -> list[list[str]]:
        from offline_eval.decomposition.base import Request, get_decomposer
        from offline_eval.decomposition.nlp import load_spacy
        from offline_eval.decomposition.splitting import split_responses
        if self._nlp is None:
            self._nlp = load_spacy(mode="split")
        if self._decomposer is None:
            self._decomposer = get_decomposer(str(self._spec), **self._options)
        requests, where = [], []
        splits = split_responses([text for _, text in jobs], self._nlp)   # one spaCy stream
        for k, ((query, _), split) in enumerate(zip(jobs, splits)):
            units = split.sentences
            targets = tuple(i for i, s in enumerate(units) if s.kind == "claim")
            if targets:
                requests.append(Request(query, tuple(s.text for s in units), targets))
                where.append(k)
        out: list[list[str]] = [[] for _ in jobs]
        results = self._decomposer.decompose_batch(requests) if requests else []
        for k, per_sentence in zip(where, results):
            out[k] = [c for sc in per_sentence for c in sc.claims]
        return out
