"""Fixtures for the decomposition tests: a tiny random T5 saved to a temp folder."""
from __future__ import annotations

from pathlib import Path

import pytest

WORDS = ("paris is the capital of france and lies on seine river it has museums "
         "decompose context question | . , ? who what where").split()


def build_tiny_t5(path: Path) -> Path:
    """A 1-layer T5 with a word-level tokenizer, saved with safetensors."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>",
                                                eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(0)
    config = transformers.T5Config(vocab_size=len(vocab), d_model=16, d_kv=8, d_ff=32,
                                   num_layers=1, num_decoder_layers=1, num_heads=2,
                                   decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = transformers.T5ForConditionalGeneration(config)
    model.save_pretrained(path, safe_serialization=True)
    fast.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_t5(tmp_path_factory) -> Path:
    return build_tiny_t5(tmp_path_factory.mktemp("tiny_t5"))
