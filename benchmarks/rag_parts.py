"""Where RAG mode's time goes: the parts of the nuggets and comprehensiveness stages on the
dev Factcheck-GPT answers with their evidence (writes the ``rag_parts`` section of
RESULTS.md).

The rows are ``end_to_end.py``'s Factcheck-GPT RAG workload. Each run is its own process with
its models loaded before timing, the default pipeline (`score`'s stages, spaCy worker
processes as the CPUs allow). Timed inside the two stages: reading the references' facts
(split and decompose), embedding them (deduplication and the ranker's features), ranking,
grading the nuggets' support by NLI, and comprehensiveness's facts and NLI. Counted: facts
per row, the share of them that share no content word with the query (the comprehensiveness
rule of a relevant fact, :func:`offline_eval.coverage.facts.terms`), and the NLI pairs of
each stage. The same rows run a second time with the int8 runner's pair memory off
(``PAIR_MEMO = 0``), and the two output files are compared byte for byte.

Run: ``python benchmarks/rag_parts.py [--rag-n 24] [--no-write]``
"""
from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402
from end_to_end import FCGPT, factcheck_rows  # noqa: E402

#: the parts timed, in the order they run: (label, module, owner, attribute)
PARTS = [
    ("nuggets: the references' facts (split, decompose)", "offline_eval.nuggetization.reference_facts",
     "ReferenceFacts", "__call__"),
    ("nuggets: embedding the facts", "offline_eval.runners.embedding", "TextEmbedder", "predict"),
    ("nuggets: ranking (the facts' parse; vectors from the embedding)", "offline_eval.importance.ranker",
     "ImportanceRanker", "rank_many"),
    ("nuggets: support by NLI", "offline_eval.nuggetization.builder", None, "nugget_supports"),
    ("comprehensiveness: facts", "offline_eval.coverage.methods", None, "_facts_of"),
    ("comprehensiveness: NLI of facts no answer span decides", "offline_eval.coverage.methods", None,
     "_nli_covered"),
]


def child(inp: str, out: str, memo: bool) -> dict[str, Any]:
    """One run in this process: the parts' times, the counts, the output file."""
    import importlib

    from offline_eval.runners import pairs
    if not memo:
        pairs.PAIR_MEMO = 0
    from offline_eval.coverage.facts import terms
    from offline_eval.engines.local import run_local
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import read_items
    from offline_eval.io.rows import score_row
    from offline_eval.scoring import ScoreOptions, score_specs
    from offline_eval.stages import nuggets as nuggets_stage
    from offline_eval.types import ResponseResult

    times: collections.Counter[str] = collections.Counter()
    counts: collections.Counter[str] = collections.Counter()
    for label, module, owner, attr in PARTS:
        mod = importlib.import_module(module)
        host = getattr(mod, owner) if owner else mod
        real = getattr(host, attr)

        def timed(*a: Any, _real: Any = real, _label: str = label, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return _real(*a, **k)
            finally:
                times[_label] += time.perf_counter() - t
        setattr(host, attr, timed)
        if attr == "nugget_supports":   # the stage imported it by name
            nuggets_stage.nugget_supports = timed
    stage = None
    real_predict = pairs.PairClassifier.predict

    def counted(self: Any, inputs: Any) -> Any:
        inputs = list(inputs)
        counts[f"NLI pairs, {stage}"] += len(inputs)
        return real_predict(self, inputs)
    pairs.PairClassifier.predict = counted  # type: ignore[method-assign]

    items = read_items(inp)
    pipe = build_pipeline(score_specs(ScoreOptions()))

    class Timed:
        def __call__(self, batch: list[Any], on_stage: Any = None) -> list[Any]:
            nonlocal stage
            for st in pipe.stages:
                stage = st.name.split(".")[2]
                t0 = time.perf_counter()
                batch = st(batch)
                times[f"stage: {stage}"] += time.perf_counter() - t0
            return batch

    Timed()([ResponseResult(item=items[0])])   # every model loaded outside the timing
    times.clear()
    counts.clear()
    t0 = time.perf_counter()
    run_local(items, Timed(), Path(out), score_row, batch_size=32, progress=False)
    wall = time.perf_counter() - t0
    from offline_eval.io.focus import SOURCE_CHARS, query_sources
    from offline_eval.nuggetization.reference_facts import ReferenceFacts
    facts = ReferenceFacts("syntactic")   # the stages' facts, from memory
    n_facts = off_topic = 0
    for it in items:
        q = terms(it.query)
        refs = query_sources(it.references, it.query, SOURCE_CHARS)
        for fs in facts([(it.query, r.text) for r in refs]):
            n_facts += len(fs)
            off_topic += sum(not (q & terms(f)) for f in fs)
    return {"wall": wall, "times": dict(times), "counts": dict(counts), "rows": len(items),
            "facts": n_facts, "off_topic": off_topic}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rag-n", type=int, default=24)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", nargs=3, metavar=("IN", "OUT", "MEMO"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        inp, out, memo = args.child
        print(json.dumps(child(inp, out, memo == "1")))
        return 0
    if not FCGPT.is_file():
        print(f"skipped: {FCGPT} not found")
        return 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.jsonl"
        inp.write_text("".join(json.dumps(r) + "\n" for r in factcheck_rows(args.rag_n)), encoding="utf-8")
        runs, outs = {}, {}
        for memo in ("1", "0"):
            out = Path(tmp) / f"out{memo}.jsonl"
            proc = subprocess.run([sys.executable, __file__, "--child", str(inp), str(out), memo],
                                  capture_output=True, text=True, check=True)
            runs[memo] = json.loads(proc.stdout.strip().splitlines()[-1])
            outs[memo] = out.read_bytes()
    r = runs["1"]
    n = r["rows"]
    lines = ["| part | s (with the pair memory) | s (without) |", "|---|---|---|"]
    lines += [f"| {label} | {r['times'].get(label, 0.0):.1f} | {runs['0']['times'].get(label, 0.0):.1f} |"
              for label, *_ in PARTS]
    lines += [f"| {k} | {v:.1f} | {runs['0']['times'].get(k, 0.0):.1f} |"
              for k, v in r["times"].items() if k.startswith("stage: ") and v >= 0.05]
    lines += [f"| all {n} rows (wall) | {r['wall']:.1f} | {runs['0']['wall']:.1f} |"]
    asked = "; ".join(f"{k.removeprefix('NLI pairs, ')} {v}" for k, v in sorted(r["counts"].items()))
    text = "\n".join([
        "## Where RAG mode's time goes (`benchmarks/rag_parts.py`)", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu_description()}, "
        f"{time.perf_counter() - t0:.0f} s. The {n} dev Factcheck-GPT answers of `end_to_end.py`'s RAG "
        "workload with their human and web evidence, the default pipeline, each run in its own "
        "process with its models loaded before timing. Times are summed over calls (s); a part "
        "runs inside its stage.", "", *lines, "",
        f"Facts read from the references (at most `--source-chars` 5,000 characters a row): "
        f"{r['facts']} ({r['facts'] / n:.1f} a row); {r['off_topic']} of them "
        f"({r['off_topic'] / max(r['facts'], 1):.0%}) share no content word with the query. NLI pairs "
        f"asked, by stage (a pair asked twice counted twice): {asked}. Output files with and without the int8 runner's pair memory: "
        + ("byte-identical." if outs["1"] == outs["0"] else "**they differ**.")])
    if not args.no_write:
        write_section(text, "rag_parts")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
