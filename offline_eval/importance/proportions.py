"""How many claims of a response are vital or okay: label proportions predicted per response.

Labels are cut by rank within each response. With the human labels' own proportions per
response (an oracle) the cut agrees far better with them than at the fixed pooled
proportions (cross-validated pooled κ 0.43 against 0.28 on the VITAL NQ queries), because
responses differ: one that misses the answer has few vital claims, a long list answer
has many. This model predicts two shares per response, ``vital`` and ``vital or okay``,
from response-level aggregates of the claim features (the number of claims, and the max
and mean of every feature), so the cut adapts.

Fitting (:func:`fit_proportions`) is deliberately small, for 100-odd responses: the
columns are standardised, ``k`` of them are kept per share by their absolute Pearson
correlation with that share on the fitting responses (the claim count is always kept),
and a ridge regression weighted by each response's claim count is fitted on them.
Predictions are clipped to ``[VITAL_MIN, VITAL_MAX]`` and ``[vital, OKAY_MAX]``.
Nothing is selected: :func:`fit_proportion_ensemble` fits every ``(k, alpha)`` of
:data:`GRID` and averages their predicted proportions (:class:`ProportionEnsemble`),
as the combiner averages its grid.

>>> import numpy as np
>>> x = [np.zeros((n, 1)) for n in (4, 8, 12, 16)]
>>> y = [np.array([2] * (n // 4) + [0] * (n - n // 4)) for n in (4, 8, 12, 16)]
>>> m = fit_proportions(x, y, ("f",), k=0, alpha=0.0)
>>> [round(p, 3) for p in m.predict(np.zeros((10, 1)))]
[0.25, 0.0, 0.75]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError

VITAL_MIN, VITAL_MAX, OKAY_MAX = 0.02, 0.60, 0.95
ALWAYS = ("log_n", "n")
#: (k, alpha) of the members of the shipped ensemble.
GRID: tuple[tuple[int, float], ...] = tuple((k, a) for k in (2, 4, 6, 8) for a in (10.0, 30.0, 100.0))
KIND = "proportion-ensemble"
AGGREGATES = ("max", "mean")


def column_names(features: Sequence[str]) -> tuple[str, ...]:
    """Names of the response-level columns: ``log_n``, ``n`` (claims / 30), then
    ``FEATURE:max`` and ``FEATURE:mean`` for every claim feature.

    >>> column_names(("a",))
    ('log_n', 'n', 'a:max', 'a:mean')
    """
    return ALWAYS + tuple(f"{f}:{a}" for f in features for a in AGGREGATES)


def response_columns(x: np.ndarray) -> np.ndarray:
    """The :func:`column_names` values of one response's feature matrix ``x``
    (claims x features); an empty response gives zeros."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n == 0:
        return np.zeros(2 + 2 * x.shape[1])
    aggs = np.stack([x.max(axis=0), x.mean(axis=0)], axis=1).ravel()
    return np.concatenate([[np.log(n), n / 30.0], aggs])


@dataclass(frozen=True)
class ProportionModel:
    """Two linear predictors over standardised response columns: the vital share and
    the vital-or-okay share. Weights of unselected columns are 0."""

    columns: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    vital: np.ndarray            # weights, len(columns)
    vital_intercept: float
    okay_plus: np.ndarray        # weights, len(columns)
    okay_plus_intercept: float
    meta: dict[str, Any] | None = None

    def predict(self, x: np.ndarray) -> tuple[float, float, float]:
        """(vital, okay, less-important) proportions for one response's features."""
        z = (response_columns(x) - self.mean) / self.scale
        v = float(np.clip(z @ self.vital + self.vital_intercept, VITAL_MIN, VITAL_MAX))
        o = float(np.clip(z @ self.okay_plus + self.okay_plus_intercept, v, OKAY_MAX))
        return v, o - v, 1.0 - o

    def to_json(self) -> dict[str, Any]:
        return {"kind": "response-proportions", "columns": list(self.columns),
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "vital": self.vital.tolist(), "vital_intercept": self.vital_intercept,
                "okay_plus": self.okay_plus.tolist(),
                "okay_plus_intercept": self.okay_plus_intercept,
                "clip": {"vital": [VITAL_MIN, VITAL_MAX], "okay_plus_max": OKAY_MAX},
                "meta": self.meta or {}}

    @classmethod
    def from_json(cls, data: dict[str, Any], features: Sequence[str]) -> "ProportionModel":
        """Read the JSON block; ``features`` are the combiner's claim features, which
        fix the columns this code computes."""
        try:
            columns = tuple(str(c) for c in data["columns"])
            arrays = [np.asarray(data[k], dtype=np.float64)
                      for k in ("mean", "scale", "vital", "okay_plus")]
            vi, oi = float(data["vital_intercept"]), float(data["okay_plus_intercept"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"bad proportion model JSON: {exc}") from None
        if columns != column_names(features):
            raise ModelError("bad proportion model JSON: its columns do not match the "
                             "combiner's features")
        if any(a.shape != (len(columns),) for a in arrays) or np.any(arrays[1] <= 0):
            raise ModelError("bad proportion model JSON: array lengths or scales are wrong")
        clip = data.get("clip", {})
        if clip and (list(clip.get("vital", ())) != [VITAL_MIN, VITAL_MAX]
                     or clip.get("okay_plus_max") != OKAY_MAX):
            raise ModelError(f"bad proportion model JSON: it was fitted with clip bounds {clip}, "
                             f"this code clips vital to [{VITAL_MIN}, {VITAL_MAX}] and "
                             f"vital-or-okay to {OKAY_MAX}")
        return cls(columns, arrays[0], arrays[1], arrays[2], vi, arrays[3], oi,
                   dict(data.get("meta") or {}))


def _ridge(z: np.ndarray, y: np.ndarray, w: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """Weighted ridge with an unpenalised intercept (sklearn ``Ridge`` with
    ``sample_weight``): ``argmin sum w (y - z b - c)^2 + alpha |b|^2``."""
    zm, ym = (w @ z) / w.sum(), float(w @ y) / w.sum()
    zc, yc = z - zm, y - ym
    a = zc.T @ (zc * w[:, None]) + alpha * np.eye(z.shape[1])
    b = np.linalg.solve(a, zc.T @ (yc * w)) if z.shape[1] else np.zeros(0)
    return b, ym - float(zm @ b)


def fit_proportions(features: Sequence[np.ndarray], levels: Sequence[np.ndarray],
                    names: Sequence[str], k: int = 4, alpha: float = 30.0,
                    meta: dict[str, Any] | None = None) -> ProportionModel:
    """Fit a :class:`ProportionModel` on responses (claim feature matrices and their
    human levels 2/1/0); ``k`` screened columns per share besides the claim count,
    ridge strength ``alpha``. Responses without claims are skipped."""
    rows = [i for i, x in enumerate(features) if len(x)]
    if not rows:
        raise ValueError("no response with claims to fit the proportions on")
    cols = column_names(names)
    x = np.stack([response_columns(features[i]) for i in rows])
    mean, sd = x.mean(axis=0), x.std(axis=0)
    scale = np.where(sd > 1e-9, sd, 1.0)
    z = (x - mean) / scale
    n = np.array([len(features[i]) for i in rows], dtype=np.float64)
    lv = [np.asarray(levels[i]) for i in rows]
    heads = []
    for target in (np.array([(v == 2).mean() for v in lv]), np.array([(v >= 1).mean() for v in lv])):
        corr = np.zeros(len(cols))
        for j in range(len(cols)):
            if sd[j] > 1e-9 and target.std() > 0:
                corr[j] = abs(np.corrcoef(z[:, j], target)[0, 1])
        keep = [j for j in range(len(ALWAYS)) if sd[j] > 1e-9]
        keep += [j for j in np.argsort(-np.nan_to_num(corr), kind="stable")
                 if j >= len(ALWAYS) and corr[j] > 0][:k]
        keep = sorted(keep)
        b, c = _ridge(z[:, keep], target, n, alpha)
        full = np.zeros(len(cols))
        full[keep] = b
        heads.append((full, c))
    return ProportionModel(cols, mean, scale, heads[0][0], heads[0][1], heads[1][0], heads[1][1],
                           {**(meta or {}), "k": k, "alpha": alpha, "n_responses": len(rows)})


@dataclass(frozen=True)
class ProportionEnsemble:
    """The mean of its members' predicted proportions."""

    members: tuple[ProportionModel, ...]

    def predict(self, x: np.ndarray) -> tuple[float, float, float]:
        """(vital, okay, less-important) proportions for one response's features."""
        p = np.mean([m.predict(x) for m in self.members], axis=0)
        return float(p[0]), float(p[1]), float(p[2])

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "members": [m.to_json() for m in self.members]}

    @classmethod
    def from_json(cls, data: Any, features: Sequence[str]) -> "ProportionEnsemble":
        if not isinstance(data, dict) or data.get("kind") != KIND or not data.get("members"):
            raise ModelError(f"bad proportion model JSON: expected kind {KIND!r} with members")
        return cls(tuple(ProportionModel.from_json(m, features) for m in data["members"]))


def fit_proportion_ensemble(features: Sequence[np.ndarray], levels: Sequence[np.ndarray],
                            names: Sequence[str],
                            grid: Sequence[tuple[int, float]] = GRID) -> ProportionEnsemble:
    """Every ``(k, alpha)`` of ``grid`` fitted by :func:`fit_proportions`, no selection."""
    return ProportionEnsemble(tuple(fit_proportions(features, levels, names, k, a)
                                    for k, a in grid))
