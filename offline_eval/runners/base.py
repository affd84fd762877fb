"""The runner interface and the one place where backend/device names are checked."""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

import numpy as np

BACKENDS = ("onnx", "torch")
DEVICES = ("cpu", "cuda")


@runtime_checkable
class Runner(Protocol):
    """A loaded model. ``predict`` maps a batch of inputs (strings or text pairs)
    to an array with one row per input (class probabilities, scores or vectors)."""

    labels: tuple[str, ...]

    def predict(self, inputs: Sequence[str] | Sequence[tuple[str, str]]) -> np.ndarray: ...


def check_backend(backend: str, device: str = "cpu") -> tuple[str, str]:
    """Validate a backend/device pair.

    >>> check_backend("onnx", "cpu")
    ('onnx', 'cpu')
    >>> check_backend("tf")
    Traceback (most recent call last):
    ...
    ValueError: unknown backend 'tf'; valid: onnx, torch
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; valid: {', '.join(DEVICES)}")
    return backend, device
