"""The Split stage: response -> classified units (claim / deflection / non_claim).

>>> from offline_eval.types import Item, ResponseResult
>>> rec = ResponseResult(Item("1", "q", "I'm sorry, I don't have access to that."))
>>> out = Split()([rec])[0]
>>> out.deflection, [s.kind for s in out.sentences]
(True, ['deflection'])
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL, load_spacy
from offline_eval.decomposition.splitting import CHUNK_CHARS, split_responses
from offline_eval.types import ResponseResult


class Split:
    """Split each response into sentences and list items with character offsets,
    mark deflections and non-claims (with a reason), and flag whole-response
    deflections. Reasons and warnings go to ``audit["split"]``.

    Args:
        spacy_model: installed spaCy package used for sentence boundaries.
        chunk_chars: long blocks are segmented in pieces of about this size.
    """

    name = "offline_eval.stages.split.v1"
    requires: tuple[str, ...] = ("item",)
    assigns: tuple[str, ...] = ("sentences", "deflection", "notes")

    def __init__(self, spacy_model: str = DEFAULT_SPACY_MODEL, chunk_chars: int = CHUNK_CHARS) -> None:
        self.spacy_model = spacy_model
        self.chunk_chars = chunk_chars
        self._nlp: Any = None

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        if self._nlp is None:
            self._nlp = load_spacy(self.spacy_model, "split")
        out = []
        results = split_responses([rec.item.response for rec in batch], self._nlp, self.chunk_chars,
                                  self.spacy_model)
        for rec, res in zip(batch, results):
            notes = dict(rec.notes)
            if res.reason or res.warnings:
                notes["split"] = {"reason": res.reason, "warnings": list(res.warnings)}
            out.append(replace(rec, sentences=res.sentences, deflection=res.deflection,
                               notes=notes))
        return out
