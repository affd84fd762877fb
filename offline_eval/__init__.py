"""offline-eval: offline factuality and completeness scoring for LLM answers.

One function per command; each takes items (a path, or rows as dicts), its options
dataclass and/or keyword options, and returns what the command writes::

    import offline_eval
    run = offline_eval.score("answers.jsonl", corpus="wiki-vital")
    rows = offline_eval.verify([{"id": 1, "claim": "...", "references": ["..."]}])

A misspelled option is a TypeError naming the valid ones. Nothing happens at import time:
no model loads, no downloads, no logging setup.
"""
from __future__ import annotations

__version__ = "0.1.0"

from typing import Any

from offline_eval.errors import InputError, ModelError, OfflineEvalError, StageError

#: the options dataclass of each command, importable from here (loaded on first use)
_OPTIONS = {
    "ScoreOptions": "offline_eval.scoring",
    "VerifyOptions": "offline_eval.commands.verify",
    "DecomposeOptions": "offline_eval.commands.decompose",
    "RankOptions": "offline_eval.commands.rank",
    "NuggetsOptions": "offline_eval.commands.nuggets",
    "ComprehensivenessOptions": "offline_eval.commands.comprehensiveness",
    "MetricsOptions": "offline_eval.commands.metrics",
}


def __getattr__(name: str) -> Any:
    if name in _OPTIONS:
        import importlib

        return getattr(importlib.import_module(_OPTIONS[name]), name)
    raise AttributeError(f"module 'offline_eval' has no attribute {name!r}")


def score(*args: Any, **kwargs: Any) -> Any:
    """Score answers end to end: :func:`offline_eval.scoring.score` (returns a
    :class:`~offline_eval.scoring.ScoreRun`: records, rows, typed summary)."""
    from offline_eval.scoring import score as _score
    return _score(*args, **kwargs)


def _rows(command: str, items: Any, options: Any, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    import importlib

    from offline_eval.commands import run
    return run(importlib.import_module(f"offline_eval.commands.{command}").COMMAND, items,
               options, overrides)


def verify(items: Any, options: Any = None, **overrides: Any) -> list[dict[str, Any]]:
    """Verdicts for ``{"id", "claim", "references"}`` rows (and NLI labels for ``{"id",
    "premise", "hypothesis"}`` rows), as ``offline-eval verify`` writes them; options:
    :class:`~offline_eval.commands.verify.VerifyOptions`."""
    return _rows("verify", items, options, overrides)


def decompose(items: Any, options: Any = None, **overrides: Any) -> list[dict[str, Any]]:
    """Sentences and claims of ``{"id", "response", "query"?}`` rows (or plain response
    strings); options: :class:`~offline_eval.commands.decompose.DecomposeOptions`."""
    return _rows("decompose", items, options, overrides)


def rank(items: Any, options: Any = None, **overrides: Any) -> list[dict[str, Any]]:
    """Importance labels of ``{"id", "query", "claims"}`` rows (claims as strings or
    ``{"id", "text"}``); options: :class:`~offline_eval.commands.rank.RankOptions`."""
    return _rows("rank", items, options, overrides)


def nuggets(items: Any, options: Any = None, **overrides: Any) -> list[dict[str, Any]]:
    """Nuggets of ``{"id", "query", "references", "response"?}`` rows, with their support;
    options: :class:`~offline_eval.commands.nuggets.NuggetsOptions`."""
    return _rows("nuggets", items, options, overrides)


def comprehensiveness(items: Any, options: Any = None, **overrides: Any) -> list[dict[str, Any]]:
    """Which reference facts each ``{"id", "query", "references", "response"}`` row's answer
    covers; options: :class:`~offline_eval.commands.comprehensiveness.ComprehensivenessOptions`."""
    return _rows("comprehensiveness", items, options, overrides)


def metrics(items: Any, options: Any = None, **overrides: Any) -> Any:
    """Every metric of judged claims: :func:`offline_eval.commands.metrics.metrics` (returns
    rows and summary)."""
    from offline_eval.commands.metrics import metrics as _metrics
    return _metrics(items, options, **overrides)


__all__ = ["InputError", "ModelError", "OfflineEvalError", "StageError", "__version__",
           "comprehensiveness", "decompose", "metrics", "nuggets", "rank", "score", "verify",
           *_OPTIONS]
