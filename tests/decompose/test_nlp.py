"""The spaCy loader's speed-ups give spaCy's own annotations (sentences written for these
tests, chosen to hit the attribute ruler's multi-token, dependency and whitespace rules)."""
from __future__ import annotations

import pytest

from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL, load_spacy
from offline_eval.decomposition.ruler import FastRuler

TEXTS = [
    "There is a harbour in Varn, and there are two ferries.",
    "It's gonna rain; y'all ain't ready, so let's go home.  We got ta leave\n\nnow.",
    "I'd have said it. She'd gone. What'd you do? He has had it, didn't he?",
    "Something happened to everyone, and nobody saw anything at all.",
    "The well-known painter, who was born in 1901, didn't paint landscapes.",
    "  \t Mixed   spacing\n- and a bullet",
    "",
    "Ok",
    "Marie Sklodowska won the prize in Stockholm on 10 December 1903 with two colleagues.",
    "How many moons does Jupiter have? It has 95 known moons, said NASA in 2023.",
]


@pytest.fixture(scope="module")
def pristine():
    spacy = pytest.importorskip("spacy")
    return spacy.load(DEFAULT_SPACY_MODEL)


def annotations(doc):
    return [(t.text, t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i, t.ent_iob_,
             t.ent_type_) for t in doc]


def test_parse_pipeline_matches_spacy(pristine):
    ours = load_spacy(mode="parse")
    assert [annotations(d) for d in ours.pipe(TEXTS)] == [annotations(d) for d in pristine.pipe(TEXTS)]


def test_fast_ruler_returns_the_matchers_matches(pristine):
    ruler = pristine.get_pipe("attribute_ruler")
    from spacy.attrs import DEP, IS_SPACE, LOWER, TAG

    fast = FastRuler(ruler.patterns, ruler.vocab.strings, [TAG, LOWER, DEP, IS_SPACE], ruler.attrs)
    before = [n for n in pristine.pipe_names[:pristine.pipe_names.index("attribute_ruler")]]
    with pristine.select_pipes(enable=before):
        docs = list(pristine.pipe(TEXTS))
    for doc in docs:
        assert fast.match(doc) == ruler.match(doc)


def test_unsupported_patterns_leave_the_ruler_alone():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "big", "OP": "+"}]], {"TAG": "JJ"})
    original = ruler.match
    assert FastRuler.install(ruler) is False and ruler.match == original


def test_split_mode_shares_vocab_and_tokenizer():
    split, parse = load_spacy(mode="split"), load_spacy(mode="parse")
    assert split.vocab is parse.vocab and split.tokenizer is parse.tokenizer
    assert "parser" not in split.pipe_names and "senter" in split.pipe_names


def test_units_after_the_last_target_are_not_needed():
    from offline_eval.decomposition.syntactic import SyntacticDecomposer

    d = SyntacticDecomposer()
    units = ["Ada Lovelace was a mathematician.", "She wrote the first program.",
             "Would you like to know more?"]
    full = d.decompose("", units)
    some = d.decompose("", units, targets=[1])
    assert some[1] == full[1] and some[0].claims == () and some[2].claims == ()
    assert some[2].sentence == units[2]


def test_neural_components_multiply_on_numpy_blas():
    import numpy as np

    for mode in ("parse", "split"):
        nlp = load_spacy(mode=mode)
        nodes = [n for _, p in nlp.pipeline if hasattr(getattr(p, "model", None), "walk")
                 for n in p.model.walk()]
        assert nodes and all(not n.ops.use_blis for n in nodes)
    ops = nodes[0].ops
    rng = np.random.default_rng(0)
    x = rng.standard_normal((50, 12), dtype=np.float32)
    w = rng.standard_normal((7, 12), dtype=np.float32)
    np.testing.assert_allclose(ops.gemm(x, w, trans2=True), x @ w.T, rtol=1e-5, atol=1e-5)


def test_blas_thread_limit_is_scoped_and_holds_from_any_thread():
    import threading

    threadpoolctl = pytest.importorskip("threadpoolctl")
    from offline_eval.decomposition.nlp import _OneBlasThread

    guard = _OneBlasThread()
    if not guard.active:
        pytest.skip("numpy's BLAS is not OpenBLAS")

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info()
                if i["internal_api"] == "openblas"]

    before = blas_threads()
    guard.__enter__()
    guard.__enter__()  # a second caller (another thread) inside at once
    assert all(n == 1 for n in blas_threads())
    guard.__exit__(None, None, None)
    assert all(n == 1 for n in blas_threads())  # still held: one caller is inside
    guard.__exit__(None, None, None)
    assert blas_threads() == before
    seen = []

    def in_a_worker():  # threadpoolctl's own limits do nothing here once another thread set one
        with guard:
            seen.append(blas_threads())

    worker = threading.Thread(target=in_a_worker)
    worker.start()
    worker.join()
    assert seen and all(n == 1 for n in seen[0]) and blas_threads() == before
    parsed = []
    worker = threading.Thread(target=lambda: parsed.append(
        load_spacy(mode="parse")("A parse in a worker thread leaves the limit as it found it.")))
    worker.start()
    worker.join()
    assert parsed and blas_threads() == before


def test_an_openblas_that_cannot_be_held_keeps_spacy_on_blis(monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from offline_eval.decomposition import nlp as nlp_module

    openmp_build = [{"internal_api": "openblas", "threading_layer": "openmp",
                     "filepath": "/nowhere/libopenblas.so"}]
    monkeypatch.setattr(threadpoolctl, "threadpool_info", lambda: openmp_build)
    assert nlp_module._openblas_thread_setters() == []
    assert not nlp_module._OneBlasThread().active
