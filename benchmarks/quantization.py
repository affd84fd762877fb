"""Quantisation variants of the NLI model: speed and accuracy in one run.

Writes the ``quantization`` section of benchmarks/RESULTS.md. From the model's
safetensors it exports one fp32 ONNX graph, then builds each int8 variant from it:

* ``int8 fused``: ONNX Runtime's transformer optimizer first (Attention,
  SkipLayerNormalization, BiasGelu), then dynamic int8 (QAttention), per-tensor weight
  scales (the release before this script);
* ``int8 unfused``: dynamic int8 of the plain graph (ONNX Runtime fuses MatMulInteger
  with its scaling at load time), per-tensor scales;
* ``int8 unfused per-channel``: the same with per-channel weight scales (the default of
  ``offline_eval.runners.export.quantize_int8``);
* ``int8 unfused per-channel, no mask``: the same quantisation of a graph traced without
  the ``attention_mask`` input, as ``export_onnx`` builds the shipped int8 file (int8 runs
  one unpadded pair per call, so the mask is all ones);
* ``... SkipLayerNorm fused``: the shipped file with ONNX Runtime's SkipLayerNormalization
  fusion left on at load (every int8 row above runs with it off on the CPU provider, the
  runner's default since this comparison: ``offline_eval.runners.ort.make_session``).

For torch fp32, ONNX fp32 and every variant: pairs per CPU-second on one thread at
128-, 256- and 384-token pairs (``verifier.py --throughput``, 32 pairs, best of 5, two
interleaved rounds, best kept); the verifier's WiCE dev features (``verifier.py
--worker``) with balanced accuracy under the verifier benchmark's CV, both its fixed
split and the mean over 20 fold assignments; argmax agreement with torch fp32 on the
held-out NLI and Factcheck-GPT pairs.

Run: ``python benchmarks/quantization.py [--model models/nli-minilm] [--work DIR]``
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import verifier as vb

ROOT = Path(__file__).resolve().parent.parent


def build(model: Path, work: Path) -> dict[str, Path]:
    """One model folder per int8 variant under ``work``; the fp32 export is shared
    (:func:`verifier.fp32_onnx_folder`)."""
    from transformers import AutoConfig

    from offline_eval.runners.export import load_classifier, quantize_int8, trace_classifier

    base = vb.fp32_onnx_folder(model, work)
    cfg = AutoConfig.from_pretrained(base, local_files_only=True)
    fp32 = base / "onnx" / "model.onnx"
    unmasked = work / "fp32-unmasked.onnx"  # outside base: the fp32 rows load base/onnx
    if not unmasked.is_file():
        trace_classifier(*load_classifier(base), unmasked, mask=False)
    makers = {
        "int8 fused": lambda d: quantize_int8(fp32, d, cfg, fuse=True, per_channel=False),
        "int8 unfused": lambda d: quantize_int8(fp32, d, cfg, per_channel=False),
        "int8 unfused per-channel": lambda d: quantize_int8(fp32, d, cfg),
        NO_MASK: lambda d: quantize_int8(unmasked, d, cfg),
    }
    out = {"torch fp32": base, "onnx fp32": base}
    for name, make in makers.items():
        out[name] = vb.derived_folder(model, work / name.replace(" ", "-"),
                                      lambda d, make=make: make(d / "onnx" / "model.int8.onnx"))
    out[SLN_FUSED] = out[NO_MASK]
    return out


NO_MASK = "int8 unfused per-channel, no mask"  # as shipped
SLN_FUSED = "int8 unfused per-channel, no mask, SkipLayerNorm fused"


def fuse_args(name: str) -> list[str]:
    return ["--fuse-skip-layernorm", "on"] if name == SLN_FUSED else []


def backend_of(name: str) -> str:
    return "torch" if name.startswith("torch") else "onnx-fp32" if name == "onnx fp32" else "onnx-int8"


def speed(name: str, folder: Path) -> dict[str, float]:
    me = str(ROOT / "benchmarks" / "verifier.py")
    o = subprocess.run([sys.executable, me, "--throughput", backend_of(name), "--model", str(folder),
                        "--threads", "1", *fuse_args(name)], capture_output=True, text=True, check=True)
    return json.loads(o.stdout.strip().splitlines()[-1])


def features(name: str, folder: Path, cache: Path) -> dict:
    out = cache / f"{name.replace(' ', '-')}.json"
    if not out.is_file():
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "verifier.py"), "--worker", backend_of(name),
                        "--out", str(out), "--model", str(folder), "--threads", "1", *fuse_args(name)],
                       check=True)
    return json.loads(out.read_text())


def argmaxes(res: dict) -> list[str]:
    return [max(r["p"], key=r["p"].get) if r["p"] else "" for r in res["nli"] + res["fc"]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=ROOT / "models" / "nli-minilm")
    ap.add_argument("--work", type=Path, default=None,
                    help="build and feature cache (default: a temp folder keyed by the weights' sha256)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.work is None:
        args.work = Path(tempfile.gettempdir()) / f"oe_quantization-{vb.weights_tag(args.model, 'torch')}"
    folders = build(args.model, args.work)
    cache = args.work / "features"
    cache.mkdir(parents=True, exist_ok=True)
    feats = {n: features(n, f, cache) for n, f in folders.items()}
    tp: dict[str, dict[str, float]] = {}
    for _ in range(2):  # interleaved rounds: the box is shared, keep each variant's best
        for n, f in folders.items():
            got = speed(n, f)
            tp[n] = {k: max(v, tp.get(n, {}).get(k, 0.0)) for k, v in got.items() if k.endswith("_cpu")}
    ref = argmaxes(feats["torch fp32"])
    rows = []
    for n, f in folders.items():
        res = feats[n]
        y = np.array(res["wice_y"])
        x = np.array([[r[k] for k in vb.FEATS] for r in res["wice"]])
        reps = vb.cv_combiner_repeats(x, y)
        agree = np.mean([a == b for a, b in zip(argmaxes(res), ref)])
        onnx_file = f / "onnx" / ("model.onnx" if n == "onnx fp32" else "model.int8.onnx")
        size = onnx_file.stat().st_size / 1e6 if n != "torch fp32" else (f / "model.safetensors").stat().st_size / 1e6
        rows.append((n, size, tp[n], vb.cv_combiner(x, y), reps, agree))
    t0 = tp["torch fp32"]
    lines = ["## Quantisation variants of the NLI model (`benchmarks/quantization.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores "
             f"(load average {os.getloadavg()[0]:.1f} at the end), model `{args.model.name}`. "
             "Pairs per CPU-second on one thread, 32 identical pairs one call each for int8 "
             "(batch-invariant) and one batch of 32 for fp32, best of 2 interleaved rounds of "
             "best-of-5; ratios to torch fp32. WiCE dev: the verifier (gate and top-2 windows as "
             "shipped) with a combiner fitted inside each training fold; `split 13` is the "
             "verifier benchmark's fold assignment, `20 splits` the mean ± sd over fold seeds "
             "13-32. Agreement: argmax label equal to torch fp32's on the 400 held-out NLI and 660 "
             "held-out Factcheck-GPT pairs. The safetensors file is fp16 (upcast at load). Every "
             "int8 row runs with ONNX Runtime's SkipLayerNormalization fusion off (the runner's "
             "CPU default for int8), except the last, which leaves it on. `no mask`: traced without "
             "the attention_mask input, as the shipped int8 file (one unpadded pair per call).", "",
             "| variant | file MB | 128-token pairs per CPU-s | 256-token | 384-token | WiCE BA split 13 | WiCE BA 20 splits | argmax = torch |",
             "|---|---|---|---|---|---|---|---|"]
    for n, size, t, ba13, reps, agree in rows:
        speeds = " | ".join(f"{t[k]:.1f} ({t[k] / t0[k]:.2f}x)" for k in ("128_cpu", "256_cpu", "384_cpu"))
        lines.append(f"| {n} | {size:.0f} | {speeds} | {ba13:.3f} | "
                     f"{reps[0]:.3f} ± {reps[1]:.3f} | {agree:.3f} |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(text, "quantization")


if __name__ == "__main__":
    main()
