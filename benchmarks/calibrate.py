"""What `offline-eval models calibrate` gives on real claims (writes the ``calibrate`` section).

WiCE dev (349 claims, supported vs partially / not supported) in the calibrate row format:
each claim with its cited page as one evidence passage (the verifier windows it), written to
a temporary file. The embedded model (ONNX int8, its default) is calibrated twice through
:func:`offline_eval.nli.calibrate.calibrate`, the function the command runs:

* **as shipped**: its ``verifier.json`` (overlap gate 0.3, two windows per claim, coverage on
  the 5 best three-sentence windows, the combiner fitted by ``verifier.py --fit-combiner``
  on the two best windows of each page and WiCE's own sentences);
* **as an import would have it**: the library defaults a checkpoint without a
  ``verifier.json`` gets (no gate, every window, no combiner: the weakest clause's
  P(entailment) against 0.5), i.e. what a user who imports a model and does not calibrate
  scores with.

"Before" is the balanced accuracy of the config as it stood, on these claims (the shipped
combiner was fitted on WiCE dev, with other windows: in-sample, not a held-out figure); the
other columns are 5-fold CV on the same folds (``calibrate``'s report).

Run: ``python benchmarks/calibrate.py [--no-write]`` (about two minutes on 2 cores).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WICE = ROOT.parent / "shared" / "data" / "wice" / "claim_dev.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not WICE.is_file():
        print(f"skipped: {WICE} not found")
        return 0
    from offline_eval.nli.calibrate import SEEDS, calibrate, read_dev
    from offline_eval.nli.config import DEFAULTS, load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    with tempfile.TemporaryDirectory() as tmp:
        dev_path = Path(tmp) / "wice_dev.jsonl"
        with dev_path.open("w", encoding="utf-8") as out:
            for i, line in enumerate(WICE.open(encoding="utf-8")):
                r = json.loads(line)
                out.write(json.dumps({"id": i, "claim": r["claim"], "references": [" ".join(r["evidence"])],
                                      "label": r["label"]}) + "\n")
        dev = read_dev(dev_path)
        runner = load_runner(args.model)
        rows = []
        for name, config in (("as shipped (its verifier.json)", load_config(args.model)),
                             ("as an import would have it (no verifier.json)", DEFAULTS)):
            t = time.time()
            rep = calibrate(Verifier(runner, config), dev, source=str(dev_path)).report
            rows.append((name, rep, time.time() - t))
    lines = ["## Calibrating a model on labelled claims (`benchmarks/calibrate.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores "
             f"(load average {os.getloadavg()[0]:.1f} at the end), model `{args.model.name}`, ONNX int8. "
             "`offline-eval models calibrate`'s function on WiCE dev (349 claims; evidence = each "
             "cited page as one passage, windowed by the verifier). *Before*: balanced accuracy of "
             "the config as it stood (the shipped combiner was fitted on WiCE dev with the two best "
             "windows per page: in-sample, not held out). The rest: stratified 5-fold CV, combiner "
             f"and threshold fitted on the training folds; `20 splits` = mean ± sd over fold seeds "
             f"{SEEDS.start}-{SEEDS.stop - 1}.", "",
             "| starting config | before | calibrated, split 13 | calibrated, 20 splits | word overlap | "
             "coverage only | NLI only | L2 / support | seconds |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r, secs in rows:
        b, (m, sd) = r["baselines"], r["cv_balanced_accuracy_repeats"]
        lines.append(f"| {name} | {r['before']:.3f} | **{r['cv_balanced_accuracy']:.3f}** | {m:.3f} ± {sd:.3f} | "
                     f"{b['word_overlap']:.3f} | {b['coverage_only']:.3f} | {b['nli_only']:.3f} | "
                     f"{r['l2']:g} / {r['support']} | {secs:.0f} |")
    lines += ["", "The second row is what `models calibrate` is for: a checkpoint imported without a "
                  "`verifier.json` decides on its weakest clause's P(entailment) alone; calibrated, "
                  "it gets the combiner's evidence features and a threshold fitted on the user's claims."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "calibrate")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
