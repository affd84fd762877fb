"""Where the int8 NLI model spends its time, and the speed-up int8 can reach on this CPU
(writes the ``int8_ceiling`` section of benchmarks/RESULTS.md).

The verifier issue asks ONNX int8 for 3x the pairs per second of torch fp32. This script
measures, on one thread and in one run:

1. **The matrix products alone**, at the model's shapes for a 128-token pair (384x384,
   384x1536, 1536x384): torch fp32 vs ONNX Runtime fp32 vs ONNX Runtime int8 (dynamic,
   per-channel, as shipped), in multiply-accumulates per second.
2. **The shipped int8 model, op by op** (ONNX Runtime's profiler, one 128-token pair per
   call, as the verifier runs it): the share of time in int8 matrix products against the
   fp32 rest (layer norms, GELU, softmax, the attention products, reshapes).
3. **The bound** that follows (Amdahl): torch fp32's time per pair (a batch of 32) against
   int8's measured time, and against int8's time if everything but its matrix products
   took no time at all.

Run: ``python benchmarks/int8_ceiling.py [--model models/nli-minilm]``
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
INT8_MATMUL = {"DynamicQuantizeMatMul", "MatMulIntegerToFloat", "MatMulInteger", "DynamicQuantizeLinear"}
SHAPES = ((128, 384, 384), (128, 384, 1536), (128, 1536, 384))


def best_time(fn, n: int = 30, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def session(path: str, profile: str | None = None, model_int8: bool = False):
    """One-thread CPU session; ``model_int8`` leaves out the fusions the runner leaves out
    for int8 models (``offline_eval.runners.ort.CPU_INT8_UNFUSED``)."""
    import onnxruntime as ort

    from offline_eval.runners.ort import CPU_INT8_UNFUSED

    so = ort.SessionOptions()
    so.intra_op_num_threads = so.inter_op_num_threads = 1
    if profile:
        so.enable_profiling, so.profile_file_prefix = True, profile
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"],
                                disabled_optimizers=list(CPU_INT8_UNFUSED) if model_int8 else [])


def gemms(work: Path) -> list[tuple[tuple[int, int, int], float, float, float]]:
    """GMAC/s of torch fp32, ORT fp32 and ORT int8 for each shape."""
    import onnx
    import torch
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(0)
    out = []
    for m, k, n in SHAPES:
        w = rng.standard_normal((k, n)).astype(np.float32)
        x = rng.standard_normal((m, k)).astype(np.float32)
        graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "mm",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
                                  [numpy_helper.from_array(w, "W")])
        fp32, int8 = work / f"mm{k}x{n}.onnx", work / f"mm{k}x{n}.int8.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), fp32)
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        s32, s8 = session(str(fp32)), session(str(int8))
        times = [best_time(lambda: tx @ tw), best_time(lambda: s32.run(None, {"x": x})),
                 best_time(lambda: s8.run(None, {"x": x}))]
        out.append(((m, k, n), *(m * k * n / t / 1e9 for t in times)))
    return out


def pairs(model: Path, n: int):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model, local_files_only=True)
    premise = ("The river rises in the northern hills and flows south through three towns "
               "before it reaches the sea near the old harbour. ") * 8
    return tok([premise] * n, ["The river flows south to the sea."] * n, truncation=True,
               max_length=128, padding="max_length", return_tensors="np")


def profile_int8(model: Path, work: Path) -> tuple[float, dict[str, float]]:
    """Seconds per pair and the share of kernel time by op type."""
    enc = pairs(model, 1)
    path = str(model / "onnx" / "model.int8.onnx")
    plain = session(path, model_int8=True)
    feed = {i.name: enc[i.name].astype(np.int64) for i in plain.get_inputs()}
    per_pair = best_time(lambda: plain.run(None, feed), n=20)
    prof = session(path, str(work / "ort"), model_int8=True)
    for _ in range(20):
        prof.run(None, feed)
    events = json.loads(Path(prof.end_profiling()).read_text())
    by_op: collections.Counter = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"]
    total = sum(by_op.values())
    return per_pair, {k: v / total for k, v in by_op.most_common()}


def torch_per_pair(model: Path) -> float:
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(1)
    net = AutoModelForSequenceClassification.from_pretrained(model, local_files_only=True,
                                                             dtype=torch.float32).eval()
    enc = pairs(model, 32)
    feed = {k: torch.from_numpy(v.astype(np.int64)) for k, v in enc.items()}
    with torch.inference_mode():
        return best_time(lambda: net(**feed), n=3) / 32


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from offline_eval.modelstore import verify_model

    verify_model(args.model)
    import torch

    torch.set_num_threads(1)  # every measurement here is one thread
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        g = gemms(work)
        t_int8, shares = profile_int8(args.model, work)
    t_torch = torch_per_pair(args.model)
    mm_share = sum(v for k, v in shares.items() if k in INT8_MATMUL)
    lines = ["## int8 ceiling (`benchmarks/int8_ceiling.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores, "
             f"one thread, load average {os.getloadavg()[0]:.1f} at the end. How far ONNX int8 can get "
             "from torch fp32 on this CPU (the verifier issue asks 3x), and what limits it.", "",
             "Matrix products alone, best of 5 x 30 calls, billions of multiply-accumulates per second:", "",
             "| shape (M x K x N) | torch fp32 | ONNX fp32 | ONNX int8 (per-channel dynamic) | int8 / torch |",
             "|---|---|---|---|---|"]
    for (m, k, n), a, b, c in g:
        lines.append(f"| {m} x {k} x {n} | {a:.1f} | {b:.1f} | {c:.1f} | {c / a:.2f}x |")
    top = ", ".join(f"{k} {100 * v:.1f}%" for k, v in list(shares.items())[:8])
    lines += ["", f"The shipped `model.int8.onnx`, one 128-token pair per call, SkipLayerNormalization "
              f"fusion off (as the verifier runs it): "
              f"{1000 * t_int8:.2f} ms per pair. Kernel time by op (ONNX Runtime profiler): {top}. "
              f"int8 matrix products ({', '.join(sorted(INT8_MATMUL))}): **{100 * mm_share:.0f}%**; the "
              f"rest runs in fp32.", "",
              f"torch fp32, a batch of 32 such pairs: {1000 * t_torch:.2f} ms per pair. Measured int8 / torch: "
              f"**{t_torch / t_int8:.2f}x**. Upper bound if everything but the int8 matrix products took "
              f"no time: {t_torch / (t_int8 * mm_share):.2f}x. "
              + (f"3x needs the fp32 remainder ({1000 * t_int8 * (1 - mm_share):.2f} ms) cut to "
                 f"{max(0.0, 1000 * (t_torch / 3 - t_int8 * mm_share)):.2f} ms per pair."
                 if t_torch / t_int8 < 3 else
                 f"The fp32 remainder ({1000 * t_int8 * (1 - mm_share):.2f} ms) leaves room for "
                 f"3x here ({1000 * (t_torch / 3 - t_int8 * mm_share):.2f} ms would do).")]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "int8_ceiling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
