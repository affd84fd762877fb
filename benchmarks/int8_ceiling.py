"""Where the int8 NLI model spends its time, and the speed-up int8 can reach on this CPU
(writes the ``int8_ceiling`` section of benchmarks/RESULTS.md).

The verifier issue asks ONNX int8 for 3x the pairs per second of torch fp32, at 128- and
384-token pairs. This script measures, on one thread and in one run:

1. **The matrix products alone**, at the model's shapes for a 128-token pair (384x384,
   384x1536, 1536x384): torch fp32 vs ONNX Runtime fp32 vs ONNX Runtime int8 (dynamic,
   per-channel, as shipped), in multiply-accumulates per second.
2. **The shipped int8 model, op by op** (ONNX Runtime's profiler, one pair per call, as the
   verifier runs it), at 128 and 384 tokens: the share of time in int8 matrix products,
   in the attention (its two fp32 products and softmax, which dynamic quantisation leaves
   in fp32), and in the fp32 rest (layer norms, GELU, adds, reshapes).
3. **The bounds** that follow (Amdahl): torch fp32's time per pair (a batch of 32) against
   int8's measured time, against int8's time if everything but its matrix products took no
   time, and if everything but its matrix products and its attention took no time.
4. **One attention layer** (12 heads of 32, no mask), by kernel: ONNX Runtime's unfused
   pattern as the shipped graph runs it (MatMul, scale, Softmax, MatMul and the head
   transposes), ONNX Runtime's fused ``MultiHeadAttention`` (its CPU flash-attention path,
   taken when there is no mask), and torch's ``scaled_dot_product_attention`` (what the
   torch fp32 baseline runs).

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
LENGTHS = (128, 384)  # tokens per pair, as the verifier issue's throughput table
ATTENTION = {"MatMul", "FusedMatMul", "Softmax"}  # the fp32 attention (weights are all int8)
HEADS, HIDDEN = 12, 384


def best_time(fn, n: int = 30, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def session(path: str | bytes, profile: str | None = None, model_int8: bool = False):
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


def pairs(model: Path, n: int, length: int = 128):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model, local_files_only=True)
    premise = ("The river rises in the northern hills and flows south through three towns "
               "before it reaches the sea near the old harbour. ") * (length // 12)
    return tok([premise] * n, ["The river flows south to the sea."] * n, truncation=True,
               max_length=length, padding="max_length", return_tensors="np")


def profile_int8(model: Path, work: Path, length: int = 128) -> tuple[float, dict[str, float]]:
    """Seconds per pair and the share of kernel time by op type."""
    enc = pairs(model, 1, length)
    path = str(model / "onnx" / "model.int8.onnx")
    plain = session(path, model_int8=True)
    feed = {i.name: enc[i.name].astype(np.int64) for i in plain.get_inputs()}
    per_pair = best_time(lambda: plain.run(None, feed), n=20 if length <= 128 else 6)
    prof = session(path, str(work / f"ort{length}"), model_int8=True)
    for _ in range(20):
        prof.run(None, feed)
    events = json.loads(Path(prof.end_profiling()).read_text())
    by_op: collections.Counter = collections.Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            by_op[e["args"]["op_name"]] += e["dur"]
    total = sum(by_op.values())
    return per_pair, {k: v / total for k, v in by_op.most_common()}


def torch_per_pair(model: Path, length: int = 128) -> float:
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(1)
    net = AutoModelForSequenceClassification.from_pretrained(model, local_files_only=True,
                                                             dtype=torch.float32).eval()
    enc = pairs(model, 32, length)
    feed = {k: torch.from_numpy(v.astype(np.int64)) for k, v in enc.items()}
    with torch.inference_mode():
        return best_time(lambda: net(**feed), n=3 if length <= 128 else 1, rounds=5 if length <= 128 else 3) / 32


def attention_kernels(length: int) -> dict[str, float]:
    """Seconds for one attention layer (no mask) of a ``length``-token pair, by kernel."""
    import torch
    from onnx import TensorProto, helper

    hd = HIDDEN // HEADS
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, "S", HIDDEN]) for n in "qkvo"]
    fused = [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["o"], domain="com.microsoft",
                              num_heads=HEADS)]
    consts = [helper.make_tensor("heads", TensorProto.INT64, [4], [1, -1, HEADS, hd]),
              helper.make_tensor("merged", TensorProto.INT64, [3], [1, -1, HIDDEN]),
              helper.make_tensor("scale", TensorProto.FLOAT, [], [1 / np.sqrt(hd)])]
    plain = [node for n in "qkv" for node in (
        helper.make_node("Reshape", [n, "heads"], [f"{n}4"]),
        helper.make_node("Transpose", [f"{n}4"], [f"{n}t"], perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3]))]
    plain += [helper.make_node("MatMul", ["qt", "kt"], ["s"]), helper.make_node("Mul", ["s", "scale"], ["ss"]),
              helper.make_node("Softmax", ["ss"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "vt"], ["a"]),
              helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["at", "merged"], ["o"])]
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    rng = np.random.default_rng(0)
    feed = {n: rng.standard_normal((1, length, HIDDEN)).astype(np.float32) for n in "qkv"}
    out, results = {}, {}
    for name, nodes, inits in (("onnx unfused", plain, consts), ("onnx MultiHeadAttention", fused, [])):
        model = helper.make_model(helper.make_graph(nodes, name, io[:3], io[3:], inits), opset_imports=opsets)
        sess = session(model.SerializeToString())
        results[name] = sess.run(None, feed)[0]
        out[name] = best_time(lambda: sess.run(None, feed))
    q, k, v = (torch.from_numpy(feed[n]).view(1, length, HEADS, hd).transpose(1, 2) for n in "qkv")
    sdpa = torch.nn.functional.scaled_dot_product_attention
    with torch.inference_mode():
        results["torch sdpa"] = sdpa(q, k, v).transpose(1, 2).reshape(1, length, HIDDEN).numpy()
        out["torch sdpa"] = best_time(lambda: sdpa(q, k, v).transpose(1, 2).reshape(1, length, HIDDEN))
    ref = results["onnx unfused"]
    assert all(np.abs(r - ref).max() < 1e-4 for r in results.values()), "attention kernels disagree"
    return out


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
        prof = {n: profile_int8(args.model, work, n) for n in LENGTHS}
    t_torch = {n: torch_per_pair(args.model, n) for n in LENGTHS}
    attn = {n: attention_kernels(n) for n in LENGTHS}
    lines = ["## int8 ceiling (`benchmarks/int8_ceiling.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores, "
             f"one thread, load average {os.getloadavg()[0]:.1f} at the end. How far ONNX int8 can get "
             "from torch fp32 on this CPU (the verifier issue asks 3x), and what limits it.", "",
             "Matrix products alone, best of 5 x 30 calls, billions of multiply-accumulates per second:", "",
             "| shape (M x K x N) | torch fp32 | ONNX fp32 | ONNX int8 (per-channel dynamic) | int8 / torch |",
             "|---|---|---|---|---|"]
    for (m, k, n), a, b, c in g:
        lines.append(f"| {m} x {k} x {n} | {a:.1f} | {b:.1f} | {c:.1f} | {c / a:.2f}x |")
    lines += ["", "The shipped `model.int8.onnx`, one pair per call, SkipLayerNormalization fusion off "
              "(as the verifier runs it), against torch fp32 on a batch of 32 such pairs, ms per pair. "
              "Shares of int8's kernel time (ONNX Runtime profiler): the int8 matrix products "
              f"({', '.join(sorted(INT8_MATMUL))}), and the attention ({', '.join(sorted(ATTENTION))}: "
              "its two products and softmax, which stay fp32). Bounds: int8 / torch if everything "
              "but the int8 products took no time, and if everything but them and the attention did:", "",
              "| pair tokens | torch fp32 ms | int8 ms | int8 / torch | int8 products | attention | rest | "
              "bound: products only | bound: products + attention |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n in LENGTHS:
        t8, shares = prof[n]
        mm = sum(v for k, v in shares.items() if k in INT8_MATMUL)
        at = sum(v for k, v in shares.items() if k in ATTENTION)
        lines.append(f"| {n} | {1000 * t_torch[n]:.2f} | {1000 * t8:.2f} | **{t_torch[n] / t8:.2f}x** | "
                     f"{100 * mm:.0f}% | {100 * at:.0f}% | {100 * (1 - mm - at):.0f}% | "
                     f"{t_torch[n] / (t8 * mm):.2f}x | {t_torch[n] / (t8 * (mm + at)):.2f}x |")
    for n in LENGTHS:
        top = ", ".join(f"{k} {100 * v:.1f}%" for k, v in list(prof[n][1].items())[:8])
        lines += ["", f"Kernel time by op at {n} tokens: {top}."]
    lines += ["", "One attention layer (12 heads of 32, no mask), ms, best of 5 x 30 calls; the three "
              "agree within 1e-4:", "",
              "| pair tokens | " + " | ".join(attn[LENGTHS[0]]) + " |", "|---|" + "---|" * len(attn[LENGTHS[0]])]
    for n in LENGTHS:
        lines.append(f"| {n} | " + " | ".join(f"{1000 * v:.3f}" for v in attn[n].values()) + " |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "int8_ceiling")
    return 0


if __name__ == "__main__":
    sys.exit(main())
