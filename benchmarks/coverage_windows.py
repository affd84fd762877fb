"""How large the windows of the verifier's coverage features should be (writes the
``coverage-windows`` section of benchmarks/RESULTS.md).

The combiner weighs the NLI probabilities against coverage features: the share of the
claim's content words, entities and numbers found in the best window, and in the union of
the windows read. Those windows used to be the ones the model reads (the two best
five-sentence windows); ``coverage_sentences`` / ``coverage_windows`` in ``verifier.json``
make them the N best windows of S consecutive evidence sentences instead. This script
measures, on the same input in one run:

* every (S, N) in S = 2..5 sentences x N = 1..6 windows, against the model's windows
  (``legacy``), on WiCE dev (349 claims; where the setting was chosen), the same pages
  re-split into sentences by the library (the size is counted in sentences, so it depends
  on the segmentation), QAGS (953) and the SummaC subsets (1,518; neither used to choose it
  nor to train the model): the combiner's balanced accuracy under nested 5-fold CV, mean ±
  sd over 20 fold assignments;
* the choice itself inside the CV on WiCE: in every outer training fold an inner CV (3
  fold assignments) picks (S, N) among the 24, and only then is the combiner fitted and the
  held-out fold scored: the honest figure for "pick the window size on dev data".

The NLI features are computed once per set (ONNX int8 by default, gate and assembled
window as the model ships them); the coverage features do not depend on the model.

Run: ``python benchmarks/coverage_windows.py [--backend onnx-int8|torch] [--no-write]``
"""
from __future__ import annotations

import argparse
import collections
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import assembled as asm  # noqa: E402
import verifier as vb  # noqa: E402
from _results import write_section  # noqa: E402

SIZES, COUNTS = (2, 3, 4, 5), (1, 2, 3, 4, 5, 6)
COV = vb.FEATS[3:7]  # cov_content, cov_entity, cov_number, cov_all


SETS = {"wice": "WiCE dev", "wice_resplit": "WiCE dev, pages re-split by the library",
        "qags": "QAGS", "summac_benchmark_subset": "SummaC subsets"}


def load(name: str) -> list[dict]:
    """``assembled.rows``, plus WiCE with each page joined and re-split into sentences by
    the library (``verifier.wice_rows(resplit=True)``): WiCE's own sentences are often lines
    without end punctuation (headers, bylines), so the library's sentences are fewer and
    longer (the report gives both sets' averages)."""
    return vb.wice_rows(resplit=True) if name == "wice_resplit" else asm.rows(name)


def coverage_grid(rows: list[dict], x: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
    """``x`` with its coverage columns recomputed on the N best S-sentence windows of each
    row's pool, per (S, N)."""
    from offline_eval.nli.features import best_windows, coverage

    out = {}
    for s, n in itertools.product(SIZES, COUNTS):
        g = x.copy()
        for i, r in enumerate(rows):
            c = coverage(r["claim"], best_windows(r["claim"], r["pool"], n, s))
            g[i, 3:7] = [c[k] for k in COV]
        out[(s, n)] = g
    return out


def nested(grid: dict[tuple[int, int], np.ndarray], y: np.ndarray) -> tuple[list[float], collections.Counter]:
    """Balanced accuracy per outer fold assignment when (S, N) is chosen inside each
    training fold, and how often each was chosen."""
    from offline_eval.nli.calibrate import FEATURE_NAMES, SEEDS, cv_combiner, folds
    from offline_eval.nli.combiner import balanced_accuracy, best_threshold, fit_logistic

    got, chosen = [], collections.Counter()
    for seed in SEEDS:
        pred = np.zeros(len(y), dtype=int)
        for test in folds(y, seed=seed):
            train = np.setdiff1d(np.arange(len(y)), test)
            inner = {k: np.mean([cv_combiner(g[train], y[train], seed=s) for s in (101, 102, 103)])
                     for k, g in grid.items()}
            k = max(sorted(grid), key=lambda k: inner[k])  # ties: the smaller (S, N)
            chosen[k] += 1
            c = fit_logistic(grid[k][train], y[train], l2=1.0, features=FEATURE_NAMES[:8])
            t = best_threshold(c.predict(grid[k][train]), y[train])
            pred[test] = c.predict(grid[k][test]) >= t
        got.append(balanced_accuracy(y, pred))
    return got, chosen


def main() -> int:
    from offline_eval.nli.config import VerifyConfig, load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=vb.ROOT / "models" / "nli-minilm")
    ap.add_argument("--backend", default="onnx-int8", choices=tuple(vb.BACKENDS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    shipped = load_config(args.model)
    kind, precision = vb.BACKENDS[args.backend]
    if kind == "torch":
        import torch
        torch.set_num_threads(args.threads)
    runner = load_runner(args.model, kind, "cpu", batch_size=32, precision=precision, threads=args.threads)
    v = Verifier(runner, VerifyConfig(min_overlap=shipped.min_overlap, max_windows=2,
                                      assemble_sentences=shipped.assemble_sentences, coverage_sentences=0))
    table, nested_line = [], ""
    for name, label in SETS.items():
        rows = load(name)
        y = np.array([r["y"] for r in rows])
        t = time.time()
        scores = v.score_claims([(r["claim"], r["passages"]) for r in rows], pools=[r["pool"] for r in rows])
        x = np.array([[sc.features.get(k, 0.0) for k in vb.FEATS] for sc in scores])
        grid = coverage_grid(rows, x)
        cells = {"legacy": vb.cv_combiner_repeats(x, y)}
        cells.update({k: vb.cv_combiner_repeats(g, y) for k, g in grid.items()})
        pages = [r["pool"] for r in rows]
        seg = (f"{np.mean([len(p) for p in pages]):.0f} sentences per document, "
               f"{np.mean([len(t.split()) for p in pages for t in p]):.0f} words per sentence")
        table.append((label, len(y), cells, seg))
        print(label, f"{time.time() - t:.0f}s", {str(k): f"{m:.3f}" for k, (m, _) in cells.items()}, flush=True)
        if name == "wice":
            got, chosen = nested(grid, y)
            top = ", ".join(f"{s}x{n} {c}" for (s, n), c in chosen.most_common(5))
            nested_line = (f"**Choosing (S, N) inside the CV** (WiCE dev; inner 5-fold CV x 3 assignments "
                           f"on each outer training fold, among the {len(grid)}): "
                           f"**{np.mean(got):.3f} ± {np.std(got):.3f}** over the 20 outer assignments "
                           f"(min {min(got):.3f}, max {max(got):.3f}); chosen (of 100 outer folds): {top}.")
            print(nested_line, flush=True)
    mine = (shipped.coverage_sentences, shipped.coverage_windows)
    sds = [sd for _, _, cells, _ in table for _, sd in cells.values()]
    lines = ["## Coverage windows (`benchmarks/coverage_windows.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores, "
             f"model `{args.model.name}` on {args.backend}, gate {shipped.min_overlap:g}, `max_windows` 2, "
             f"assembled window {shipped.assemble_sentences}. The model reads the two best five-sentence "
             "windows (and the assembled one) in every column; only the windows of the coverage features "
             "change: `legacy` = those same two windows, `SxN` = the N best windows of S consecutive "
             "evidence sentences (WiCE's own sentences, or the library's `split_sentences` for the "
             "re-split pages, QAGS and SummaC). Combiner balanced accuracy under nested 5-fold CV, mean over 20 fold "
             f"assignments (sd {min(sds):.3f}-{max(sds):.3f}). WiCE dev is where the setting was chosen; QAGS and the "
             "SummaC subsets were not used for that, nor to train the model. The shipped setting is "
             f"{mine[0]}x{mine[1]}" + (" (bold)." if mine[0] else "."), ""]
    for label, n, cells, seg in table:
        lines += [f"{label} (n={n}; {seg}): legacy {cells['legacy'][0]:.3f} ± {cells['legacy'][1]:.3f}", "",
                  "| S \\ N | " + " | ".join(str(c) for c in COUNTS) + " |",
                  "|---|" + "---|" * len(COUNTS)]
        for s in SIZES:
            row = []
            for c in COUNTS:
                m = f"{cells[(s, c)][0]:.3f}"
                row.append(f"**{m}**" if (s, c) == mine else m)
            lines.append(f"| {s} | " + " | ".join(row) + " |")
        lines.append("")
    lines.append(nested_line)
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "coverage-windows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
