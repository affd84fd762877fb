"""Explicit ONNX export (fp32) and int8 dynamic quantisation; never a side effect of loading.

The fp32 graph is a plain trace of the checkpoint (eager attention, so that the exported
graph has the standard attention pattern). int8 is dynamic quantisation of a plain trace
with per-channel weight scales; ``quantize_int8(fuse=True)`` fuses a BERT-family graph
with ONNX Runtime's transformer optimizer first (QAttention), which ran slower on the CPU
we measured (``benchmarks/quantization.py``).

The int8 graph is traced without the ``attention_mask`` input: int8 runs one unpadded pair
per call (dynamic quantisation would otherwise make a pair's output depend on its batch
mates), so every token is real and the mask is all ones. Without it the graph skips the
mask's broadcast add on every attention score (measured faster at long pairs in
``benchmarks/quantization.py``, same logits). The export keeps the mask-free trace only
when it gives torch's logits at other lengths than the trace's (:func:`matches_torch`),
else the int8 graph keeps the mask; the runner refuses a padded batch for a graph
without it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from offline_eval.errors import ModelError
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.ort import ONNX_FILES


def export_onnx(path: str | Path, quantize: bool = True, opset: int = 17) -> list[Path]:
    """Export the checkpoint in ``path`` to ``path/onnx/model.onnx`` (+ ``model.int8.onnx``).

    Returns the files written. Raises ModelError when the checkpoint cannot be traced.
    """
    path = Path(path)
    model, tok = load_classifier(path)
    out = path / ONNX_FILES["fp32"]
    trace_classifier(model, tok, out, mask=True, opset=opset)
    written = [out]
    if quantize:
        unmasked = out.with_name("model.unmasked.tmp.onnx")
        try:
            # kept only where it traces, loads and reproduces torch at other lengths than the
            # trace's (a model whose mask-free path traced shape-specific constants would not);
            # else the int8 graph is quantised from the masked one
            src = unmasked if _mask_free_ok(model, tok, unmasked, opset) else out
            written.append(quantize_int8(src, path / ONNX_FILES["int8"], model.config))
        finally:
            unmasked.unlink(missing_ok=True)
    return written


def _mask_free_ok(model: Any, tok: Any, out: Path, opset: int) -> bool:
    try:
        trace_classifier(model, tok, out, mask=False, opset=opset)
        return matches_torch(model, tok, out)
    except Exception:  # noqa: BLE001 - the exporter and ONNX Runtime raise many types
        return False


#: pairs of lengths other than the trace's, to check a traced graph against torch
PROBES = (("short", "a claim"),
          ("a longer premise, written to have many more tokens than the one used for tracing "
           "the graph, so that every shape in it changes", "a longer hypothesis than the trace's"))


def matches_torch(model: Any, tok: Any, onnx_file: Path, atol: float = 1e-4, rtol: float = 1e-3) -> bool:
    """True when the fp32 graph ``onnx_file`` gives torch's logits on :data:`PROBES`, one
    unpadded pair per call (``atol + rtol * max |logit|``)."""
    import numpy as np
    import onnxruntime as ort
    import torch

    sess = ort.InferenceSession(str(onnx_file), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for premise, hyp in PROBES:
        enc = tok(premise, hyp, return_tensors="np")
        feeds = {n: np.asarray(enc[n] if n in enc else np.zeros_like(enc["input_ids"]), dtype=np.int64)
                 for n in names}
        with torch.inference_mode():
            ref = model(**{k: torch.from_numpy(v) for k, v in enc.items()}).logits.numpy()
        if np.abs(sess.run(None, feeds)[0] - ref).max() > atol + rtol * np.abs(ref).max():
            return False
    return True


def load_classifier(path: str | Path) -> tuple[Any, Any]:
    """The sequence-pair classifier in ``path`` (safetensors only, eager attention, fp32,
    eval mode) and its tokenizer."""
    import torch
    from transformers import AutoModelForSequenceClassification

    tok = load_tokenizer(path)
    model = AutoModelForSequenceClassification.from_pretrained(
        path, local_files_only=True, use_safetensors=True, trust_remote_code=False,
        dtype=torch.float32, attn_implementation="eager").float().eval()
    return model, tok


def trace_classifier(model: Any, tok: Any, out: Path, mask: bool = True, opset: int = 17) -> Path:
    """Trace a sequence-pair classifier to ONNX at ``out`` (inputs ``input_ids``,
    ``attention_mask`` unless ``mask`` is False, ``token_type_ids`` when the model has
    token types; output ``logits``). A graph without the mask is valid for unpadded
    inputs only."""
    import torch

    names = ["input_ids"] + (["attention_mask"] if mask else [])
    if getattr(model.config, "type_vocab_size", 0) > 0:
        names.append("token_type_ids")
    # unmasked: two pairs of one length, so that no padding enters the trace
    hyps = ["a hypothesis", "another one here"] if mask else ["a hypothesis", "a hypothesis"]
    enc = tok(["a premise for tracing, long enough"] * 2, hyps, padding=True, return_tensors="pt")
    args = tuple(enc[n] if n in enc else torch.zeros_like(enc["input_ids"]) for n in names)
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
            # eval() on the wrapper: the exporter restores the wrapper's mode afterwards,
            # which for a fresh module would put the model back in training mode (dropout)
            torch.onnx.export(_Wrap(model).eval(), args, str(out), input_names=names,
                              output_names=["logits"], dynamic_axes=axes, opset_version=opset,
                              do_constant_folding=True, dynamo=False)
    except Exception as exc:  # the exporter raises many types
        raise ModelError(f"{out.parent.parent}: ONNX export failed: {exc}") from exc
    return out


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
    from transformers import AutoModel

    src, dest = Path(src), Path(dest)
    if not (src / "config.json").is_file() or not (src / "model.safetensors").is_file():
        raise ModelError(f"{src}: expected config.json and model.safetensors to export")
    tok = load_tokenizer(src)
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
            torch.onnx.export(_Pooled(model).eval(), args, str(out), input_names=names,
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
