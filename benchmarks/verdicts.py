"""Verdict benchmark: the final verdict's balanced accuracy on many labelled sets, every
learned part fitted leave-one-set-out. Writes the ``verdicts`` section of RESULTS.md.

Protocol:

* every set of :mod:`verdict_sets` is scored once with the shipped model and the shipped
  window / gate settings (``Verifier.score_claims``; cached under ``--cache``, keyed by the
  weights and the package's code);
* for each set, the combiner (logistic regression, each training set weighted equally and
  its classes balanced) and the thresholds (``support``, ``contradict``, ``entail_floor``,
  on a grid, maximising the mean balanced accuracy over the training sets) are fitted on
  every *other family* of sets (a family shares claims or responses: WiCE as lines and as
  one string; the Factcheck-GPT claims, their revised twins and stance pairs), then the set
  is judged through the library's own path (``Verifier.finish``: the decision, then the negation,
  number and name rules). No figure in the table is in-sample;
* the same run scores the shipped (WiCE-fitted) combiner with its thresholds, and the NLI
  model alone (weakest clause's P(entailment), threshold fitted the same way), on the
  same scores.

``--fit`` also fits every part on all sets and writes ``verifier.json`` into the model
folder (what ships; its in-sample figures are not reported as results).

Run: ``python benchmarks/verdicts.py [--model models/nli-minilm] [--fit]``
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import cpu_description  # noqa: E402
from _results import write_section as _write_section  # noqa: E402

import argparse
import dataclasses
import hashlib
import json
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import verdict_sets as vs

ROOT = Path(__file__).resolve().parent.parent
#: the combiner and thresholds that shipped until 2026-12-01 (fitted on WiCE dev alone), kept
#: as the baseline column: a folder holding only that verifier.json
WICE_FITTED = ROOT / "benchmarks" / "data" / "wice-fitted"
FEATS = ("ent_full", "ent_split", "con_max", "cov_content", "cov_entity", "cov_number", "cov_all",
         "claim_len", "con_named", "margin_named")
DESIGNS = {  # name -> combiner features
    "nli+coverage": FEATS,
    "nli-only": ("ent_full", "ent_split", "con_max", "con_named", "margin_named"),
}
SHIP = "nli-only"  # the design the shipped verifier.json uses: the higher LOSO macro mean (RESULTS.md)
SUPPORT = tuple(round(0.05 * i, 2) for i in range(1, 17))  # 0.05 .. 0.80
CONTRADICT = tuple(round(0.05 * i, 2) for i in range(10, 20)) + (1.01,)  # 0.50 .. 0.95, off
FLOOR = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


# ---- scores, cached --------------------------------------------------------------------
def code_tag(model: Path, cfg: Any, precision: str = "int8") -> str:
    """Weights (their bytes), the package's code, the scoring settings and the precision (with
    the CPU's int8 reading): a change to any rescores every set."""
    from offline_eval.runners import int8

    h = hashlib.sha256()
    reading = int8.record() if precision == "int8" else None
    if precision != "int8" or reading:  # the VNNI int8 tag stays what it was
        h.update(f"{precision}:{reading}".encode())
    # every module of the package: the verifier reads through the text utilities, the passage
    # splitter and the runners as well as its own (a tag of nli/ alone kept scores of an old
    # sentence split)
    for f in sorted((ROOT / "offline_eval").rglob("*.py")) + [ROOT / "benchmarks" / "verdict_sets.py"]:
        h.update(f.relative_to(ROOT).as_posix().encode() + f.read_bytes())
    for f in sorted((model / "onnx").glob("*.onnx")):   # the weights themselves: two models'
        h.update(f.name.encode() + hashlib.sha256(f.read_bytes()).digest())  # files share a size
    h.update(repr([getattr(cfg, k) for k in SCORING]).encode())
    return h.hexdigest()[:12]


SCORING = ("top_k", "split_claims", "min_clause_words", "min_overlap", "max_windows",
           "assemble_sentences", "coverage_sentences", "coverage_windows")


def from_json(d: dict[str, Any]) -> Any:
    from offline_eval.nli.assemble import Assembled
    from offline_eval.nli.verifier import ClaimScores

    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    if kw.get("assembled"):
        a = kw["assembled"]
        kw["assembled"] = Assembled(a["text"], tuple(a["sources"]), a["sentences"], a.get("covered", 0))
    return ClaimScores(**kw)


def scored(verifier: Any, sets: Sequence[vs.ClaimSet], cache: Path, tag: str) -> dict[str, list[Any]]:
    out = {}
    cache.mkdir(parents=True, exist_ok=True)
    for cs in sets:
        f = cache / f"{cs.name}-{tag}.json"
        if f.is_file():
            out[cs.name] = [from_json(d) for d in json.loads(f.read_text())]
            continue
        t = time.time()
        scores = verifier.score_claims([(r.claim, r.evidence) for r in cs.rows])
        f.write_text(json.dumps([dataclasses.asdict(s) for s in scores]))
        out[cs.name] = scores
        print(f"  scored {cs.name}: {len(cs.rows)} claims in {time.time() - t:.0f} s", flush=True)
    return out


# ---- fitting ---------------------------------------------------------------------------
def bacc(y: np.ndarray, p: np.ndarray) -> float:
    from offline_eval.nli.combiner import balanced_accuracy
    return balanced_accuracy(y.astype(int), p.astype(int))


def matrix(scores: Sequence[Any], names: Sequence[str]) -> np.ndarray:
    return np.array([[s.features.get(k, 0.0) if not s.reason else 0.0 for k in names] for s in scores])


def set_weights(ys: Sequence[np.ndarray]) -> np.ndarray:
    """Each set weighs 1 in all, half of it on each class."""
    w = []
    for y in ys:
        pos = max(int(y.sum()), 1)
        neg = max(int(len(y) - y.sum()), 1)
        w.append(np.where(y > 0, 0.5 / pos, 0.5 / neg))
    return np.concatenate(w) * len(ys)


def rule_flips(verifier: Any, rows: Sequence[vs.Row], scores: Sequence[Any]) -> np.ndarray:
    """Which claims the negation, number and name rules would turn from supported (or
    unverifiable) to contradicted
    (the library's own rules, on the deciding passage the fold's combiner picks)."""
    force = dataclasses.replace(verifier.config, support=-1.0, contradict=2.0, entail_floor=0.0)
    v = type(verifier)(verifier.runner, force)
    return np.array([v.finish(r.claim, r.evidence, s).verdict.label == "contradicted" if not s.reason
                     else False for r, s in zip(rows, scores)])


def predict(p: np.ndarray, x: dict[str, np.ndarray], flips: np.ndarray, support: float,
            contradict: float, floor: float) -> np.ndarray:
    """Supported or not, as :func:`offline_eval.nli.decide.decide` then the rules decide."""
    con_hit = (x["con_named"] >= contradict) & (x["margin_named"] > 0)
    return (~con_hit) & (p >= support) & (x["ent_full"] >= floor) & (~flips)


def grid(ps, xs, flips, ys) -> tuple[float, float, float, float]:
    """The (support, contradict, entail_floor) of the grid with the best mean balanced
    accuracy over the sets (the first in grid order within 1e-9), all combinations at once:
    :func:`predict` broadcast over the grid, then each set's per-class recalls."""
    S, C, F = (np.array(g)[:, None] for g in (SUPPORT, CONTRADICT, FLOOR))
    per_set = []
    for p, x, fl, y in zip(ps, xs, flips, ys):
        y = y.astype(bool)
        keep = ~((x["con_named"][None, :] >= C) & (x["margin_named"] > 0)[None, :])  # (C, n)
        pred = ((p[None, :] >= S)[:, None, None, :] & keep[None, :, None, :]
                & (x["ent_full"][None, :] >= F)[None, None, :, :] & ~fl)  # (S, C, F, n)
        recalls = [(pred[..., y]).sum(-1) / y.sum()] if y.any() else []
        if (~y).any():
            recalls.append((~pred[..., ~y]).sum(-1) / (~y).sum())
        per_set.append(sum(recalls) / len(recalls))
    means = np.mean(per_set, axis=0)
    best = (-1.0, 0.5, 1.01, 0.0)
    for (i, j, k), m in np.ndenumerate(means):  # grid order, as nested loops over S, C, F
        if m > best[0] + 1e-9:
            best = (float(m), SUPPORT[i], CONTRADICT[j], FLOOR[k])
    return best


def fit(verifier: Any, sets: Sequence[vs.ClaimSet], scores: dict[str, list[Any]],
        features: Sequence[str]) -> Any:
    """A VerifyConfig with a combiner over ``features`` and grid thresholds, fitted on ``sets``."""
    from offline_eval.nli.combiner import fit_logistic

    ys = [np.array([r.y for r in cs.rows]) for cs in sets]
    x = np.vstack([matrix(scores[cs.name], features) for cs in sets])
    comb = fit_logistic(x, np.concatenate(ys), l2=1.0, features=features, weights=set_weights(ys))
    cfg = dataclasses.replace(verifier.config, combiner=comb)
    v = type(verifier)(verifier.runner, cfg)
    ps = [comb.predict(matrix(scores[cs.name], features)) for cs in sets]
    xs = [{k: matrix(scores[cs.name], (k,))[:, 0] for k in ("con_named", "margin_named", "ent_full")} for cs in sets]
    flips = [rule_flips(v, cs.rows, scores[cs.name]) for cs in sets]
    m, s, c, f = grid(ps, xs, flips, ys)
    return dataclasses.replace(cfg, support=s, contradict=c, entail_floor=f), m


def judge(verifier: Any, cfg: Any, cs: vs.ClaimSet, scores: Sequence[Any]) -> tuple[float, dict[str, int]]:
    """Balanced accuracy of the final verdict through the library's path, and label counts."""
    v = type(verifier)(verifier.runner, cfg)
    labels = [v.finish(r.claim, r.evidence, s).verdict.label for r, s in zip(cs.rows, scores)]
    y = np.array([r.y for r in cs.rows])
    counts: dict[str, int] = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    return bacc(y, np.array([lab == "supported" for lab in labels])), counts


def nli_alone(sets, scores, held) -> float:
    """Weakest clause's P(entailment) >= a threshold fitted on the other sets."""
    train = [cs for cs in sets if cs.family != held.family]
    best, thr = -1.0, 0.5
    for t in np.round(np.arange(0.05, 0.96, 0.05), 2):
        m = float(np.mean([bacc(np.array([r.y for r in cs.rows]), matrix(scores[cs.name], ("ent_split",))[:, 0] >= t)
                           for cs in train]))
        if m > best:
            best, thr = m, float(t)
    return bacc(np.array([r.y for r in held.rows]), matrix(scores[held.name], ("ent_split",))[:, 0] >= thr)


def auroc(y_false: np.ndarray, score: np.ndarray) -> float:
    """P(a false claim scores above a true one), ties half (Mann-Whitney)."""
    pos, neg = score[y_false == 1], score[y_false == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    gt = (pos[:, None] > neg[None, :]).mean()
    eq = (pos[:, None] == neg[None, :]).mean()
    return float(gt + 0.5 * eq)


def weakness(sets, scores) -> str:
    """Where the model is weak: AUROC of its signals for "false", per set (no fitting)."""
    lines = ["| set | P(contradiction), subject passages | P(contradiction), any | 1 - P(entailment) | all pairs gated |",
             "|---|---|---|---|---|"]
    for cs in sets:
        yf = np.array([1 - r.y for r in cs.rows])
        m = matrix(scores[cs.name], ("con_named", "con_max", "ent_full"))
        gated = sum(1 for s in scores[cs.name] if not s.reason and not any(
            p.get("neutral", 0.0) < 1.0 for p in s.passage_probs))
        lines.append(f"| {cs.name} | {auroc(yf, m[:, 0]):.3f} | {auroc(yf, m[:, 1]):.3f} | "
                     f"{auroc(yf, 1 - m[:, 2]):.3f} | {gated} of {len(cs.rows)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "offline-eval-bench" / "verdicts")
    ap.add_argument("--fit", action="store_true", help="also write the all-sets fit into verifier.json")
    ap.add_argument("--no-write", action="store_true", help="print, do not write RESULTS.md")
    ap.add_argument("--precision", choices=("int8", "fp32"), default="int8",
                    help="fp32: also score every set with torch (what CUDA runs) and compare, "
                    "leave-one-set-out on fp32 scores, the decision fitted on int8 scores with one "
                    "fitted on fp32's own (section verdicts-fp32)")
    ap.add_argument("--min-overlap", type=float, default=None,
                    help="score with this overlap gate instead of the model's (0 sends every window)")
    args = ap.parse_args()

    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    t0 = time.time()
    sets = vs.all_sets()
    shipped = load_config(args.model)
    if args.min_overlap is not None:
        shipped = dataclasses.replace(shipped, min_overlap=args.min_overlap)
    runner = load_runner(args.model, None, "cpu", batch_size=32)
    base = Verifier(runner, shipped)
    wice_fitted = load_config(WICE_FITTED)
    scores = scored(base, sets, args.cache, code_tag(args.model, shipped))
    if args.precision == "fp32":
        return by_precision(args, sets, base, scores, t0)
    t_score = time.time() - t0
    rows: dict[str, dict[str, Any]] = {}
    chosen: dict[str, dict[str, Any]] = {}
    for held in sets:
        train = [cs for cs in sets if cs.family != held.family]
        r: dict[str, Any] = {"shipped": judge(base, wice_fitted, held, scores[held.name])[0],
                             "nli_alone": nli_alone(sets, scores, held)}
        for name, feats in DESIGNS.items():
            cfg, _ = fit(base, train, scores, feats)
            r[name], r[name + "_counts"] = judge(base, cfg, held, scores[held.name])
            chosen.setdefault(name, {})[held.name] = (cfg.support, cfg.contradict, cfg.entail_floor)
        rows[held.name] = r
        print(f"  {held.name}: " + ", ".join(f"{k} {v:.3f}" for k, v in r.items() if isinstance(v, float)), flush=True)
    text = report(sets, rows, chosen, t_score, time.time() - t0, shipped)
    text += ("\n\nWhere the model is weak, before any fitting: AUROC of each signal for *false* "
             "(1.0 = every false claim above every true one; 0.5 = chance). `all pairs gated`: claims "
             "whose every window fell under the overlap gate, so the model never read them.\n\n"
             + weakness(sets, scores))
    if args.fit:
        text += "\n\n" + write_fit(base, sets, scores, args.model)
    print(text)
    if not args.no_write:
        _write_section(text, "verdicts")


def by_precision(args: Any, sets: Sequence[vs.ClaimSet], base: Any, int8_scores: dict[str, list[Any]],
                 t0: float) -> None:
    """fp32 (torch) against the int8 fit, leave-one-set-out, both sides on the same fp32 scores."""
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    runner = load_runner(args.model, "torch", "cpu", batch_size=32)  # as score runs torch
    fp32 = Verifier(runner, base.config)
    scores = scored(fp32, sets, args.cache, code_tag(args.model, base.config, "fp32"))
    t_score = time.time() - t0
    feats = DESIGNS[SHIP]
    rows: dict[str, dict[str, float]] = {}
    for held in sets:
        train = [cs for cs in sets if cs.family != held.family]
        from_int8, _ = fit(base, train, int8_scores, feats)
        from_fp32, _ = fit(fp32, train, scores, feats)
        rows[held.name] = {"int8_on_int8": judge(base, from_int8, held, int8_scores[held.name])[0],
                           "int8_on_fp32": judge(fp32, from_int8, held, scores[held.name])[0],
                           "fp32_on_fp32": judge(fp32, from_fp32, held, scores[held.name])[0]}
        print(f"  {held.name}: " + ", ".join(f"{k} {v:.3f}" for k, v in rows[held.name].items()), flush=True)
    table = [cs for cs in sets if cs.table]
    lines = ["## Verdicts at fp32, leave-one-set-out (`benchmarks/verdicts.py --precision fp32`, model `nli-minilm`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cpu_description()}; scoring "
             f"{t_score:.0f} s, all {time.time() - t0:.0f} s.", "",
             "fp32 (torch, what `--device cuda` and `--backend torch` run) moves the model's probabilities "
             "from the int8 ONNX file's. Both decisions below are the shipped design "
             f"(`{SHIP}` combiner, then support / contradict / entail_floor on the grid, then the number "
             "and name rules), fitted for each set on the *other families* only, as in `verdicts`: one on "
             "the int8 scores of those sets, one on their fp32 scores. Both are judged on the held-out "
             "set's fp32 scores, in this run. `int8 on int8` is the CPU default, for reference. "
             "Balanced accuracy of `verdict == supported`.", "",
             "| set | int8 fit, int8 scores (CPU default) | int8 fit, fp32 scores (what fp32 got) | fp32 fit, fp32 scores |",
             "|---|---|---|---|"]
    for cs in sets:
        r = rows[cs.name]
        tag = "" if cs.table else " (fit only)"
        lines.append(f"| {cs.name}{tag} | {r['int8_on_int8']:.3f} | {r['int8_on_fp32']:.3f} | {r['fp32_on_fp32']:.3f} |")
    for key, label in (("int8_on_int8", "int8 fit, int8 scores"), ("int8_on_fp32", "int8 fit, fp32 scores"),
                       ("fp32_on_fp32", "fp32 fit, fp32 scores")):
        vals = [rows[cs.name][key] for cs in table]
        lines.append(f"\n{label}: macro mean over the {len(table)} table rows **{np.mean(vals):.3f}**, "
                     f"lowest {min(vals):.3f} ({table[int(np.argmin(vals))].name}).")
    gain = np.mean([rows[cs.name]["fp32_on_fp32"] - rows[cs.name]["int8_on_fp32"] for cs in table])
    lines.append(f"\nA fit on fp32's own scores changes the fp32 macro mean by {gain:+.3f}: "
                 + ("no fp32 decision ships, fp32 runs use the int8 fit." if gain <= 0 else
                    "a per-precision decision would pay (not shipped yet)."))
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        _write_section(text, "verdicts-fp32")


def report(sets, rows, chosen, t_score, t_all, cfg) -> str:
    table = [cs for cs in sets if cs.table]
    lines = ["## Verdicts on many sets, leave-one-set-out (`benchmarks/verdicts.py`, model `nli-minilm`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cpu_description()}; scoring "
             f"{t_score:.0f} s, all {t_all:.0f} s. Scoring settings: overlap gate {cfg.min_overlap:g}, "
             f"{cfg.max_windows} windows per claim or clause, top {cfg.top_k} passages.", "",
             "Balanced accuracy of `verdict == supported` against the label. Every set is scored once with "
             "the shipped model and window settings; for each set the combiner and thresholds are fitted on "
             "the *other families* of sets only (table rows and fit-only rows alike), then the set is judged "
             "through `Verifier.finish` (decision, then the negation, number and name rules). `WiCE-fitted combiner` is the "
             "combiner and thresholds that shipped before, fitted on WiCE dev (so its WiCE rows are in-sample), "
             "under the new decision order; `NLI alone` "
             "thresholds the weakest clause's P(entailment) (threshold fitted on the other families). "
             "Sets of more than 300 claims are a seeded, label-stratified sample of 300.", "",
             "| set | n (true) | what | WiCE-fitted combiner | NLI alone | LOSO nli-only | LOSO nli+coverage | published |",
             "|---|---|---|---|---|---|---|---|"]
    for cs in sets:
        r = rows[cs.name]
        tag = "" if cs.table else " (fit only)"
        lines.append(f"| {cs.name}{tag} | {len(cs.rows)} ({sum(x.y for x in cs.rows)}) | {cs.note} | "
                     f"{r['shipped']:.3f} | {r['nli_alone']:.3f} | {r['nli-only']:.3f} | "
                     f"{r['nli+coverage']:.3f} | {cs.published or '—'} |")
    for key, label in (("shipped", "WiCE-fitted combiner"), ("nli_alone", "NLI alone"),
                       ("nli-only", "LOSO nli-only"), ("nli+coverage", "LOSO nli+coverage")):
        vals = [rows[cs.name][key] for cs in table]
        lines.append(f"\n{label}: macro mean over the {len(table)} table rows **{np.mean(vals):.3f}**, "
                     f"lowest {min(vals):.3f} ({table[int(np.argmin(vals))].name}).")
    lines.append("\nThresholds each LOSO fit chose (support / contradict / entail_floor; contradict 1.01 = off):")
    for name, per in chosen.items():
        lines.append(f"- {name}: " + "; ".join(f"{k} {s:g}/{c:g}/{f:g}" for k, (s, c, f) in per.items()))
    lines.append("\nVerdict counts (LOSO nli+coverage): " + "; ".join(
        f"{cs.name} " + ", ".join(f"{k} {v}" for k, v in sorted(rows[cs.name]['nli+coverage_counts'].items()))
        for cs in table))
    return "\n".join(lines)


def write_fit(base, sets, scores, model: Path) -> str:
    from offline_eval.modelstore import read_manifest, write_manifest
    from offline_eval.nli.config import CONFIG_FILE, dump_config

    cfg, m = fit(base, sets, scores, DESIGNS[SHIP])
    meta = {"design": SHIP, "fitted_on": "every set of benchmarks/verdict_sets.py (" + ", ".join(cs.name for cs in sets) +
                         "), each weighted equally, classes balanced; backend onnx-int8",
            "l2": 1.0, "thresholds": "grid maximising the mean balanced accuracy over those sets",
            "in_sample_mean_balanced_accuracy": round(m, 4),
            "loso": "see benchmarks/RESULTS.md, section verdicts: no reported figure is in-sample"}
    cfg = dataclasses.replace(cfg, combiner=dataclasses.replace(cfg.combiner, meta=meta))
    out = dump_config(cfg)
    old = json.loads((model / CONFIG_FILE).read_text(encoding="utf-8")) if (model / CONFIG_FILE).is_file() else {}
    if old.get("nuggets"):  # the nuggets stage's own decision (model card) is kept
        out["nuggets"] = old["nuggets"]
    (model / CONFIG_FILE).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    src = read_manifest(model)
    write_manifest(model, **{k: v for k, v in src.items() if k != "files"})
    return (f"Shipped fit (`{SHIP}`, all sets, in-sample mean {m:.3f}, not a result): support {cfg.support:g}, "
            f"contradict {cfg.contradict:g}, entail_floor {cfg.entail_floor:g}.")


if __name__ == "__main__":
    main()
