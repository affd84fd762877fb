"""The whole ``score`` pipeline on one GPU box (writes the ``gpu_end_to_end`` section of
RESULTS.md when run on CUDA).

Workload: N wiki-vital answers of about 150 words (``end_to_end.wiki_rows``, every third
with a number changed), corpus wiki-vital, the default stages. Two engines, each in its own
process:

* **local**: ``end_to_end.py``'s child (the pipeline in one process, every stage timed),
  NLI on ``--backend torch --device cuda`` (the fp32 weights; the shipped ONNX file is int8,
  a CPU format), ``--batch-size`` pairs per forward pass;
* **ray**: ``offline-eval score --engine ray`` with ``--actors`` per stage and a fraction of
  the GPU per NLI actor (``--num-gpus-per-actor``), the CPU stages (spaCy, BM25, the
  ranker) on CPU actors; the whole process timed, Ray's start included.

While each runs, ``nvidia-smi`` is sampled every 0.5 s for GPU utilisation and memory
(none on a box without it); the samples cover the whole process, model loads included,
so the mean understates the utilisation of the timed part. Reported: responses/s, GPU utilisation (mean and peak),
peak GPU memory, the per-stage split (local), peak RSS. Target: at least 200 responses/s.

Run on the GPU box: ``python benchmarks/gpu_end_to_end.py [-n 2000] [--batch-size 256]
[--actors 4] [--num-gpus-per-actor 0.08] [--spacy-workers 15]``. ``--device cpu`` runs the same code on CPU (the
test suite does, with a few rows, and writes nothing).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _results import cpu_description, write_section  # noqa: E402

TARGET_RPS = 200.0


class GpuSampler:
    """``nvidia-smi`` every ``every`` seconds in a thread: utilisation % and memory MB."""

    def __init__(self, every: float = 0.5) -> None:
        self.every, self.util, self.mem, self.failed = every, [], [], 0
        self.tool = shutil.which("nvidia-smi")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        # the first GPU this process may use (CUDA_VISIBLE_DEVICES), else GPU 0
        first = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip() or "0"
        while not self._stop.is_set():
            try:
                out = subprocess.run([self.tool, f"--id={first}",
                                      "--query-gpu=utilization.gpu,memory.used",
                                      "--format=csv,noheader,nounits"], capture_output=True,
                                     text=True, timeout=5).stdout.strip().splitlines()
                u, m = (float(x) for x in out[0].split(",")[:2])
            except (subprocess.SubprocessError, OSError, IndexError, ValueError):
                self.failed += 1   # "[N/A]" (MIG, some boards), a hung tool: that sample only
            else:
                self.util.append(u)
                self.mem.append(m)
            self._stop.wait(self.every)

    def __enter__(self) -> "GpuSampler":
        if self.tool:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.tool:
            self._thread.join()

    def summary(self) -> dict:
        if not self.util:
            return {"gpu_util_mean": None, "gpu_util_max": None, "gpu_mem_mb": None}
        return {"gpu_util_mean": sum(self.util) / len(self.util), "gpu_util_max": max(self.util),
                "gpu_mem_mb": max(self.mem)}


def run_local(inp: Path, out: Path, device: str, batch: int, spacy_workers: int | None = None) -> dict:
    """``end_to_end.py``'s child: the pipeline in one process (its spaCy work shared with
    ``spacy_workers`` worker processes; None: the library's default), every stage timed."""
    from offline_eval.spacy_workers import WORKERS_ENV
    env = dict(os.environ, **({} if spacy_workers is None else {WORKERS_ENV: str(spacy_workers)}))
    with GpuSampler() as gpu:
        proc = subprocess.run([sys.executable, str(HERE / "end_to_end.py"), "--child", str(inp),
                               "torch" if device == "cuda" else "onnx", device, str(out),
                               "--batch-size", str(batch)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), **gpu.summary()}


def run_ray(inp: Path, out: Path, device: str, batch: int, actors: int, gpus: float) -> dict:
    """``offline-eval score --engine ray``, the whole process timed."""
    from scale_ray import timed_score

    extra = ["--engine", "ray", "--actors", str(actors), "--batch-size", str(batch),
             "--device", device]
    if device == "cuda":
        extra += ["--backend", "torch", "--num-gpus-per-actor", str(gpus)]
    with GpuSampler() as gpu:
        r = timed_score(inp, out, extra)
    return {"rps": (r["n"] or 0) / r["wall"], "wall": r["wall"], "rss_mb": r["rss_mb"],
            "cpu_s": r["cpu_s"], "failed": r["failed"], **gpu.summary()}


def _workers(given: int | None) -> int:
    """The spaCy worker count the local engine runs with."""
    if given is not None:
        return given
    from offline_eval.spacy_workers import default_workers
    return default_workers()


def _fmt(v: float | None, spec: str) -> str:
    return "–" if v is None else format(v, spec)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--device", default=None,
                    help="cuda (the default; without a CUDA device nothing runs) or cpu")
    ap.add_argument("--engines", default="local,ray")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--actors", type=int, default=4)
    ap.add_argument("--num-gpus-per-actor", type=float, default=0.08)
    ap.add_argument("--spacy-workers", type=int, default=None,
                    help="spaCy worker processes of the local engine (default: the library's, "
                    "one fewer than the CPUs, at most 8)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    device = args.device
    if device is None:
        import torch
        if not torch.cuda.is_available():   # `make bench` on a CPU box: say so, run nothing
            print("no CUDA device: nothing run (pass --device cpu to run the same code on CPU)")
            return {"device": None, "results": {}, "lines": []}
        device = "cuda"
    from end_to_end import wiki_rows

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.jsonl"
        rows = wiki_rows(args.n)
        inp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        for engine in args.engines.split(","):
            if engine == "local":
                results["local"] = run_local(inp, Path(tmp) / "local.jsonl", device,
                                             args.batch_size, args.spacy_workers)
            elif engine == "ray":
                try:
                    import ray  # noqa: F401
                except ImportError:
                    print("ray is not installed (the ray extra): the ray engine is skipped")
                    continue
                results["ray"] = run_ray(inp, Path(tmp) / "ray", device, args.batch_size,
                                         args.actors, args.num_gpus_per_actor)
            else:
                raise SystemExit(f"unknown engine {engine!r}; valid: local, ray")
            print(engine, json.dumps(results[engine]), flush=True)
    lines = ["## The whole pipeline on one GPU box (`benchmarks/gpu_end_to_end.py`)", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()} with "
             f"{os.cpu_count()} cores ({cpu_description()}), device {device}. {len(rows)} "
             "wiki-vital answers of ~150 words, corpus wiki-vital, default stages, NLI "
             f"{'torch fp32' if device == 'cuda' else 'onnx int8'}, batch {args.batch_size}"
             f"; local: its spaCy work shared with {_workers(args.spacy_workers)} spaCy worker "
             f"process(es); ray: {args.actors} actors per stage, {args.num_gpus_per_actor} GPU per NLI "
             "actor, its start inside the timing.", "",
             "| engine | responses/s | wall s | GPU util mean / peak % | GPU memory MB | "
             "peak RSS MB | failed |", "|---|---|---|---|---|---|---|"]
    for engine, r in results.items():
        lines.append(f"| {engine} | {r['rps']:.1f} | {r['wall']:.1f} | "
                     f"{_fmt(r['gpu_util_mean'], '.0f')} / {_fmt(r['gpu_util_max'], '.0f')} | "
                     f"{_fmt(r['gpu_mem_mb'], '.0f')} | {r['rss_mb']:.0f} | {r['failed']} |")
    if "local" in results:
        stages = results["local"]["stages"]
        total = sum(stages.values()) or 1.0
        lines += ["", "Local engine, time per stage (s, and share):", "",
                  "| stage | s | share |", "|---|---|---|"]
        lines += [f"| {k} | {v:.1f} | {100 * v / total:.0f}% |" for k, v in stages.items()]
    best = max((r["rps"] for r in results.values()), default=0.0)
    lines += ["", f"Target: >= {TARGET_RPS:.0f} responses/s: {best:.1f} at best "
              f"({'met' if best >= TARGET_RPS else 'not met'})."]
    print("\n".join(lines))
    if device == "cuda" and not args.no_write:
        write_section("\n".join(lines), "gpu_end_to_end")
    return {"device": device, "results": results, "lines": lines}


if __name__ == "__main__":
    main()
