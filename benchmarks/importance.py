"""Importance ranker vs the VITAL NQ human labels, leave-queries-out, and its speed.

Run: ``nice -n 10 .venv/bin/python benchmarks/importance.py`` (needs ../shared/data).
Writes the ``importance`` section of benchmarks/RESULTS.md.

Protocol (fixed before any held-out score was seen): 5-fold cross-validation grouped by
query (a query's three conditions stay in one fold), over 5 shuffles. In each outer
fold, the combiner's configuration (model kind x C x weight of the Factcheck-GPT weak
labels, ``offline_eval.importance.selection.GRID``) is chosen by an inner 5-fold
grouped CV on the outer training queries only, refitted on them, and scores the
held-out queries. The grid ensemble (a hypothesis fixed before its score was seen) skips
selection: all 18 configurations are fitted on the outer training queries, each one's
scores are z-scored with the mean and sd of its scores on the claims it was fitted on,
and the 18 z-scores are averaged (``offline_eval.importance.ensemble``). Labels are cut
by rank within each response at the pooled human proportions, or (the shipped recipe,
"grid ensemble + predicted proportions") at proportions predicted per response by the
12-model ensemble of ``offline_eval.importance.proportions``, fitted on the same
training queries' human labels.
gpt-4o's labels and order come from the same files and are scored against the same
human labels on the same claims.

Speed: the full rank stage (spaCy parse + MiniLM embeddings + combiner) over the same
claims, with the embedder on torch and on ONNX Runtime (fp32, int8), with the ranker's
default spaCy parse workers (started and loaded before the timing; their CPU time is
counted) and, for int8, without them, written to its own section (``--speed-only``
re-measures just that). The ONNX export is taken from the data
home (``--home``, default ``$OFFLINE_EVAL_HOME``), or made there by an explicit
``export_embedding`` call when absent.
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import cpu_description  # noqa: E402
from _results import write_section as _write_section  # noqa: E402

import argparse
import collections
import os
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))
import importance_data as data  # noqa: E402

from offline_eval.importance.combiner import Combiner  # noqa: E402
from offline_eval.importance.ensemble import fit_ensemble  # noqa: E402
from offline_eval.importance.features import FEATURES, percentile  # noqa: E402
from offline_eval.importance.proportions import GRID, fit_proportion_ensemble  # noqa: E402
from offline_eval.importance.ranker import ImportanceRanker, RankRequest, order_of  # noqa: E402
from offline_eval.importance.selection import (FitConfig, Labelled, cut_levels, fit,  # noqa: E402
                                               grouped_folds, select_config, subset)
from offline_eval.measures.agreement import weighted_kappa  # noqa: E402

OURS, FIXED = "ours (nested CV selection)", "fixed config (C=0.01, weak 4, two-logistic)"
ENSEMBLE = "ours (grid ensemble)"
PROPS = "ours (grid ensemble + predicted proportions)"
INV = {2: "vital", 1: "okay", 0: "less-important"}


def tau_b(r: data.LabelledResponse, rank_key: np.ndarray) -> float:
    """Kendall tau-b between the human order and ``rank_key`` (higher = earlier)."""
    pos = {c: i for i, c in enumerate(r.human_order)}
    return float(kendalltau(rank_key, [-pos[c] for c in r.claim_ids]).statistic)


def order_key(levels: np.ndarray) -> np.ndarray:
    """Higher = earlier in the ranker's order (by label, then response order)."""
    key = np.zeros(len(levels))
    for pos, i in enumerate(order_of([INV[int(v)] for v in levels])):
        key[i] = -pos
    return key


def summarise(rs, levels, keys, subset_) -> tuple[float, float, float]:
    """(kappa, exact agreement, mean tau-b) over responses ``subset_``."""
    h = np.concatenate([rs[i].human for i in subset_])
    p = np.concatenate([levels[i] for i in subset_])
    taus = [tau_b(rs[i], keys[i]) for i in subset_ if len(rs[i].claims) > 1]
    return weighted_kappa(h, p), float(np.mean(h == p)), float(np.nanmean(taus))


def cross_validate(nq: Labelled, weak: Labelled, repeats: int,
                   config: FitConfig | str | None):
    """Out-of-fold scores per shuffle, the (shuffle, held-out rows) of every fold, and
    the configuration used in each fold: ``config``, chosen by inner CV when None, or
    every configuration of the grid averaged when ``"ensemble"``."""
    runs, fold_sets, chosen = [], [], []
    for seed in range(repeats):
        scores: list[np.ndarray] = [np.zeros(0)] * len(nq.features)
        for test in grouped_folds(nq.groups, 5, seed):
            train = [i for i, g in enumerate(nq.groups) if g not in test]
            if config == "ensemble":
                cfg, comb = config, fit_ensemble(nq, train, weak)
            else:
                cfg = config or select_config(subset(nq, train), weak, seed=seed)[0]
                comb = fit(cfg, nq, train, weak)
            held = [i for i, g in enumerate(nq.groups) if g in test]
            for i in held:
                scores[i] = comb.score(nq.features[i])
            fold_sets.append((seed, held))
            chosen.append(cfg)
        runs.append(scores)
    return runs, fold_sets, chosen


def proportion_levels(nq: Labelled, runs, fold_sets, grid=GRID) -> list[list[np.ndarray]]:
    """Levels of the ensemble's out-of-fold scores ``runs`` cut at proportions predicted
    per response by a proportion ensemble (``grid``) fitted on that fold's training
    queries (human labels only); same folds as ``runs``."""
    levels: list[list[np.ndarray]] = [[np.zeros(0)] * len(nq.features) for _ in runs]
    for seed, held in fold_sets:
        hold = set(held)
        train = [i for i in range(len(nq.features)) if i not in hold]
        model = fit_proportion_ensemble([nq.features[i] for i in train],
                                        [nq.levels[i] for i in train], FEATURES, grid)
        for i in held:
            levels[seed][i] = cut_levels(runs[seed][i], model.predict(nq.features[i]))
    return levels


def proportion_notes(nq: Labelled, runs, fold_sets) -> str:
    """One line: pooled κ of each single member of the proportion grid, and of the
    oracle that cuts every response at its own human proportions."""
    h = np.concatenate(nq.levels)

    def pooled(levels) -> float:
        return float(np.mean([weighted_kappa(h, np.concatenate(run)) for run in levels]))

    singles = [pooled(proportion_levels(nq, runs, fold_sets, [g])) for g in GRID]
    oracle = pooled([[cut_levels(s, [(lv == 2).mean(), (lv == 1).mean(), (lv == 0).mean()])
                      for s, lv in zip(run, nq.levels)] for run in runs])
    fixed = pooled([[cut_levels(s) for s in run] for run in runs])
    return (f"Proportions, pooled κ of the grid ensemble's scores cut at: the fixed pooled "
            f"proportions {fixed:.3f}; each single (k, α) member of the proportion grid alone "
            f"{min(singles):.3f}-{max(singles):.3f} (mean {np.mean(singles):.3f}); the mean of "
            f"the 12 (shipped) {pooled(proportion_levels(nq, runs, fold_sets)):.3f}; each "
            f"response's own human proportions (an oracle, not a system) {oracle:.3f}.")


def transfer_note(nq: Labelled, weak: Labelled) -> str:
    """Out-of-domain check of the predicted proportions: fitted on all NQ queries (and the
    ensemble's members without weak labels), scored on Factcheck-GPT's most-important marks."""
    from offline_eval.importance.selection import GRID as FIT_GRID
    comb = fit_ensemble(nq, range(len(nq.features)), None,
                        grid=[g for g in FIT_GRID if g.weak_weight == 0])
    model = fit_proportion_ensemble(nq.features, nq.levels, FEATURES)
    h = np.concatenate(weak.levels)
    fixed = np.concatenate([cut_levels(comb.score(x)) for x in weak.features])
    pred = np.concatenate([cut_levels(comb.score(x), model.predict(x)) for x in weak.features])
    share = np.mean([model.predict(x)[0] for x in weak.features])
    k_fixed, k_pred = weighted_kappa(h, fixed), weighted_kappa(h, pred)
    verdict = "do not carry over" if k_pred < k_fixed else "carry over"
    return (f"Transfer check on Factcheck-GPT's most-important sentence/claim marks ({len(h)} "
            f"claims of {len(weak.features)} responses; a different scheme, {np.mean(h == 2):.0%} "
            f"vital), fitted on all NQ queries without the weak labels: κ {k_fixed:.3f} at the "
            f"fixed proportions, {k_pred:.3f} at the predicted ones (mean predicted vital share "
            f"{share:.0%}). The proportions learned from the NQ annotators {verdict} to that scheme.")


def agreement_tables(rs, systems, keys, fold_sets) -> list[str]:
    subsets = {c: [i for i, r in enumerate(rs) if r.condition == c] for c in data.CONDITIONS}
    subsets["pooled"] = list(range(len(rs)))
    lines = ["| system | condition | weighted κ (linear) | exact agreement | mean Kendall τ-b |",
             "|---|---|---|---|---|"]
    for name in systems:
        for cond, sub in subsets.items():
            m = np.array([summarise(rs, lv, kk, sub)
                          for lv, kk in zip(systems[name], keys[name])]).mean(0)
            lines.append(f"| {name} | {cond} | {m[0]:.3f} | {m[1]:.1%} | {m[2]:.3f} |")
    lines += ["", f"Spread across the {len(fold_sets)} test folds (each 7 held-out queries x 3 "
              "conditions, pooled κ; the same folds for every system):", "",
              "| system | folds | mean | std | min | median | max |", "|---|---|---|---|---|---|---|"]
    for name in systems:
        ks = np.array([summarise(rs, systems[name][min(run, len(systems[name]) - 1)],
                                 keys[name][min(run, len(keys[name]) - 1)], held)[0]
                       for run, held in fold_sets])
        lines.append(f"| {name} | {len(ks)} | {ks.mean():.3f} | {ks.std():.3f} | {ks.min():.3f} "
                     f"| {np.median(ks):.3f} | {ks.max():.3f} |")
    return lines


HERE = "onnx int8, parsing in this process only"


def embedders(home: Path | None, threads: int | None) -> dict[str, object]:
    """torch, and ONNX fp32 / int8 from the data home (exported there if absent), plus
    int8 run one batch at a time on one thread (the rank stage before parallel batches)."""
    import torch

    from offline_eval.modelstore import export_embedding
    from offline_eval.runners.embedding import exported_embedding_path, load_embedder
    path = exported_embedding_path(home)
    if not (path / "onnx" / "model.int8.onnx").is_file():
        path = export_embedding(home=home, quantize=True, force=path.exists())
    from offline_eval.runners.embedding_ort import OnnxEmbeddingRunner
    if threads:
        torch.set_num_threads(threads)
    return {"torch": load_embedder(backend="torch", device="cpu"),
            "onnx fp32": load_embedder(path, backend="onnx", device="cpu", precision="fp32",
                                       threads=threads),
            "onnx int8": load_embedder(path, backend="onnx", device="cpu", precision="int8",
                                       threads=threads),
            "onnx int8, one batch at a time": OnnxEmbeddingRunner(
                path, device="cpu", precision="int8", threads=1, parallel_batches=False)}


def torch_threads() -> int:
    import torch
    return torch.get_num_threads()


def _timed(fn, pool=None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads, plus those of ``pool``'s
    parse workers) of ``fn()``."""
    def cpu() -> float:
        return time.process_time() + (pool.cpu_seconds() if pool is not None else 0.0)
    w0, c0 = time.perf_counter(), cpu()
    fn()
    return time.perf_counter() - w0, cpu() - c0


def speed(rs, home: Path | None, repeats: int = 3, threads: int | None = None) -> list[str]:
    """claims/s of the full rank stage per embedder backend, and of its parts.

    Wall-clock rates on a shared box depend on what else runs, so each rate is also
    given per CPU-second of this process (all threads): a load-independent cost.
    """
    from offline_eval.decomposition.nlp import load_spacy
    from offline_eval.importance.ranker import SPACY_MODEL
    nlp = load_spacy(SPACY_MODEL, mode="parse")  # the pipeline the rank stage runs
    reqs = [RankRequest(r.query, r.claims, r.sentence_index) for r in rs]
    n = sum(len(r.claims) for r in rs)
    texts = [r.query for r in rs] + [c for r in rs for c in r.claims]
    model_dir = Path(__file__).resolve().parents[1] / "models" / "importance-ranker"
    runners = embedders(home, threads)
    rankers = {name: ImportanceRanker(model_dir, embedder=emb, nlp=nlp)
               for name, emb in runners.items()}
    runners[HERE] = runners["onnx int8"]
    rankers[HERE] = ImportanceRanker(model_dir, embedder=runners[HERE], nlp=nlp, parse_workers=0)
    best: dict[tuple[str, str], tuple[float, float]] = {}

    def keep(key: tuple[str, str], count: int, secs: tuple[float, float]) -> None:
        rate = (count / secs[0], count / max(secs[1], 1e-9))
        old = best.get(key, (0.0, 0.0))
        best[key] = (max(old[0], rate[0]), max(old[1], rate[1]))

    list(nlp.pipe(texts[:200]))
    for emb in runners.values():
        emb.predict(texts[:64])  # warm up
    workers = 0
    for ranker in rankers.values():  # start the parse workers, and wait until they have loaded
        ranker.features(reqs[:20])
        if ranker.parse_pool is not None:
            ranker.parse_pool.wait_ready(300)
            workers = sum(w.ready.is_set() for w in ranker.parse_pool.workers)
    for _ in range(repeats):  # interleaved, best of `repeats`, so load spikes hit all alike
        keep(("spaCy parse", ""), len(texts), _timed(lambda: list(nlp.pipe(texts, batch_size=256))))
        for name, ranker in rankers.items():
            if name != HERE:
                keep(("embed", name), len(texts), _timed(lambda: runners[name].predict(texts)))
            keep(("rank", name), n, _timed(
                lambda: [ranker.combiner.score(x) for x in ranker.features(reqs)], ranker.parse_pool))
    for ranker in rankers.values():
        ranker.close()
    parse = best[("spaCy parse", "")]
    lines = ["| embedder | full rank stage: claims/s | claims per CPU-second | embeddings alone: "
             "texts/s | texts per CPU-second |", "|---|---|---|---|---|"]
    for name in runners:
        r, e = best[("rank", name)], best.get(("embed", name))
        cells = f"{e[0]:.0f} | {e[1]:.0f}" if e and name != HERE else "(as onnx int8) | "
        lines.append(f"| {name} | {r[0]:.0f} | {r[1]:.0f} | {cells} |")
    onnx = runners["onnx int8"]
    lines += ["", f"spaCy `{SPACY_MODEL}` parse alone (all components are used by the "
              f"features; matrix products on numpy's BLAS, one thread): {parse[0]:.0f} texts/s, "
              f"{parse[1]:.0f} per CPU-second. Best of {repeats} interleaved runs over {n} claims "
              f"+ {len(rs)} queries. The ONNX embedders run {onnx.workers} batch(es) at once, one "
              "thread each (the runner's default on CPU): during the parse all but one of them "
              "embed, and the parsing thread joins them when it is done; `one batch at a time` "
              "is one thread embedding beside the parse (the rank stage before parallel "
              f"batches); torch runs on {torch_threads()} intra-op thread(s) beside the parse. "
              f"Every row but `{HERE}` also parses the claims in {workers} spaCy worker "
              "process(es) beside this one (the ranker's default `parse_workers`: one fewer "
              "than the CPUs, at most 3; started and loaded before the timing), whose CPU time "
              "the per CPU-second rates include; "
              f"`{HERE}` is the int8 row without them (`parse_workers=0`). "
              f"Load average {os.getloadavg()[0]:.1f} on this shared {len(os.sched_getaffinity(0))}"
              f"-vCPU box ({cpu_description()}; {time.strftime('%Y-%m-%d', time.gmtime())}), so the wall-clock rates are a floor; per CPU-second is the same work "
              "divided by the process's CPU time (all threads)."]
    return lines


CE_ALONE, CE_ENSEMBLE = "weak-label cross-encoder alone", "grid ensemble + cross-encoder"


def cross_encoder_rows(ckpt: Path, rs, fc, nq: Labelled, weak: Labelled, args, fold_sets):
    """Systems, order keys and a paragraph for a ``train_ce.py`` cross-encoder: alone (cut
    by rank) and as two more features of the grid ensemble (same folds as the others)."""
    import hashlib
    import json

    ce = data.cross_encoder_scores(ckpt, rs + fc, cache=args.cache)

    def widen(part: Labelled, scores) -> Labelled:
        return Labelled(tuple(np.column_stack([x, s, percentile(s)])
                              for x, s in zip(part.features, scores)), part.levels, part.groups)

    runs, folds, _ = cross_validate(widen(nq, ce[:len(rs)]), widen(weak, ce[len(rs):]),
                                    args.repeats, "ensemble")
    if folds != fold_sets:
        raise RuntimeError("cross-encoder CV folds differ from the other rows'")
    systems = {CE_ALONE: [[cut_levels(s) for s in ce[:len(rs)]]],
               CE_ENSEMBLE: [[cut_levels(s) for s in run] for run in runs]}
    keys = {CE_ALONE: [list(ce[:len(rs)])],
            CE_ENSEMBLE: [[order_key(lv) for lv in run] for run in systems[CE_ENSEMBLE]]}
    sha = hashlib.sha256((ckpt / "model.safetensors").read_bytes()).hexdigest()
    log_path = ckpt.parent / "train_log.json"
    log = json.loads(log_path.read_text()) if log_path.is_file() else {}
    text = (f"**Cross-encoder rows**: a MiniLM-L6 (query, claim) cross-encoder fine-tuned by "
            f"`models/importance-ranker/train_ce.py` on {log.get('examples', '?')} template-"
            f"question examples from the Wikipedia vital-articles leads (`weak_data.py`; no human "
            f"or LLM label, no NQ query), {log.get('steps', '?')} steps; weights sha256 "
            f"{sha[:12]}. *Alone*: its logit cut by rank. *Grid ensemble + cross-encoder*: the "
            f"grid ensemble with the logit and its within-response rank as two more features, "
            f"same folds.")
    return systems, keys, text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5, help="CV shuffles")
    ap.add_argument("--home", type=Path, default=None,
                    help="data home holding (or receiving) the ONNX embedder export")
    ap.add_argument("--no-speed", action="store_true", help="skip the throughput table")
    ap.add_argument("--speed-only", action="store_true",
                    help="only the throughput table (its own RESULTS section)")
    ap.add_argument("--threads", type=int, default=None,
                    help="ONNX embedders: batches at once, one thread each (default: the CPUs); "
                         "torch: intra-op threads (default: torch's)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--cache", type=Path, default=data.CACHE,
                    help="folder caching the features (spaCy + embeddings) as .npz, keyed by "
                         "texts, embedder and feature code (default: %(default)s)")
    ap.add_argument("--int8-check", action="store_true",
                    help="also score the fixed config on ONNX int8 embeddings (needs the "
                         "export in the data home)")
    ap.add_argument("--cross-encoder", type=Path, default=None, metavar="DIR",
                    help="a checkpoint from models/importance-ranker/train_ce.py: adds rows for "
                         "it alone and for the grid ensemble with its score and within-response "
                         "rank as two more features")
    args = ap.parse_args(argv)
    rs, fc = data.load(), data.load_factcheck()
    if not args.no_speed:
        text = "\n".join(["Speed of the rank stage (spaCy parse + MiniLM embeddings + "
                          "combiner) on CPU, by embedder backend:", ""]
                         + speed(rs, args.home, threads=args.threads))
        print(text)
        if not args.no_write:
            _write_section(f"### Importance ranker: speed (`benchmarks/importance.py`)\n\n"
                           f"{text}", "importance-speed")
    if args.speed_only:
        return 0
    nq, weak = data.labelled_features(rs, fc, cache=args.cache)
    runs, fold_sets, chosen = cross_validate(nq, weak, args.repeats, None)
    fixed_runs, _, _ = cross_validate(nq, weak, args.repeats, FitConfig())
    ens_runs, _, _ = cross_validate(nq, weak, args.repeats, "ensemble")
    col = FEATURES.index
    systems = {OURS: [[cut_levels(s) for s in run] for run in runs],
               ENSEMBLE: [[cut_levels(s) for s in run] for run in ens_runs],
               PROPS: proportion_levels(nq, ens_runs, fold_sets),
               FIXED: [[cut_levels(s) for s in run] for run in fixed_runs],
               "gpt-4o": [[np.array(r.gpt) for r in rs]],
               "query-word overlap": [[cut_levels(f[:, col("overlap")]) for f in nq.features]],
               "MiniLM cosine": [[cut_levels(f[:, col("cos_query")]) for f in nq.features]]}
    if args.cross_encoder is not None:
        ce_rows = cross_encoder_rows(args.cross_encoder, rs, fc, nq, weak, args, fold_sets)
        systems.update(ce_rows[0])
    gpt_keys = []
    for r in rs:
        pos = {c: i for i, c in enumerate(r.gpt_order)}
        gpt_keys.append(np.array([-pos.get(c, len(pos)) for c in r.claim_ids], dtype=float))
    keys = {name: [[order_key(lv) for lv in run] for run in systems[name]]
            for name in (OURS, ENSEMBLE, PROPS, FIXED)}
    if args.cross_encoder is not None:
        keys.update(ce_rows[1])
    keys["gpt-4o"] = [gpt_keys]
    keys["query-word overlap"] = [[f[:, col("overlap")] for f in nq.features]]
    keys["MiniLM cosine"] = [[f[:, col("cos_query")] for f in nq.features]]
    n_claims = sum(len(r.claims) for r in rs)
    counts = collections.Counter(c.label() for c in chosen).most_common()
    lines = [
        f"Leave-queries-out: 5-fold CV grouped by query x {args.repeats} shuffles on the "
        f"{len(set(nq.groups))} NQ queries x 3 conditions ({n_claims} claims with both human "
        f"and gpt-4o labels); human labels are the reference. Combiner: a linear score over "
        f"{len(FEATURES)} within-response standardised features, labels cut by rank at 15.2/30.8/54.0%, "
        "order = by label, then response order. **Ours** chooses its configuration in every "
        "outer fold by an inner 5-fold grouped CV on that fold's training queries only "
        "(grid: two-logistic or ordinal x C 0.003/0.01/0.03 x Factcheck-GPT weak-label weight "
        f"0/1/4, {len(fc)} weak responses); held-out queries are never used for fitting or "
        "selection. **Grid ensemble** (a hypothesis fixed before its score was seen) needs no "
        "selection: in every outer fold all 18 configurations of that grid are fitted on the "
        "training queries, each one's scores are z-scored with the mean and sd of its scores "
        "on the claims it was fitted on, and the 18 z-scores are averaged before the same "
        "rank cut; same outer folds as the other rows. The fixed-config row is the previous "
        "default, which was picked while looking at these same CV scores, so it is optimistic.",
        "",
        "**Grid ensemble + predicted proportions** (the shipped ranker) scores claims as the grid "
        "ensemble but cuts each response at its own predicted proportions: the vital share and "
        "the vital-or-okay share, each the mean of 12 ridge models (k = 2/4/6/8 screened "
        "response-level columns x α 10/30/100) over the claim count and the max and mean of "
        "every feature, fitted on the fold's training queries (human labels only), clipped to "
        "[0.02, 0.60] and [vital, 0.95]. It was designed after seeing how much per-response "
        "proportions matter on these queries (the oracle line below), and its grid and clip "
        "bounds were set on these CV scores, so this row is optimistic too.", ""]
    if args.cross_encoder is not None:
        diff = np.array([summarise(rs, systems[CE_ENSEMBLE][run], keys[CE_ENSEMBLE][run], held)[0]
                         - summarise(rs, systems[ENSEMBLE][run], keys[ENSEMBLE][run], held)[0]
                         for run, held in fold_sets])
        lines += [ce_rows[2] + f" Paired with the grid ensemble over the {len(diff)} test folds, "
                  f"the added features change pooled κ by {diff.mean():+.3f} ± {diff.std():.3f} "
                  f"(higher in {int((diff > 0).sum())} of {len(diff)} folds).", ""]
    lines += agreement_tables(rs, systems, keys, fold_sets)
    gain = np.array([summarise(rs, systems[PROPS][run], keys[PROPS][run], held)[0]
                     - summarise(rs, systems[ENSEMBLE][run], keys[ENSEMBLE][run], held)[0]
                     for run, held in fold_sets])
    lines += ["", proportion_notes(nq, ens_runs, fold_sets) + f" Paired with the grid ensemble "
              f"over the {len(gain)} test folds, the predicted proportions change pooled κ by "
              f"{gain.mean():+.3f} ± {gain.std():.3f} (higher in {int((gain > 0).sum())} of "
              f"{len(gain)} folds)."]
    lines += ["", transfer_note(nq, weak)]
    lines += ["", f"Configurations chosen by the inner CV ({len(chosen)} outer folds): "
              + "; ".join(f"{name} x{n}" for name, n in counts) + "."]
    if args.int8_check:
        from offline_eval.runners.embedding import exported_embedding_path, load_embedder
        int8 = load_embedder(exported_embedding_path(args.home), backend="onnx", device="cpu",
                             precision="int8")
        k = len(FEATURES)
        qranker = ImportanceRanker(combiner=Combiner(FEATURES, np.zeros(k), np.ones(k), np.zeros(k)),
                                   embedder=int8)
        q = Labelled(tuple(data.cached_features(
            qranker, [RankRequest(r.query, r.claims, r.sentence_index) for r in rs],
            "all-MiniLM-L6-v2 onnx cpu int8", args.cache)), nq.levels, nq.groups)
        qruns, _, _ = cross_validate(q, weak, args.repeats, FitConfig())
        kq = np.mean([weighted_kappa(np.concatenate(nq.levels),
                                     np.concatenate([cut_levels(s) for s in run]))
                      for run in qruns])
        kf = np.mean([summarise(rs, lv, kk, range(len(rs)))[0]
                      for lv, kk in zip(systems[FIXED], keys[FIXED])])
        lines += ["", f"Fixed config on ONNX int8 embeddings (NQ features only; the weak set "
                  f"stays fp32): pooled κ {kq:.3f} vs {kf:.3f} with fp32."]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        _write_section(f"## Importance ranker (`benchmarks/importance.py`)\n\n{text}", "importance")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
