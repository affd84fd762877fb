"""Explicit ONNX export (fp32) and int8 dynamic quantisation; never a side effect of loading."""
from __future__ import annotations

from pathlib import Path

from offline_eval.errors import ModelError
from offline_eval.runners.ort import ONNX_FILES


def export_onnx(path: str | Path, quantize: bool = True, opset: int = 17) -> list[Path]:
    """Export the checkpoint in ``path`` to ``path/onnx/model.onnx`` (+ ``model.int8.onnx``).

    Returns the files written. Raises ModelError when the checkpoint cannot be traced.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = Path(path)
    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        path, local_files_only=True, use_safetensors=True, trust_remote_code=False,
        dtype=torch.float32).float().eval()
    names = ["input_ids", "attention_mask"]
    if getattr(model.config, "type_vocab_size", 0) > 0:
        names.append("token_type_ids")
    enc = tok(["a premise for tracing, long enough"] * 2, ["a hypothesis", "another one here"],
              padding=True, return_tensors="pt")
    args = tuple(enc[n] if n in enc else torch.zeros_like(enc["input_ids"]) for n in names)
    out = path / ONNX_FILES["fp32"]
    out.parent.mkdir(parents=True, exist_ok=True)

    class _Wrap(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, *xs: torch.Tensor) -> torch.Tensor:
            return self.m(**dict(zip(names, xs))).logits

    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["logits"] = {0: "batch"}
    try:
        with torch.inference_mode():
            torch.onnx.export(_Wrap(model), args, str(out), input_names=names,
                              output_names=["logits"], dynamic_axes=axes, opset_version=opset,
                              do_constant_folding=True, dynamo=False)
    except Exception as exc:  # the exporter raises many types
        raise ModelError(f"{path}: ONNX export failed: {exc}") from exc
    written = [out]
    if quantize:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        q = path / ONNX_FILES["int8"]
        quantize_dynamic(str(out), str(q), weight_type=QuantType.QInt8)
        written.append(q)
    return written
