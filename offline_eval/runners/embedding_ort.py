"""The ONNX Runtime sentence embedder (graph written by ``export_embedding_onnx``).

The exported graph already mean-pools and L2-normalises, so this runner only
tokenizes, batches and runs the session.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.embedding import TextEmbedder
from offline_eval.runners.ort import ONNX_FILES, cpu_workers, make_session, providers_for


class OnnxEmbeddingRunner(TextEmbedder):
    """Unit-length sentence vectors from ``path/onnx/model.onnx`` (or ``model.int8.onnx``).

    Args:
        path: the exported folder (``config.json``, tokenizer files, ``onnx/``), e.g.
            ``<data home>/models/all-minilm-l6-v2``.
        device: "cpu", "cuda" or None for the best available provider.
        precision: "fp32" (default) or "int8" (per-channel dynamic quantisation: about
            1.6x faster on CPU, cosine to fp32 about 0.99; its activation ranges are
            taken per batch, so a vector can differ in the third decimal with its batch
            mates).
        threads: on the CPU provider, the number of batches run at once, each on one
            ONNX Runtime thread (None: ``OMP_NUM_THREADS`` when set, else the CPUs this
            process may use); elsewhere, or with ``parallel_batches=False``, intra-op
            threads for one batch at a time (None: ONNX Runtime's default).
        parallel_batches: on the CPU provider, run ``threads`` batches at once (None or
            True, the default) or one at a time on ``threads`` intra-op threads (False).

    Batches of short texts give ONNX Runtime's intra-op threads little to share: on this
    project's 2-core box two batches at once, one thread each, embedded about as fast as
    one batch on two threads (1,271 against 1,207 texts/s int8, measured ad hoc), and they
    let the importance ranker embed on one core while spaCy parses on the other and then
    join in (``benchmarks/importance.py``, latest run: 838 claims/s against 804 with one batch
    at a time on one thread; 718 against 584 before batches followed token counts, when the
    embedding took longer than the parse). A batch's vectors do not depend on which thread
    ran it.
    """

    def __init__(self, path: str | Path, device: str | None = None, precision: str | None = None,
                 batch_size: int = 64, max_length: int = 256, threads: int | None = None,
                 parallel_batches: bool | None = None) -> None:
        import onnxruntime as ort

        super().__init__(batch_size, max_length)
        path = Path(path)
        precision = precision or "fp32"
        if precision not in ONNX_FILES:
            raise ValueError(f"unknown precision {precision!r}; valid: {', '.join(ONNX_FILES)}")
        onnx_file = path / ONNX_FILES[precision]
        if not onnx_file.is_file() or not (path / "config.json").is_file():
            raise ModelError(f"{path}: no {ONNX_FILES[precision]} (or config.json) for the onnx "
                             "embedding backend; run `offline-eval models export-embedding`"
                             + (" (without --no-int8)" if precision == "int8" else ""))
        from offline_eval.modelstore import verify_model
        verify_model(path)  # `models export-embedding` always writes the manifest
        providers = providers_for(device, ort.get_available_providers())
        if providers[0] == "CPUExecutionProvider" and parallel_batches is not False:
            self.workers, threads = cpu_workers(threads), 1
        self.session = make_session(onnx_file, providers, threads, precision)
        self._tokenizer = load_tokenizer(path)
        self.path, self.precision, self.providers = path, precision, providers
        self.input_names = tuple(i.name for i in self.session.get_inputs())
        import json
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        self._dim = int(config["hidden_size"])

    @property
    def dim(self) -> int:
        """Width of the vectors."""
        return self._dim

    def _embed(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        feeds = {k: feeds[k] if k in feeds else np.zeros_like(feeds["input_ids"])
                 for k in self.input_names}
        return np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
