"""The Decompose stage: claim units -> atomic claims (``C1``, ``C2``, …).

>>> from offline_eval.types import Item, ResponseResult, Sentence
>>> s = Sentence("Paris is the capital of France and lies on the Seine.", 0, 54)
>>> rec = ResponseResult(Item("1", "Tell me about Paris", s.text), sentences=(s,))
>>> [(c.id, c.text) for c in Decompose()([rec])[0].claims]
[('C1', 'Paris is the capital of France.'), ('C2', 'Paris lies on the Seine.')]
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from offline_eval.decomposition.base import Decomposer, Request, get_decomposer
from offline_eval.types import Claim, ResponseResult


class Decompose:
    """Decompose every ``claim`` unit; other units are read as context only.

    Args:
        decomposer: a :class:`~offline_eval.decomposition.base.Decomposer`, or its
            name (``"syntactic"``, ``"generative"``).
        **options: passed to :func:`~offline_eval.decomposition.base.get_decomposer`
            when ``decomposer`` is a name (``granularity``, ``model_dir``, ``device``,
            ``batch_size``).
    """

    name = "offline_eval.stages.decompose.v1"
    requires: tuple[str, ...] = ("sentences",)
    assigns: tuple[str, ...] = ("claims", "notes")

    def __init__(self, decomposer: Decomposer | str = "syntactic", **options: Any) -> None:
        self._spec = decomposer
        self._options = options
        self._decomposer: Decomposer | None = decomposer if not isinstance(decomposer, str) else None

    @property
    def decomposer(self) -> Decomposer:
        if self._decomposer is None:
            self._decomposer = get_decomposer(str(self._spec), **self._options)
        return self._decomposer

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        todo = [i for i, rec in enumerate(batch) if not rec.deflection and any(
            s.kind == "claim" for s in rec.sentences)]
        requests = [Request(batch[i].item.query, tuple(s.text for s in batch[i].sentences),
                            tuple(k for k, s in enumerate(batch[i].sentences) if s.kind == "claim"))
                    for i in todo]
        results = dict(zip(todo, self.decomposer.decompose_batch(requests) if requests else []))
        out = []
        for n, rec in enumerate(batch):
            texts = [s.text for s in rec.sentences]
            claims: list[Claim] = []
            warnings: list[str] = []
            if n in results:
                for i, sc in enumerate(results[n]):
                    warnings.extend(sc.warnings)
                    for text in sc.claims:
                        claims.append(Claim(id=f"C{len(claims) + 1}", text=text,
                                            sentence_index=i, sentence=texts[i]))
            notes = dict(rec.notes)
            if warnings:
                notes["decompose"] = {"warnings": sorted(set(warnings))}
            out.append(replace(rec, claims=tuple(claims), notes=notes))
        return out
