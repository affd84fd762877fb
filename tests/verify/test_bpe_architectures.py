"""Bring-your-own NLI checkpoints of the two other families users reach for (RoBERTa-MNLI,
BART-MNLI): tiny random models with a byte-level BPE tokenizer given as vocab.json and
merges.txt only (no tokenizer.json), built in the test. Import, ONNX export and both
backends, on pairs of mixed lengths (so torch and ONNX fp32 run padded batches)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from offline_eval.modelstore import import_model, read_manifest
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.load import load_runner

pytest.importorskip("onnxruntime")

LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}
MERGES = ["Ġ t", "h e", "Ġt he", "Ġ b", "r i", "Ġb ri", "Ġ o", "p e", "pe n", "Ġo pen"]
WORDS = "the bridge opened in spring and the council paid for a new road".split()
PAIRS = [(" ".join(WORDS[:n]), " ".join(WORDS[-m:])) for n, m in ((3, 2), (12, 4), (8, 12))] + [
    (" ".join(WORDS * 9), "The bridge never opened."), ("", "an empty premise")]


def bpe_vocab() -> dict[str, int]:
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for piece in [*bytes_to_unicode().values(), *(m.replace(" ", "") for m in MERGES), "<mask>"]:
        vocab.setdefault(piece, len(vocab))
    return vocab


def make_checkpoint(root: Path, family: str) -> Path:
    import torch
    from transformers import (BartConfig, BartForSequenceClassification, RobertaConfig,
                              RobertaForSequenceClassification)

    vocab = bpe_vocab()
    ids = {"pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "id2label": LABELS,
           "label2id": {v: k for k, v in LABELS.items()}}
    torch.manual_seed(0)
    if family == "roberta":
        model = RobertaForSequenceClassification(RobertaConfig(
            vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=514, type_vocab_size=1, **ids))
    else:
        model = BartForSequenceClassification(BartConfig(
            vocab_size=len(vocab), d_model=32, encoder_layers=2, decoder_layers=2,
            encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
            decoder_ffn_dim=64, max_position_embeddings=1024, **ids))
    ckpt = root / family
    model.save_pretrained(ckpt, safe_serialization=True)
    (ckpt / "vocab.json").write_text(json.dumps(vocab))
    (ckpt / "merges.txt").write_text("#version: 0.2\n" + "\n".join(MERGES) + "\n")
    (ckpt / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "RobertaTokenizer" if family == "roberta" else "BartTokenizer",
         "model_max_length": 512}))
    return ckpt


@pytest.fixture(scope="module", params=["roberta", "bart"])
def imported(request, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp(request.param)
    return import_model(make_checkpoint(root, request.param), home=root / "home")


def test_bpe_checkpoint_imports_and_both_backends_agree(imported):
    manifest = read_manifest(imported)
    assert manifest["labels"] == ["entailment", "neutral", "contradiction"]
    assert {"vocab.json", "merges.txt", "tokenizer.json", "onnx/model.onnx"} <= set(manifest["files"])
    torch_runner = load_runner(imported, "torch", "cpu")
    source = load_tokenizer(Path(manifest["source"]))  # built from vocab.json + merges.txt
    for a, b in PAIRS:  # the pinned tokenizer.json tokenises as the source files do
        assert torch_runner.tokenizer(a, b)["input_ids"] == source(a, b)["input_ids"]
    assert torch_runner.tokenizer("the bridge")["input_ids"][0] == 0  # <s> ... </s>
    torch_probs = torch_runner.predict(PAIRS)
    one_by_one = np.vstack([torch_runner.predict([p]) for p in PAIRS])
    np.testing.assert_allclose(torch_probs, one_by_one, atol=1e-6)  # padding changes nothing
    fp32 = load_runner(imported, "onnx", "cpu", precision="fp32").predict(PAIRS)
    np.testing.assert_allclose(fp32, torch_probs, atol=1e-4)
    int8 = load_runner(imported, "onnx", "cpu", precision="int8").predict(PAIRS)
    np.testing.assert_allclose(int8.sum(axis=1), 1.0)
    assert np.abs(int8 - torch_probs).max() < 0.05
