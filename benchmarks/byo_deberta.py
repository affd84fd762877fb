"""What a bring-your-own DeBERTa-v3-base NLI model costs on this machine (writes the
``byo_deberta`` section of benchmarks/RESULTS.md).

No DeBERTa checkpoint can be downloaded here, so the script builds one with DeBERTa-v3-base's
shapes and random weights (184M parameters: 12 layers of 768, 12 heads, disentangled relative
attention with 256 position buckets, a 128,100-token vocabulary, no token types) and, as
DeBERTa-v3 checkpoints ship, a SentencePiece ``spm.model`` as its only tokenizer file
(trained here on one self-written sentence; only the token counts matter). Speed does not
depend on the weights, so the figures hold for a real checkpoint of that architecture;
accuracy is not measured (random weights).

It times ``offline-eval models import`` (validation, tokenizer conversion, ONNX fp32 and int8
export) and then pairs/s through offline-eval's runners at 128-, 256- and 384-token pairs,
torch fp32 vs ONNX fp32 vs ONNX int8, each in its own process on 2 threads with the same
protocol as ``verifier.py --throughput`` (32 pairs per call, best of 5; pairs per
CPU-second from the same run), with peak RSS.

Run: ``python benchmarks/byo_deberta.py [--work DIR] [--no-write]`` (about 10 minutes on 2 cores).
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
_sys.path.insert(1, str(_Path(__file__).resolve().parent.parent))  # the tests' model builder
from _results import cpu_description, write_section  # noqa: E402
from tests.verify.deberta_v3 import make_deberta_v3  # noqa: E402

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SENTENCE = "the committee approved the new river bridge project in the northern district last spring"
BACKENDS = ("torch", "onnx-fp32", "onnx-int8")
TOKENS = (128, 256, 384)


def build_checkpoint(root: Path) -> Path:
    """A DeBERTa-v3-base-shaped sequence classifier with random weights and an spm.model."""
    words = SENTENCE.split()
    texts = [" ".join(words[i:] + words[:i]) for i in range(len(words))] * 10
    return make_deberta_v3(root / "deberta-v3-base-shape", texts, 60, vocab_size=128100,
                           hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                           intermediate_size=3072, layer_norm_eps=1e-7)


def parameter_count(weights: Path) -> int:
    from math import prod

    from safetensors import safe_open

    with safe_open(str(weights), framework="numpy") as f:
        return sum(prod(f.get_slice(k).get_shape()) for k in f.keys())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from offline_eval.modelstore import import_model

    work = args.work or Path(tempfile.mkdtemp(prefix="byo_deberta_"))
    ckpt = build_checkpoint(work)
    params = parameter_count(ckpt / "model.safetensors")
    t = time.perf_counter()
    model = import_model(ckpt, home=work / "home", force=True)
    import_s = time.perf_counter() - t
    sizes = {k: (model / f).stat().st_size / 1e6 for k, f in
             (("safetensors", "model.safetensors"), ("fp32", "onnx/model.onnx"), ("int8", "onnx/model.int8.onnx"))}
    int8_inputs = json.loads((model / "manifest.json").read_text()).get("files", {})
    tp: dict[str, dict | None] = {}
    for b in BACKENDS:  # one process per backend, as verifier.py measures them
        o = subprocess.run([sys.executable, str(HERE / "verifier.py"), "--throughput", b,
                            "--model", str(model), "--threads", "2"], capture_output=True, text=True)
        tp[b] = json.loads(o.stdout.strip().splitlines()[-1]) if o.returncode == 0 else None
        print(b, tp[b] if tp[b] else o.stderr[-2000:], flush=True)
    text = report(params, import_s, sizes, tp, "onnx/model.int8.onnx" in int8_inputs)
    print(text)
    if not args.no_write:
        write_section(text, "byo_deberta")


def report(params: int, import_s: float, sizes: dict[str, float], tp: dict, has_int8: bool) -> str:
    base = tp.get("torch") or {}
    lines = ["## Bring-your-own DeBERTa-v3-base: cost on this machine (`benchmarks/byo_deberta.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores "
             f"({cpu_description()}), load average {os.getloadavg()[0]:.1f} at the end. A checkpoint with "
             f"DeBERTa-v3-base's shapes and random weights ({params / 1e6:.1f}M parameters; an `spm.model` "
             "as its only tokenizer file, as DeBERTa-v3 checkpoints ship): speed only, which does not "
             "depend on the weights; no accuracy.", "",
             f"`offline-eval models import` (validation, tokenizer conversion, ONNX fp32 and int8 export, "
             f"manifest): {import_s:.0f} s. Files: safetensors {sizes['safetensors']:.0f} MB, ONNX fp32 "
             f"{sizes['fp32']:.0f} MB, ONNX int8 {sizes['int8']:.0f} MB"
             + ("" if has_int8 else " (no int8 file was written)") + ".", "",
             "Pairs/s through offline-eval's runners, 2 threads, 32 pairs per call, best of 5 "
             "(`verifier.py --throughput`: torch and ONNX fp32 batch the 32 pairs, ONNX int8 runs "
             "two pairs at once, one per thread); per CPU-second from the same run; ratio to torch fp32:", "",
             "| backend | " + " | ".join(f"{n}-token pairs/s | per CPU-s" for n in TOKENS) + " | peak RSS MB |",
             "|---|" + "---|---|" * len(TOKENS) + "---|"]
    for b, t in tp.items():
        if not t:
            lines.append(f"| {b} | failed |" + " |" * (2 * len(TOKENS)))
            continue
        cells = []
        for key in (k for n in TOKENS for k in (str(n), f"{n}_cpu")):
            ratio = t[key] / base[key] if base.get(key) else float("nan")
            cells.append(f"{t[key]:.2f} ({ratio:.2f}x)")
        lines.append(f"| {b} | {' | '.join(cells)} | {t['rss_mb']:.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
