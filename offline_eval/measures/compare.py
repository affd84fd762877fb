"""Paired comparisons between conditions (e.g. normal / missing / wrong), Holm-corrected
within each family (continuous, binary), as in the VITAL significance tables."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Mapping, Sequence

from offline_eval.measures.stats import McNemarTest, PairedTest, holm, mcnemar, paired_test

BINARY_KEYS: tuple[str, ...] = ("vital_rlp", "vital_rlr")
CONTINUOUS_KEYS: tuple[str, ...] = ("factscore_precision", "vital_precision",
                                    "linear_decay_precision", "nugget_recall_strict_all",
                                    "vital_recall", "linear_decay_recall")


@dataclass(frozen=True)
class Comparison:
    """One metric compared between two conditions on the ids both define."""

    metric: str
    a: str
    b: str
    test: PairedTest | McNemarTest
    p_holm: tuple[float | None, ...]


def compare_conditions(values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
                       continuous: Sequence[str] = CONTINUOUS_KEYS,
                       binary: Sequence[str] = BINARY_KEYS) -> list[Comparison]:
    """``values[condition][id][metric]`` -> paired tests for every pair of conditions.

    Only ids present, with a defined value, in both conditions are paired.
    """
    conds = list(values)  # the caller's order (e.g. normal, missing, wrong)
    raw: list[tuple[str, str, str, PairedTest | McNemarTest]] = []
    for kind, keys in (("c", continuous), ("b", binary)):
        for metric in keys:
            for a, b in combinations(conds, 2):
                ids = sorted(set(values[a]) & set(values[b]))
                pairs = [(values[a][i].get(metric), values[b][i].get(metric)) for i in ids]
                pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
                if not pairs:
                    continue
                xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
                test = paired_test(xs, ys) if kind == "c" else mcnemar(
                    [bool(x) for x in xs], [bool(y) for y in ys])
                raw.append((kind, metric, a + "|" + b, test))
    cont = [t for k, _, _, t in raw if k == "c"]
    t_adj = holm([t.t_p for t in cont])  # type: ignore[union-attr]
    w_adj = holm([t.wilcoxon_p for t in cont])  # type: ignore[union-attr]
    b_adj = holm([t.p for k, _, _, t in raw if k == "b"])  # type: ignore[union-attr]
    out: list[Comparison] = []
    ci = bi = 0
    for kind, metric, pair, test in raw:
        a, b = pair.split("|")
        if kind == "c":
            p = (t_adj[ci], w_adj[ci])
            ci += 1
        else:
            p = (b_adj[bi],)
            bi += 1
        out.append(Comparison(metric, a, b, test, p))
    return out
