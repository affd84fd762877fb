"""A DeBERTa-v3-shaped checkpoint as such checkpoints ship: disentangled relative attention,
no token types, and a SentencePiece ``spm.model`` as the only tokenizer file (no
tokenizer.json, no vocab.txt). Built in the test from a SentencePiece model trained on
sentences written here."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.modelstore import import_model, read_manifest, verify_model
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.load import load_runner
from tests.verify.deberta_v3 import make_deberta_v3

spm = pytest.importorskip("sentencepiece")
pytest.importorskip("onnxruntime")

SENTENCES = [
    "The old river bridge opened in the spring of 1931 after six years of work.",
    "A ferry carried people across the river before the bridge was built.",
    "The council of the northern district paid for the new road and the station.",
    "Her second novel sold more copies than the first, and it won a prize in Rome.",
    "Ice covers the lake from December to March in most years.",
    "The museum moved to a larger building near the harbour in 2004.",
]
PAIRS = [("The bridge opened in 1931.", "The bridge opened."),
         ("A ferry carried people across the river, and the council paid for the road. " * 6,
          "No ferry ever crossed the river."),
         ("Ice covers the lake.", "The museum is in Rome, isn't it?"),
         ("Über den Fluss führte keine Brücke.", "café — naïve")]
@pytest.fixture(scope="module")
def v3_ckpt(tmp_path_factory) -> Path:
    ckpt = make_deberta_v3(tmp_path_factory.mktemp("deberta-v3") / "ckpt", SENTENCES * 20, 150,
                           vocab_size=160, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=64)
    assert {p.name for p in ckpt.iterdir()} == {"config.json", "model.safetensors", "spm.model",
                                                "tokenizer_config.json"}
    return ckpt


@pytest.fixture(scope="module")
def v3_model(v3_ckpt, tmp_path_factory) -> Path:
    return import_model(v3_ckpt, name="tiny-deberta-v3", home=tmp_path_factory.mktemp("home"))


def sp_ids(ckpt: Path, a: str, b: str) -> list[int]:
    """[CLS] a [SEP] b [SEP], as SentencePiece itself encodes the two texts."""
    sp = spm.SentencePieceProcessor(model_file=str(ckpt / "spm.model"))
    return [1, *sp.encode(a), 2, *sp.encode(b), 2]


def test_import_pins_the_converted_tokenizer(v3_ckpt, v3_model):
    manifest = read_manifest(v3_model)
    assert "tokenizer.json" in manifest["files"] and manifest["tokenizer_json"]
    assert not (v3_ckpt / "tokenizer.json").exists()  # the source is left as it was
    assert verify_model(v3_model)["name"] == "tiny-deberta-v3"
    tok = load_tokenizer(v3_model)
    for a, b in PAIRS:
        assert tok(a, b)["input_ids"] == sp_ids(v3_ckpt, a, b), (a, b)


def test_imported_model_loads_without_sentencepiece(v3_ckpt, v3_model, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # `import sentencepiece` now fails
    for backend in ("onnx", "torch"):
        runner = load_runner(v3_model, backend, "cpu")
        a, b = PAIRS[0]
        enc = runner.tokenizer(a, b)["input_ids"]
        assert enc == sp_ids(v3_ckpt, a, b)
    with pytest.raises(ModelError, match=r"ckpt: cannot build the tokenizer from spm\.model.*"
                                         r"`sentencepiece` package"):
        load_tokenizer(v3_ckpt)  # the raw checkpoint needs the conversion


def test_torch_and_onnx_fp32_agree_at_every_length(v3_model):
    torch_probs = load_runner(v3_model, "torch", "cpu").predict(PAIRS)
    onnx_probs = load_runner(v3_model, "onnx", "cpu", precision="fp32").predict(PAIRS)
    np.testing.assert_allclose(onnx_probs, torch_probs, atol=1e-4)
    int8 = load_runner(v3_model, "onnx", "cpu", precision="int8").predict(PAIRS)
    assert int8.shape == torch_probs.shape and np.allclose(int8.sum(axis=1), 1.0)


def test_a_failed_import_leaves_nothing_behind(v3_ckpt, tmp_path, monkeypatch):
    import offline_eval.runners.export as export

    def broken(*args, **kwargs):
        raise RuntimeError("export failed")

    monkeypatch.setattr(export, "export_onnx", broken)
    with pytest.raises(RuntimeError, match="export failed"):
        import_model(v3_ckpt, name="again", home=tmp_path)
    assert not (tmp_path / "models" / "again").exists()
    monkeypatch.undo()
    assert (import_model(v3_ckpt, name="again", home=tmp_path) / "onnx" / "model.onnx").is_file()


def test_missing_sentencepiece_is_a_clear_error_before_any_copy(v3_ckpt, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    with pytest.raises(ModelError, match=r"pip install sentencepiece"):
        import_model(v3_ckpt, name="nospm", home=tmp_path)
    assert not (tmp_path / "models").exists()


def test_a_corrupt_tokenizer_is_a_clear_error_naming_the_folder(v3_model, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(v3_model, broken)
    (broken / "manifest.json").unlink()  # a raw folder, as `--nli-model DIR` may name
    (broken / "tokenizer.json").write_text("{not json")
    with pytest.raises(ModelError, match=r"broken: cannot build the tokenizer from tokenizer\.json"):
        load_runner(broken, "torch", "cpu")
