"""The combiner: a standardised linear score over the features, stored as JSON, and
labels cut by rank within each response at fixed proportions.

Cutting by rank at the human proportions (about 15% vital, 31% okay, 54%
less-important) beat global thresholds in every trial, so the combiner only has to
order the claims of a response.

>>> cut_by_rank([0.9, 0.1, 0.5, 0.3], (0.15, 0.31, 0.54))
('vital', 'less-important', 'okay', 'less-important')
>>> cut_by_rank([], (0.15, 0.31, 0.54))
()
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError

HUMAN_PROPORTIONS: tuple[float, float, float] = (0.152, 0.308, 0.540)


def cut_by_rank(scores: Sequence[float] | np.ndarray,
                proportions: Sequence[float] = HUMAN_PROPORTIONS) -> tuple[str, ...]:
    """Label the claims of one response by the rank of their score.

    The top ``round(p_vital * n)`` claims (at least one) are vital, the claims up to
    ``round((p_vital + p_okay) * n)`` are okay, the rest less-important. Ties keep
    the input order.
    """
    values = np.asarray(scores, dtype=np.float64)
    n = len(values)
    if n == 0:
        return ()
    p_vital, p_okay = float(proportions[0]), float(proportions[1])
    n_vital = max(1, int(np.floor(p_vital * n + 0.5)))
    n_okay_end = max(n_vital, int(np.floor((p_vital + p_okay) * n + 0.5)))
    order = np.argsort(-values, kind="stable")
    labels = ["less-important"] * n
    for rank, i in enumerate(order):
        if rank < n_vital:
            labels[i] = "vital"
        elif rank < n_okay_end:
            labels[i] = "okay"
    return tuple(labels)


NORMALISATIONS = ("none", "within-response")


def within_response(x: np.ndarray) -> np.ndarray:
    """Standardise each column over the claims of one response (constant columns -> 0).

    >>> within_response(np.array([[1.0, 2.0], [3.0, 2.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    x = np.asarray(x, dtype=np.float64)
    if len(x) == 0:
        return x
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


@dataclass(frozen=True)
class Combiner:
    """``score = intercept + sum(w * (x - mean) / scale)`` over named features.

    With ``normalise="within-response"``, ``x`` is first standardised over the claims
    of the response, so the score only compares claims of one response.
    """

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float = 0.0
    proportions: tuple[float, float, float] = HUMAN_PROPORTIONS
    meta: dict[str, Any] | None = None
    normalise: str = "none"

    def score(self, x: np.ndarray) -> np.ndarray:
        """Scores for the claims of one response (rows of ``x``, columns in
        :attr:`features` order)."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise ModelError(f"combiner expects {len(self.features)} features, got "
                             f"shape {x.shape}")
        if self.normalise == "within-response":
            x = within_response(x)
        return self.intercept + ((x - self.mean) / self.scale) @ self.weights

    def to_json(self) -> dict[str, Any]:
        return {"kind": "linear-rank-cut", "features": list(self.features),
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "weights": self.weights.tolist(), "intercept": self.intercept,
                "proportions": list(self.proportions), "normalise": self.normalise,
                "meta": self.meta or {}}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Combiner":
        try:
            features = tuple(str(f) for f in data["features"])
            arrays = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
            props = tuple(float(p) for p in data.get("proportions", HUMAN_PROPORTIONS))
            intercept = float(data.get("intercept", 0.0))
            normalise = str(data.get("normalise", "none"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"bad combiner JSON: {exc}") from None
        if any(a.shape != (len(features),) for a in arrays) or len(props) != 3:
            raise ModelError("bad combiner JSON: array lengths do not match 'features'")
        if normalise not in NORMALISATIONS:
            raise ModelError(f"bad combiner JSON: unknown normalise {normalise!r}; "
                             f"valid: {', '.join(NORMALISATIONS)}")
        if np.any(arrays[1] <= 0):
            raise ModelError("bad combiner JSON: 'scale' must be positive")
        return cls(features, arrays[0], arrays[1], arrays[2], intercept,
                   (props[0], props[1], props[2]), dict(data.get("meta") or {}), normalise)

    @classmethod
    def load(cls, path: str | Path) -> "Combiner":
        return cls.from_json(read_json(path))


def read_json(path: str | Path) -> Any:
    """The JSON of a combiner file; ModelError when it is missing or not JSON."""
    p = Path(path)
    if not p.is_file():
        raise ModelError(f"no combiner at {p}")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"bad combiner JSON at {p}: {exc}") from None
