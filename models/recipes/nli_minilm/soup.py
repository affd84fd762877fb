"""Average the weights of checkpoints fine-tuned from the same backbone (a uniform model soup).

Run: ``python models/recipes/nli_minilm/soup.py OUT_DIR CKPT_DIR [CKPT_DIR ...]``.
The checkpoints must share the architecture and labels (runs of ``train.py`` that differ
only in ``--seed``); the config and tokenizer are taken from the first. Safetensors only.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("ckpts", type=Path, nargs="+")
    args = ap.parse_args()
    import torch
    from safetensors.torch import load_file, save_file

    for c in args.ckpts:
        missing = [f for f in ("config.json", "model.safetensors") if not (c / f).is_file()]
        if missing:
            raise SystemExit(f"{c}: missing {', '.join(missing)} (expected a train.py checkpoint)")
    labels = {json.dumps(json.loads((c / "config.json").read_text())["id2label"]) for c in args.ckpts}
    if len(labels) != 1:
        raise SystemExit(f"the checkpoints disagree on id2label: {sorted(labels)}")
    sds = [load_file(str(c / "model.safetensors")) for c in args.ckpts]
    if any(sd.keys() != sds[0].keys() for sd in sds):
        raise SystemExit("the checkpoints have different tensors")
    soup = {k: (sum(sd[k].float() for sd in sds) / len(sds)).contiguous() for k in sds[0]}
    args.out.mkdir(parents=True, exist_ok=True)
    for f in args.ckpts[0].iterdir():
        if f.is_file() and f.name != "model.safetensors":
            shutil.copy(f, args.out / f.name)
    save_file(soup, str(args.out / "model.safetensors"), metadata={"format": "pt"})
    (args.out / "soup.json").write_text(json.dumps({"averaged": [str(c) for c in args.ckpts]}, indent=1))
    print(f"{args.out}: mean of {len(sds)} checkpoints, {len(soup)} tensors")


if __name__ == "__main__":
    main()
