"""An equal-weight ensemble of combiners: every configuration of the grid, no selection.

Each member is a :class:`~offline_eval.importance.combiner.Combiner` fitted on the same
queries; its score (the scalar it orders claims by) is z-scored with the mean and
standard deviation of its own scores on the claims it was fitted on, and the ensemble
score is the mean of the members' z-scores. Nothing is fitted on the claims being
scored, and labels are cut by rank exactly as for one combiner. Stored as JSON, with
``"kind": "ensemble-rank-cut"``; :func:`load_combiner` reads either kind.

>>> import numpy as np
>>> from offline_eval.importance.combiner import Combiner
>>> one = Combiner(("a",), np.zeros(1), np.ones(1), np.ones(1))
>>> ens = EnsembleCombiner((one, one), np.array([0.0, 1.0]), np.array([1.0, 2.0]))
>>> ens.score(np.array([[1.0], [3.0]])).tolist()
[0.5, 2.0]
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.importance.combiner import HUMAN_PROPORTIONS, Combiner, read_json
from offline_eval.importance.selection import GRID, FitConfig, Labelled, fit

KIND = "ensemble-rank-cut"


@dataclass(frozen=True)
class EnsembleCombiner:
    """``score = mean_m((member_m.score(x) - centre_m) / spread_m)``."""

    members: tuple[Combiner, ...]
    centre: np.ndarray
    spread: np.ndarray
    proportions: tuple[float, float, float] = HUMAN_PROPORTIONS
    meta: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if not self.members:
            raise ModelError("an ensemble needs at least one member")
        if any(m.features != self.members[0].features for m in self.members):
            raise ModelError("ensemble members were fitted on different features")
        n = len(self.members)
        if np.shape(self.centre) != (n,) or np.shape(self.spread) != (n,):
            raise ModelError(f"ensemble of {n} members needs {n} centres and spreads")
        if np.any(np.asarray(self.spread) <= 0):
            raise ModelError("ensemble spreads must be positive")

    @property
    def features(self) -> tuple[str, ...]:
        return self.members[0].features

    def score(self, x: np.ndarray) -> np.ndarray:
        """Scores for the claims of one response (rows of ``x``), members in a fixed order."""
        total = np.zeros(len(x))
        for member, centre, spread in zip(self.members, self.centre, self.spread):
            total += (member.score(x) - centre) / spread
        return total / len(self.members)

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "features": list(self.features),
                "centre": self.centre.tolist(), "spread": self.spread.tolist(),
                "proportions": list(self.proportions), "meta": self.meta or {},
                "members": [m.to_json() for m in self.members]}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EnsembleCombiner":
        try:
            members = tuple(Combiner.from_json(m) for m in data["members"])
            centre = np.asarray(data["centre"], dtype=np.float64)
            spread = np.asarray(data["spread"], dtype=np.float64)
            props = tuple(float(p) for p in data.get("proportions", HUMAN_PROPORTIONS))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"bad ensemble JSON: {exc}") from None
        if len(props) != 3:
            raise ModelError("bad ensemble JSON: 'proportions' needs three values")
        return cls(members, centre, spread, (props[0], props[1], props[2]),
                   dict(data.get("meta") or {}))


def load_combiner(path: str | Path) -> Combiner | EnsembleCombiner:
    """Read a combiner JSON of either kind (``linear-rank-cut`` or ``ensemble-rank-cut``).

    Raises:
        ModelError: the file is missing, not JSON, or not a valid combiner.
    """
    return combiner_from_json(read_json(path))


def combiner_from_json(data: Any) -> Combiner | EnsembleCombiner:
    """A combiner of either kind from its parsed JSON (see :func:`load_combiner`)."""
    if not isinstance(data, dict):
        raise ModelError("bad combiner JSON: expected an object")
    if data.get("kind") == KIND:
        return EnsembleCombiner.from_json(data)
    return Combiner.from_json(data)


def fit_ensemble(data: Labelled, rows: Sequence[int], weak: Labelled | None = None,
                 names: Sequence[str] = (), grid: Sequence[FitConfig] = GRID,
                 meta: dict[str, Any] | None = None) -> EnsembleCombiner:
    """Fit every configuration of ``grid`` on responses ``rows`` of ``data`` (plus
    ``weak`` where its weak weight is positive, as :func:`~offline_eval.importance.
    selection.fit` does) and z-score each member on the claims it was fitted on
    (unweighted)."""
    members, centre, spread = [], [], []
    for config in grid:
        member = fit(config, data, rows, weak, names)
        seen = [data.features[i] for i in rows]
        if weak is not None and config.weak_weight > 0:
            seen += list(weak.features)
        s = np.concatenate([member.score(x) for x in seen if len(x)])
        members.append(member)
        centre.append(float(s.mean()))
        spread.append(float(s.std()) if s.std() > 0 else 1.0)
    return EnsembleCombiner(tuple(members), np.array(centre), np.array(spread),
                            members[0].proportions,
                            {**(meta or {}), "grid": [c.label() for c in grid]})
