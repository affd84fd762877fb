"""Verifier benchmark: writes the ``verifier`` section of benchmarks/RESULTS.md.

* WiCE dev (349 claims; supported vs partially/not supported): nested 5-fold CV, the
  threshold (and the combiner) fitted on the training folds only; word overlap beside it.
  Evidence: the top-2 five-sentence windows of the claim's evidence sentences by
  content-word coverage (a stand-in for the retrieve stage); every sentence of the page is
  the pool of the verifier's assembled window (``benchmarks/assembled.py`` measures that
  window on and off).
* Factcheck-GPT stance pairs, the held-out 30% of claims (never trained on).
* The held-out 8% of the NLI training sets (hash split, see the recipe's data.py).
* Throughput (pairs/s, batch 32) at 128-, 256- and 384-token pairs and on a sample of the
  pairs the verifier sent the model on WiCE dev, and peak RSS, torch fp32 vs ONNX fp32 vs
  ONNX int8, each in its own process, two interleaved rounds, in one run (the fp32 ONNX
  file, which the shipped folder leaves out, is exported into the cache first).

``--fit-combiner --wice-only`` instead fits the earlier (WiCE-only) combiner on all WiCE dev features of the
default backend (L2 chosen by CV) and writes ``verifier.json`` into the model folder.

Run: ``python benchmarks/verifier.py [--model models/nli-minilm] [--limit N]``
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import cpu_description, peak_rss_mb  # noqa: E402
from _results import write_section as _write_section  # noqa: E402

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
BACKENDS = {"torch": ("torch", None), "onnx-fp32": ("onnx", "fp32"), "onnx-int8": ("onnx", "int8")}
FEATS = ("ent_full", "ent_split", "con_max", "cov_content", "cov_entity", "cov_number", "cov_all", "claim_len")
REFS = "AlignScore-large (355M) 66.0, MiniCheck-Flan-T5-L (770M) 72.2, GPT-4o 78.5 (LLM-AggreFact WiCE column)"


def recipe_data():
    spec = importlib.util.spec_from_file_location("nli_data", ROOT / "models/recipes/nli_minilm/data.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def best_windows(claim: str, sents: list[str], n: int = 2, size: int = 5) -> list[str]:
    """The ``n`` non-overlapping ``size``-sentence windows with the most claim content words
    (ties: reading order): the benchmarks' stand-in for the retrieve stage."""
    from offline_eval.nli.features import best_windows as best

    return best(claim, sents, n, size)


def wice_rows(limit: int = 0, resplit: bool = False) -> list[dict[str, Any]]:
    """WiCE dev claims with the benchmark's two windows, the page as the pool and the
    word-overlap baseline's score. ``resplit``: the page joined and re-split into sentences
    by the library (what the verifier does with raw text) instead of WiCE's own sentences."""
    from offline_eval.nli.features import coverage
    from offline_eval.text import split_sentences

    rows = [json.loads(l) for l in open(DATA / "wice" / "claim_dev.jsonl", encoding="utf-8")]
    rows = rows[:limit] if limit else rows
    out = []
    for r in rows:
        sents = split_sentences(" ".join(r["evidence"])) if resplit else r["evidence"]
        overlap = max(coverage(r["claim"], [" ".join(sents[i:i + 5])])["cov_content"]
                      for i in range(max(1, len(sents) - 4)))
        out.append({"claim": r["claim"], "passages": best_windows(r["claim"], sents), "pool": sents,
                    "y": int(r["label"] == "supported"), "overlap": overlap})
    return out


def weights_tag(model: Path, backend: str) -> str:
    """The first 12 hex digits of the sha256 of the weights ``backend`` loads: cached
    features are keyed by it, so new weights are never scored from stale features
    (after changing the verifier's code, delete the cache folder)."""
    from offline_eval.modelstore import sha256_file
    from offline_eval.runners.ort import ONNX_FILES

    kind, precision = BACKENDS[backend]
    f = model / ("model.safetensors" if kind == "torch" else ONNX_FILES[precision or "fp32"])
    return sha256_file(f)[:12] if f.is_file() else "missing"


#: the files a benchmark copy of a model folder needs besides its ONNX export
MODEL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "verifier.json", "model.safetensors")


def derived_folder(model: Path, dest: Path, make: Callable[[Path], Any]) -> Path:
    """A benchmark copy of ``model`` at ``dest``, built once: its :data:`MODEL_FILES`, what
    ``make(dest)`` adds (an ONNX file), and a manifest with the model's own fields (the
    window among them) under the name ``<model>-<dest folder>``."""
    import shutil

    from offline_eval.modelstore import read_manifest, write_manifest

    if not (dest / "manifest.json").is_file():
        (dest / "onnx").mkdir(parents=True, exist_ok=True)
        for f in MODEL_FILES:
            if (model / f).is_file():
                shutil.copy2(model / f, dest / f)
        make(dest)
        src = read_manifest(model)
        write_manifest(dest, **{k: v for k, v in src.items() if k not in ("files", "name")},
                       name=f"{src.get('name', model.name)}-{dest.name}")
    return dest


def fp32_onnx_folder(model: Path, work: Path) -> Path:
    """``model`` itself when it has the fp32 ONNX file, else a copy under ``work`` with it
    exported (built once per weights; the shipped folder leaves the 91 MB file out)."""
    from offline_eval.runners.export import export_onnx

    if weights_tag(model, "onnx-fp32") != "missing":
        return model
    return derived_folder(model, work / f"fp32-{weights_tag(model, 'torch')}",
                          lambda d: export_onnx(d, quantize=False))


def worker(args: argparse.Namespace) -> None:
    """Compute NLI features for every evaluation set on one backend; dump JSON."""
    from offline_eval.nli.config import VerifyConfig
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    backend, precision = BACKENDS[args.worker]
    if backend == "torch":
        import torch
        torch.set_num_threads(args.threads)
    runner = load_runner(args.model, backend, "cpu", batch_size=32, precision=precision,
                         threads=args.threads, fuse_skip_layernorm=FUSE[args.fuse_skip_layernorm])
    from offline_eval.nli.verifier import decomposer_splitter
    splitter = decomposer_splitter(args.splitter) if args.splitter != "clauses" else None
    # the two best windows are the passages; every sentence of the page is the assembled
    # window's pool (the page is one document; in the pipeline, each source document among
    # the top-k passages is a pool)
    v = Verifier(runner, VerifyConfig(min_overlap=args.min_overlap, max_windows=2,
                                      assemble_sentences=args.assemble_sentences,
                                      coverage_sentences=args.coverage_sentences,
                                      coverage_windows=args.coverage_windows), splitter=splitter)
    out: dict[str, Any] = {"backend": args.worker, "labels": list(runner.labels)}
    t = time.time()
    wice = wice_rows(args.limit)
    seen: list[tuple[str, str]] = []  # the pairs the model reads for WiCE: the throughput mix
    predict = runner.predict
    runner.predict = lambda pairs: (seen.extend(pairs), predict(pairs))[1]
    out["wice"] = [s.features for s in v.score_claims([(r["claim"], r["passages"]) for r in wice],
                                                      pools=[r["pool"] for r in wice])]
    runner.predict = predict
    out["wice_pairs"] = random.Random(0).sample(seen, min(MIX_N, len(seen)))
    lens = [a + b + runner.pair_overhead() for a, b in zip(runner.token_lengths([p for p, _ in out["wice_pairs"]]),
                                                          runner.token_lengths([h for _, h in out["wice_pairs"]]))]
    out["wice_pairs_info"] = {"of": len(seen), "median_tokens": float(np.median(lens)) if lens else 0.0,
                              "max_tokens": max(lens, default=0)}
    out["wice_y"] = [r["y"] for r in wice]
    out["wice_overlap"] = [r["overlap"] for r in wice]
    mod = recipe_data()
    _, fc = mod.factcheck(DATA, random.Random(mod.SEED))
    fc = fc[: args.limit] if args.limit else fc
    fcs = v.score_claims([(r["hypothesis"], [r["premise"]]) for r in fc])
    out["fc"] = [{"p": s.passage_probs[0] if s.passage_probs else {}, "stance": r["stance"]} for s, r in zip(fcs, fc)]
    _, held = mod.generic(DATA, random.Random(mod.SEED))
    random.Random(7).shuffle(held)
    held = held[: (args.limit or args.nli_n)]
    probs = v.classify_pairs([(r["premise"], r["hypothesis"]) for r in held])
    out["nli"] = [{"p": p, "label": r["label"], "kind": r["kind"]} for p, r in zip(probs, held)]
    out["seconds"] = time.time() - t
    out["truncated"] = runner.truncated
    Path(args.out).write_text(json.dumps(out))


FUSE = {"auto": None, "on": True, "off": False}
TOKENS = (128, 256, 384)  # throughput pair lengths; 256 is the shipped model's window
ROUNDS = 2  # interleaved throughput rounds
INT8_VARIANTS = ("onnx-int8-intra-op", "onnx-int8-batched")  # throughput rows for speed only
MIX_N = 256  # WiCE pairs (as the verifier builds them) in the throughput mix


def throughput_pairs(n_tok: int, n: int) -> list[tuple[str, str]]:
    """``n`` copies of one (premise, hypothesis) pair of about ``n_tok`` tokens: the
    throughput input (shared with ``gpu_throughput.py``)."""
    words = "the committee approved the new river bridge project in the northern district last spring".split()
    prem = " ".join(words[i % len(words)] for i in range(n_tok - 14))
    return [(prem, "The committee approved the bridge project in spring.")] * n


def throughput(args: argparse.Namespace) -> None:
    """pairs/s at 128, 256 and 384 tokens (batch 32) and on ``--pairs``, and this process's peak RSS."""
    from offline_eval.runners.load import load_runner

    backend, precision = BACKENDS.get(args.throughput, ("onnx", "int8"))
    if backend == "torch":
        import torch
        torch.set_num_threads(args.threads)
    # the runner's default runs int8 pairs one per call, several at once on one thread each;
    # INT8_VARIANTS run one pair (or one forced batch of 32: speed only, since batch mates
    # change the outputs) at a time on all the threads
    variant = args.throughput in INT8_VARIANTS
    runner = load_runner(args.model, backend, "cpu", batch_size=32, max_length=512, precision=precision,
                         threads=args.threads, fuse_skip_layernorm=FUSE[args.fuse_skip_layernorm],
                         parallel_pairs=not variant)
    if args.throughput == "onnx-int8-batched":
        runner.batch_size = 32
    res = {}
    mix = [tuple(p) for p in json.loads(Path(args.pairs).read_text())] if args.pairs else []
    # a graph without attention_mask (the shipped int8 export) cannot run a padded batch;
    # the fixed-length pairs are all one length, so only the mix is left out
    padded_ok = runner.batch_size == 1 or "attention_mask" in runner.input_names
    for n_tok in (*TOKENS, "wice"):
        pairs = mix if n_tok == "wice" else throughput_pairs(n_tok, 32)
        if not pairs or (n_tok == "wice" and not padded_ok):
            continue
        runner.predict(pairs[:4])
        best, best_cpu = float("inf"), float("inf")
        for _ in range(2 if n_tok == "wice" else 5):  # best of several calls: the box is shared
            t, c = time.perf_counter(), time.process_time()
            runner.predict(pairs)
            best, best_cpu = min(best, time.perf_counter() - t), min(best_cpu, time.process_time() - c)
        res[str(n_tok)] = len(pairs) / best
        res[f"{n_tok}_cpu"] = len(pairs) / best_cpu  # pairs per CPU-second (all threads of the process)
    res["rss_mb"] = peak_rss_mb()
    print(json.dumps(res))


# ---- analysis ---------------------------------------------------------------------------
def ba(y, pred) -> float:
    from offline_eval.nli.combiner import balanced_accuracy
    return balanced_accuracy(y, pred)


# the CV protocol is the library's (``offline-eval models calibrate`` runs the same folds)
from offline_eval.nli.calibrate import cv_combiner, cv_combiner_repeats, cv_threshold  # noqa: E402,F401


def analyse(res: dict[str, Any]) -> dict[str, float]:
    y = np.array(res["wice_y"])
    x = np.array([[f[k] for k in FEATS] for f in res["wice"]])
    out = {"wice_overlap": cv_threshold(np.array(res["wice_overlap"]), y),
           "wice_cov3": cv_combiner(x[:, 3:], y) if len(y) >= 20 else float("nan"),
           "wice_nli_only": cv_combiner(x[:, :3], y) if len(y) >= 20 else float("nan"),
           "wice_nli": cv_threshold(x[:, 1], y),
           "wice_combined": cv_combiner(x, y) if len(y) >= 20 else float("nan")}
    if len(y) >= 20:
        out["wice_combined_rep"], out["wice_combined_sd"] = cv_combiner_repeats(x, y)
        out["wice_cov3_rep"], out["wice_cov3_sd"] = cv_combiner_repeats(x[:, 3:], y)
    fy = np.array([int(r["stance"] == "completely-support") for r in res["fc"]])
    fp = np.array([r["p"].get("entailment", 0.0) for r in res["fc"]])
    out["fc_argmax"] = ba(fy, [int(max(r["p"], key=r["p"].get) == "entailment") if r["p"] else 0 for r in res["fc"]])
    out["fc_cv"] = cv_threshold(fp, fy)
    three = [r for r in res["nli"] if r["label"] in ("entailment", "neutral", "contradiction")]
    out["nli_acc3"] = float(np.mean([max(r["p"], key=r["p"].get) == r["label"] for r in three]))
    ny = [int(r["label"] in ("entailment", "supported")) for r in res["nli"]]
    out["nli_ba2"] = ba(ny, [int(max(r["p"], key=r["p"].get) == "entailment") for r in res["nli"]])
    out["n_wice"], out["n_fc"], out["n_nli"] = len(y), len(fy), len(ny)
    return out


STRONG_PRECISION = 0.95


def calibrate_nli_thresholds(nli: list[dict[str, Any]]) -> tuple[float, float, dict[str, Any]]:
    """``contradict`` and ``strong`` from the held-out NLI split (3-way rows only): the
    P(contradiction) threshold maximising balanced accuracy of contradiction vs the rest
    (5-fold CV estimate beside it), and the lowest threshold at which both P(entailment)
    and P(contradiction) pick their label with precision >= 0.95 (``inconclusive`` asserts
    that the evidence conflicts, so both sides must be near-certain; at 0.9 the shipped
    model made 33 of 745 claims of wiki-vital answers inconclusive: ``verify_windows.py``)."""
    from offline_eval.nli.combiner import grid_threshold, precise_threshold

    three = [r for r in nli if r["label"] in ("entailment", "neutral", "contradiction")]
    pc = np.array([r["p"].get("contradiction", 0.0) for r in three])
    pe = np.array([r["p"].get("entailment", 0.0) for r in three])
    yc = np.array([int(r["label"] == "contradiction") for r in three])
    ye = np.array([int(r["label"] == "entailment") for r in three])
    contradict = grid_threshold(pc, yc)
    strong = max(precise_threshold(pe, ye, STRONG_PRECISION), precise_threshold(pc, yc, STRONG_PRECISION))
    info = {"on": f"held-out NLI split, 3-way rows (n={len(three)}, {int(yc.sum())} contradictions)",
            "contradict": "max balanced accuracy of contradiction vs rest on a 0.05 grid",
            "contradict_ba": round(ba(yc, (pc >= contradict).astype(int)), 4),
            "contradict_cv_ba": round(cv_threshold(pc, yc, pick=grid_threshold), 4),
            "strong": "lowest 0.05-grid value where P(entailment) and P(contradiction) each pick "
                      f"their label with precision >= {STRONG_PRECISION}"}
    return contradict, strong, info


def features(args: argparse.Namespace, names: list[str], assemble_sentences: int) -> dict[str, Any]:
    """Each backend's worker output, from the cache or computed (one process per backend,
    in parallel)."""
    py, me = sys.executable, str(Path(__file__).resolve())
    cached = {b: args.cache / f"{b}-{weights_tag(args.model, b)}-{args.limit}-gate{args.min_overlap:g}-"
                              f"{args.splitter}-asm{assemble_sentences}-cov{args.coverage_sentences}x"
                              f"{args.coverage_windows}.json" for b in names}
    procs = {}
    for b in names:
        if not cached[b].exists():
            procs[b] = subprocess.Popen([py, me, "--worker", b, "--out", str(cached[b]), "--model", str(args.model),
                                         "--limit", str(args.limit), "--nli-n", str(args.nli_n),
                                         "--threads", str(args.threads),
                                         "--min-overlap", str(args.min_overlap),
                                         "--splitter", args.splitter,
                                         "--assemble-sentences", str(assemble_sentences),
                                         "--coverage-sentences", str(args.coverage_sentences),
                                         "--coverage-windows", str(args.coverage_windows)])
    for b, p in procs.items():
        if p.wait() != 0:
            raise SystemExit(f"worker {b} failed")
    return {b: json.loads(cached[b].read_text()) for b in names}


def fit_shipped(model: Path, res: dict[str, Any], min_overlap: float = 0.0,
                assemble_sentences: int = 6, coverage: tuple[int, int] = (3, 5)) -> None:
    from offline_eval.nli.calibrate import fit_combiner
    from offline_eval.nli.config import dump_config, load_config

    y = np.array(res["wice_y"])
    x = np.array([[f[k] for k in FEATS] for f in res["wice"]])
    comb, thr, l2, scores = fit_combiner(x, y)  # what `offline-eval models calibrate` fits
    contradict, strong, calib = calibrate_nli_thresholds(res["nli"])
    comb = type(comb)(comb.features, comb.coef, comb.bias, comb.mean, comb.scale,
                      {"fitted_on": f"WiCE dev ({len(y)} claims), backend {res['backend']}", "l2": l2,
                       "cv_balanced_accuracy": round(scores[l2], 4), "thresholds": calib})
    # every other setting (max_windows, the rules) stays as the model folder has it
    cfg = load_config(model).with_overrides(support=round(thr, 4), combiner=comb, min_overlap=min_overlap,
                                            contradict=contradict, strong=strong,
                                            assemble_sentences=assemble_sentences,
                                            coverage_sentences=coverage[0], coverage_windows=coverage[1])
    (model / "verifier.json").write_text(json.dumps(dump_config(cfg), indent=2) + "\n")
    print(f"combiner: l2={l2} cv_ba={scores[l2]:.4f} threshold={thr:.4f}; contradict={contradict} "
          f"(cv ba {calib['contradict_cv_ba']}), strong={strong}")


def write_section(text: str, name: str = "verifier") -> None:
    _write_section(text, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--nli-n", type=int, default=400)
    ap.add_argument("--backends", default="torch,onnx-int8")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--splitter", default="clauses", choices=("clauses", "syntactic"),
                    help="how long claims are split inside verification (regex clauses or the "
                         "syntactic claim decomposer)")
    ap.add_argument("--min-overlap", type=float, default=None,
                    help="the NLI gate (default: the model's verifier.json value)")
    ap.add_argument("--assemble-sentences", type=int, default=None,
                    help="sentences in the assembled window, 0 = off (default: the model's verifier.json)")
    ap.add_argument("--coverage-sentences", type=int, default=None,
                    help="sentences per coverage window, 0 = the NLI windows (default: the model's "
                         "verifier.json)")
    ap.add_argument("--coverage-windows", type=int, default=None,
                    help="coverage windows per claim (default: the model's verifier.json)")
    ap.add_argument("--fuse-skip-layernorm", choices=sorted(FUSE), default="auto",
                    help="ONNX Runtime's SkipLayerNormalization fusion (auto: off for int8 on CPU, "
                         "see offline_eval.runners.ort.make_session); for benchmarks/quantization.py")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "oe_verifier_bench")
    ap.add_argument("--fit-combiner", action="store_true")
    ap.add_argument("--wice-only", action="store_true", help="with --fit-combiner: the WiCE-only fit")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--skip-throughput", action="store_true")
    ap.add_argument("--worker"), ap.add_argument("--out"), ap.add_argument("--throughput")
    ap.add_argument("--pairs", help="throughput: also time these pairs (a JSON list of [premise, hypothesis])")
    args = ap.parse_args()
    from offline_eval.nli.config import load_config
    shipped = load_config(args.model)
    for key in ("min_overlap", "assemble_sentences", "coverage_sentences", "coverage_windows"):
        if getattr(args, key) is None:
            setattr(args, key, getattr(shipped, key))
    if args.worker:
        return worker(args)
    if args.throughput:
        return throughput(args)
    args.cache.mkdir(parents=True, exist_ok=True)
    py, me = sys.executable, str(Path(__file__).resolve())
    names = args.backends.split(",")
    res = features(args, names, args.assemble_sentences)
    if args.fit_combiner and not args.wice_only:
        raise SystemExit("the shipped verifier.json is fitted on many sets: run "
                         "`python benchmarks/verdicts.py --fit`; `--fit-combiner --wice-only` "
                         "refits the earlier WiCE-only combiner")
    if args.fit_combiner:
        return fit_shipped(args.model, res[names[0]], args.min_overlap, args.assemble_sentences,
                           (args.coverage_sentences, args.coverage_windows))
    stats = {b: analyse(r) for b, r in res.items()}
    tp = {}
    if not args.skip_throughput:
        mix = args.cache / f"wice-pairs-{weights_tag(args.model, names[0])}.json"
        mix.write_text(json.dumps(res[names[0]]["wice_pairs"]))
        rows = (*BACKENDS, *INT8_VARIANTS)
        # the shipped folder leaves the fp32 ONNX file out: time it from an exported copy
        folder = {b: fp32_onnx_folder(args.model, args.cache) if b == "onnx-fp32" else args.model for b in rows}
        runs = [b for b in rows if weights_tag(folder[b], b if b in BACKENDS else "onnx-int8") != "missing"]
        tp = {b: {} if b in runs else "absent" for b in rows}
        for _ in range(ROUNDS):  # interleaved rounds, each key's best kept: the box is shared
            for b in runs:
                for threads, cpu in ((2, ""), (1, "_cpu")):
                    keys = (*(f"{n}{cpu}" for n in (*TOKENS, "wice")), *(("rss_mb",) if not cpu else ()))
                    o = subprocess.run([py, me, "--throughput", b, "--model", str(folder[b]),
                                        "--threads", str(threads), "--pairs", str(mix)],
                                       capture_output=True, text=True)
                    got = json.loads(o.stdout.strip().splitlines()[-1]) if o.returncode == 0 else None
                    if got is None or tp[b] is None:
                        tp[b] = None
                        continue
                    tp[b].update({k: max(got[k], tp[b].get(k, 0.0)) for k in keys if k in got})
    text = report(args, res, stats, tp)
    print(text)
    if not args.no_write:
        write_section(text)


def report(args, res, stats, tp) -> str:
    first = next(iter(stats.values()))
    first_res = next(iter(res.values()))
    lines = [f"## Verifier (`benchmarks/verifier.py`, model `{args.model.name}`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores "
             f"({cpu_description()}) "
             f"(load average {os.getloadavg()[0]:.1f} at the end: a shared, contended box).", "",
             f"WiCE dev: {first['n_wice']} claims, supported vs partially/not supported, balanced accuracy, "
             "nested 5-fold CV (thresholds and combiner fitted on training folds only). Evidence: the "
             "two best five-sentence windows of the page by claim words, and the assembled window "
             f"(up to {args.assemble_sentences} sentences of the page; `benchmarks/assembled.py` "
             "measures it on and off); the coverage features read "
             + (f"the {args.coverage_windows} best {args.coverage_sentences}-sentence windows of the page "
                "(`coverage_sentences`, `coverage_windows`; `benchmarks/coverage_windows.py` compares "
                "window sizes)." if args.coverage_sentences > 0 else "the two five-sentence windows."), "",
             "| backend | word overlap | coverage-only LR | NLI alone (weakest clause thr / NLI-feature LR) | NLI + coverage combiner | "
             "Factcheck-GPT held-out (argmax / CV thr) | NLI held-out 3-way acc | NLI held-out ent-vs-not BA |",
             "|---|---|---|---|---|---|---|---|"]
    for b, s in stats.items():
        lines.append(f"| {b} | {s['wice_overlap']:.3f} | {s['wice_cov3']:.3f} | {s['wice_nli']:.3f} / {s['wice_nli_only']:.3f} | "
                     f"**{s['wice_combined']:.3f}** | {s['fc_argmax']:.3f} / {s['fc_cv']:.3f} (n={s['n_fc']}) | "
                     f"{s['nli_acc3']:.3f} | {s['nli_ba2']:.3f} (n={s['n_nli']}) |")
    if "wice_combined_rep" in first:
        lines += ["", "The same WiCE protocol over 20 fold assignments (seeds 13-32; the table above is seed 13), "
                  "mean ± sd: " + "; ".join(
                      f"{b}: combiner **{s['wice_combined_rep']:.3f} ± {s['wice_combined_sd']:.3f}**, "
                      f"coverage-only LR {s['wice_cov3_rep']:.3f} ± {s['wice_cov3_sd']:.3f}"
                      for b, s in stats.items()) + ". This mean, not one split, is the figure to "
                  "compare with the target."]
    if len(res) > 1:
        a, b = list(res.values())[:2]
        pa = [max(r["p"], key=r["p"].get) for r in a["nli"] + a["fc"] if r["p"]]
        pb = [max(r["p"], key=r["p"].get) for r in b["nli"] + b["fc"] if r["p"]]
        agree = np.mean([x == y for x, y in zip(pa, pb)])
        lines += ["", f"Argmax agreement {a['backend']} vs {b['backend']} on the held-out pairs: {agree:.3f}. "
                  f"Pairs that reached the window limit (possible truncation): {a.get('truncated', 0)}."]
    lines += ["", f"Published WiCE references: {REFS}. Target: >= 0.75 and >= 5 points over overlap.", ""]
    if tp:
        base = (tp.get("torch") or {}).get("128")
        lines += [f"Throughput, 32 pairs per call, best of 5 calls in each of {ROUNDS} interleaved rounds (the best kept): wall-clock pairs/s with 2 threads, "
                  "and pairs per CPU-second with 1 thread (the work itself, much less sensitive "
                  "to the other jobs on this shared box), each with its ratio to torch fp32. torch and ONNX fp32 run the 32 pairs as one batch; ONNX int8 runs them one "
                  "at a time (batch-invariant output), on 2 threads two pairs at once, one thread each; "
                  "onnx-int8-intra-op runs one pair at a time on both threads (the runner before "
                  "that default); onnx-int8-batched forces it into one batch of 32 on both threads, "
                  "for speed only (its outputs depend on the batch; the shipped int8 graph has no "
                  "attention_mask input, so it cannot pad and has no WiCE mix). 256 tokens is the shipped model's "
                  "window (longer evidence is chunked to it), so the verifier never runs 384-token "
                  "pairs. `WiCE mix`: " + (
                      f"{len(first_res['wice_pairs'])} of the {first_res['wice_pairs_info']['of']} pairs the "
                      f"verifier sent to the model on WiCE dev (seeded sample; median "
                      f"{first_res['wice_pairs_info']['median_tokens']:.0f} tokens, max "
                      f"{first_res['wice_pairs_info']['max_tokens']}), all in one call (torch and fp32 "
                      "batch them by length, 32 at a time), best of 2 calls. " if first_res.get("wice_pairs") else "") +
                  "Peak RSS of the process, which also imports transformers for the tokenizer:", "",
                  "| backend | 128-token pairs/s | per CPU-s | 256-token pairs/s | per CPU-s | "
                  "384-token pairs/s | per CPU-s | WiCE mix pairs/s | per CPU-s | peak RSS MB |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for b, t in tp.items():
            if t == "absent":
                lines.append(f"| {b} | missing |" + " |" * 8)
                continue
            if not t:
                lines.append(f"| {b} | failed |" + " |" * 8)
                continue
            cells = []
            for key in (k for n in (*TOKENS, "wice") for k in (str(n), f"{n}_cpu")):
                ratio = t[key] / tp["torch"][key] if base and key in t else float("nan")
                cells.append(f"{t[key]:.1f} ({ratio:.2f}x)" if key in t else "")
            lines.append(f"| {b} | {' | '.join(cells)} | {t['rss_mb']:.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
