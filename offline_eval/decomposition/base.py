"""The decomposer interface and the one place where decomposer names are resolved.

A decomposer maps (query, sentence, preceding context) to atomic claims. It takes
all units of one response at once, so each sentence's preceding context is the units
before it, and it decomposes only the units listed in ``targets``; the others (for
example a topic introduction) are read as context only.

>>> get_decomposer("rules")
Traceback (most recent call last):
...
ValueError: unknown decomposer 'rules'; valid: syntactic, generative
>>> get_decomposer(granularity="sentence")
Traceback (most recent call last):
...
ValueError: unknown granularity 'sentence'; valid: clause, atomic
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable

DECOMPOSERS = ("syntactic", "generative")
GRANULARITIES = ("clause", "atomic")


@dataclass(frozen=True)
class SentenceClaims:
    """The claims of one sentence, with the sentence they come from."""

    sentence: str
    claims: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    """One response to decompose: its query, its units, and which units to decompose
    (``None``: all)."""

    query: str
    sentences: tuple[str, ...]
    targets: tuple[int, ...] | None = None


@runtime_checkable
class Decomposer(Protocol):
    """What the Decompose stage expects of a decomposer."""

    name: str

    def decompose(self, query: str, sentences: Sequence[str],
                  targets: Sequence[int] | None = None) -> list[SentenceClaims]:
        """One :class:`SentenceClaims` per sentence (empty claims for non-targets)."""
        ...

    def decompose_batch(self, requests: Sequence[Request]) -> list[list[SentenceClaims]]:
        """:meth:`decompose` for many responses at once (batched model calls)."""
        ...


def decompose_sentence(decomposer: Decomposer, query: str, sentence: str,
                       context: Sequence[str] = ()) -> SentenceClaims:
    """Decompose one sentence given the sentences before it."""
    units = [*context, sentence]
    return decomposer.decompose(query, units, targets=[len(units) - 1])[-1]


def check_granularity(decomposer: str, granularity: str) -> None:
    """An InputError when ``granularity`` needs another decomposer (only the syntactic one
    writes ``atomic`` claims); the options of ``score`` and ``decompose`` call it."""
    if granularity != "clause" and decomposer != "syntactic":
        from offline_eval.errors import InputError

        raise InputError(f"--granularity {granularity} needs --decomposer syntactic")


def get_decomposer(name: str = "syntactic", *, model_dir: str | None = None,
                   device: str = "cpu", batch_size: int = 16,
                   spacy_model: str | None = None, granularity: str = "clause") -> Decomposer:
    """Build the decomposer called ``name``.

    Args:
        name: ``"syntactic"`` (default, fast) or ``"generative"``.
        model_dir: for ``generative``, a T5/BART checkpoint folder or a LoRA adapter
            folder (default: the shipped ``models/decomposer-smollm2``).
        device: ``"cpu"`` or ``"cuda"`` for ``generative``.
        batch_size: generation batch size.
        spacy_model: an installed spaCy model package (default en_core_web_sm).
        granularity: ``"clause"`` (default; the guideline's clause-level claims) or
            ``"atomic"`` (finer, FActScore-style claims; ``syntactic`` only).

    Raises:
        ValueError: for an unknown name or granularity, or ``atomic`` with ``generative``.
        ModelError: when ``generative`` has no usable checkpoint.
    """
    if name not in DECOMPOSERS:
        raise ValueError(f"unknown decomposer {name!r}; valid: {', '.join(DECOMPOSERS)}")
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown granularity {granularity!r}; valid: {', '.join(GRANULARITIES)}")
    if granularity != "clause" and name != "syntactic":
        raise ValueError(f"granularity {granularity!r} needs the syntactic decomposer "
                         f"(the {name} one writes clause-level claims)")
    from offline_eval.registry import resolve

    # the classes come from the one registry (offline_eval.decompose.<name>.v1)
    syntactic_cls = resolve("offline_eval.decompose.syntactic.v1")
    syntactic = (syntactic_cls(spacy_model, granularity=granularity) if spacy_model
                 else syntactic_cls(granularity=granularity))
    if name == "syntactic":
        return syntactic
    return resolve(f"offline_eval.decompose.{name}.v1").from_dir(
        model_dir, fallback=syntactic, device=device, batch_size=batch_size)
