"""The evidence order on the real wiki-vital corpus and the shipped verifier: the cases that
another entity's article used to decide (issue: evidence about the claim)."""
from __future__ import annotations

import pytest

from offline_eval.modelstore import DEFAULT_NLI, shipped_dir

SHIPPED = shipped_dir() / DEFAULT_NLI


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from offline_eval.errors import InputError
    from offline_eval.index.build import build_corpus
    from offline_eval.index.searcher import open_corpus

    home = tmp_path_factory.mktemp("home")
    try:
        build_corpus("wiki-vital", None, home=home)
    except InputError as exc:  # the data package is not installed
        pytest.skip(str(exc))
    return open_corpus("wiki-vital", home)


@pytest.mark.parametrize("claim,subject", [
    ("Marie Curie was born in Warsaw.", "Marie Curie"),
    ("The capital of Australia is Sydney.", "Australia"),
    ("Charles Darwin was born in Shrewsbury, England, in 1809.", "Charles Darwin"),
    ("Mount Kilimanjaro is the highest mountain in Africa.", "Mount Kilimanjaro"),
    ("The Nile is about 6,650 km long.", "Nile"),
    ("Jupiter is the largest planet in the Solar System.", "Jupiter"),
    ("Darwin proposed natural selection.", "Charles Darwin"),
])
def test_the_subjects_article_comes_first(corpus, claim, subject):
    hits = corpus.search_about(claim, 5)
    assert (hits[0].passage.doc_id, hits[0].found_by) == (subject, "subject")
    # every other passage names the subject, and was cut to the sentences that do
    linker = corpus.linker()
    for h in hits[1:]:
        assert h.found_by == "bm25" and linker.names_subject(h.passage.text, subject), h


def test_a_canberra_question_is_answered_from_australia(corpus):
    hits = corpus.search_about("It is Canberra.", 3, "What is the capital of Australia?")
    assert (hits[0].passage.doc_id, hits[0].found_by) == ("Australia", "topic")


@pytest.mark.skipif(not (SHIPPED / "manifest.json").is_file(), reason="no shipped model")
def test_correct_demo_answers_are_not_flagged_through_another_article(corpus):
    pytest.importorskip("onnxruntime")
    from offline_eval.nli.config import load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner

    v = Verifier(load_runner(SHIPPED, device="cpu"), load_config(SHIPPED))
    claims = {"Marie Curie was born in Warsaw.": "Where was Marie Curie born?",
              "Albert Einstein was born in Germany.": "What is Albert Einstein known for?",
              "The Nile is about 6,650 km long.": "How long is the Nile?",
              "Mount Everest is 8,849 metres tall.": "How tall is Mount Everest?"}
    judged = v.judge([(c, [h.to_evidence() for h in corpus.search_about(c, 5, q)])
                      for c, q in claims.items()])
    got = {c: (j.verdict.label, j.verdict.evidence.doc_id if j.verdict.evidence else None)
           for c, j in zip(claims, judged)}
    # Marie Curie's lead gives no birthplace: not enough evidence, never a contradiction by
    # Pierre Curie's lead; Einstein's ("German-born") supports, not a cosmology article
    assert got["Marie Curie was born in Warsaw."][0] == "unverifiable"
    assert got["Albert Einstein was born in Germany."] == ("supported", "Albert Einstein")
    assert got["The Nile is about 6,650 km long."][1] == "Nile"
    assert got["Mount Everest is 8,849 metres tall."] == ("supported", "Mount Everest")
