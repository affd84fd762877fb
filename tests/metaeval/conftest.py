"""Fixtures for the meta-evaluation tests: spaCy's small English model and a stub ranker."""
from __future__ import annotations

from typing import Sequence

import pytest

from offline_eval.importance.ranker import Ranking, order_of


class KeywordRanker:
    """A stand-in for the importance ranker: a claim is vital when it holds one of the
    keywords, okay otherwise; order as the shipped ranker (vital first, response order)."""

    def __init__(self, keywords: Sequence[str]) -> None:
        self.keywords = [k.lower() for k in keywords]

    def rank_many(self, requests):
        out = []
        for r in requests:
            labels = tuple("vital" if any(k in c.lower() for k in self.keywords) else "okay"
                           for c in r.claims)
            out.append(Ranking(labels, tuple(1.0 if lab == "vital" else 0.0 for lab in labels),
                               order_of(labels)))
        return out


@pytest.fixture(scope="session")
def nlp():
    spacy = pytest.importorskip("spacy")
    try:
        from offline_eval.decomposition.nlp import load_spacy
        return load_spacy(mode="parse")
    except Exception as exc:  # noqa: BLE001 - the model package is optional here
        pytest.skip(f"spaCy model not available: {exc}")
