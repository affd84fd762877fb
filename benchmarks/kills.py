"""Durability of `offline-eval score` under kills, and the work a kill can lose.

Two parts, in one run:

* **kills**: a 200-row run (wiki-vital answers in corpus mode, every second with its whole
  lead as its reference), scored once uninterrupted, then again while it is killed 20 times
  at random points (SIGINT, SIGTERM or SIGKILL, drawn with a fixed seed) and continued each
  time with ``--resume``. Counted: rows ever complete on disk and missing after a later kill
  or at the end (lost rows), whether the "N of 200 rows are saved" line of SIGINT/SIGTERM
  tells the truth, each exit code, the seconds since the attempt's last write when the
  signal landed (the work in flight), and whether the finished file equals the
  uninterrupted run's byte for byte.
* **batches**: the same pipeline in-process on a corpus-mode and a RAG workload, with
  ``--batch-chars 0`` (32 rows a batch) and the default character bound: rows/s, seconds per
  batch (mean, max: what an interrupt can lose) and whether the rows are byte-identical.

Run: ``python benchmarks/kills.py`` (about 15 minutes on 2 cores; ``--no-write`` prints
instead of writing the ``kills`` section of RESULTS.md). The kill points are drawn in rows
(see :func:`killed_run`), so all 20 land before the run ends.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402
from end_to_end import FCGPT, factcheck_rows, wiki_rows  # noqa: E402

SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}


def kill_rows(n: int) -> list[dict]:
    """``n`` wiki-vital answers; every second carries its lead as its reference (RAG mode),
    so 32 rows outweigh the default ``--batch-chars`` and batches vary in size."""
    rag = wiki_rows(n, references=True)
    return [r if i % 2 else rag[i] for i, r in enumerate(wiki_rows(n))]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def complete_rows(path: Path) -> list[str]:
    """The ids of the complete lines of ``path`` (a torn last line left out)."""
    if not path.is_file():
        return []
    ids = []
    for line in path.read_bytes().split(b"\n"):
        try:
            ids.append(json.loads(line)["id"])
        except (ValueError, KeyError):
            continue
    return ids


def lines_on_disk(path: Path) -> int:
    """Complete lines of ``path``, counted without parsing them (cheap enough to poll)."""
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def default_sigint() -> None:
    """In the child: SIGINT back to its default. A shell starts background jobs with SIGINT
    ignored, which Python then keeps (no KeyboardInterrupt), so a benchmark run with ``&``
    would otherwise send SIGINT to a process that ignores it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def score_cmd(inp: Path, out: Path, resume: bool) -> list[str]:
    exe = Path(sys.executable).with_name("offline-eval")
    return [str(exe), "score", str(inp), "-o", str(out), "--quiet"] + (["--resume"] if resume else [])


def timed_first_row(inp: Path, out: Path) -> tuple[float, float]:
    """An uninterrupted run: (seconds to its first row on disk, seconds in all)."""
    t0 = time.monotonic()
    proc = subprocess.Popen(score_cmd(inp, out, False), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    first = None
    while proc.poll() is None:
        if first is None and lines_on_disk(out):
            first = time.monotonic() - t0
        time.sleep(0.2)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr.read()[-3000:])
    return first or time.monotonic() - t0, time.monotonic() - t0


def killed_run(inp: Path, out: Path, kills: int, first: float, total: float, n: int,
               seed: int) -> dict:
    """The run killed ``kills`` times at random points, resumed after each.

    The points are drawn in rows: ``kills`` sorted row counts, uniform over the first 60% of
    the run (the rest leaves room for the wait: rows land a batch at a time, so with 80% a
    wait could finish the run before its kill), each with a random wait after the output
    has reached it (up to the uninterrupted run's time to its first row: model loading and
    one batch), so kills land in loading, mid-batch and between batches. A kill that could
    not land (the run finished first) is reported, and fails the benchmark."""
    rng = random.Random(seed)
    targets = sorted(rng.randrange(n * 3 // 5) for _ in range(kills))  # room for the wait
    events = []
    seen: set[str] = set()        # every id ever complete on disk, over all attempts
    t_start = time.monotonic()
    for k, target in enumerate(targets):
        name = rng.choice(sorted(SIGNALS))
        extra = rng.uniform(0, first)
        start_lines = lines_on_disk(out)
        proc = subprocess.Popen(score_cmd(inp, out, k > 0), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
        t0, wall0 = time.monotonic(), time.time()
        while proc.poll() is None and lines_on_disk(out) < target:
            time.sleep(0.2)
        reached = time.monotonic()
        while proc.poll() is None and time.monotonic() - reached < extra:
            time.sleep(0.02)
        before = complete_rows(out)
        wrote = len(before) > start_lines          # this attempt has written a batch
        since = time.time() - (out.stat().st_mtime if wrote else wall0)
        if proc.poll() is None:
            proc.send_signal(SIGNALS[name])
        err = proc.communicate()[1]
        if proc.returncode == 0:         # it finished before the signal: the kill did not land
            events.append({"signal": None, "target": target})
            print(events[-1], flush=True)
            break
        seen |= set(before)
        after = complete_rows(out)
        m = re.search(r"(\d+) of \d+ rows are saved in", err)
        expected = {-9} if name == "SIGKILL" else {130, -2, -15}   # -2/-15: before Python's handler
        if proc.returncode not in expected:
            raise SystemExit(f"{name}: exit code {proc.returncode}\n{err[-3000:]}")
        events.append({"signal": name, "target": target, "extra_s": round(extra, 1),
                       "at_s": round(time.monotonic() - t0, 1), "rc": proc.returncode,
                       "before": len(before), "after": len(after),
                       "lost": len(seen - set(after)), "said": int(m.group(1)) if m else None,
                       "wrote": wrote, "since_s": since})
        print(events[-1], flush=True)
    proc = subprocess.run(score_cmd(inp, out, True), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    final_lost = len(seen - set(complete_rows(out)))
    return {"events": events, "wall": time.monotonic() - t_start, "final_lost": final_lost}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def child(inp: str, out: str, batch_chars: int) -> None:
    """One batch setting in this process: rows/s and the seconds of each batch."""
    from offline_eval.engines.local import run_local
    from offline_eval.engines.spec import build_pipeline
    from offline_eval.io.items import read_items
    from offline_eval.io.rows import score_row
    from offline_eval.scoring import ScoreOptions, score_specs
    from offline_eval.types import ResponseResult

    items = read_items(inp)
    pipe = build_pipeline(score_specs(ScoreOptions()))
    secs: list[float] = []
    sizes: list[int] = []

    class Timed:  # the same pipeline, timing each batch
        def __call__(self, batch, on_stage=None):
            t0 = time.perf_counter()
            sizes.append(len(batch))
            batch = pipe(batch, on_stage)
            secs.append(time.perf_counter() - t0)
            return batch

    pipe([ResponseResult(item=items[0])])  # warm-up: every model loaded outside the timing
    t0 = time.perf_counter()
    run_local(items, Timed(), Path(out), score_row, batch_size=32, batch_chars=batch_chars,
              progress=False)
    wall = time.perf_counter() - t0
    print(json.dumps({"n": len(items), "wall": wall, "batches": len(secs), "sizes": sizes,
                      "mean_s": sum(secs) / len(secs), "max_s": max(secs)}))


#: the default ``--batch-chars`` until 2026-12-07, measured beside the current one
EARLIER_BATCH_CHARS = 40_000


def batch_part(tmp: Path, corpus_n: int, rag_n: int) -> list[dict]:
    from offline_eval.engines.local import DEFAULT_BATCH_CHARS

    sets = [("corpus: wiki-vital answers", wiki_rows(corpus_n))]
    if FCGPT.is_file():
        sets.append(("RAG: dev Factcheck-GPT answers, their human and web evidence",
                     factcheck_rows(rag_n)))
    out = []
    for k, (name, rows) in enumerate(sets):
        inp = write_jsonl(tmp / f"b{k}.jsonl", rows)
        chars = sum(len(r["response"]) + sum(len(x if isinstance(x, str) else x["text"])
                                             for x in r.get("references") or []) for r in rows)
        digests = []
        for bc in sorted({0, EARLIER_BATCH_CHARS, DEFAULT_BATCH_CHARS}):
            o = tmp / f"b{k}-{bc}.jsonl"
            proc = subprocess.run([sys.executable, __file__, "--child", str(inp), str(o), str(bc)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(proc.stderr[-3000:])
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            digests.append(sha(o))
            out.append({"workload": name, "chars_per_row": chars / len(rows), "batch_chars": bc, **r})
            print(out[-1], flush=True)
        mine = out[-len(digests):]
        for r in mine:
            r["same_rows"] = len(set(digests)) == 1
            r["same_batches"] = all(x["sizes"] == mine[0]["sizes"] for x in mine)
    return out


def report(args: argparse.Namespace, n: int, ref: tuple[float, float], run: dict,
           same: bool, parts: list[dict]) -> str:
    ev = [e for e in run["events"] if e.get("signal")]
    missed = len(run["events"]) - len(ev) + (args.kills - len(run["events"]))
    lost = max([e["lost"] for e in ev] + [run["final_lost"]])
    told = [e for e in ev if e["said"] is not None]
    truthful = sum(e["said"] == e["after"] for e in told)
    silent = [e for e in ev if e["signal"] != "SIGKILL" and e["said"] is None]
    mid = sorted(e["since_s"] for e in ev if e["wrote"])
    cold = sorted(e["since_s"] for e in ev if not e["wrote"])
    by_sig = {s: sum(e["signal"] == s for e in ev) for s in sorted(SIGNALS)}

    def spread(xs: list[float]) -> str:
        return f"{xs[len(xs) // 2]:.1f} / {xs[-1]:.1f} (n={len(xs)})" if xs else "-"

    lines = ["## Kills (`benchmarks/kills.py`)", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()} with "
             f"{os.cpu_count()} cores ({cpu_description()}); default options (ONNX int8 verifier, "
             f"syntactic decomposer, batch 32 rows and `--batch-chars` default). Nothing here is "
             f"tuned: each kill lands once the output holds a row count drawn uniformly over the first 60% of the run (seed {args.seed}), "
             "plus a wait drawn up to the uninterrupted run's time to its first row, so kills "
             "land in model loading, mid-batch and between batches.", "",
             f"**{n} rows** (wiki-vital answers, corpus mode, every second with its lead as "
             f"reference, so batches vary in size): uninterrupted {ref[1]:.0f} s (first row on disk after {ref[0]:.0f} s). "
             f"Killed **{len(ev)} times** ({', '.join(f'{v} {k}' for k, v in by_sig.items())}) and "
             f"resumed each time: {run['wall']:.0f} s in all."
             + (f" **{missed} kill(s) did not land** (the run finished first)." if missed else ""),
             "",
             "| | |", "|---|---|",
             f"| rows ever on disk and missing after a later kill, or at the end | **{lost}** |",
             f"| SIGINT/SIGTERM runs whose 'N of {n} rows are saved' was the true count | "
             f"{truthful} of {len(told)} |",
             f"| SIGINT/SIGTERM that landed at Python start-up, before the handler (exit at once, "
             f"nothing in flight) | {len(silent)} |",
             f"| finished file byte-identical to the uninterrupted run | "
             f"{'yes' if same else '**no**'} |"]
    lines += [f"| seconds since the attempt's last write when the signal landed (the work in flight), "
              f"median / max | {spread(mid)} |",
              f"| seconds since the attempt began, for kills before its first write (model loading "
              f"included), median / max | {spread(cold)} |"]
    lines += ["", "Each kill: " + "; ".join(
        f"{e['signal']} at {e['at_s']} s, {e['before']}→{e['after']} rows" for e in ev) + ".", ""]
    if parts:
        lines += ["**Batches** (in-process, models loaded before timing; a batch is at most 32 "
                  "rows; the character bound adds at most `--batch-chars` characters of responses "
                  "and references):", "",
                  "| workload | characters / row | `--batch-chars` | rows | batches | rows/s | "
                  "s / batch, mean | s / batch, max | same rows |", "|---|---|---|---|---|---|---|---|---|"]
        for r in parts:
            lines.append(f"| {r['workload']} | {r['chars_per_row']:,.0f} | {r['batch_chars']:,} | "
                         f"{r['n']} | {r['batches']} | {r['n'] / r['wall']:.2f} | {r['mean_s']:.1f} | "
                         f"{r['max_s']:.1f} | {'yes' if r['same_rows'] else '**no**'} |")
        same = sorted({r["workload"] for r in parts if r["same_batches"]})
        lines += ["", "The max is what an interrupt can throw away (the batch in flight). Rows do "
                  "not depend on the bound: batches are cut from the input alone. "
                  f"{EARLIER_BATCH_CHARS:,} was the default bound until 2026-12-07."
                  + (f" Where every bound cuts the same batches as rows alone ({'; '.join(same)}), "
                     "the rows run identical work, so their difference in rows/s is run-to-run "
                     "noise on this box." if same else "")]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corpus-n", type=int, default=48, help="rows of the batches' corpus workload")
    ap.add_argument("--rag-n", type=int, default=12, help="rows of the batches' RAG workload")
    ap.add_argument("--no-batches", action="store_true")
    ap.add_argument("--child", nargs=3, metavar=("IN", "OUT", "BATCH_CHARS"))
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        inp = write_jsonl(tmp / "in.jsonl", kill_rows(args.n))
        ref = timed_first_row(inp, tmp / "ref.jsonl")
        print("uninterrupted", ref, flush=True)
        run = killed_run(inp, tmp / "out.jsonl", args.kills, *ref, args.n, args.seed)
        same = sha(tmp / "ref.jsonl") == sha(tmp / "out.jsonl")
        parts = [] if args.no_batches else batch_part(tmp, args.corpus_n, args.rag_n)
    text = report(args, args.n, ref, run, same, parts)
    print(text)
    if not args.no_write:
        write_section(text, "kills")
    landed = sum(bool(e.get("signal")) for e in run["events"])
    lost = max([e.get("lost", 0) for e in run["events"]] + [run["final_lost"]])
    return 0 if same and not lost and landed == args.kills else 1


if __name__ == "__main__":
    sys.exit(main())
