"""How many evidence windows per claim the verifier needs (writes ``verify_windows``).

``score`` verifies each claim against its top-k retrieved passages (k = 5), each cut into
windows. ``max_windows`` (``verifier.json``) sends only the windows that hold the most of
the claim's content words to the model. This script measures what the cap costs and saves,
on the same input in one run:

* Input: the end-to-end workload's wiki-vital answers (corpus mode, no references; every
  third has a number bumped) and, from the same answers, the synthetic ``wrong`` variants
  of ``offline_eval/metaeval/synthetic.py`` (one key value swapped).
* Split, decompose, rank and retrieve run once; then the verify stage runs once per cap.
* Caps count the verifier's assembled window as one more candidate; ``N:0`` runs cap N
  without it (``assemble_sentences`` = 0), the design before it.
* Per cap: NLI pairs sent, verify CPU-seconds, verdict agreement with no cap, the share of
  claims supported, and how often a claim of the swapped sentence is not supported.
* On the correct answers alone, at the shipped cap: how many claims each ``strong`` value
  (0.85 / 0.9 / 0.95) makes ``inconclusive``, with and without ``conflict_shared_name``.

Run: ``python benchmarks/verify_windows.py [-n 60] [--caps 0,1,2,3,2:0]``
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402


class Counting:
    """The runner, counting the pairs it is sent."""

    def __init__(self, runner):
        self._runner, self.pairs = runner, 0

    def __getattr__(self, name):
        return getattr(self._runner, name)

    def predict(self, pairs):
        self.pairs += len(pairs)
        return self._runner.predict(pairs)


class Memo:
    """The runner, remembering each pair's probabilities: the verdict settings compared in
    the `strong` table change no pair, so only the first setting runs the model."""

    def __init__(self, runner):
        self._runner, self._seen = runner, {}

    def __getattr__(self, name):
        return getattr(self._runner, name)

    def predict(self, pairs):
        new = list(dict.fromkeys(p for p in pairs if p not in self._seen))
        if new:
            self._seen.update(zip(new, self._runner.predict(new)))
        return np.array([self._seen[p] for p in pairs])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=60)
    ap.add_argument("--caps", default="0,1,2,3,2:0", help="max_windows values; N:0 = N without the assembled window")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    from end_to_end import wiki_rows

    from offline_eval.engines.spec import build_pipeline
    from offline_eval.metaeval.synthetic import VariantGenerator
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import load_config
    from offline_eval.runners.load import shared_runner
    from offline_eval.scoring import ScoreOptions, score_specs
    from offline_eval.stages.verify import Verify
    from offline_eval.types import Item, ResponseResult

    items = [Item(r["id"], r["query"], r["response"]) for r in wiki_rows(args.n)]
    sets = VariantGenerator(seed=0).generate(items)
    wrong = [s.wrong for s in sets if s.wrong is not None]
    edits = {s.wrong.id: s.edit for s in sets if s.wrong is not None}
    stages = [s for s in build_pipeline(score_specs(ScoreOptions(comprehensiveness=None))).stages]
    upto = [s for s in stages[: [s.name for s in stages].index("offline_eval.stages.verify.v1")]]
    recs = [ResponseResult(it) for it in items + wrong]
    for st in upto:
        recs = st(recs)

    path = resolve_model(None)
    shipped = load_config(path)
    runner = Counting(shared_runner(path))
    # "N" = max_windows N as shipped; "N:0" = the same without the assembled window
    caps = [(int(c.split(":")[0]), int(c.split(":")[1]) if ":" in c else shipped.assemble_sentences)
            for c in args.caps.split(",")]
    rows: list = []
    base: list | None = None
    for cap, asm in caps:
        stage = Verify(runner=runner, config=replace(shipped, max_windows=cap, assemble_sentences=asm))
        runner.pairs = 0
        c0 = time.process_time()
        out = stage(recs)
        cpu = time.process_time() - c0
        labels = [c.verdict.label for r in out for c in r.claims]
        if base is not None:  # which claims change, for reading (stderr)
            flat = [(r.item.id, c.text) for r in out for c in r.claims]
            for (rid, text), a, b in zip(flat, labels, base):
                if a != b:
                    print(f"cap {cap}/{asm}: {rid} {b} -> {a}: {text}", file=sys.stderr)
        base = labels if base is None else base
        flagged = 0
        for r in out:
            e = edits.get(r.item.id)
            if e is None:
                continue
            hit = [c for c in r.claims if c.sentence_index < len(r.sentences) and
                   r.sentences[c.sentence_index].start <= e.start < r.sentences[c.sentence_index].end]
            flagged += any(c.verdict.label != "supported" for c in hit)
        normal = [c.verdict.label for r in out if r.item.id in {i.id for i in items} for c in r.claims]
        rows.append((cap, asm, runner.pairs, cpu, sum(a == b for a, b in zip(labels, base)) / len(labels),
                     sum(l == "supported" for l in normal) / max(1, len(normal)), flagged,
                     Counter(labels)))
        print(rows[-1], flush=True)

    # `strong` and the shared-name rule on the correct answers' claims, at the shipped cap
    normal_recs = [r for r in recs if r.item.id in {i.id for i in items}]
    memo = Memo(runner)
    strong_rows = []
    for strong in (0.85, 0.9, 0.95):
        for shared in (False, True):
            cfg = replace(shipped, strong=strong, conflict_shared_name=shared)
            out = Verify(runner=memo, config=cfg)(normal_recs)
            strong_rows.append((strong, shared, Counter(c.verdict.label for r in out for c in r.claims)))
    n_claims = sum(len(r.claims) for r in recs)
    lines = ["## Verifier: evidence windows per claim (`benchmarks/verify_windows.py`)", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPU cores, load "
             f"average {os.getloadavg()[0]:.1f} at the end. {len(items)} wiki-vital answers of the "
             f"end-to-end workload plus their {len(wrong)} synthetic `wrong` variants, {n_claims} "
             f"claims, corpus wiki-vital, k={shipped.top_k}, overlap gate {shipped.min_overlap:g}, "
             "nli-minilm ONNX int8. `max_windows` 0 = every window that passes the gate; "
             f"each cap counts the assembled window ({shipped.assemble_sentences} sentences at most) "
             "as one more candidate, except in the rows marked without it.", "",
             "| max_windows | NLI pairs | pairs per claim | verify CPU s | verdicts as with no cap | "
             "normal answers: claims supported | wrong variants: swapped sentence flagged | verdicts |",
             "|---|---|---|---|---|---|---|---|"]
    for cap, asm, pairs, cpu, agree, sup, flagged, cnt in rows:
        mark = (" (shipped)" if (cap, asm) == (shipped.max_windows, shipped.assemble_sentences)
                else "" if asm else ", no assembled window")
        lines.append(f"| {cap}{mark} | {pairs} | {pairs / n_claims:.2f} | {cpu:.1f} | {agree:.3f} | "
                     f"{sup:.3f} | {flagged}/{len(wrong)} | "
                     + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())) + " |")
    lines += ["", "The shipped combiner was fitted on the two windows with the most claim words "
              "(`benchmarks/verifier.py`'s WiCE protocol), which is what `max_windows` = 2 sends.",
              "", f"`inconclusive` on the {len(items)} answers without synthetic edits "
              f"({sum(len(r.claims) for r in normal_recs)} claims; restated leads, every third with "
              f"one number bumped), at `max_windows` {shipped.max_windows}, by `strong` and "
              f"`conflict_shared_name` (shipped: {shipped.strong:g}, "
              f"{str(shipped.conflict_shared_name).lower()}). Each claim's own lead is in the "
              "corpus, so a conflict here is between that lead and another passage:", "",
              "| strong | conflict_shared_name | inconclusive | verdicts |", "|---|---|---|---|"]
    lines += [f"| {st:g} | {str(sh).lower()} | {cnt.get('inconclusive', 0)} | "
              + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())) + " |"
              for st, sh, cnt in strong_rows]
    text = "\n".join(lines)
    if not args.no_write:
        write_section(text, "verify_windows")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
