"""Model runners: the only code that imports torch, transformers or onnxruntime.

Every runner has one method, ``predict(inputs) -> np.ndarray``; stages never branch
on the backend.
"""
from __future__ import annotations

from offline_eval.runners.base import BACKENDS, DEVICES, Runner, check_backend

__all__ = ["BACKENDS", "DEVICES", "Runner", "check_backend"]
