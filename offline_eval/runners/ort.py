"""The ONNX Runtime runner: CPU and CUDA execution providers, best available by default."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.pairs import PairClassifier

ONNX_FILES = {"fp32": "onnx/model.onnx", "int8": "onnx/model.int8.onnx"}


def providers_for(device: str | None, available: list[str]) -> list[str]:
    """Execution providers in preference order; ``None`` picks the best available.

    >>> providers_for(None, ["CUDAExecutionProvider", "CPUExecutionProvider"])
    ['CUDAExecutionProvider', 'CPUExecutionProvider']
    >>> providers_for("cpu", ["CUDAExecutionProvider", "CPUExecutionProvider"])
    ['CPUExecutionProvider']
    """
    if device == "cpu":
        return ["CPUExecutionProvider"]
    if device == "cuda" or (device is None and "CUDAExecutionProvider" in available):
        if "CUDAExecutionProvider" not in available:
            raise ModelError("device 'cuda' requested but onnxruntime has no CUDAExecutionProvider "
                             "(install onnxruntime-gpu)")
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


class OnnxNLIRunner(PairClassifier):
    """A sequence-pair classifier exported to ONNX (``onnx/model.onnx`` or ``model.int8.onnx``).

    Args:
        path: the model folder (config.json for labels, tokenizer files, onnx/).
        device: "cpu", "cuda" or None for the best available provider.
        precision: "fp32" or "int8"; None picks fp32 on CUDA and int8 on CPU when present.
    """

    def __init__(self, path: str | Path, device: str | None = None, batch_size: int = 32,
                 max_length: int | None = None, precision: str | None = None,
                 threads: int | None = None) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        path = Path(path)
        providers = providers_for(device, ort.get_available_providers())
        if precision is None:
            on_cpu = providers[0] == "CPUExecutionProvider"
            precision = "int8" if on_cpu and (path / ONNX_FILES["int8"]).is_file() else "fp32"
            if not (path / ONNX_FILES[precision]).is_file():
                precision = "int8"
        if precision not in ONNX_FILES:
            raise ValueError(f"unknown precision {precision!r}; valid: {', '.join(ONNX_FILES)}")
        onnx_file = path / ONNX_FILES[precision]
        if not onnx_file.is_file() or not (path / "config.json").is_file():
            raise ModelError(f"{path}: missing {ONNX_FILES[precision]} or config.json for the onnx "
                             f"backend (expected files: config.json, tokenizer files, "
                             f"{', '.join(ONNX_FILES.values())}); run `offline-eval models import`")
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = int(threads)
        self.session = ort.InferenceSession(str(onnx_file), sess_options=opts, providers=providers)
        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        super().__init__(path, tok, config.get("id2label", {}), batch_size, max_length)
        self.precision, self.providers = precision, providers
        self.input_names = tuple(i.name for i in self.session.get_inputs())
        if precision == "int8":
            # Dynamic quantisation computes activation ranges over the whole batch tensor
            # (padding included), so a pair's probabilities would depend on its batch mates
            # and a resumed run could differ from an uninterrupted one. One pair per run
            # keeps every output a function of its own pair only (determinism over speed).
            self.batch_size = 1

    def _logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        feeds = {k: feeds[k] if k in feeds else np.zeros_like(feeds["input_ids"]) for k in self.input_names}
        return np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
