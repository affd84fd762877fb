"""Explicit ONNX export (fp32) and int8 dynamic quantisation; never a side effect of loading.

The fp32 graph is a plain trace of the checkpoint (eager attention, so that the exported
graph has the standard attention pattern). int8 is dynamic quantisation of that plain
graph with per-channel weight scales; ``quantize_int8(fuse=True)`` fuses a BERT-family
graph with ONNX Runtime's transformer optimizer first (QAttention), which ran slower on
the CPU we measured (``benchmarks/quantization.py``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

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
        dtype=torch.float32, attn_implementation="eager").float().eval()
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
        written.append(quantize_int8(out, path / ONNX_FILES["int8"], model.config))
    return written


# config.model_type -> onnxruntime.transformers optimizer model_type
FUSABLE = {"bert": "bert", "roberta": "bert", "xlm-roberta": "bert"}


def quantize_int8(fp32: Path, dest: Path, config: Any = None, fuse: bool = False,
                  per_channel: bool = True) -> Path:
    """int8 dynamic quantisation of ``fp32`` into ``dest`` (weights int8, activations
    quantised per call).

    The default, the plain graph with per-channel weight scales, is what
    ``benchmarks/quantization.py`` measured best for the NLI model on an AVX-512 VNNI CPU
    (RESULTS.md): ONNX Runtime fuses the plain graph's int8 matmuls with their scaling at
    load time and ran faster than the transformer optimizer's QAttention graph
    (``fuse=True``, BERT-family ``config`` only), and per-channel scales kept the argmax
    labels much closer to torch fp32 than per-tensor ones, for a few percent of speed.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src, options = fp32, {}
    kind = FUSABLE.get(getattr(config, "model_type", "")) if fuse else None
    if kind:
        from onnxruntime.transformers import optimizer

        fused = dest.with_name(dest.stem + ".fused.tmp.onnx")
        opt = optimizer.optimize_model(str(fp32), model_type=kind, opt_level=1, use_gpu=False,
                                       num_heads=int(config.num_attention_heads),
                                       hidden_size=int(config.hidden_size))
        opt.save_model_to_file(str(fused))
        # fused contrib ops carry no shape-inferred types; their outputs are float tensors
        src, options = fused, {"DefaultTensorType": onnx.TensorProto.FLOAT}
    try:
        quantize_dynamic(str(src), str(dest), weight_type=QuantType.QInt8, per_channel=per_channel,
                         extra_options=options)
    finally:
        if src != fp32:
            src.unlink(missing_ok=True)
    return dest


def export_embedding_onnx(src: str | Path, dest: str | Path, quantize: bool = True,
                          opset: int = 17) -> list[Path]:
    """Export the sentence encoder in ``src`` to ``dest/onnx/model.onnx`` (+ ``model.int8.onnx``).

    The graph maps ``input_ids``, ``attention_mask`` (and ``token_type_ids`` for
    BERT-style models) to ``embedding``: the mean of the last hidden states over real
    tokens, L2-normalised, exactly as :class:`~offline_eval.runners.embedding.EmbeddingRunner`
    computes it. int8 uses per-channel dynamic quantisation of the weights (per-tensor
    weights lost too much: cosine to fp32 down to 0.93 on MiniLM). ``config.json`` and
    the tokenizer files are copied beside ``onnx/``. Returns the ONNX files written.

    Raises:
        ModelError: the checkpoint is missing or cannot be traced.
    """
    import shutil

    import torch
    from transformers import AutoModel, AutoTokenizer

    src, dest = Path(src), Path(dest)
    if not (src / "config.json").is_file() or not (src / "model.safetensors").is_file():
        raise ModelError(f"{src}: expected config.json and model.safetensors to export")
    tok = AutoTokenizer.from_pretrained(src, local_files_only=True)
    model = AutoModel.from_pretrained(src, local_files_only=True, use_safetensors=True,
                                      dtype=torch.float32,
                                      attn_implementation="eager").float().eval()
    names = ["input_ids", "attention_mask"]
    if getattr(model.config, "type_vocab_size", 0) > 0:
        names.append("token_type_ids")

    class _Pooled(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, *xs: torch.Tensor) -> torch.Tensor:
            feeds = dict(zip(names, xs))
            hidden = self.m(**feeds).last_hidden_state
            mask = feeds["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    enc = tok(["a sentence for tracing the graph", "another"], padding=True, return_tensors="pt")
    args = tuple(enc[n] if n in enc else torch.zeros_like(enc["input_ids"]) for n in names)
    out = dest / ONNX_FILES["fp32"]
    out.parent.mkdir(parents=True, exist_ok=True)
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["embedding"] = {0: "batch"}
    try:
        with torch.inference_mode():
            torch.onnx.export(_Pooled(model), args, str(out), input_names=names,
                              output_names=["embedding"], dynamic_axes=axes,
                              opset_version=opset, do_constant_folding=True, dynamo=False)
    except Exception as exc:  # the exporter raises many types
        raise ModelError(f"{src}: ONNX export failed: {exc}") from exc
    tok.save_pretrained(dest)
    shutil.copy2(src / "config.json", dest / "config.json")
    written = [out]
    if quantize:
        written.append(quantize_int8(out, dest / ONNX_FILES["int8"]))
    return written
