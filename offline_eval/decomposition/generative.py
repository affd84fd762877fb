"""The ``generative`` decomposer: a small text-to-text model writes the claims of a sentence.

The model reads one prompt per sentence (see :func:`prompt`) and writes its claims
one per line (or separated by ``" | "``). Every output goes through the guards of
:mod:`~offline_eval.decomposition.guards`; when a sentence's output fails them (no
claim kept, or more rejected than kept) the syntactic split is used for that
sentence and a warning says so. The default model is the shipped LoRA adapter
``models/decomposer-smollm2`` on SmolLM2-135M-Instruct, reached through
:class:`offline_eval.runners.causal.CausalLMRunner`; a user's T5/BART checkpoint goes
through :class:`offline_eval.runners.seq2seq.Seq2SeqRunner` (any runner whose
``predict(list[str])`` returns one string per input works).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from offline_eval.decomposition.base import Request, SentenceClaims
from offline_eval.decomposition.guards import guard, parse_output
from offline_eval.errors import ModelError

if TYPE_CHECKING:
    from offline_eval.decomposition.base import Decomposer
    from offline_eval.runners.base import Runner

CONTEXT_CHARS = 300
QUERY_CHARS = 200
DEFAULT_MODEL = "decomposer-smollm2"
FALLBACK_WARNING = "generative output failed the guards for some sentences; used the syntactic split"


def prompt(query: str, sentence: str, context: Sequence[str]) -> str:
    """The model input for one sentence.

    >>> prompt("Who is he?", "He was born in Hawaii.", ["Obama was president."])
    'decompose: He was born in Hawaii. context: Obama was president. question: Who is he?'
    """
    ctx = " ".join(" ".join(context).split())
    if len(ctx) > CONTEXT_CHARS:  # keep the end, from a word boundary
        ctx = ctx[-CONTEXT_CHARS:].split(" ", 1)[-1]
    return f"decompose: {sentence} context: {ctx} question: {query[:QUERY_CHARS]}".strip()


def default_model_dir() -> Path:
    """The shipped adapter folder (``models/decomposer-smollm2``).

    Raises:
        ModelError: when it is not there (a wheel without ``models/``).
    """
    from offline_eval.modelstore import shipped_dir

    path = shipped_dir() / DEFAULT_MODEL
    if not (path / "adapter_config.json").is_file():
        raise ModelError(f"the shipped generative decomposer is missing ({path}); pass "
                         "--decomposer-model DIR (a local T5/BART folder with safetensors "
                         "weights, or a LoRA adapter folder), or use --decomposer syntactic")
    return path


class GenerativeDecomposer:
    """Decompose with a text-to-text model, guarded, with a syntactic fallback.

    Args:
        runner: has ``predict(list[str]) -> array of str``.
        fallback: the decomposer used when an output fails the guards (also supplies
            resolved mentions that anchor the generated words).
        max_claims: cap on claims per sentence.
        context_units: how many preceding units the prompt includes.
    """

    name = "generative"

    def __init__(self, runner: Runner, fallback: Decomposer, max_claims: int = 8,
                 context_units: int = 2) -> None:
        self.runner, self.fallback = runner, fallback
        self.max_claims, self.context_units = max_claims, context_units

    @classmethod
    def from_dir(cls, model_dir: str | Path | None, fallback: Decomposer, device: str = "cpu",
                 batch_size: int = 16) -> "GenerativeDecomposer":
        """Load the shipped adapter (``model_dir=None``), a LoRA adapter folder for the
        same base, or a user's seq2seq checkpoint (``AutoModelForSeq2SeqLM``, safetensors)."""
        path = default_model_dir() if model_dir is None else Path(model_dir)
        if (path / "adapter_config.json").is_file():
            from offline_eval.modelstore import MANIFEST, verify_model
            from offline_eval.runners.causal import CausalLMRunner

            if model_dir is None or (path / MANIFEST).is_file():  # the shipped one must have it
                verify_model(path)
            return cls(CausalLMRunner(path, device=device, batch_size=batch_size), fallback)
        from offline_eval.runners.seq2seq import Seq2SeqRunner

        return cls(Seq2SeqRunner(path, device=device, batch_size=batch_size), fallback)

    def decompose(self, query: str, sentences: Sequence[str],
                  targets: Sequence[int] | None = None) -> list[SentenceClaims]:
        """Decompose ``sentences[i]`` for ``i`` in ``targets`` (all by default)."""
        req = Request(query, tuple(sentences), None if targets is None else tuple(targets))
        return self.decompose_batch([req])[0]

    def decompose_batch(self, requests: Sequence[Request]) -> list[list[SentenceClaims]]:
        """One batched generation over all target sentences of all requests."""
        base = self.fallback.decompose_batch(requests)
        jobs: list[tuple[int, int]] = []
        prompts: list[str] = []
        for r, req in enumerate(requests):
            targets = range(len(req.sentences)) if req.targets is None else req.targets
            for i in targets:
                ctx = req.sentences[max(0, i - self.context_units):i]
                jobs.append((r, i))
                prompts.append(prompt(req.query, req.sentences[i], ctx))
        outputs = list(self.runner.predict(prompts)) if prompts else []
        results = [list(b) for b in base]
        for (r, i), text in zip(jobs, outputs):
            req, syn = requests[r], base[r][i]
            anchors = " ".join([req.query, *req.sentences[max(0, i - 4):i + 1], *syn.claims])
            kept, rejected = guard(parse_output(str(text)), anchors, self.max_claims)
            if kept and rejected <= len(kept):
                results[r][i] = SentenceClaims(syn.sentence, tuple(kept))
            else:
                results[r][i] = SentenceClaims(syn.sentence, syn.claims, (FALLBACK_WARNING,))
        return results
