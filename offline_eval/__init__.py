"""offline-eval: offline factuality and completeness scoring for LLM answers.

Nothing happens at import time: no model loads, no downloads, no logging setup.
"""
from __future__ import annotations

__version__ = "0.1.0"

from offline_eval.errors import InputError, ModelError, OfflineEvalError, StageError


def score(*args, **kwargs):  # type: ignore[no-untyped-def]
    """:func:`offline_eval.scoring.score` (imported on first call: nothing loads at import)."""
    from offline_eval.scoring import score as _score
    return _score(*args, **kwargs)


__all__ = ["InputError", "ModelError", "OfflineEvalError", "StageError", "__version__", "score"]
