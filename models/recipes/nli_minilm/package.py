"""Package a trained checkpoint as the shipped model folder ``models/nli-minilm``.

Run: ``python models/recipes/nli_minilm/package.py CKPT_DIR models/nli-minilm [--keep-fp32-onnx]``

Writes fp16 safetensors (upcast to fp32 at load), the tokenizer, config.json, the ONNX
export of those weights (fp32, then int8 dynamic quantisation) and ``manifest.json``
with the sha256 of every file. ``--keep-fp32-onnx`` keeps ``onnx/model.onnx`` (~90 MB)
for benchmarking; the shipped folder drops it to stay under the 100 MB budget
(``offline-eval models import models/nli-minilm --name nli-minilm-fp32`` rebuilds it).
Run ``manifest`` again after adding MODEL_CARD.md / verifier.json:
``python models/recipes/nli_minilm/package.py --manifest-only models/nli-minilm``.
``--onnx-only`` re-exports the ONNX files from the folder's own safetensors (after a change
to the export) and rewrites the manifest.
"""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path

MANIFEST_FIELDS = dict(name="nli-minilm", labels=["entailment", "neutral", "contradiction"],
                       architecture="bert", max_length=256, default_backend="onnx",
                       default_precision="int8",
                       source="models/recipes/nli_minilm (all-MiniLM-L6-v2 backbone)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ckpt", type=Path, nargs="?")
    ap.add_argument("dest", type=Path)
    ap.add_argument("--keep-fp32-onnx", action="store_true")
    ap.add_argument("--manifest-only", action="store_true")
    ap.add_argument("--onnx-only", action="store_true")
    ap.add_argument("--default-backend", default=MANIFEST_FIELDS["default_backend"])
    ap.add_argument("--default-precision", default=MANIFEST_FIELDS["default_precision"])
    args = ap.parse_args()
    from offline_eval.modelstore import write_manifest

    fields = {**MANIFEST_FIELDS, "default_backend": args.default_backend,
              "default_precision": args.default_precision}
    if args.onnx_only:
        from offline_eval.runners.export import export_onnx

        export_onnx(args.dest, quantize=True)
    elif not args.manifest_only:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from offline_eval.runners.export import export_onnx

        args.dest.mkdir(parents=True, exist_ok=True)
        model = AutoModelForSequenceClassification.from_pretrained(
            args.ckpt, local_files_only=True, use_safetensors=True, dtype=torch.float32)
        model.half().save_pretrained(args.dest, safe_serialization=True)
        AutoTokenizer.from_pretrained(args.ckpt, local_files_only=True).save_pretrained(args.dest)
        export_onnx(args.dest, quantize=True)
    if not args.keep_fp32_onnx and (args.dest / "onnx" / "model.onnx").exists():
        (args.dest / "onnx" / "model.onnx").unlink()
    shutil.rmtree(args.dest / "__pycache__", ignore_errors=True)
    m = write_manifest(args.dest, **fields)
    print(f"{args.dest}: {len(m['files'])} files")


if __name__ == "__main__":
    main()
