"""Runners and the model store on a tiny random DeBERTa-v2 checkpoint."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.modelstore import import_model, read_manifest, resolve_model, verify_model
from offline_eval.runners.labels import nli_columns
from offline_eval.runners.load import load_runner
from tests.verify.conftest import make_checkpoint

PAIRS = [("the cat sat on the mat", "a cat sat"),
         ("paris is the capital of france and he was born in 1990 . " * 2, "paris is not in france"),
         ("", "the dog")]


def test_import_writes_onnx_and_manifest(tiny_model):
    m = read_manifest(tiny_model)
    assert {"onnx/model.onnx", "onnx/model.int8.onnx", "model.safetensors", "config.json"} <= set(m["files"])
    assert m["labels"] == ["entailment", "neutral", "contradiction"]
    assert verify_model(tiny_model)["name"] == "tiny-deberta"


def test_torch_and_onnx_fp32_agree(tiny_model):
    torch_probs = load_runner(tiny_model, "torch", "cpu").predict(PAIRS)
    onnx_runner = load_runner(tiny_model, "onnx", "cpu", precision="fp32")
    onnx_probs = onnx_runner.predict(PAIRS)
    assert torch_probs.shape == (3, 3)
    np.testing.assert_allclose(torch_probs.sum(1), 1.0, atol=1e-6)
    assert np.abs(torch_probs - onnx_probs).max() < 1e-4
    assert onnx_runner.labels == ("entailment", "neutral", "contradiction")


def test_int8_runs_and_is_the_cpu_default(tiny_model):
    runner = load_runner(tiny_model, "onnx", "cpu")
    assert runner.precision == "int8"
    assert runner.predict(PAIRS).shape == (3, 3)


def test_int8_export_scales_weights_per_channel(tiny_model):
    # per-channel weight scales (one per output column) kept the argmax labels of the shipped
    # model much closer to fp32 than one scale per tensor (benchmarks/quantization.py)
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(tiny_model / "onnx" / "model.int8.onnx")).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    matmuls = [n for n in graph.node if n.op_type == "MatMulInteger" and n.input[1] in inits]
    assert matmuls and not [n for n in graph.node if n.op_type == "QAttention"]
    zero_points = [inits[n.input[3]] for n in matmuls if len(n.input) > 3 and n.input[3] in inits]
    assert zero_points and all(z.size == inits[n.input[1]].shape[1] for z, n in zip(zero_points, matmuls))


def _tiny_bert(root: Path) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    from tests.verify.conftest import WORDS

    root.mkdir(parents=True, exist_ok=True)
    (root / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64,
                     id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
                     label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    ckpt = root / "ckpt"
    BertForSequenceClassification(cfg).save_pretrained(ckpt, safe_serialization=True)
    BertTokenizerFast(vocab_file=str(root / "vocab.txt"), model_max_length=64).save_pretrained(ckpt)
    return ckpt


def test_int8_graph_drops_the_mask_where_the_trace_stays_exact(tiny_model, tmp_path, monkeypatch):
    # int8 runs one unpadded pair per call, so its graph is traced without attention_mask
    # when that trace gives torch's logits at other lengths than the trace's
    import onnxruntime as ort

    from offline_eval.runners import export
    from offline_eval.runners.export import PROBES, load_classifier, matches_torch, trace_classifier

    def inputs(folder: Path) -> list[str]:
        sess = ort.InferenceSession(str(folder / "onnx" / "model.int8.onnx"), providers=["CPUExecutionProvider"])
        return [i.name for i in sess.get_inputs()]

    bert_ckpt = _tiny_bert(tmp_path / "bert")
    bert = import_model(bert_ckpt, name="tiny-bert", home=tmp_path / "home", max_length=64)
    assert "attention_mask" not in inputs(bert) and "attention_mask" not in inputs(tiny_model)  # BERT, DeBERTa-v2
    model, tok = load_classifier(bert)
    unmasked = trace_classifier(model, tok, tmp_path / "unmasked.onnx", mask=False)
    assert not model.training  # the exporter once left the model in training mode (dropout)
    assert matches_torch(model, tok, unmasked)
    traced = tok("a premise for tracing, long enough", "a hypothesis")  # the trace's input
    assert len({len(tok(p, h)["input_ids"]) for p, h in PROBES} | {len(traced["input_ids"])}) == 3
    deberta, dtok = load_classifier(tiny_model)
    assert not matches_torch(deberta, dtok, unmasked)  # another model's graph: caught
    # a trace that does not match keeps the mask in the int8 graph
    monkeypatch.setattr(export, "matches_torch", lambda *a, **k: False)
    masked = import_model(bert_ckpt, name="tiny-bert-masked", home=tmp_path / "home", max_length=64)
    assert "attention_mask" in inputs(masked)

    def unexportable(*a, **k):
        raise RuntimeError("mask-free graph does not load")

    # and so does one that fails to trace or load: the import still succeeds
    monkeypatch.setattr(export, "matches_torch", unexportable)
    again = import_model(bert_ckpt, name="tiny-bert-masked-2", home=tmp_path / "home", max_length=64)
    assert "attention_mask" in inputs(again)
    # the mask-free int8 graph runs one pair at a time, refuses a padded batch, and follows
    # fp32 on pairs of different lengths (a tiny random model)
    runner = load_runner(bert, "onnx", "cpu", batch_size=32)
    fp32 = load_runner(bert, "onnx", "cpu", batch_size=32, precision="fp32")
    assert "attention_mask" in fp32.input_names and fp32.batch_size == 32 and runner.batch_size == 1
    assert np.abs(runner.predict(PAIRS) - fp32.predict(PAIRS)).max() < 0.05
    assert np.array_equal(runner.predict(PAIRS), load_runner(masked, "onnx", "cpu").predict(PAIRS))
    runner.batch_size = 3  # forced: padding would enter a graph that cannot mask it
    with pytest.raises(ModelError, match="no attention_mask input"):
        runner.predict(PAIRS)


def _norm_ops(onnx_file: Path, saved: Path, precision: str, fuse: bool | None) -> set[str]:
    import onnx

    from offline_eval.runners.ort import make_session

    make_session(onnx_file, ["CPUExecutionProvider"], 1, precision, fuse, optimized_model_path=saved)
    return {n.op_type for n in onnx.load(str(saved)).graph.node if "LayerNorm" in n.op_type}


def test_int8_on_cpu_runs_without_the_skip_layernorm_fusion(tiny_model, tmp_path):
    # ONNX Runtime's fused SkipLayerNormalization ran slower than LayerNormalization + Add
    # behind int8 matmuls on CPU (benchmarks/quantization.py), so int8 sessions leave it off
    int8 = tiny_model / "onnx" / "model.int8.onnx"
    assert _norm_ops(int8, tmp_path / "a.onnx", "int8", None) == {"LayerNormalization"}
    assert "SkipLayerNormalization" in _norm_ops(int8, tmp_path / "b.onnx", "int8", True)
    # any other precision keeps every fusion by default
    assert "SkipLayerNormalization" in _norm_ops(int8, tmp_path / "c.onnx", "fp32", None)
    # the same function either way, up to float rounding
    fused = load_runner(tiny_model, "onnx", "cpu", fuse_skip_layernorm=True).predict(PAIRS)
    unfused = load_runner(tiny_model, "onnx", "cpu").predict(PAIRS)
    assert np.abs(fused - unfused).max() < 1e-3


def test_int8_runs_pairs_in_parallel_with_the_same_output(tiny_model):
    many = PAIRS * 7  # more pairs than workers, mixed lengths
    one = load_runner(tiny_model, "onnx", "cpu", threads=1)
    three = load_runner(tiny_model, "onnx", "cpu", threads=3)
    assert (one.workers, three.workers, three.batch_size) == (1, 3, 1)
    assert np.array_equal(one.predict(many), three.predict(many))
    assert three.truncated == one.truncated
    from offline_eval.runners.ort import OnnxNLIRunner

    intra = OnnxNLIRunner(tiny_model, "cpu", precision="int8", threads=3, parallel_pairs=False)
    assert intra.workers == 1 and np.array_equal(intra.predict(many), one.predict(many))


def test_each_distinct_pair_runs_once_and_a_one_pair_runner_remembers_it(tiny_model, monkeypatch):
    runner = load_runner(tiny_model, "onnx", "cpu", threads=1)     # int8: one pair per run
    ran = []
    real = runner._logits
    monkeypatch.setattr(runner, "_logits", lambda feeds: ran.append(1) or real(feeds))
    probs = runner.predict(PAIRS * 3)
    assert len(ran) == 3
    assert np.array_equal(probs[:3], probs[3:6]) and np.array_equal(probs[:3], probs[6:])
    again = runner.predict(PAIRS[::-1])                            # a later call: from memory
    assert len(ran) == 3 and np.array_equal(again, probs[:3][::-1])
    fresh = load_runner(tiny_model, "onnx", "cpu", threads=1)      # the same numbers unremembered
    assert np.array_equal(fresh.predict(PAIRS), probs[:3])
    batched = load_runner(tiny_model, "torch", "cpu")               # batches: nothing remembered
    batched.predict(PAIRS)
    assert batched.batch_size > 1 and not batched._memo


def test_cpu_workers_reads_threads_then_omp_then_affinity(monkeypatch):
    from offline_eval.runners.ort import cpu_workers

    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert (cpu_workers(2), cpu_workers()) == (2, 3)
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert cpu_workers() >= 1


def test_labels_come_from_config_in_canonical_order(tiny_model):
    # the checkpoint stores CONTRADICTION=0 .. ENTAILMENT=2; columns are reordered once
    runner = load_runner(tiny_model, "torch", "cpu")
    assert runner._cols == [2, 1, 0]


def test_two_way_model(tmp_path):
    ckpt = make_checkpoint(tmp_path / "two", {0: "entailment", 1: "not_entailment"})
    dest = import_model(ckpt, home=tmp_path / "home", quantize=False, max_length=64)
    runner = load_runner(dest, "onnx", "cpu")
    assert runner.labels == ("entailment", "not_entailment")
    assert runner.predict(PAIRS[:1]).shape == (1, 2)


def test_unusable_labels_are_refused(tmp_path):
    ckpt = make_checkpoint(tmp_path / "bad", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ModelError, match="not an NLI label set"):
        import_model(ckpt, home=tmp_path / "home")
    with pytest.raises(ModelError):
        nli_columns({0: "entailment", 1: "entailment"})


def test_pickle_weights_are_refused(tmp_path):
    src = tmp_path / "pickled"
    src.mkdir()
    (src / "config.json").write_text(json.dumps({"id2label": {"0": "entailment", "1": "not_entailment"}}))
    (src / "pytorch_model.bin").write_bytes(b"\x80\x04")
    with pytest.raises(ModelError, match=r"pytorch_model\.bin: pickle-based weights are refused; convert them.*safe_serialization=True"):
        import_model(src, home=tmp_path / "home")


def test_tampered_model_is_refused(tiny_model, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model, copy)
    blob = bytearray((copy / "onnx" / "model.onnx").read_bytes())
    blob[-1] ^= 0xFF
    (copy / "onnx" / "model.onnx").write_bytes(bytes(blob))
    with pytest.raises(ModelError) as err:
        verify_model(copy)
    assert str(copy) in str(err.value) and "onnx/model.onnx" in str(err.value)
    assert "Expected files" in str(err.value)
    with pytest.raises(ModelError):
        load_runner(copy, "onnx", "cpu")


def test_missing_files_name_path_and_expected(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelError, match="expected files"):
        load_runner(empty, "onnx", "cpu")
    with pytest.raises(ModelError, match="safetensors"):
        load_runner(empty, "torch", "cpu")
    with pytest.raises(ModelError, match="not found"):
        resolve_model(str(tmp_path / "nope"))


def test_unknown_backend_lists_valid_values(tiny_model):
    with pytest.raises(ValueError, match="valid: onnx, torch"):
        load_runner(tiny_model, "tensorflow")
    with pytest.raises(ValueError, match="valid: cpu, cuda"):
        load_runner(tiny_model, "onnx", "tpu")


def test_predict_is_deterministic_and_order_preserving(tiny_model):
    runner = load_runner(tiny_model, "torch", "cpu", batch_size=2)
    a = runner.predict(PAIRS)
    b = runner.predict(PAIRS[::-1])[::-1]
    np.testing.assert_allclose(a, b, atol=1e-6)
    assert runner.predict([]).shape == (0, 3)


def _folder(root: Path, fp32: bool) -> Path:
    (root / "onnx").mkdir(parents=True)
    for name in ["model.safetensors", "onnx/model.int8.onnx"] + (["onnx/model.onnx"] if fp32 else []):
        (root / name).write_bytes(b"")
    return root


def test_resolve_backend_keeps_int8_on_cpu_and_off_the_gpu(tmp_path):
    from offline_eval.runners.load import resolve_backend

    manifest = {"default_backend": "onnx", "default_precision": "int8"}
    int8_only = _folder(tmp_path / "a", fp32=False)
    no_cuda, cuda = (lambda: False), (lambda: True)
    # CPU: the manifest's measured default
    assert resolve_backend(int8_only, manifest, None, "cpu", None, no_cuda) == ("onnx", "int8")
    assert resolve_backend(int8_only, manifest, None, None, None, no_cuda) == ("onnx", "int8")
    # --device cuda with only an int8 file: the fp32 safetensors on torch, not int8 on the GPU
    assert resolve_backend(int8_only, manifest, None, "cuda", None, cuda) == ("torch", None)
    # what the user asked for explicitly is kept
    assert resolve_backend(int8_only, manifest, "onnx", "cuda", None, cuda) == ("onnx", None)
    assert resolve_backend(int8_only, manifest, None, "cuda", "int8", cuda) == ("onnx", "int8")
    assert resolve_backend(int8_only, manifest, "torch", "cpu", None, no_cuda) == ("torch", None)
    # with an fp32 export, ONNX stays and the runner takes fp32 on CUDA
    both = _folder(tmp_path / "b", fp32=True)
    assert resolve_backend(both, manifest, None, "cuda", None, cuda) == ("onnx", None)
    assert resolve_backend(both, manifest, None, None, None, cuda) == ("onnx", None)
    with pytest.raises(ValueError, match="valid: onnx, torch"):
        resolve_backend(both, {"default_backend": "tf"}, None, "cpu", None, no_cuda)
