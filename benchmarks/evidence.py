"""Evidence benchmark: is the evidence about the claim's subject, and does it decide right?

Writes the ``evidence`` section of benchmarks/RESULTS.md. Data: the probe set
``benchmarks/data/probe/claims.jsonl`` (160 claims written for this project about 80
wiki-vital subjects, half true, half false with one value changed, 48 naming a look-alike
subject; see its README), searched in the wiki-vital corpus with each claim's query, and
the bundled demo's ``normal`` answers scored end to end. Nothing here was fitted on it.

Each retrieval runs on the same claims in the same run, and the same verifier (the shipped
``nli-minilm`` with its ``verifier.json``) judges every one:

- ``bm25``: BM25 over the corpus (the claim plus its query's other words), top 5;
- ``subject, no guard``: the linked subject's and the query topic's passages first, then
  BM25 fills the 5 with any passage;
- ``subject``: the shipped order: linked passages first, then BM25 passages of other
  documents narrowed to their sentences that speak of a linked document (or, when the claim
  shares a word of their title, that name it; ``offline-eval score --retrieval subject``,
  the default);
- ``subject's article only``: the linked document's passages alone when a subject links
  (FActScore reads the topic's page), else BM25;
- ``... + dense re-rank``: the BM25 top 50 re-ranked by the cosine of the shipped
  all-MiniLM-L6-v2 embeddings of claim and passage before it fills the 5 (not shipped
  unless it earns its cost here);
- ``subject, name rule frame only``: the shipped retrieval, with the name rule as it was
  before it read a word alignment (``align_names=False``; its spelling guard stays).

Per retrieval: recall@1 and @5 of the subject's article; the share of claims whose deciding
evidence comes from another article (or an assembled window without its document);
balanced accuracy of ``supported``; the share of false claims caught (``contradicted`` or
audited ``incorrect``) and of true claims flagged the same way; retrieval time per claim.

Usage: nice -n 10 .venv/bin/python benchmarks/evidence.py [--no-write]
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "benchmarks" / "data" / "probe" / "claims.jsonl"
DEMO = ROOT / "examples" / "demo.jsonl"
K = 5
POOL = 50
FRAME_ONLY = "subject, name rule frame only"


class Reranker:
    """Dense re-ranking of a BM25 pool: cosine of the shipped all-MiniLM-L6-v2 embeddings
    of the claim and each passage (passage embeddings cached by id), ties by BM25 rank."""

    def __init__(self) -> None:
        from offline_eval.runners.embedding import shared_embedder

        self.embedder = shared_embedder()
        self.cache: dict[str, Any] = {}
        self.seconds = 0.0

    def __call__(self, claim: str, hits: list[Any]) -> list[Any]:
        t0 = time.process_time()
        todo = [h for h in hits if h.passage.id not in self.cache]
        if todo:
            for h, v in zip(todo, self.embedder.predict([h.passage.contents for h in todo])):
                self.cache[h.passage.id] = v
        q = self.embedder.predict([claim])[0]
        sims = [float(q @ self.cache[h.passage.id]) for h in hits]
        out = [h for _, _, h in sorted(zip((-s for s in sims), range(len(hits)), hits))]
        self.seconds += time.process_time() - t0
        return out


def retrieve(index: Any, mode: str, claim: str, query: str, rerank: Any) -> list[Any]:
    if mode == "bm25":
        hits = index.search(claim, K, query)
    elif mode == "bm25 + dense re-rank":
        hits = rerank(claim, index.search(claim, POOL, query))[:K]
    else:
        hits = index.search_about(claim, K, query, pool=POOL, guard=mode != "subject, no guard",
                                  order=rerank if mode.endswith("re-rank") else None)
        if mode == "subject's article only":  # FActScore's reading: the topic's page alone
            hits = [h for h in hits if h.found_by != "bm25"] or hits
    return [h.to_evidence() for h in hits]


def flagged(claim: str, verdict: Any, evidence: Sequence[Any]) -> bool:
    """Contradicted, or audited incorrect (the guideline audit of the claim as a core claim,
    with its evidence, as ``score`` audits it)."""
    from offline_eval.audit.rules import audit_claim
    from offline_eval.types import Claim

    if verdict.label == "contradicted":
        return True
    c = Claim("c", claim, verdict=verdict, evidence=tuple(evidence))
    return audit_claim(c, core=True).verdict == "incorrect"


def probe(index: Any, verifier: Any, rows: list[dict[str, Any]], mode: str,
          rerank: Any) -> dict[str, Any]:
    t0 = time.process_time()
    rerank.cache.clear()  # each mode pays for its own embeddings
    vectors = getattr(rerank.embedder, "_vectors", None)  # the embedder's own text cache too
    if vectors is not None:
        vectors.clear()
    evidence = [retrieve(index, mode, r["claim"], r["query"], rerank) for r in rows]
    ms = (time.process_time() - t0) / len(rows) * 1000
    judged = verifier.judge([(r["claim"], ev) for r, ev in zip(rows, evidence)])
    n = len(rows)
    at1 = sum(bool(ev) and ev[0].doc_id == r["subject"] for r, ev in zip(rows, evidence)) / n
    at5 = sum(any(e.doc_id == r["subject"] for e in ev) for r, ev in zip(rows, evidence)) / n
    other = nodoc = 0
    tp = fn = tn = fp = caught = wrong_flag = 0
    for r, j, ev in zip(rows, judged, evidence):
        v = j.verdict
        if v.label in ("supported", "contradicted", "inconclusive") and v.evidence is not None:
            doc = v.evidence.doc_id
            nodoc += doc is None
            other += doc != r["subject"]
        sup = v.label == "supported"
        if r["label"] == "true":
            tp, fn = tp + sup, fn + (not sup)
            wrong_flag += flagged(r["claim"], v, ev)
        else:
            fp, tn = fp + sup, tn + (not sup)
            caught += flagged(r["claim"], v, ev)
    n_true, n_false = tp + fn, tn + fp
    return {"recall@1": at1, "recall@5": at5, "decided_by_other": other / n,
            "no_doc": nodoc / n, "ba": (tp / n_true + tn / n_false) / 2,
            "false_caught": caught / n_false, "true_flagged": wrong_flag / n_true,
            "retrieval_ms": ms, "verdicts": [j.verdict.label for j in judged]}


def demo(retrieval: str, linker: Any) -> dict[str, Any]:
    """The demo's normal answers scored end to end: claims flagged, and flagged through
    another article than the claim's linked subject's."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.jsonl"
        subprocess.run([sys.executable, "-m", "offline_eval", "score", str(DEMO), "-o", str(out),
                        "--quiet", "--retrieval", retrieval], check=True, capture_output=True)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
    n = flag = other = 0
    shown = []
    for r in rows:
        if r.get("group") != "normal":
            continue
        for c in r["claims"]:
            n += 1
            bad = c["verdict"] == "contradicted" or (c["audit"] or {}).get("verdict") == "incorrect"
            if not bad:
                continue
            flag += 1
            doc = (c["decisive_evidence"] or {}).get("doc_id")
            subject = linker.subject(c["text"]).doc_id
            if subject is not None and doc != subject:
                other += 1
            shown.append(f"{c['text']!r} ({c['verdict']}, by {doc})")
    return {"claims": n, "flagged": flag, "flagged_by_other": other, "shown": shown}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    args = ap.parse_args()

    from offline_eval.index.searcher import open_corpus
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import shared_runner

    rows = [json.loads(line) for line in PROBE.read_text(encoding="utf-8").splitlines() if line]
    index = open_corpus("wiki-vital")
    t0 = time.perf_counter()
    linker = index.linker()
    link_s = time.perf_counter() - t0
    path = resolve_model(None)
    verifier = Verifier(shared_runner(path, None, None, 32), load_config(path))
    modes = ("bm25", "bm25 + dense re-rank", "subject, no guard", "subject",
             "subject's article only", "subject + dense re-rank")
    rerank = Reranker()
    res = {m: probe(index, verifier, rows, m, rerank) for m in modes}
    # the name rule before its word alignment (2026-12-07), on the shipped retrieval
    frame_only = Verifier(verifier.runner, dataclasses.replace(verifier.config, align_names=False))
    res[FRAME_ONLY] = probe(index, frame_only, rows, "subject", rerank)
    modes = (*modes, FRAME_ONLY)
    demos = {m: demo(m, linker) for m in ("bm25", "subject")}
    look = [i for i, r in enumerate(rows) if r["lookalike"]]

    def cell(m: str, key: str, pct: bool = False) -> str:
        v = res[m][key]
        return f"{100 * v:.1f}%" if pct else f"{v:.3f}"

    lines = [
        "## Evidence about the claim (`benchmarks/evidence.py`, corpus wiki-vital, model `nli-minilm`)",
        "",
        f"Probe set: {len(rows)} claims written for this project about "
        f"{len({r['subject'] for r in rows})} wiki-vital subjects, half true, half false with one "
        f"value of the lead changed; {len(look)} name a look-alike subject "
        "(`benchmarks/data/probe/`). Nothing was fitted or tuned on it; the verifier is the "
        "shipped one (decision fitted on 17 real sets, `verdicts` section). Every retrieval "
        "below runs on the same claims in this one run; k = 5; each claim's query is given. "
        "Three exceptions to \"nothing tuned\": the name rule's word "
        "alignment and its agent frame (\"discovered by X\" against \"discovered ... by Y\") "
        "were written after reading this probe's missed false claims, so the gap "
        "between `subject` and `subject, name rule frame only` is not a held-out figure (the "
        "`verdicts` and `verifier_rules` sections judge the rule on data it was not written "
        "from); and the guard's reading of another article (only its sentences whose subject is "
        "the claim's, unless the claim shares a word of that article's title) and the linking "
        "of a shared name by the claim's other words were written after reading the five probe "
        "claims that another article decided, so the `subject` rows' *decided by another "
        "article* is not held out either (all three of 2026-12-07); and the names of numbered "
        "works (\"Fifth Symphony\" for Symphony No. 5 (Beethoven)) were added after reading a "
        "probe claim that Beethoven's own lead decided (2026-12-08), so the four Beethoven "
        "symphony claims are not held out.",
        "",
        "| retrieval | recall@1 | recall@5 | decided by another article | balanced acc. | false caught | true flagged | retrieval ms/claim |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in modes:
        lines.append(f"| {m} | {cell(m, 'recall@1')} | {cell(m, 'recall@5')} | "
                     f"{cell(m, 'decided_by_other', True)} | {cell(m, 'ba')} | "
                     f"{cell(m, 'false_caught', True)} | {cell(m, 'true_flagged', True)} | "
                     f"{res[m]['retrieval_ms']:.1f} |")
    lines += [
        "",
        "*decided by another article*: the verdict (supported, contradicted or inconclusive) "
        "cites a passage of a document other than the subject's, or an assembled window with "
        "no document (none had no document: "
        + ", ".join(f"{m} {cell(m, 'no_doc', True)}" for m in modes) + "). *false caught*: "
        "false claims `contradicted` or audited `incorrect`; *true flagged*: true claims "
        "the same. Linking the corpus's titles takes "
        f"{link_s:.2f} s once per process.",
        "",
        "Look-alike claims only (balanced accuracy): "
        + ", ".join(f"{m} {_ba([rows[i] for i in look], [res[m]['verdicts'][i] for i in look]):.3f}"
                    for m in modes) + ".",
        "",
        "The demo's `normal` answers, scored end to end (`offline-eval score examples/demo.jsonl`):",
        "",
        "| retrieval | claims | flagged | flagged through another article than the subject's |",
        "|---|---|---|---|",
    ]
    for m, d in demos.items():
        lines.append(f"| {m} | {d['claims']} | {d['flagged']} | {d['flagged_by_other']} |")
    for m, d in demos.items():
        if d["shown"]:
            lines.append("")
            lines.append(f"Flagged with {m}: " + "; ".join(d["shown"]) + ".")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "evidence")


def _ba(rows: list[dict[str, Any]], verdicts: list[str]) -> float:
    pos = [v == "supported" for r, v in zip(rows, verdicts) if r["label"] == "true"]
    neg = [v != "supported" for r, v in zip(rows, verdicts) if r["label"] == "false"]
    return (sum(pos) / max(1, len(pos)) + sum(neg) / max(1, len(neg))) / 2


if __name__ == "__main__":
    main()
