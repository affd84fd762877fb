"""A text-to-text runner for a local seq2seq checkpoint (T5, Flan-T5, BART).

Loaded with ``local_files_only=True`` from safetensors weights only (no pickle, no
remote code). ``predict`` decodes greedily and deterministically, in batches, with
repeated n-grams blocked, and returns one string per input.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import batches_by_length, check_backend, load_tokenizer, pad_like


class Seq2SeqRunner:
    """Greedy generation with an ``AutoModelForSeq2SeqLM`` folder.

    Args:
        path: folder with ``config.json``, tokenizer files and ``*.safetensors``.
        device: ``"cpu"`` or ``"cuda"``.
        batch_size: inputs per forward pass (sorted by token count to limit padding).
        max_input_tokens: inputs are truncated to this many tokens.
        max_new_tokens: generation limit per input.
        no_repeat_ngram_size: block repeated n-grams while decoding (0: off).
    """

    labels: tuple[str, ...] = ()

    def __init__(self, path: str | Path, device: str = "cpu", batch_size: int = 16,
                 max_input_tokens: int = 384, max_new_tokens: int = 160,
                 no_repeat_ngram_size: int = 3) -> None:
        check_backend("torch", device)
        self.path = Path(path)
        if not (self.path / "config.json").is_file():
            raise ModelError(f"{self.path}: not a model folder (config.json is missing)")
        if not list(self.path.glob("*.safetensors")):
            raise ModelError(f"{self.path}: no *.safetensors weights (pickled weights are "
                             "refused; re-save with save_pretrained(safe_serialization=True))")
        try:
            import torch
            from transformers import AutoConfig, AutoModelForSeq2SeqLM
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ModelError("the generative decomposer needs torch and transformers: "
                             "pip install 'offline-eval[models]'") from exc
        config = AutoConfig.from_pretrained(self.path, local_files_only=True)
        if not getattr(config, "is_encoder_decoder", False):
            raise ModelError(f"{self.path}: model_type {config.model_type!r} is not an "
                             "encoder-decoder (seq2seq) model")
        self._torch = torch
        self.tokenizer = load_tokenizer(self.path)
        self.model: Any = AutoModelForSeq2SeqLM.from_pretrained(
            self.path, local_files_only=True, use_safetensors=True).to(device).eval()
        self.device, self.batch_size = device, batch_size
        self.max_input_tokens, self.max_new_tokens = max_input_tokens, max_new_tokens
        self.no_repeat_ngram_size = no_repeat_ngram_size

    def predict(self, inputs: Sequence[str]) -> np.ndarray:
        """Generated text for each input, as an object array of ``str``."""
        out: list[str] = [""] * len(inputs)
        if not inputs:
            return np.array(out, dtype=object)
        tok = self.tokenizer
        fields = tok([str(x) for x in inputs], truncation=True, max_length=self.max_input_tokens)
        fields = {k: list(v) for k, v in fields.items() if k != "token_type_ids"}
        for idx in batches_by_length([len(x) for x in fields["input_ids"]], self.batch_size):
            feeds = pad_like(tok, fields, idx)
            enc = {k: self._torch.from_numpy(v).to(self.device) for k, v in feeds.items()}
            with self._torch.inference_mode():
                gen = self.model.generate(**enc, do_sample=False, num_beams=1,
                                          max_new_tokens=self.max_new_tokens,
                                          no_repeat_ngram_size=self.no_repeat_ngram_size)
            texts = self.tokenizer.batch_decode(gen, skip_special_tokens=True)
            for i, text in zip(idx, texts):
                out[i] = text.strip()
        return np.array(out, dtype=object)
