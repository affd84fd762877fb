from __future__ import annotations

import numpy as np
import pytest

from offline_eval.errors import ModelError
from offline_eval.importance.combiner import Combiner
from offline_eval.importance.features import FEATURES
from offline_eval.importance.ranker import (COMBINER_FILE, ImportanceRanker, RankRequest,
                                            check_manifest, default_model_dir)

QUERY = "who founded the Acme Rocket Company"
CLAIMS = ("The Acme Rocket Company was founded.", "Jane Doe founded the Acme Rocket Company in 1975.",
          "The company builds rockets.", "Rockets are loud.", "Loud things scare cats.",
          "Cats are mammals.", "Mammals breathe air.")


def type_match_combiner() -> Combiner:
    k = len(FEATURES)
    w = np.zeros(k)
    w[FEATURES.index("type_match")] = 2.0
    w[FEATURES.index("cos_query")] = 1.0
    return Combiner(FEATURES, np.zeros(k), np.ones(k), w)


@pytest.fixture()
def ranker(nlp, embedder):
    return ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp)


def test_rank_labels_scores_and_order(ranker):
    r = ranker.rank(QUERY, CLAIMS)
    assert len(r.labels) == len(r.scores) == len(CLAIMS)
    assert r.labels[1] == "vital" and r.labels.count("vital") == 1
    assert sorted(r.order) == list(range(len(CLAIMS))) and r.order[0] == 1
    level = {"vital": 0, "okay": 1, "less-important": 2}
    keys = [(level[r.labels[i]], i) for i in r.order]
    assert keys == sorted(keys)  # grouped by label, response order within a label


def test_rank_many_handles_empty_requests(ranker):
    out = ranker.rank_many([RankRequest(QUERY, ()), RankRequest(QUERY, CLAIMS[:2], (0, 1))])
    assert out[0].labels == () and out[0].order == ()
    assert len(out[1].labels) == 2


def test_shipped_combiner_loads_and_matches_the_features():
    folder = default_model_dir()
    if not (folder / COMBINER_FILE).is_file():
        pytest.skip("no shipped combiner")
    r = ImportanceRanker(folder, embedder=object(), nlp=object())
    members = getattr(r.combiner, "members", (r.combiner,))
    assert r.combiner.features == FEATURES
    assert all(m.normalise == "within-response" for m in members)


def test_feature_mismatch_is_a_model_error(tmp_path):
    Combiner(("a",), np.zeros(1), np.ones(1), np.ones(1)).save(tmp_path / COMBINER_FILE)
    with pytest.raises(ModelError, match="fitted on features"):
        ImportanceRanker(tmp_path)


def test_a_required_manifest_must_be_there(tmp_path):
    type_match_combiner().save(tmp_path / COMBINER_FILE)
    check_manifest(tmp_path)  # a combiner you fitted yourself: checked only if it has one
    with pytest.raises(ModelError, match="no manifest.json"):
        check_manifest(tmp_path, required=True)  # as for the shipped ranker


def test_tampered_combiner_is_refused(tmp_path):
    from offline_eval.modelstore import write_manifest

    type_match_combiner().save(tmp_path / COMBINER_FILE)
    write_manifest(tmp_path, name="ranker")
    check_manifest(tmp_path)
    (tmp_path / COMBINER_FILE).write_text((tmp_path / COMBINER_FILE).read_text() + " ")
    with pytest.raises(ModelError, match="sha256"):
        ImportanceRanker(tmp_path)
    type_match_combiner().save(tmp_path / COMBINER_FILE)
    assert ImportanceRanker(tmp_path).combiner.features == FEATURES


def test_backend_and_device_are_checked_before_any_model_loads():
    with pytest.raises(ValueError, match="unknown backend 'tf'; valid: onnx, torch"):
        ImportanceRanker(combiner=type_match_combiner(), backend="tf")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        ImportanceRanker(combiner=type_match_combiner(), device="tpu")


def test_features_of_no_requests_and_of_a_query_without_claims(nlp, embedder):
    ranker = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp)
    assert ranker.features([]) == []
    assert ranker.rank(QUERY, []).labels == ()


class _JobEmbedder:
    """The fixture's embedder behind the job interface, run on several threads."""

    workers = 3

    fixed_batch = 0  # padded batches of batch_size

    def __init__(self, inner):
        self.inner, self.dim, self.batch_size, self.calls = inner, inner.dim, 2, 0

    def encode(self, texts):
        return {"input_ids": [t.split() for t in texts], "text": list(texts)}

    def embed_encoded(self, encoded, idx):
        self.calls += 1
        return self.inner.predict([encoded["text"][i] for i in idx])

    def job(self, texts):
        from offline_eval.runners.embedding import EmbeddingJob
        return EmbeddingJob(self, texts)


def test_features_are_the_same_when_the_embedding_is_split_across_threads(nlp, embedder):
    import numpy as np

    from offline_eval.importance.ranker import RankRequest

    requests = [RankRequest(QUERY, ("Ada wrote the first program.", "She lived in London.",
                                    "The program ran on a machine.")),
                RankRequest("when did it happen", ("It happened in 1843.",))]
    plain = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp)
    split_up = _JobEmbedder(embedder)
    threaded = ImportanceRanker(combiner=type_match_combiner(), embedder=split_up, nlp=nlp)
    for a, b in zip(plain.features(requests), threaded.features(requests)):
        np.testing.assert_array_equal(a, b)
    assert split_up.calls == 3  # 6 texts in batches of 2
