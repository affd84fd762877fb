"""Gendered pronouns in context: the syntactic decomposer's claims for sentences whose he/she/
his/her/him refers back into their context, with and without gender agreement in the resolver
(writes the ``decontext`` section of RESULTS.md).

Rows: every row of the context-bearing sets of ``../shared/data/decomposition`` whose sentence
holds a gendered pronoun and that has gold claims. Each sentence is decomposed with its context
(the context's sentences are the earlier units of one request, the sentence its only target),
once as shipped and once with :func:`offline_eval.decomposition.resolve.gender_of` answering
None for every word (every person compatible with every pronoun, the resolver before
2026-12-07). Claims match gold one to one by all-MiniLM-L6-v2 cosine >= 0.8, as in
``decomposition.py``. Nothing here was fitted.

Run: ``python benchmarks/decontext.py [--no-write]``
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402
from decomposition import make_embedder, score  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "decomposition"
SETS = ["bingcheck/bingcheck_sentences.jsonl", "rose-acu/rose_acu_cnndm_test_sentences.jsonl",
        "propsegment/propsegment_dev.jsonl", "propsegment/propsegment_test.jsonl",
        "realsumm/realsumm_scu_sentences.jsonl", "halueval2/halueval2_sentences.jsonl",
        "vitalerrors-nq/vital_nq_dev_sentences.jsonl",
        "factcheck-gpt/factcheckgpt_dev_sentences.jsonl"]
GENDERED = re.compile(r"\b(he|she|his|her|hers|him)\b", re.IGNORECASE)


def rows_of(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [r for r in rows if r.get("context") and r.get("claims") and GENDERED.search(r["sentence"])]


def claims(rows: list[dict], agree: bool) -> list[list[str]]:
    from offline_eval.decomposition import resolve
    from offline_eval.decomposition.base import Request
    from offline_eval.decomposition.nlp import load_spacy
    from offline_eval.decomposition.splitting import split_responses
    from offline_eval.decomposition.syntactic import SyntacticDecomposer

    splits = split_responses([r["context"] for r in rows], load_spacy(mode="split"))
    reqs = [Request(r.get("query") or "", tuple(s.text for s in sp.sentences) + (r["sentence"],),
                    (len(sp.sentences),)) for r, sp in zip(rows, splits)]
    real = resolve.gender_of
    resolve.gender_of = real if agree else (lambda word: None)
    try:
        # in this process only: spaCy worker processes would not see the switch
        out = SyntacticDecomposer(workers=False).decompose_batch(reqs)
    finally:
        resolve.gender_of = real
    return [[c for sc in per for c in sc.claims] for per in out]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} not found")
        return 0
    t0 = time.perf_counter()
    embed = make_embedder()
    lines = ["| set | rows | rows whose claims change | F1 without | F1 with | P without / with | R without / with |",
             "|---|---|---|---|---|---|---|"]
    for name in SETS:
        path = DATA / name
        if not path.is_file():
            continue
        rows = rows_of(path)
        if not rows:
            continue
        before, after = claims(rows, False), claims(rows, True)
        gold = [r["claims"] for r in rows]
        a, b = score(before, gold, embed), score(after, gold, embed)
        changed = sum(x != y for x, y in zip(before, after))
        lines.append(f"| {path.name} | {len(rows)} | {changed} | {a['F1']:.3f} | {b['F1']:.3f} | "
                     f"{a['P']:.3f} / {b['P']:.3f} | {a['R']:.3f} / {b['R']:.3f} |")
        print(lines[-1], flush=True)
    text = "\n".join([
        "## Gendered pronouns in context (`benchmarks/decontext.py`)", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_description()}, "
        f"{time.perf_counter() - t0:.0f} s. The syntactic decomposer on every row of the context-bearing "
        "decomposition sets whose sentence holds he/she/his/her/hers/him and that has gold claims, the "
        "sentence decomposed after its context, with the resolver's gender agreement (shipped) and "
        "without it (every person compatible with every pronoun, as before 2026-12-07). Claims match "
        "gold one to one by all-MiniLM-L6-v2 cosine >= 0.8. Nothing here was fitted; the rule's word "
        "lists were written from general knowledge before this table was run, and its test sentences "
        "are self-written.", "", *lines, "",
        "How to read it: the rule changes only claims whose pronoun the resolver would have given to a "
        "person of the other gender, so most rows do not move; where they move, a claim about the "
        "wrong person becomes one about the right one, or keeps its pronoun when no person of that "
        "gender was named."])
    if not args.no_write:
        write_section(text, "decontext")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
