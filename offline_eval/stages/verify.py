"""The verify stage: a verdict for every claim from its evidence passages.

Reads ``Claim.evidence`` (set by the retrieve stage) and attaches a
:class:`~offline_eval.types.Verdict` with :meth:`Claim.with_verdict`. All claims of a
batch go to the NLI runner in one call. The model is loaded on first use.

In RAG mode (an item with ``references``) the references are one context, the text the
answer was written from: the assembled window may draw on the sentences of every passage the
claim retrieved from it, whichever references they came from. In corpus mode it draws on one
document at a time (two articles' words are not support).

>>> import numpy as np
>>> from offline_eval.types import Claim, Evidence, Item, ResponseResult
>>> class Fake:  # a stand-in runner: entails when the claim's first word is in the premise
...     labels = ("entailment", "neutral", "contradiction")
...     def predict(self, pairs):
...         return np.array([[.9, .05, .05] if h.split()[0] in p else [.1, .8, .1]
...                          for p, h in pairs])
>>> claim = Claim("c1", "Paris is in France.", evidence=(Evidence("e1", "Paris is a city."),))
>>> rec = ResponseResult(Item("q", "", ""), claims=(claim, Claim("c2", "")))
>>> [c.verdict.label for c in Verify(runner=Fake())([rec])[0].claims]
['supported', 'unverifiable']
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from offline_eval.nli.assemble import context_pool
from offline_eval.nli.config import VerifyConfig, load_config
from offline_eval.nli.evidence import cite_references
from offline_eval.nli.verifier import Verifier
from offline_eval.types import Reference, ResponseResult, Verdict

if TYPE_CHECKING:
    from offline_eval.runners.base import Runner

__all__ = ["Verify"]


class Verify:
    """Attach verdicts to claims.

    Args:
        model: a model name (e.g. "nli-minilm") or folder; ignored when ``runner`` is given.
        backend: "onnx" | "torch" | None (the model's default).
        device: "cpu" | "cuda" | None (best available).
        runner: an already loaded runner (tests, shared models).
        config: thresholds/combiner; default: the model's ``verifier.json``.
        batch_size: pairs per forward pass.
    """

    name = "offline_eval.stages.verify.v1"
    requires: tuple[str, ...] = ("claims",)
    assigns: tuple[str, ...] = ("claims",)

    def __init__(self, model: str | Path | None = None, backend: str | None = None,
                 device: str | None = None, runner: Runner | None = None,
                 config: VerifyConfig | None = None, batch_size: int = 32) -> None:
        self.model, self.backend, self.device, self.batch_size = model, backend, device, batch_size
        self._runner, self._config = runner, config
        self._verifier: Verifier | None = None

    def verifier(self) -> Verifier:
        """The verifier, loading the model on first use."""
        if self._verifier is None:
            if self._runner is None:
                from offline_eval.nli.verifier import load_nli

                loaded = load_nli(self.model, self.backend, self.device, self.batch_size)
                self._runner = loaded.runner
                cfg = self._config or loaded.config
            else:
                cfg = self._config or load_config(None)
            self._verifier = Verifier(self._runner, cfg)
        return self._verifier

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        jobs = [(c.text, tuple(getattr(c, "evidence", ()) or ())) for r in batch for c in r.claims]
        if not jobs:  # the model loads on the first claim
            return batch
        verifier = self.verifier()
        refs = [r.item.references for r in batch for _ in r.claims]
        pools = [context_pool(ev, verifier.config.top_k) if rag else None
                 for (_, ev), rag in zip(jobs, refs)]
        verdicts = iter(_cited(j.verdict, rag) for j, rag in zip(verifier.judge(jobs, pools), refs))
        return [replace(r, claims=tuple(c.with_verdict(next(verdicts)) for c in r.claims))
                for r in batch]


def _cited(verdict: Verdict, references: Sequence[Reference]) -> Verdict:
    """A RAG verdict's deciding window cited by the references that hold it."""
    if not references or verdict.evidence is None:
        return verdict
    return replace(verdict, evidence=cite_references(verdict.evidence, references))
