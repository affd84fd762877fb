"""RAG mode's reading of an item's references: does a claim's verdict depend on how its
evidence was cut into references? Writes the ``rag_context`` section of benchmarks/RESULTS.md.

Three labelled sets whose evidence comes in several pieces, each piece given as one
reference of a RAG item (``{"id", "text"}``), the claim searched in them (k = 5, the claim
alone as the query) and judged by the shipped verifier (``nli-minilm`` with its
``verifier.json``), every variant on the same claims in this one run:

- **WiCE dev**: the cited page as its lines, each line a reference (349 claims);
- **Factcheck-GPT dev claims**: each claim's human and web evidence snippets, each a
  reference; only the 30% of claims the NLI model never trained on;
- **Climate-FEVER claims**: each claim with its five evidence sentences (from different
  Wikipedia articles), each a reference; claim labels SUPPORTS against REFUTES and
  NOT_ENOUGH_INFO (DISPUTED dropped). The verdict table scores this set pair by pair; here a
  claim is judged on its five sentences at once.

Variants:

- ``references apart``: RAG mode before 2026-12-07: each reference chunked on its own (a line
  is a passage of its own), the assembled window drawn from one reference at a time;
- ``one context``: what ships: the references joined in order and chunked as one context
  (``offline_eval.index.chunk.chunk_context``), the assembled window drawn from all the
  claim's passages (``offline_eval.nli.assemble.context_pool``);
- ``one document, every window``: the evidence as one string, as ``offline-eval verify``
  reads plain strings: every window of it passes the overlap gate and the two with most
  claim words reach the model; no retrieval (not shipped for RAG mode: see RESULTS);
- ``verify objects``: the pieces as ``offline-eval verify``'s ``{"id", "text"}`` references,
  read since 2026-12-07 as one context (one passage of them all, every window read, the
  verdict cited by the piece that holds its window); ``verify objects, before``: read as
  before, each piece a document of its own, the first k of them read.

Measures: balanced accuracy of ``supported``; the share of false claims ``contradicted`` and
of true claims ``contradicted``; CPU seconds of retrieval and verification.

Run: ``python benchmarks/rag_context.py [--no-write]``
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402

import argparse
import json
import time
from typing import Any

import verdict_sets as vs

DATA = vs.DATA
K = 5
VARIANTS = ("references apart", "one context", "one document, every window",
            "verify objects, before", "verify objects")


def climate_claims() -> list[tuple[str, list[str], int]]:
    """Climate-FEVER claims with their evidence sentences, in file order."""
    claims: dict[str, tuple[str, list[str]]] = {}
    for r in vs._jsonl(DATA / "nli" / "climate_fever" / "climate_fever.jsonl"):
        claims.setdefault(r["hypothesis"], (r.get("claim_label") or "", []))[1].append(r["premise"])
    return [(c, ev, int(lab == "SUPPORTS")) for c, (lab, ev) in claims.items()
            if lab in ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")]


def sets() -> dict[str, list[tuple[str, list[str], int]]]:
    return {"WiCE dev, a reference a line": [(r.claim, r.evidence, r.y) for r in vs.wice(True).rows],
            "Factcheck-GPT dev claims never trained on, a reference a snippet":
                [(r.claim, r.evidence, r.y) for r in vs.factcheck()[0].rows],
            "Climate-FEVER claims, a reference an evidence sentence": climate_claims()}


def judge(verifier: Any, rows: list[tuple[str, list[str], int]], variant: str) -> tuple[list[str], float]:
    """Verdict labels of ``rows`` under ``variant``, and the CPU seconds it took."""
    from offline_eval.index.chunk import Document
    from offline_eval.index.searcher import SearchIndex, search
    from offline_eval.stages.retrieve import reference_index
    from offline_eval.nli.assemble import context_pool
    from offline_eval.types import Item, Reference

    from offline_eval.types import Evidence

    t0 = time.process_time()
    if variant == "one document, every window":
        judged = verifier.judge([(c, [t for t in ev if t.strip()]) for c, ev, _ in rows])
    elif variant == "verify objects":
        judged = verifier.judge([(c, [{"id": f"r{j}", "text": t} for j, t in enumerate(ev) if t.strip()])
                                 for c, ev, _ in rows])
    elif variant == "verify objects, before":  # each object its own document, the first k read
        judged = verifier.judge([(c, [Evidence(f"r{j}", t, doc_id=f"r{j}") for j, t in enumerate(ev)
                                      if t.strip()]) for c, ev, _ in rows])
    else:
        items, pools = [], []
        for i, (c, ev, _) in enumerate(rows):
            refs = tuple(Reference(f"r{j}", t) for j, t in enumerate(ev) if t.strip())
            if variant == "references apart":
                index = SearchIndex.from_documents([Document(r.id, r.text) for r in refs])
            else:
                index = reference_index(Item(f"i{i}", "", c, references=refs))
            hits = search(index, c, K)
            items.append((c, hits))
            pools.append(context_pool(hits, verifier.config.top_k) if variant == "one context" else None)
        judged = verifier.judge(items, pools)
    return [j.verdict.label for j in judged], time.process_time() - t0


def measures(rows: list[tuple[str, list[str], int]], labels: list[str]) -> dict[str, float]:
    y = [r[2] for r in rows]
    pos, neg = sum(y), len(y) - sum(y)
    tp = sum(t and lab == "supported" for t, lab in zip(y, labels))
    tn = sum((not t) and lab != "supported" for t, lab in zip(y, labels))
    return {"ba": 0.5 * (tp / pos + tn / neg),
            "false_contradicted": sum((not t) and lab == "contradicted" for t, lab in zip(y, labels)) / neg,
            "true_contradicted": sum(t and lab == "contradicted" for t, lab in zip(y, labels)) / pos}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-write", action="store_true", help="print, do not touch RESULTS.md")
    args = ap.parse_args()
    if not (DATA / "wice" / "claim_dev.jsonl").is_file():
        print("../shared/data is not here; nothing to measure")
        return
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import shared_runner

    path = resolve_model(None)
    verifier = Verifier(shared_runner(path, None, None, 32), load_config(path))
    out: dict[str, dict[str, dict[str, float]]] = {}
    counts = {}
    for name, rows in sets().items():
        counts[name] = (len(rows), sum(r[2] for r in rows),
                        sum(len([t for t in r[1] if t.strip()]) for r in rows) / len(rows))
        out[name] = {}
        for v in VARIANTS:
            labels, cpu = judge(verifier, rows, v)
            out[name][v] = {**measures(rows, labels), "cpu": cpu}
            print(name, v, {k: round(x, 3) for k, x in out[name][v].items()}, flush=True)

    lines = [
        "## RAG mode: the references as one context (`benchmarks/rag_context.py`, model `nli-minilm`)", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_description() or 'CPU'}. "
        "Each claim's evidence pieces are given as the references of a RAG item, the claim is "
        f"searched in them (k = {K}, the claim alone as the query) and judged by the shipped verifier "
        "(thresholds fitted on the 17 verdict sets, `verdicts` section; nothing here was fitted or "
        "tuned on these runs). Every variant runs on the same claims in this one run. *references "
        "apart*: RAG mode before 2026-12-07 (each reference chunked on its own, the assembled window "
        "from one reference at a time); *one context*: what ships (the references joined in order and "
        "chunked as one text, so short ones pack into passages that cite each reference they hold; "
        "the assembled window draws on all of the claim's passages); *one document, every window*: "
        "the evidence as one string, read as `offline-eval verify` reads plain strings (every window "
        "passes the overlap gate, no retrieval); *verify objects*: the pieces given to `offline-eval "
        "verify` as `{\"id\", \"text\"}` references, read as one context (what ships), and "
        "*before*: each its own document, the first five read.", "",
        "| set | claims (true) | references per claim | reading | balanced acc. | false claims contradicted | true claims contradicted | CPU s |",
        "|---|---|---|---|---|---|---|---|"]
    for name, res in out.items():
        n, pos, per = counts[name]
        for v in VARIANTS:
            m = res[v]
            lines.append(f"| {name} | {n} ({pos}) | {per:.1f} | {v} | {m['ba']:.3f} | "
                         f"{100 * m['false_contradicted']:.1f}% | {100 * m['true_contradicted']:.1f}% | "
                         f"{m['cpu']:.1f} |")
    lines += ["", "CPU s: retrieval (index build and search) and verification, this process.", ""]
    gains = "; ".join(f"{name.split(',')[0]} {res['references apart']['ba']:.3f} -> {res['one context']['ba']:.3f} "
                      f"(every window {res['one document, every window']['ba']:.3f})" for name, res in out.items())
    lines.append(
        f"Balanced accuracy, references apart -> one context: {gains}. The cost shows in the last "
        "columns: more claims are contradicted, false ones and on some sets true ones too, since "
        "the model now reads longer windows. *One document, every window* is not what RAG mode "
        "ships: a row's references may hold 200,000 characters, and RAG mode reads the top-k "
        "passages of them, which the row shows as the claim's evidence; reading every window "
        "would make the claim's evidence the whole context.")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "rag_context")


if __name__ == "__main__":
    main()
