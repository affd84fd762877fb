"""Fixtures: a tiny random DeBERTa-v2 NLI checkpoint built in the test, and fake runners."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

WORDS = ("the a is was not cat dog sat on mat paris france capital of in born 1990 and city "
         "river big small red blue he she moved to rome 2001 . ,").split()


def make_checkpoint(root: Path, id2label: dict[int, str], seed: int = 0) -> Path:
    import torch
    from transformers import BertTokenizerFast, DebertaV2Config, DebertaV2ForSequenceClassification

    root.mkdir(parents=True, exist_ok=True)
    vocab = root / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tok = BertTokenizerFast(vocab_file=str(vocab), model_max_length=64)
    torch.manual_seed(seed)
    cfg = DebertaV2Config(vocab_size=len(WORDS) + 5, hidden_size=32, num_hidden_layers=2,
                          num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                          num_labels=len(id2label), id2label=id2label,
                          label2id={v: k for k, v in id2label.items()}, type_vocab_size=0)
    ckpt = root / "ckpt"
    DebertaV2ForSequenceClassification(cfg).save_pretrained(ckpt, safe_serialization=True)
    tok.save_pretrained(ckpt)
    vocab.unlink()
    return ckpt


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return make_checkpoint(tmp_path_factory.mktemp("deberta"),
                           {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"})


@pytest.fixture(scope="session")
def tiny_model(tiny_ckpt, tmp_path_factory) -> Path:
    """The tiny checkpoint imported into a store: ONNX fp32 + int8 + manifest."""
    pytest.importorskip("onnxruntime")
    from offline_eval.modelstore import import_model

    return import_model(tiny_ckpt, name="tiny-deberta", home=tmp_path_factory.mktemp("home"),
                        max_length=64)


class FakeRunner:
    """Entails when every content word of the hypothesis is in the premise; contradicts
    when the hypothesis has 'not' and the premise does not. Records the pairs it saw."""

    labels = ("entailment", "neutral", "contradiction")
    max_length = 40

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def token_lengths(self, texts):
        return [len(t.split()) for t in texts]

    def pair_overhead(self) -> int:
        return 3

    def predict(self, pairs):
        self.seen += list(pairs)
        out = []
        for p, h in pairs:
            pw = set(p.lower().replace(".", "").split())
            hw = set(h.lower().replace(".", "").split())
            if "not" in hw and "not" not in pw and (hw - {"not"}) <= pw:
                out.append([0.02, 0.03, 0.95])
            elif hw <= pw:
                out.append([0.95, 0.03, 0.02])
            else:
                out.append([0.05, 0.9, 0.05])
        return np.array(out, dtype=np.float64)


@pytest.fixture
def fake_runner() -> FakeRunner:
    return FakeRunner()
