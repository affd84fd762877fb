"""Builds a DeBERTa-v3-shaped sequence-pair classifier as such checkpoints ship:
disentangled relative attention, no token types, and a SentencePiece ``spm.model`` (trained
here on the given texts) as its only tokenizer file. Random weights. Shared by
``test_deberta_v3.py`` (a tiny one) and ``benchmarks/byo_deberta.py`` (base-sized)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

SPECIAL = {"pad_token": "[PAD]", "cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]",
           "bos_token": "[CLS]", "eos_token": "[SEP]", "mask_token": "[MASK]"}
LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def make_deberta_v3(ckpt: Path, texts: Sequence[str], spm_vocab: int, **shape: Any) -> Path:
    """Write the checkpoint into ``ckpt``; ``shape`` sets DebertaV2Config sizes
    (vocab_size, hidden_size, num_hidden_layers, ...). Returns ``ckpt``."""
    import sentencepiece as spm
    import torch
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    ckpt.mkdir(parents=True, exist_ok=True)
    corpus = ckpt.parent / f"{ckpt.name}-corpus.txt"
    corpus.write_text("\n".join(texts), encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(ckpt / "spm"), vocab_size=spm_vocab,
        model_type="unigram", pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]",
        bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]", user_defined_symbols=["[MASK]"],
        hard_vocab_limit=False, minloglevel=2)
    (ckpt / "spm.vocab").unlink()
    (ckpt / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "DebertaV2Tokenizer", "vocab_type": "spm", "do_lower_case": False,
         "split_by_punct": False, "model_max_length": 512, **SPECIAL}))
    cfg = DebertaV2Config(
        max_position_embeddings=512, type_vocab_size=0, relative_attention=True,
        position_buckets=256, norm_rel_ebd="layer_norm", share_att_key=True,
        pos_att_type=["p2c", "c2p"], position_biased_input=False, max_relative_positions=-1,
        id2label=LABELS, label2id={v: k for k, v in LABELS.items()}, **shape)
    torch.manual_seed(0)
    DebertaV2ForSequenceClassification(cfg).save_pretrained(ckpt, safe_serialization=True)
    return ckpt
