"""NLI runner throughput on a GPU (writes the ``gpu`` section of benchmarks/RESULTS.md).

Run on a machine with CUDA: ``python benchmarks/gpu_throughput.py [--model DIR]``.
Measures the package's own runners, the same code `offline-eval verify --device cuda`
uses: the torch runner (fp32 weights) and, where ONNX Runtime has the CUDA execution
provider and the folder an fp32 ONNX file, the ONNX runner. Pairs of 128 and 384 tokens,
batches of 32 and 256; the best of five timed batches after a warm-up, and the peak GPU
memory torch allocated. Without a GPU it says so and writes nothing.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from verifier import throughput_pairs  # noqa: E402  (the CPU table's input: comparable figures)


def measure(runner, n_tok: int, batch: int, sync) -> float:
    pairs = throughput_pairs(n_tok, batch)
    runner.predict(pairs[:8])
    runner.predict(pairs)
    best = float("inf")
    for _ in range(5):
        sync()
        t = time.perf_counter()
        runner.predict(pairs)
        sync()
        best = min(best, time.perf_counter() - t)
    return batch / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: nothing measured, RESULTS.md left alone")
        return
    from offline_eval.runners.load import load_runner

    rows, res = [], {}
    sync = torch.cuda.synchronize
    backends = [("torch", None)]
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    cuda_ep = ort is not None and "CUDAExecutionProvider" in ort.get_available_providers()
    if cuda_ep and (args.model / "onnx" / "model.onnx").is_file():  # int8 is a CPU format
        backends.append(("onnx", "fp32"))
    for backend, precision in backends:
        for batch in (32, 256):
            torch.cuda.reset_peak_memory_stats()
            runner = load_runner(args.model, backend, "cuda", batch_size=batch, max_length=512,
                                 precision=precision)
            speeds = {n: measure(runner, n, batch, sync) for n in (128, 384)}
            peak = torch.cuda.max_memory_allocated() / 2**20
            res[f"{backend}-b{batch}"] = {**{str(k): v for k, v in speeds.items()}, "peak_mb": peak}
            rows.append(f"| {backend} | {batch} | {speeds[128]:,.0f} | {speeds[384]:,.0f} | "
                        f"{peak:,.0f} |")
            del runner
            torch.cuda.empty_cache()
    print(json.dumps(res, indent=1))
    gpu = torch.cuda.get_device_name(0)
    ort_note = ("" if len(backends) > 1 else
                "ONNX Runtime here had no CUDA execution provider (`onnxruntime`, not "
                "`onnxruntime-gpu`), so only the torch runner was measured." if not cuda_ep else
                "The folder has no fp32 ONNX file (`offline-eval models import` writes one), so "
                "only the torch runner was measured.")
    text = "\n".join([
        "## NLI runner throughput on a GPU (`benchmarks/gpu_throughput.py`)",
        "",
        f"{gpu}, torch {torch.__version__}, Python {platform.python_version()}; "
        "the NLI cross-encoder (MiniLM-L6, 22.7M parameters). Pairs per second, the best of "
        "five timed batches after a warm-up; peak = the most GPU memory torch allocated "
        "(torch runner only). " + ort_note,
        "",
        "| backend | batch | pairs/s at 128 tokens | pairs/s at 384 tokens | peak GPU MB |",
        "|---|---|---|---|---|",
        *rows,
    ])
    print(text)
    if not args.no_write:
        from _results import write_section
        write_section(text, "gpu")


if __name__ == "__main__":
    main()
