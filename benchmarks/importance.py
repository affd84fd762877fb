"""Importance ranker vs the VITAL NQ human labels, leave-queries-out.

Run: ``.venv/bin/python benchmarks/importance.py`` (needs ../shared/data). Writes the
``importance`` section of benchmarks/RESULTS.md.

Protocol: 5-fold cross-validation grouped by query (a query's three conditions stay
in one fold), repeated over 5 shuffles. The combiner is refitted on the training
queries of each fold; the held-out queries are scored with it. Labels are cut by
rank within each response at the human proportions. gpt-4o's labels and order come
from the same files and are scored against the same human labels on the same claims.
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import write_section as _write_section  # noqa: E402

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))
import importance_data as data  # noqa: E402

from offline_eval.importance.combiner import Combiner, cut_by_rank  # noqa: E402
from offline_eval.importance.features import FEATURES  # noqa: E402
from offline_eval.importance.fit import fit_combiner  # noqa: E402
from offline_eval.importance.ranker import ImportanceRanker, RankRequest, order_of  # noqa: E402

LEVEL = {"vital": 2, "okay": 1, "less-important": 0}
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str) -> None:
    """Replace only this script's section of RESULTS.md (between its markers)."""
    _write_section(f"## Importance ranker (`benchmarks/importance.py`)\n\n{text}", name)


def weighted_kappa(a: np.ndarray, b: np.ndarray, k: int = 3) -> float:
    """Cohen's kappa with linear weights over levels 0..k-1."""
    obs = np.zeros((k, k))
    np.add.at(obs, (np.asarray(a), np.asarray(b)), 1.0)
    obs /= obs.sum()
    exp = np.outer(obs.sum(1), obs.sum(0))
    w = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) / (k - 1)
    return float(1.0 - (w * obs).sum() / (w * exp).sum())


def tau_b(r: data.LabelledResponse, rank_key: np.ndarray) -> float:
    """Kendall tau-b between the human order and ``rank_key`` (higher = earlier)."""
    pos = {c: i for i, c in enumerate(r.human_order)}
    return float(kendalltau(rank_key, [-pos[c] for c in r.claim_ids]).statistic)


def summarise(rs, levels, keys, subset) -> tuple[float, float, float]:
    """(kappa, exact agreement, mean tau-b) over responses ``subset``."""
    h = np.concatenate([rs[i].human for i in subset])
    p = np.concatenate([levels[i] for i in subset])
    taus = [tau_b(rs[i], keys[i]) for i in subset if len(rs[i].claims) > 1]
    return weighted_kappa(h, p), float(np.mean(h == p)), float(np.nanmean(taus))


def cut(scores: np.ndarray) -> np.ndarray:
    return np.array([LEVEL[x] for x in cut_by_rank(scores)], dtype=np.int64)


def folds(seed: int, n_queries: int, k: int = 5) -> list[set[int]]:
    perm = np.random.default_rng(seed).permutation(n_queries)
    return [set(perm[i::k].tolist()) for i in range(k)]


def cross_validate(rs, feats, repeats: int, c: float, extra=((), (), ())):
    """Out-of-fold scores per repeat, and the test responses of every fold.

    ``extra`` = (feature matrices, levels, weights) of weak data from other sources,
    added to every fold's training set (never scored)."""
    n_q = 1 + max(r.qid for r in rs)
    runs, fold_sets = [], []
    for seed in range(repeats):
        scores: list[np.ndarray | None] = [None] * len(rs)
        for test in folds(seed, n_q):
            train = [i for i, r in enumerate(rs) if r.qid not in test]
            comb = fit_combiner([feats[i] for i in train] + list(extra[0]),
                                [rs[i].human for i in train] + list(extra[1]), FEATURES, c=c,
                                weights=[1.0] * len(train) + list(extra[2]))
            held = [i for i, r in enumerate(rs) if r.qid in test]
            for i in held:
                scores[i] = comb.score(feats[i])
            fold_sets.append((len(runs), held))
        runs.append(scores)
    return runs, fold_sets


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--c", type=float, default=0.01)
    ap.add_argument("--factcheck-weight", type=float, default=4.0,
                    help="sample weight of the Factcheck-GPT weak labels (0: leave out)")
    ap.add_argument("--weak-jsonl", type=Path, default=None,
                    help="wiki template weak data (models/importance-ranker/weak_data.py) "
                         "to report as an extra row")
    ap.add_argument("--weak-weight", type=float, default=1.0)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    rs = data.load()
    k = len(FEATURES)
    dummy = Combiner(FEATURES, np.zeros(k), np.ones(k), np.zeros(k))
    ranker = ImportanceRanker(combiner=dummy)
    t0 = time.perf_counter()
    feats = ranker.features([RankRequest(r.query, r.claims, r.sentence_index) for r in rs])
    secs = time.perf_counter() - t0
    n_claims = sum(len(r.claims) for r in rs)
    fc = data.load_factcheck()
    fc_feats = ranker.features([RankRequest(r.query, r.claims, r.sentence_index) for r in fc])
    fc_extra = (fc_feats, [r.human for r in fc], [args.factcheck_weight] * len(fc))
    runs, fold_sets = cross_validate(rs, feats, args.repeats, args.c,
                                     fc_extra if args.factcheck_weight > 0 else ((), (), ()))
    human_runs, _ = cross_validate(rs, feats, args.repeats, args.c)
    systems = {
        "ours (features + LR, CV)": [[cut(s) for s in run] for run in runs],
        "ablation: NQ human labels only": [[cut(s) for s in run] for run in human_runs],
        "gpt-4o": [[np.array(r.gpt) for r in rs]],
        "query-word overlap": [[cut(f[:, FEATURES.index("overlap")]) for f in feats]],
        "MiniLM cosine": [[cut(f[:, FEATURES.index("cos_query")]) for f in feats]],
    }
    gpt_keys = []
    for r in rs:
        pos = {c: i for i, c in enumerate(r.gpt_order)}
        gpt_keys.append(np.array([-pos.get(c, len(pos)) for c in r.claim_ids], dtype=float))
    inv = {2: "vital", 1: "okay", 0: "less-important"}

    def order_key(levels: np.ndarray) -> np.ndarray:
        """Higher = earlier in the ranker's order (by label, then response order)."""
        key = np.zeros(len(levels))
        for pos, i in enumerate(order_of([inv[int(v)] for v in levels])):
            key[i] = -pos
        return key

    keys = {"ours (features + LR, CV)": [[order_key(lv) for lv in run]
                                         for run in systems["ours (features + LR, CV)"]],
            "ablation: NQ human labels only": [[order_key(lv) for lv in run] for run in
                                               systems["ablation: NQ human labels only"]],
            "gpt-4o": [gpt_keys],
            "query-word overlap": [[f[:, FEATURES.index("overlap")] for f in feats]],
            "MiniLM cosine": [[f[:, FEATURES.index("cos_query")] for f in feats]]}
    subsets = {c: [i for i, r in enumerate(rs) if r.condition == c] for c in data.CONDITIONS}
    subsets["pooled"] = list(range(len(rs)))
    lines = [f"Leave-queries-out: 5-fold CV grouped by query x {args.repeats} shuffles on the "
             f"{1 + max(r.qid for r in rs)} NQ queries x 3 conditions ({n_claims} claims with "
             f"both human and gpt-4o labels). Combiner: two L2 logistic regressions "
             f"(C={args.c}) on {k} within-response standardised features, trained on the "
             f"training queries' human labels plus Factcheck-GPT's most-important sentence/"
             f"claim marks as weak labels ({len(fc)} responses, weight "
             f"{args.factcheck_weight:g}); labels cut by rank at 15.2/30.8/54.0%; order = by "
             "label, then response order. Human labels are the reference.", "",
             "| system | condition | weighted κ (linear) | exact agreement | mean Kendall τ-b |",
             "|---|---|---|---|---|"]
    for name in systems:
        for cond, subset in subsets.items():
            vals = np.array([summarise(rs, lv, kk, subset)
                             for lv, kk in zip(systems[name], keys[name])])
            m = vals.mean(0)
            lines.append(f"| {name} | {cond} | {m[0]:.3f} | {m[1]:.1%} | {m[2]:.3f} |")
    lines += ["", "Spread across the test folds (each fold = 7 held-out queries x 3 conditions, "
              "pooled κ):", "", "| system | folds | mean | std | min | median | max |",
              "|---|---|---|---|---|---|---|"]
    for name in ("ours (features + LR, CV)", "ablation: NQ human labels only", "gpt-4o",
                 "query-word overlap"):
        ks = []
        for run, held in fold_sets:
            lv = systems[name][run if len(systems[name]) > 1 else 0]
            ks.append(summarise(rs, lv, keys[name][run if len(keys[name]) > 1 else 0], held)[0])
        ks = np.array(ks)
        lines.append(f"| {name} | {len(ks)} | {ks.mean():.3f} | {ks.std():.3f} | {ks.min():.3f} "
                     f"| {np.median(ks):.3f} | {ks.max():.3f} |")
    lines += ["", f"Feature extraction (spaCy parse + MiniLM embeddings, torch CPU, shared 2-core "
              f"box): {n_claims / secs:.0f} claims/s ({secs:.1f} s for {n_claims} claims and "
              f"{len(rs)} queries)."]
    text = "\n".join(lines)
    print(text)
    if args.weak_jsonl:
        import json
        weak = [json.loads(x) for x in args.weak_jsonl.read_text(encoding="utf-8").splitlines()]
        wf = ranker.features([RankRequest(w["query"], tuple(w["claims"]),
                                          tuple(w["sentence_index"])) for w in weak])
        extra = (list(fc_extra[0]) + wf, list(fc_extra[1]) + [w["levels"] for w in weak],
                 list(fc_extra[2]) + [args.weak_weight] * len(weak))
        wruns, _ = cross_validate(rs, feats, args.repeats, args.c, extra)
        vals = np.array([summarise(rs, [cut(s) for s in run],
                                   [order_key(cut(s)) for s in run], subsets["pooled"])
                         for run in wruns]).mean(0)
        text += (f"\n\nWith {len(weak)} wiki-lead template examples "
                 f"({sum(len(w['claims']) for w in weak)} claims, weight {args.weak_weight}) "
                 f"added to training: pooled κ {vals[0]:.3f}, exact {vals[1]:.1%}, "
                 f"τ-b {vals[2]:.3f}.")
        print(text.rsplit("\n", 1)[-1])
    if not args.no_write:
        write_section("importance", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
