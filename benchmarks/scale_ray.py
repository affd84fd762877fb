"""Scale-out: ``offline-eval score`` on the local engine vs the Ray engine (writes the
``scale_ray`` section of RESULTS.md).

Workload: the end-to-end benchmark's (``end_to_end.workload``: N wiki-vital leads, every
third with a number changed), scored with the default ``score`` settings (corpus wiki-vital,
syntactic decomposer, the embedded NLI model on its default backend, k=5, batch 32). Each
configuration is one ``offline-eval score`` process timed from start to exit, so imports,
model loads and, for Ray, starting a local instance are all inside: the local engine, then
``--engine ray --actors A`` for each A (actors per model stage). The Ray
rows are compared with the local rows (byte-identical after sorting by id). Ray's start-up
alone is timed in a separate process that starts and stops a local instance the way the
engine does. Peak memory is the summed RSS of the process tree, sampled every 0.5 s
(shared pages, e.g. the memory-mapped index, count once per process).

Needs the ``ray`` extra; without it the script says so and exits 0 (``make bench`` runs it).

Run: ``python benchmarks/scale_ray.py [-n 40] [--actors 1,2] [--no-write]``
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
from _results import write_section  # noqa: E402
from end_to_end import workload  # noqa: E402

# Loopback only, no usage report; the engine also sets the first for a local instance.
ENV = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def _sample_tree(pid: int, cpu: dict[int, float]) -> float:
    """Summed RSS (MB) of ``pid`` and its descendants; records each one's CPU seconds in ``cpu``."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for p in procs:
        try:
            with p.oneshot():
                total += p.memory_info().rss
                t = p.cpu_times()
                cpu[p.pid] = max(cpu.get(p.pid, 0.0), t.user + t.system)
        except psutil.Error:
            continue
    return total / 2**20


def timed_score(inp: Path, out: Path, extra: list[str]) -> dict:
    """One ``offline-eval score`` process: wall, time to the first row, peak RSS and CPU
    seconds of its process tree (sampled every 0.5 s), load average before and after."""
    rows_file = out / "scores.jsonl" if "ray" in extra else out
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "offline_eval", "score", str(inp), "-o", str(out),
                             "--quiet", *extra], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = None
    peak = 0.0
    cpu: dict[int, float] = {}
    while proc.poll() is None:
        peak = max(peak, _sample_tree(proc.pid, cpu))
        if first is None and rows_file.is_file() and rows_file.stat().st_size:
            first = time.perf_counter() - t0
        time.sleep(0.5)
    wall = time.perf_counter() - t0
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"score {' '.join(extra)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    m = re.search(r"scored (\d+) responses \((\d+) failed.*? in ([\d.]+)s", stdout)
    return {"wall": wall, "first_row": first, "run_s": float(m.group(3)) if m else None,
            "n": int(m.group(1)) if m else None, "failed": int(m.group(2)) if m else None,
            "rss_mb": peak, "cpu_s": sum(cpu.values()), "load": (load0, os.getloadavg()[0]),
            "rows": rows_file}


def ray_startup() -> float:
    """Seconds to start and stop a local Ray instance as the engine does (own process)."""
    code = ("import os, time; t = time.perf_counter(); import ray; "
            "ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False); "
            "ray.shutdown(); print(time.perf_counter() - t)")
    proc = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    return float(proc.stdout.strip().splitlines()[-1])


def sorted_rows(path: Path) -> list[str]:
    return sorted(path.read_text(encoding="utf-8").splitlines(), key=lambda x: json.loads(x)["id"])


def gpu_section(n_gpu: int) -> list[str]:
    # no shares copied from the end_to_end section: copies went stale when it was rerun
    return [
        "How it should scale on a GPU cluster. No GPU run has been made (none was available to "
        "this benchmark), so this is the expected behaviour, not a measurement:", "",
        "- **Bottleneck.** In corpus mode on CPU the verifier (NLI over k=5 passages per claim) "
        "and then the importance ranker take most of the stage time; in RAG mode building "
        "nuggets from the references does (the end-to-end section's per-stage table). On a GPU the NLI forward pass becomes cheap and the bottleneck moves to the "
        "stages that stay on CPU: the importance ranker, whose MiniLM features `score` runs on CPU, then "
        "spaCy splitting and decomposition, then Ray's per-row cost (records travel between "
        "stages as JSON through the object store). Scale those with more CPU actors "
        "(`--actors`) and keep few GPU actors per GPU.",
        "- **Backend.** The shipped ONNX file is int8, a CPU format (it scores pair by pair so "
        "its output is batch-invariant). On GPUs use `--backend torch --device cuda`: the fp32 "
        "safetensors weights, batched. Batched fp32 results can move in the last digits with the "
        "batch composition, which differs between engines, so byte-identical local/Ray rows are "
        "only established for the CPU default.",
        "- **Actors per GPU.** The NLI model is small (45 MB of fp32 weights); one actor leaves "
        "a large GPU mostly idle, so run several per GPU with a fractional "
        "`--num-gpus-per-actor` (0.25 gives 4 per GPU). That fraction is reserved only by the "
        f"actors of the {n_gpu} stages whose model can use a GPU (the NLI stages; the spaCy, BM25 "
        f"and ranker actors ask for none), so with few GPUs set it to at most 1/({n_gpu} x actors).",
        "- **Batch sizes.** `--batch-size` is both the rows per Ray batch and the NLI pairs per "
        "forward pass. 32 suits CPU; on a GPU try 128-256 pairs per pass for a MiniLM-size "
        "cross-encoder, and measure.",
        "- **Placement.** Every node reads the models and the memory-mapped BM25 index from the "
        "same path (`OFFLINE_EVAL_HOME`); nothing large goes through the object store.",
    ]


def reading(results: list[dict], base_wall: float, base_cpu: float, n_model: int) -> str:
    rays = [r for r in results if r["ray"]]
    walls = ", ".join(f"{base_wall / r['wall']:.2f}x ({r['name']})" for r in rays)
    cpus = ", ".join(f"{r['cpu_s'] / base_cpu:.2f}x ({r['name']})" for r in rays)
    return (f"Reading: throughput relative to the local engine {walls}; CPU time per row "
            f"relative to it {cpus}. Wall and CPU tell different things on this box. CPU time is "
            "what Ray costs: a local instance, a copy of the stage's models in every actor (the "
            f"peak RSS column) and JSON hand-offs between {n_model} actor pools. Wall time also "
            "reflects that Ray runs the stages as concurrent processes (a pipeline across both "
            "cores, where the local engine runs them one after another in one process), and, "
            "with the box loaded by other jobs, that more runnable processes get a larger share "
            "of the two cores; so a Ray wall below the local one here is not a saving to count "
            "on. On a cluster, throughput grows with the actors the cluster can hold, at the CPU "
            "cost per row measured here.")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--actors", default="1,2", help="actors per model stage, comma-separated")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    try:
        import psutil  # noqa: F401  (comes with the models extra, through accelerate)
        import ray  # noqa: F401
    except ImportError as exc:
        print(f"scale_ray: {exc.name} is not installed (pip install 'offline-eval[ray]'); skipped")
        return 0
    from offline_eval.scoring import ScoreOptions, score_specs

    n_model = sum(spec.uses_model for spec in score_specs(ScoreOptions()))
    load_start = os.getloadavg()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "in.jsonl"
        workload(args.n, inp)
        n = len(inp.read_text().splitlines())
        # local first and last, so a change in the box's load shows up as a change between them
        runs = [("local", [])] + [(f"ray, {a} actor{'s' if a > 1 else ''}/stage",
                                   ["--engine", "ray", "--actors", str(a)])
                                  for a in (int(x) for x in args.actors.split(","))]
        runs.append(("local (again)", []))
        ref = None
        for i, (name, extra) in enumerate(runs):
            r = timed_score(inp, Path(tmp) / (f"run{i}" + ("" if extra else ".jsonl")), extra)
            rows = sorted_rows(r.pop("rows"))
            ref = ref or rows
            r.update(name=name, same=rows == ref, ray=bool(extra))
            results.append(r)
            print(r, flush=True)
        startup = ray_startup()
    load_end = os.getloadavg()
    local = [r for r in results if not r["ray"]]
    base_wall = sum(r["wall"] for r in local) / len(local)
    base_cpu = sum(r["cpu_s"] for r in local) / len(local)
    lines = ["## Scale-out on Ray (`offline-eval score --engine ray`)", "",
             f"`benchmarks/scale_ray.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{platform.machine()} with {os.cpu_count()} cores, Ray {ray_version()}, CPU only. "
             f"Load average (1/5/15 min) {_load(load_start)} at the start and {_load(load_end)} at "
             "the end: the box was shared with other jobs, so walls are noisy and pessimistic. "
             f"Workload: {n} responses from the wiki-vital leads (the end-to-end workload), default "
             "`score` settings. Each row is one `offline-eval score` process, timed from start to "
             "exit (imports, model loads, Ray start-up included), run in the order shown; Ray runs "
             f"a local instance (one node, {os.cpu_count()} CPUs) with A actors for each of the "
             f"{n_model} model stages. "
             "CPU s is user+system time of the whole process tree (Ray's daemons included), "
             "sampled every 0.5 s; cores busy = CPU s / wall. \"vs local\" uses the mean of the "
             "two local runs.", "",
             "| engine | responses/s | wall s | first row s | CPU s | CPU s/row | cores busy "
             "| vs local | rows equal local | failed | peak RSS MB | 1-min load start/end |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(
            f"| {r['name']} | {n / r['wall']:.2f} | {r['wall']:.1f} | {_f(r['first_row'])} | "
            f"{r['cpu_s']:.0f} | {r['cpu_s'] / n:.2f} | {r['cpu_s'] / r['wall']:.2f} | "
            f"{base_wall / r['wall']:.2f}x | {'yes' if r['same'] else '**no**'} | {r['failed']} | "
            f"{r['rss_mb']:.0f} | {r['load'][0]:.1f}/{r['load'][1]:.1f} |")
    rays = [r for r in results if r["ray"]]
    lines += ["", f"Ray's overhead per row, against the mean local run: in wall time (Ray wall - local "
              "wall) / rows, start-up included: "
              + ", ".join(f"{r['name']} {(r['wall'] - base_wall) / n:+.2f} s" for r in rays)
              + "; in CPU time (Ray CPU s - local CPU s) / rows: "
              + ", ".join(f"{r['name']} {(r['cpu_s'] - base_cpu) / n:+.2f} s" for r in rays)
              + f". Ray start-up alone (start and stop a local instance, own process): {startup:.1f} s "
              "wall.", "", reading(results, base_wall, base_cpu, n_model), ""]
    lines += gpu_section(sum(spec.uses_gpu for spec in score_specs(ScoreOptions())))
    text = "\n".join(lines)
    if not args.no_write:
        write_section(text, "scale_ray")
    print(text)
    return 0


def ray_version() -> str:
    import ray

    return ray.__version__


def _load(t: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in t)


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


if __name__ == "__main__":
    sys.exit(main())
