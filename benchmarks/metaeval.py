"""Meta-evaluation of the precision/recall metrics (writes the ``metaeval`` section of
benchmarks/RESULTS.md): do they catch missing and wrong key information?

1. **VitalErrors NQ** (``../shared/data/vitalerrors-nq``, 35 queries x normal / missing /
   wrong GPT-4o responses): the score pipeline end to end on the response texts (corpus
   wiki-vital), then the files' own claims and importance labels through our retrieval
   and verifier, then the files' own judgments, so decomposition/importance error and
   verification error can be told apart. Normal -> wrong drops next to the paper's
   single-answer table (``../shared/data/vitalerrors-tables/summary.md``).
2. **Factcheck-GPT** (``../shared/data/factcheck-gpt/benchmark.jsonl``): each original
   response against its human revision, with the claims' human and web evidence as
   references (RAG mode): response-level detection; then the dataset's own claims with
   their own evidence through the verifier: claim-level F1 of the false class.
3. **Synthetic VitalErrors**: :mod:`offline_eval.metaeval.synthetic` variants of the demo
   answers and of answers built from wiki-vital leads, with references so nugget recall
   is defined: normal -> missing drop of VITAL recall, normal -> wrong drops of VITAL and
   FActScore precision, with paired tests.

Models load once; every part calls the pipeline on typed records.

Run: ``python benchmarks/metaeval.py [--parts vital,factcheck,synthetic] [--limit N]
[--wiki-n 40] [--no-write]`` (``--limit`` or a subset of parts prints without writing).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
VITAL = DATA / "vitalerrors-nq"
FCGPT = DATA / "factcheck-gpt" / "benchmark.jsonl"
DEMO = ROOT / "examples" / "demo.jsonl"
PREC = ("factscore_precision", "vital_precision", "linear_decay_precision")
SHORT = {"factscore_precision": "FActScore P", "vital_precision": "VITAL P",
         "linear_decay_precision": "linear-decay P", "vital_recall": "VITAL recall",
         "vital_rlp": "VITAL-RLP", "vital_rlr": "VITAL-RLR",
         "nugget_recall_strict_all": "nugget recall (strict, all)"}
# The paper's single-answer table (3,000 queries): normal -> wrong, normal -> missing.
PAPER = {"factscore_precision": (0.8247, 0.8253, 0.7657), "vital_precision": (0.7281, 0.7222, 0.4873),
         "linear_decay_precision": (0.7299, 0.7414, 0.5183), "vital_rlp": (0.4503, 0.4217, 0.8953),
         "vital_recall": (0.5244, 0.2745, 0.3670)}


# ---------------------------------------------------------------- shared helpers

class CachedRunner:
    """The NLI runner with a memo of (premise, hypothesis) -> probabilities. The int8
    model scores one pair at a time, so a cached pair is bit-identical to a fresh one."""

    def __init__(self, runner: Any) -> None:
        self._runner, self._memo = runner, {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> Any:
        import numpy as np

        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        if todo:
            for p, probs in zip(todo, self._runner.predict(todo)):
                self._memo[p] = probs
        return np.array([self._memo[p] for p in pairs]).reshape(len(pairs), len(self._runner.labels))


class Models:
    """The score pipeline's stages, built once, and the sub-pipelines made from them."""

    def __init__(self) -> None:
        from offline_eval.engines.spec import build_pipeline
        from offline_eval.modelstore import resolve_model
        from offline_eval.nli.config import load_config
        from offline_eval.pipeline import Pipeline
        from offline_eval.runners.load import shared_runner
        from offline_eval.score import ScoreOptions, score_specs
        from offline_eval.stages.verify import Verify

        path = resolve_model(None)
        self.verify = Verify(runner=CachedRunner(shared_runner(path)), config=load_config(path))
        stages = {s.name.split(".")[-2]: s for s in build_pipeline(
            score_specs(ScoreOptions(comprehensiveness=None))).stages}
        stages["verify"] = self.verify
        self.stages = stages

        def pipe(names: str, provided: Iterable[str] = ("item",)) -> Pipeline:
            return Pipeline([stages[n] for n in names.split()], provided=provided)

        full = "split decompose rank retrieve verify"
        self.score = pipe(full + " nuggets metrics audit")  # `offline-eval score`
        self.score_no_nuggets = pipe(full + " metrics audit")
        given = ("item", "claims", "order", "n2s", "deflection")
        self.check = pipe("retrieve verify metrics audit", given)  # given claims
        self.judged = pipe("metrics", given)  # given claims and judgments
        self.verify_only = pipe("verify", given)


def run(pipe: Any, records: Sequence[Any], batch: int = 16) -> list[Any]:
    """Records through ``pipe`` in batches; a failing record is reported and dropped
    (returned as None, so positions still match)."""
    out: list[Any] = []
    for i in range(0, len(records), batch):
        chunk = list(records[i:i + batch])
        try:
            out += pipe(chunk)
            continue
        except Exception:  # noqa: BLE001 - isolate the failing record below
            pass
        for r in chunk:
            try:
                out += pipe([r])
            except Exception as exc:  # noqa: BLE001 - reported, the benchmark goes on
                print(f"failed {r.id}: {exc}", file=sys.stderr)
                out.append(None)
    return out


def value(rec: Any, key: str) -> float | None:
    if rec is None:
        return None
    v = rec.metrics[key].value
    return None if v is None else float(v)


def mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def f3(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def pval(p: float | None) -> str:
    return "-" if p is None else f"{p:.1e}"


def comparisons(values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
                continuous: Sequence[str], binary: Sequence[str]) -> dict[tuple[str, str, str], Any]:
    """Paired tests (Holm within each family), keyed by (metric, a, b)."""
    from offline_eval.metrics.compare import compare_conditions

    return {(c.metric, c.a, c.b): c for c in compare_conditions(values, continuous, binary)}


def drop_cell(comp: Mapping[tuple[str, str, str], Any], metric: str, a: str, b: str) -> str:
    """``-x.x pts (n, p_t / p_W)`` for a continuous metric, ``x% -> y% (p)`` for a flag."""
    c = comp.get((metric, a, b))
    if c is None:
        return "-"
    t = c.test
    if hasattr(t, "mean_diff"):
        return (f"{-100 * t.mean_diff:+.1f} (n={t.n}; p={pval(c.p_holm[0])} / "
                f"{pval(c.p_holm[1])})")
    return f"{pct(t.rate_a)} -> {pct(t.rate_b)} (n={t.n}; {t.a_only}/{t.b_only}; p={pval(c.p_holm[0])})"


def metric_table(values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
                 keys: Sequence[str]) -> list[str]:
    lines = ["| condition | " + " | ".join(SHORT[k] for k in keys) + " | n |",
             "|---|" + "---|" * (len(keys) + 1)]
    for cond, rows in values.items():
        cells = []
        for k in keys:
            m = mean(r.get(k) for r in rows.values())
            cells.append(pct(m) if k in ("vital_rlp", "vital_rlr") else f3(m))
        lines.append(f"| {cond} | " + " | ".join(cells) + f" | {len(rows)} |")
    return lines


def by_condition(recs: Sequence[Any], cond: Callable[[Any], str], pair: Callable[[Any], str],
                 keys: Sequence[str]) -> dict[str, dict[str, dict[str, float | None]]]:
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for r in recs:
        if r is not None:
            out.setdefault(cond(r), {})[pair(r)] = {k: value(r, k) for k in keys}
    return out


# ---------------------------------------------------------------- 1. VitalErrors NQ

def part_vital(models: Models, limit: int) -> list[str]:
    from offline_eval.metaeval.vitalerrors import CONDITIONS, overlaps, read_triples, unjudged
    from offline_eval.types import Item, ResponseResult

    if not VITAL.is_dir():
        return ["### 1. VitalErrors NQ", "", f"Skipped: {VITAL} not found."]
    triples = read_triples(VITAL)[:limit or None]
    keys = (*PREC, "vital_rlp")
    jobs = [(t, c) for c in CONDITIONS for t in triples]
    settings = {
        "end to end": run(models.score, [ResponseResult(Item(t.id, t.query, t.text(c), meta={"group": c}))
                                         for t, c in jobs]),
        "given claims": run(models.check, [replace(unjudged(t.given[c]), item=replace(
            t.given[c].item, meta={"group": c})) for t, c in jobs]),
        "file judgments": run(models.judged, [replace(t.given[c], item=replace(
            t.given[c].item, meta={"group": c})) for t, c in jobs]),
    }
    lines = ["### 1. VitalErrors NQ subset (GPT-4o answers, 35 queries x normal / missing / wrong)", "",
             f"{len(triples)} queries. Three settings: **end to end** (our split, decomposition, "
             "importance, BM25 evidence from wiki-vital, NLI verdicts); **given claims** (the "
             "file's own claims and importance labels, our wiki-vital evidence and verdicts: only "
             "verification is ours); **file judgments** (the file's claims, labels and GPT-4o "
             "judgments with our metric code: what the paper's pipeline measured on these queries). "
             "Unverifiable claims count as unsupported; inconclusive ones are left out.", "",
             "| setting | condition | " + " | ".join(SHORT[k] for k in keys) + " | claims/resp. | unverifiable |",
             "|---|---|" + "---|" * (len(keys) + 2)]
    comps, values = {}, {}
    for name, recs in settings.items():
        values[name] = by_condition(recs, lambda r: r.item.meta["group"], lambda r: r.id, keys)
        comps[name] = comparisons(values[name], PREC, ("vital_rlp",))
        for cond in CONDITIONS:
            rs = [r for r in recs if r is not None and r.item.meta["group"] == cond]
            claims = [c for r in rs for c in r.claims]
            unv = (sum(c.verdict is not None and c.verdict.label == "unverifiable" for c in claims)
                   / len(claims)) if claims and name != "file judgments" else None
            cells = [pct(mean(values[name][cond][i][k] for i in values[name][cond]))
                     if k == "vital_rlp" else f3(mean(values[name][cond][i][k] for i in values[name][cond]))
                     for k in keys]
            lines.append(f"| {name} | {cond} | " + " | ".join(cells) +
                         f" | {len(claims) / max(1, len(rs)):.1f} | {pct(unv)} |")
    lines += ["", "Normal -> wrong (points; paired t-test / Wilcoxon p, Holm-corrected within each "
                  "setting; VITAL-RLP: rate normal -> wrong, discordant pairs, exact McNemar p). The "
                  "paper's figures are its single-answer table (3,000 queries, GPT-4o judge):", "",
              "| setting | " + " | ".join(SHORT[k] for k in keys) + " |", "|---|" + "---|" * len(keys),
              "| paper | " + " | ".join(
                  f"{100 * (PAPER[k][2] - PAPER[k][0]):+.1f}" if k != "vital_rlp"
                  else f"{pct(PAPER[k][0])} -> {pct(PAPER[k][2])}" for k in keys) + " |"]
    for name in settings:
        lines.append(f"| {name} | " + " | ".join(drop_cell(comps[name], k, "normal", "wrong")
                                                 for k in keys) + " |")
    lines += ["", "Normal -> missing (the paper: precision unchanged, "
                  f"{100 * (PAPER['factscore_precision'][1] - PAPER['factscore_precision'][0]):+.1f} / "
                  f"{100 * (PAPER['vital_precision'][1] - PAPER['vital_precision'][0]):+.1f} points):", "",
              "| setting | " + " | ".join(SHORT[k] for k in keys) + " |", "|---|" + "---|" * len(keys)]
    for name in settings:
        lines.append(f"| {name} | " + " | ".join(drop_cell(comps[name], k, "normal", "missing")
                                                 for k in keys) + " |")
    lines += ["", *vital_detection(triples, settings, overlaps), "", *vital_agreement(settings)]
    return lines


def vital_detection(triples: Sequence[Any], settings: Mapping[str, list[Any]],
                    overlaps: Callable[..., bool]) -> list[str]:
    """How often the claims of the rewritten sentence are flagged, in ``wrong`` and in the
    matching sentence of ``normal`` (the false-alarm rate)."""
    n = len(triples)
    lines = ["**Detection of the wrong key claim.** Each `wrong` response is its `normal` response "
             "with one sentence rewritten (found by aligning the files' sentence lists; "
             f"{sum(len(t.edited) == 1 for t in triples)} of {n} have exactly one). A response counts as detected when a claim from that "
             "sentence is not supported (unsupported or unverifiable) or, stricter, contradicted; "
             "the same rates on the original sentence of `normal` are the false alarms. "
             f"The file's own GPT-4o judgments mark a claim of the rewritten sentence false in "
             f"{sum(any(c.judgment is False for c in t.given['wrong'].claims if c.sentence in t.edited) for t in triples)}"
             f" of {n} (9 files carry only null judgments).", "",
             "| setting | claims from the sentence (wrong) | not supported: wrong / normal | "
             "contradicted: wrong / normal | VITAL-RLP fires: wrong / normal |",
             "|---|---|---|---|---|"]
    for name, recs in settings.items():
        per = {(r.id, r.item.meta["group"]): r for r in recs if r is not None}
        stats: dict[str, list[bool]] = {k: [] for k in ("has", "ns_w", "ns_n", "con_w", "con_n",
                                                         "rlp_w", "rlp_n")}
        for t in triples:
            w, nr = per.get((t.id, "wrong")), per.get((t.id, "normal"))
            if w is None or nr is None:
                continue
            cw, cn = aligned(w, t.edited, overlaps), aligned(nr, t.replaced, overlaps)
            stats["has"].append(bool(cw))
            stats["ns_w"].append(any(c.judgment is False for c in cw))
            stats["ns_n"].append(any(c.judgment is False for c in cn))
            stats["con_w"].append(any(c.verdict is not None and c.verdict.label == "contradicted" for c in cw))
            stats["con_n"].append(any(c.verdict is not None and c.verdict.label == "contradicted" for c in cn))
            stats["rlp_w"].append(value(w, "vital_rlp") == 1.0)
            stats["rlp_n"].append(value(nr, "vital_rlp") == 1.0)
        r = {k: (sum(v) / len(v) if v else None) for k, v in stats.items()}
        con = "-" if name == "file judgments" else f"{pct(r['con_w'])} / {pct(r['con_n'])}"
        lines.append(f"| {name} | {pct(r['has'])} | {pct(r['ns_w'])} / {pct(r['ns_n'])} | {con} | "
                     f"{pct(r['rlp_w'])} / {pct(r['rlp_n'])} |")
    return lines


def aligned(rec: Any, sentences: Sequence[str], overlaps: Callable[..., bool]) -> list[Any]:
    """The claims of ``rec`` that come from one of ``sentences``."""
    if rec.sentences:  # our split: match by character offsets
        text = rec.item.response
        return [c for c in rec.claims if c.sentence_index < len(rec.sentences) and overlaps(
            text, sentences, rec.sentences[c.sentence_index].start, rec.sentences[c.sentence_index].end)]
    return [c for c in rec.claims if c.sentence in sentences]  # the file's decomposition


def vital_agreement(settings: Mapping[str, list[Any]]) -> list[str]:
    """Our verdicts on the given claims against the file's GPT-4o judgments."""
    from offline_eval.metaeval.scoring import balanced_accuracy, confusion, f1

    ours = {(r.id, r.item.meta["group"]): r for r in settings["given claims"] if r is not None}
    gold, pred, undecided = [], [], 0
    for r in settings["file judgments"]:
        o = ours.get((r.id, r.item.meta["group"])) if r is not None else None
        if o is None:
            continue
        for cg, co in zip(r.claims, o.claims):
            if cg.judgment is None:
                continue
            if co.judgment is None:
                undecided += 1
                continue
            gold.append(cg.judgment is False)
            pred.append(co.judgment is False)
    c = confusion(gold, pred)
    return [f"**Our verifier against the file's judgments** (given claims, all conditions, "
            f"{len(gold)} claims with a GPT-4o judgment, {sum(gold)} of them false; {undecided} "
            f"inconclusive left out): balanced accuracy {f3(balanced_accuracy(gold, pred))}, F1 of "
            f"the false class {f3(f1(gold, pred))}, recall of false claims {f3(c.recall)}, of true "
            f"claims {f3(c.specificity)} (a constant 'false' gets F1 {f3(f1(gold, [True] * len(gold)))})."]


# ---------------------------------------------------------------- 2. Factcheck-GPT

def fc_heldout(claim: str) -> bool:
    """The 30% of Factcheck-GPT claims the NLI model never trained on (the recipe's split:
    ``models/recipes/nli_minilm/data.py``)."""
    return int(hashlib.sha256(("fc" + claim).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < 0.3


def part_factcheck(models: Models, limit: int) -> list[str]:
    from offline_eval.metaeval.factcheck import read_factcheck
    from offline_eval.metaeval.scoring import auroc, balanced_accuracy, confusion
    from offline_eval.types import Item, ResponseResult

    if not FCGPT.is_file():
        return ["### 2. Factcheck-GPT", "", f"Skipped: {FCGPT} not found."]
    rows = read_factcheck(FCGPT)[:limit or None]
    items = []
    for r in rows:
        if r.factual is None:
            continue
        items.append(Item(f"{r.id}:original", r.query, r.response, references=r.references,
                          meta={"group": "original", "factual": r.factual, "pair": r.id}))
        if r.revised.strip() and r.revised.strip() != r.response.strip():
            items.append(Item(f"{r.id}:revised", r.query, r.revised, references=r.references,
                              meta={"group": "revised", "factual": True, "pair": r.id}))
    recs = [x for x in run(models.score_no_nuggets, [ResponseResult(it) for it in items]) if x is not None]
    y = [not r.item.meta["factual"] for r in recs]  # positive class: the response has an error
    verdicts = [r.guideline.verdict if r.guideline else None for r in recs]
    preds = {
        "VITAL-RLP = 1": [value(r, "vital_rlp") == 1.0 for r in recs],
        "audit verdict incorrect or partially correct": [v in ("incorrect", "partially_correct") for v in verdicts],
        "audit verdict not correct": [v != "correct" for v in verdicts],
    }
    scores = {"1 - FActScore P": [1 - (value(r, "factscore_precision") or 1.0) for r in recs],
              "1 - VITAL P": [1 - (value(r, "vital_precision") or 1.0) for r in recs],
              "1 - linear-decay P": [1 - (value(r, "linear_decay_precision") or 1.0) for r in recs]}
    n_orig = sum(r.item.meta["group"] == "original" for r in recs)
    lines = ["### 2. Factcheck-GPT (ChatGPT answers, human claims, labels and evidence)", "",
             f"Response level: {n_orig} original responses with a label ({sum(y[i] for i, r in enumerate(recs) if r.item.meta['group'] == 'original')} "
             f"non-factual) and {len(recs) - n_orig} human revisions that differ from them (taken as "
             f"factual): {len(recs)} responses, {sum(y)} non-factual. References: the human and web "
             "evidence of all the response's claims, pooled (RAG mode, k=5); our own decomposition, "
             "importance and verdicts. A constant scores balanced accuracy 0.500 and AUROC 0.500.", "",
             "| predictor of 'non-factual' | balanced accuracy | recall (non-factual) | "
             "specificity (factual) |", "|---|---|---|---|"]
    for name, p in preds.items():
        c = confusion(y, p)
        lines.append(f"| {name} | {f3(balanced_accuracy(y, p))} | {f3(c.recall)} | {f3(c.specificity)} |")
    lines += ["", "| score (undefined counts as 0) | AUROC |", "|---|---|"]
    lines += [f"| {name} | {f3(auroc(y, s))} |" for name, s in scores.items()]
    pairs = by_condition(recs, lambda r: r.item.meta["group"], lambda r: r.item.meta["pair"], (*PREC, "vital_rlp"))
    comp = comparisons(pairs, PREC, ("vital_rlp",))
    lines += ["", "Original -> revised, paired on the responses that have both (points; p as in part 1): "
                  + "; ".join(f"{SHORT[k]} {drop_cell(comp, k, 'original', 'revised')}"
                              for k in (*PREC, "vital_rlp")) + ".", ""]
    return lines + fc_claims(models, rows)


def fc_claims(models: Models, rows: Sequence[Any]) -> list[str]:
    """The dataset's own claims with their own evidence through the verifier."""
    from offline_eval.metaeval.scoring import balanced_accuracy, confusion, f1
    from offline_eval.types import Claim, Evidence, Item, ResponseResult

    def evidence(c: Any, human: bool) -> tuple[Evidence, ...]:
        return tuple(Evidence(e.id, e.text, url=e.url) for e in c.evidence
                     if human or not e.id.endswith(".h"))

    claims = [c for r in rows for c in r.claims if c.label is not None]
    out = {}
    for setting, human in (("web evidence (5 retrieved passages)", False),
                           ("human evidence first, then web", True)):
        recs = [ResponseResult(Item(r.id, r.query, r.response), claims=tuple(
            Claim(c.id, c.text, evidence=evidence(c, human)) for c in r.claims if c.label is not None))
            for r in rows]
        got = {c.id: c for rec in run(models.verify_only, recs) if rec is not None for c in rec.claims}
        out[setting] = got
    lines = [f"Claim level: the {len(claims)} human claims labelled true or false "
             f"({sum(c.label is False for c in claims)} false), each verified against its own "
             "evidence. Predicted false = not supported (unsupported or unverifiable; an "
             "inconclusive verdict counts as not false), or, stricter, contradicted. The NLI model "
             "trained on the stance pairs of 70% of these claims (a hash split by claim); the "
             "held-out 30% is the fair figure. Published false-claim F1 (web evidence): 0.47 "
             "(Inst-LLaMA) to 0.63 (an agent on GPT-4). Target >= 0.50.", "",
             "| evidence | claims | false-claim F1 (not supported) | F1 (contradicted) | "
             "balanced accuracy | constant 'false' F1 |", "|---|---|---|---|---|---|"]
    for setting, got in out.items():
        for subset, keep in (("all", lambda c: True), ("held-out 30%", lambda c: fc_heldout(c.text))):
            cs = [c for c in claims if keep(c) and c.id in got]
            y = [c.label is False for c in cs]
            ns = [got[c.id].judgment is False for c in cs]
            con = [got[c.id].verdict is not None and got[c.id].verdict.label == "contradicted" for c in cs]
            lines.append(f"| {setting}, {subset} | {len(cs)} ({sum(y)} false) | {f3(f1(y, ns))} | "
                         f"{f3(f1(y, con))} | {f3(balanced_accuracy(y, ns))} | {f3(f1(y, [True] * len(y)))} |")
    web = out["web evidence (5 retrieved passages)"]
    labels = Counter(web[c.id].verdict.label for c in claims if c.id in web and web[c.id].verdict)
    lines += ["", "Verdicts with web evidence: " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())) + "."]
    return lines


# ---------------------------------------------------------------- 3. synthetic

def demo_items(k: int = 3) -> list[Any]:
    """The demo's normal answers, each with the top-``k`` wiki-vital passages for its
    query as references (so nuggets, and nugget recall, are defined)."""
    from offline_eval.index.searcher import open_corpus
    from offline_eval.io.items import read_items
    from offline_eval.types import Reference

    corpus = open_corpus("wiki-vital")
    out = []
    for it in read_items(DEMO):
        if it.meta.get("group") != "normal":
            continue
        refs = tuple(Reference(h.passage.id, h.passage.text, h.passage.url, h.passage.title or None)
                     for h in corpus.search(it.query, k))
        out.append(replace(it, references=refs, meta={"set": "demo"}))
    return out


def wiki_items(n: int) -> list[Any]:
    from end_to_end import wiki_rows  # the end-to-end workload, without its injected errors

    from offline_eval.io.items import parse_item

    return [replace(parse_item(row, "wiki", i), meta={"set": "wiki"})
            for i, row in enumerate(wiki_rows(n, inject_errors=False, references=True), start=1)]


def part_synthetic(models: Models, wiki_n: int) -> list[str]:
    from offline_eval.metaeval.synthetic import VariantGenerator
    from offline_eval.types import ResponseResult

    gen = VariantGenerator(seed=0)
    keys = ("vital_recall", *PREC, "vital_rlp", "vital_rlr")
    lines = ["### 3. Synthetic VitalErrors (`offline_eval/metaeval/synthetic.py`, seed 0)", "",
             "From each normal answer: **missing** drops the sentence holding the top-ranked claim "
             "(shipped ranker); **wrong** swaps the key value of the highest-ranked claim that has one "
             "(a number, year or ordinal moved 30% or more, 3-12 years, or 1-3 steps; a name replaced "
             "by another of the same spaCy type from the set and its references). Answers carry "
             "references (wiki answers: their own whole lead; demo answers: the top 3 wiki-vital "
             "passages for the query), which give the nuggets and the evidence (RAG mode). "
             "Paired tests on the sources that have both variants' values; p as in part 1.", ""]
    verdict = {}
    for name, items in (("demo (examples/demo.jsonl, normal rows)", demo_items()),
                        (f"wiki-vital answers ({wiki_n} leads, first 150 words)", wiki_items(wiki_n))):
        sets = gen.generate(items, extra_texts=[r.text for it in items for r in it.references])
        variants = [v for s in sets for v in (s.normal, s.missing, s.wrong) if v is not None]
        recs = run(models.score, [ResponseResult(v) for v in variants])
        values = by_condition(recs, lambda r: r.item.meta.get("group", "normal"),
                              lambda r: r.item.meta.get("source_id", r.id), keys)
        values = {c: values.get(c, {}) for c in ("normal", "missing", "wrong")}
        comp = comparisons(values, ("vital_recall", *PREC), ("vital_rlp", "vital_rlr"))
        edits = Counter(s.edit.label for s in sets if s.edit)
        ranks = Counter(s.wrong_rank for s in sets if s.wrong_rank)
        lines += [f"**{name}**: {len(sets)} answers; {sum(s.missing is not None for s in sets)} missing "
                  f"and {sum(s.wrong is not None for s in sets)} wrong variants (swapped: "
                  + ", ".join(f"{k} {v}" for k, v in edits.most_common()) + "; the swapped claim is "
                  f"the top-ranked one in {ranks.get(1, 0)}).", "", *metric_table(values, keys), "",
                  "| comparison | " + " | ".join(SHORT[k] for k in keys) + " |", "|---|" + "---|" * len(keys)]
        for a, b in (("normal", "missing"), ("normal", "wrong")):
            lines.append(f"| {a} -> {b} | " + " | ".join(drop_cell(comp, k, a, b) for k in keys) + " |")
        lines.append("")
        verdict[name] = {k: (comp.get((k, "normal", b)).test.mean_diff if comp.get((k, "normal", b)) else None)
                         for k, b in (("vital_recall", "missing"), ("vital_precision", "wrong"),
                                      ("factscore_precision", "wrong"))}
    lines += ["Targets: VITAL precision drops >= 20 points normal -> wrong, more than FActScore "
              "precision; VITAL recall drops >= 20 points normal -> missing.", "",
              "| set | VITAL recall drop (missing) | VITAL P drop (wrong) | FActScore P drop (wrong) | met |",
              "|---|---|---|---|---|"]
    for name, d in verdict.items():
        vr, vp, fs = (None if d[k] is None else 100 * d[k] for k in ("vital_recall", "vital_precision",
                                                                      "factscore_precision"))
        ok = vr is not None and vp is not None and fs is not None and vr >= 20 and vp >= 20 and vp > fs
        lines.append(f"| {name.split(' (')[0]} | {'-' if vr is None else f'{vr:.1f}'} | "
                     f"{'-' if vp is None else f'{vp:.1f}'} | {'-' if fs is None else f'{fs:.1f}'} | "
                     f"{'yes' if ok else 'no'} |")
    return lines


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="vital,factcheck,synthetic")
    ap.add_argument("--limit", type=int, default=0, help="first N queries / responses per part")
    ap.add_argument("--wiki-n", type=int, default=40, help="wiki-vital answers for part 3")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    parts = args.parts.split(",")
    t_start = time.perf_counter()
    models = Models()
    body, times = [], {}
    for part, fn in (("vital", lambda: part_vital(models, args.limit)),
                     ("factcheck", lambda: part_factcheck(models, args.limit)),
                     ("synthetic", lambda: part_synthetic(models, args.limit or args.wiki_n))):
        if part in parts:
            t0 = time.perf_counter()
            body += fn() + [""]
            times[part] = time.perf_counter() - t0
            print("\n".join(body), flush=True)
    head = ["## Meta-evaluation: do the metrics catch missing and wrong key information?", "",
            f"`benchmarks/metaeval.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{platform.machine()} with {os.cpu_count()} cores, 1-minute load average "
            f"{os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - t_start:.0f} s in all ("
            + ", ".join(f"{k} {v:.0f} s" for k, v in times.items()) + "). Embedded models only: "
            "syntactic decomposer, shipped importance ranker, BM25 (k=5), nli-minilm on its default "
            "backend; no LLM anywhere. VITAL-RLP = 1 when a decided vital claim is not supported.", ""]
    text = "\n".join(head + body)
    if not args.no_write and not args.limit and len(parts) == 3:
        write_section(text, "metaeval")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
