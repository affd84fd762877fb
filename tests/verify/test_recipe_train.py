"""The recipe's trainer (models/recipes/nli_minilm/train.py) on a tiny backbone without
token types (MPNet's shape, the larger backbone the verdicts issue names): it trains, and
its final checkpoint loads as that backbone with the recipe's labels. (Transformers 5's
MPNet ignores a token_type_ids argument; the trainer feeds them only where the backbone has
them, as offline_eval's runners do, so it does not lean on that.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.verify.conftest import WORDS

TRAIN = Path(__file__).resolve().parents[2] / "models" / "recipes" / "nli_minilm" / "train.py"


def tiny_mpnet(root: Path) -> Path:
    import torch
    from transformers import BertTokenizerFast, MPNetConfig, MPNetForMaskedLM

    root.mkdir(parents=True, exist_ok=True)
    vocab = root / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tok = BertTokenizerFast(vocab_file=str(vocab), model_max_length=64)  # it returns token types
    torch.manual_seed(0)
    cfg = MPNetConfig(vocab_size=len(WORDS) + 5, hidden_size=32, num_hidden_layers=2,
                      num_attention_heads=2, intermediate_size=64, max_position_embeddings=80,
                      pad_token_id=0)
    ckpt = root / "backbone"
    MPNetForMaskedLM(cfg).save_pretrained(ckpt, safe_serialization=True)  # a backbone, no head
    tok.save_pretrained(ckpt)
    return ckpt


def test_the_trainer_trains_a_backbone_without_token_types(tmp_path):
    pytest.importorskip("transformers")
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification

    backbone = tiny_mpnet(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    rows = [{"premise": " ".join(WORDS[i:i + 6]), "hypothesis": " ".join(WORDS[i:i + 3]),
             "label": ("entailment", "neutral", "contradiction", "supported")[i % 4]}
            for i in range(8)]
    (data / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    res = subprocess.run([sys.executable, str(TRAIN), str(data), str(tmp_path / "run"),
                          "--backbone", str(backbone), "--max-length", "32", "--batch-size", "4",
                          "--threads", "1", "--save-every", "1000"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    final = tmp_path / "run" / "final"
    model = AutoModelForSequenceClassification.from_pretrained(final, local_files_only=True,
                                                               use_safetensors=True)
    assert model.config.model_type == "mpnet"
    assert model.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    before = load_file(str(backbone / "model.safetensors"))
    after = load_file(str(final / "model.safetensors"))
    moved = [k for k in after if k in before and (after[k] != before[k]).any()]
    assert moved, "two steps of training changed no backbone weight"
