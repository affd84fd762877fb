"""How much of a row's references RAG mode builds its nuggets and comprehensiveness facts
from (``score --source-chars``, default :data:`~offline_eval.io.focus.SOURCE_CHARS`): what
each budget keeps under noise (writes the ``rag_sources`` section of benchmarks/RESULTS.md).

1. **WikiContradict dev** (16 questions, 400 labelled answers, two conflicting contexts a
   question). Each row is scored twice: against its two contexts, and against the same two
   placed among the contexts of the other 15 questions (30 off-topic distractors, about
   10,000 characters in all; the easy kind of retrieval noise). At each budget:
   comprehensiveness (``qa``, ``vital``) balanced accuracy against the human labels, as
   ``benchmarks/comprehensiveness.py`` computes it; and the nuggets built per question: the
   share that cite distractors only, and the share of the clean run's nugget texts found.
2. **Dev Factcheck-GPT answers** (the ``real_answers.py score`` rows: every human and web
   evidence text of the answer as a reference, about 20,000 characters a row, real noise):
   characters read, nuggets and vital nuggets per row, and the share of the every-reference
   run's nugget texts found.

Speed is measured by ``benchmarks/end_to_end.py``, which runs the Factcheck-GPT workload at
the default budget and with every reference in one run.

Run: ``python benchmarks/rag_sources.py [--budgets 0,10000,5000,3000] [--fc N] [--no-write]``
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402
from comprehensiveness import DATA, gold_labels, scores, to_label  # noqa: E402
from end_to_end import FCGPT, factcheck_rows  # noqa: E402


def distracted(rows: list[dict]) -> dict[str, list[tuple[str, str]]]:
    """Question -> its two contexts (``c1``, ``c2``) among the other questions' contexts
    (``d0``...), in an order fixed by the question's place."""
    ctx: dict[str, tuple[str, str]] = {}
    for r in rows:
        ctx.setdefault(r["question"], (r["context1_self_contained"], r["context2_self_contained"]))
    out = {}
    for k, (q, (a, b)) in enumerate(ctx.items()):
        noise = [t for q2, pair in ctx.items() if q2 != q for t in pair]
        srcs = [(f"d{j}", t) for j, t in enumerate(noise)]
        rng = random.Random(k)
        for sid, text in (("c1", a), ("c2", b)):
            srcs.insert(rng.randrange(len(srcs) + 1), (sid, text))
        out[q] = srcs
    return out


def read_chars(query: str, sources: list[tuple[str, str]], budget: int) -> int:
    """Characters of ``sources`` that a budget keeps."""
    from offline_eval.io.focus import query_sources
    from offline_eval.types import Reference

    return sum(len(r.text) for r in query_sources([Reference(sid, t) for sid, t in sources],
                                                   query, budget))


def nugget_texts(builder, queries: list[str], sources: list[list[tuple[str, str]]]):
    from offline_eval.types import Reference

    refs = [tuple(Reference(sid, text) for sid, text in s) for s in sources]
    return builder.build_many(queries, refs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budgets", default="0,10000,5000,3000",
                    help="source budgets in characters (0: every reference)")
    ap.add_argument("--fc", type=int, default=24, help="Factcheck-GPT rows")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found")
        return 0
    from offline_eval.coverage.api import load_decomposer, load_entailer
    from offline_eval.coverage.methods import comprehensiveness
    from offline_eval.io.focus import SOURCE_CHARS
    from offline_eval.nuggetization.builder import NuggetConfig
    from offline_eval.stages.nuggets import default_builder

    t_start = time.perf_counter()
    budgets = [int(b) for b in args.budgets.split(",")]
    budgets += [b for b in (0, SOURCE_CHARS) if b not in budgets]   # the baseline, the default
    rows = [json.loads(line) for line in DATA.open()]
    gold = gold_labels(rows)
    noisy = distracted(rows)
    entail, decompose = load_entailer(), load_decomposer()

    def coverage_ba(budget: int, noise: bool) -> float:
        pred = []
        for r in rows:
            srcs = noisy[r["question"]] if noise else [
                ("c1", r["context1_self_contained"]), ("c2", r["context2_self_contained"])]
            for i in range(5):
                cov = comprehensiveness(r["question"], srcs, r[f"answer{i}"], "qa", entail,
                                        decompose, "vital", source_chars=budget)
                pred.append(to_label(cov.score))
        return scores(gold, pred)[1]

    questions = list(noisy)
    clean_srcs = [[s for s in noisy[q] if s[0] in ("c1", "c2")] for q in questions]
    wc_lines = []
    for b in sorted(budgets, key=lambda x: (x != 0, -x)):
        builder = default_builder(NuggetConfig(source_chars=b))
        clean = nugget_texts(builder, questions, clean_srcs)
        dirty = nugget_texts(builder, questions, [noisy[q] for q in questions])
        n = sum(len(x) for x in dirty)
        off = sum(all(s.startswith("d") for s in nug.source_ids) for x in dirty for nug in x)
        kept = sum(len({g.text for g in c} & {d.text for d in x}) for c, x in zip(clean, dirty))
        chars = sum(read_chars(q, noisy[q], b) for q in questions)
        wc_lines.append(f"| {b or 'every reference'} | {coverage_ba(b, False):.3f} | "
                        f"{coverage_ba(b, True):.3f} | {n / len(questions):.1f} | "
                        f"{off / max(1, n):.0%} | {kept / max(1, sum(len(c) for c in clean)):.0%} |"
                        f" {chars / len(questions):,.0f} |")
        print(wc_lines[-1], flush=True)

    fc_lines = []
    if FCGPT.is_file() and args.fc:
        fc = factcheck_rows(args.fc)
        fc = [r for r in fc if r["references"]]
        queries = [r["query"] for r in fc]
        srcs = [[(f"r{i}", t) for i, t in enumerate(r["references"])] for r in fc]
        every = None
        for b in sorted(budgets, key=lambda x: (x != 0, -x)):
            built = nugget_texts(default_builder(NuggetConfig(source_chars=b)), queries, srcs)
            every = built if every is None else every
            read = [read_chars(q, s, b) for q, s in zip(queries, srcs)]
            kept = sum(len({g.text for g in e} & {d.text for d in x}) for e, x in zip(every, built))
            n = sum(len(x) for x in built)
            vital = sum(nug.importance == "vital" for x in built for nug in x)
            fc_lines.append(f"| {b or 'every reference'} | {sum(read) / len(fc):,.0f} | "
                            f"{n / len(fc):.1f} | {vital / len(fc):.1f} | "
                            f"{kept / max(1, sum(len(e) for e in every)):.0%} |")
            print(fc_lines[-1], flush=True)

    text = ["## Reference budget of RAG mode (`benchmarks/rag_sources.py`)", "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_description()}, "
            f"{time.perf_counter() - t_start:.0f} s. Nuggets and comprehensiveness facts are built "
            "from at most `--source-chars` characters of a row's references, those most relevant "
            "to its query by BM25 (the verify stage reads every reference); the library default "
            f"is {SOURCE_CHARS:,}. Embedded models only (syntactic decomposer, shipped ranker, "
            "nli-minilm on its default backend). Nothing here was fitted. The default is the "
            "size of a typical RAG context (five passages of 1,000 characters), set before this "
            "table was run; the table shows that the noise is kept out by the shared-word rule "
            "more than by the size.", "",
            "### WikiContradict dev: two contexts, then the same among 30 off-topic ones", "",
            "Comprehensiveness `qa` / `vital`, balanced accuracy over 400 human labels (the "
            "comprehensiveness section's protocol); nuggets per question (16) from the noisy "
            "sources.", "",
            "| budget (characters) | BA, two contexts | BA, with distractors | nuggets / question "
            "(noisy) | nuggets citing distractors only | clean nuggets found (noisy) | "
            "characters read / question (noisy) |",
            "|---|---|---|---|---|---|---|", *wc_lines]
    if fc_lines:
        text += ["", f"### Dev Factcheck-GPT answers: their human and web evidence ({len(fc)} rows)",
                 "", "| budget (characters) | characters read / row | nuggets / row | vital "
                 "nuggets / row | nuggets of the every-reference run found |",
                 "|---|---|---|---|---|", *fc_lines]
    text += ["", "How to read it: with every reference, noise enters the facts. The decomposer "
             "reads an off-topic sentence's \"it\" as the query's topic, so a distractor brings "
             "a key fact of its own (a viewpoint the answer cannot cover) and nuggets of its own. "
             "The importance ranker labels a share of each pool vital, so a larger pool means more "
             "vital nuggets, up to the cap of 30: with every reference, nearly every nugget of a "
             "Factcheck-GPT row is vital. Which Factcheck-GPT nuggets are right has no gold here; "
             "the last column says how far each budget moves them. Speed: the end-to-end "
             "section."]
    if not args.no_write:
        write_section("\n".join(text), "rag_sources")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
