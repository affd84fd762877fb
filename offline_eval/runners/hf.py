"""The transformers runner: ``AutoModelForSequenceClassification`` on torch."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.pairs import PairClassifier


class TorchNLIRunner(PairClassifier):
    """A sequence-pair classifier on torch (CPU or CUDA), deterministic in eval mode.

    Loads with ``local_files_only=True``, ``use_safetensors=True`` and never
    ``trust_remote_code``. Half-precision weights are upcast to float32.
    """

    def __init__(self, path: str | Path, device: str = "cpu", batch_size: int = 32,
                 max_length: int | None = None) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification

        path = Path(path)
        if device == "cuda" and not torch.cuda.is_available():
            raise ModelError("device 'cuda' requested but torch sees no CUDA device")
        if not any(path.glob("*.safetensors")):
            raise ModelError(f"{path}: no *.safetensors weights for the torch backend "
                             "(expected model.safetensors, config.json and tokenizer files)")
        try:
            tok = load_tokenizer(path)
            model = AutoModelForSequenceClassification.from_pretrained(
                path, local_files_only=True, use_safetensors=True, trust_remote_code=False,
                dtype=torch.float32)
        except (OSError, ValueError) as exc:
            raise ModelError(f"{path}: cannot load checkpoint ({exc}); expected config.json, "
                             "model.safetensors and tokenizer files") from exc
        super().__init__(path, tok, model.config.id2label, batch_size, max_length)
        self.device = device
        self.model = model.float().to(device).eval()
        self.input_names = tuple(n for n in ("input_ids", "attention_mask", "token_type_ids")
                                 if n != "token_type_ids" or getattr(model.config, "type_vocab_size", 0) > 0)
        self._torch = torch

    def _logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            t = {k: torch.from_numpy(v).to(self.device) for k, v in feeds.items()}
            return self.model(**t).logits.float().cpu().numpy()
