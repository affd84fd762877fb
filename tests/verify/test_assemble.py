"""The assembled evidence window: support spread over sentences of different passages."""
from __future__ import annotations

from offline_eval.nli.assemble import assemble, sentence_pool
from offline_eval.nli.config import VerifyConfig
from offline_eval.nli.verifier import Verifier
from offline_eval.types import Evidence

CLAIM = "Ada was born in London in 1815"
TEXTS = ["Ada was born in London. She wrote poems. She travelled widely.",
         "The archives list Ada. In 1815 the archives list Ada."]
# two passages (chunks) of one document
PASSAGES = [Evidence("ada#0", TEXTS[0], doc_id="ada"), Evidence("ada#1", TEXTS[1], doc_id="ada")]


def _words(texts):
    return [len(t.split()) for t in texts]


def test_greedy_cover_in_reading_order_within_budget():
    pool = sentence_pool([("p1", TEXTS[0]), ("p2", TEXTS[1])])
    a = assemble(CLAIM, pool, budget=50, count=_words)
    assert a.text == "Ada was born in London. In 1815 the archives list Ada."
    assert a.sources == ("p1", "p2") and a.sentences == 2
    # the first pick covers the most claim words; a budget that holds only it stops there
    assert assemble(CLAIM, pool, budget=6, count=_words).text == "Ada was born in London."
    assert assemble(CLAIM, pool, budget=50, count=_words, max_sentences=1).sentences == 1
    assert assemble("Zebras graze", pool, budget=50, count=_words) is None
    assert assemble(CLAIM, [], budget=50) is None


def test_sentence_pool_drops_repeated_sentences_of_overlapping_passages():
    pool = sentence_pool([("a", "One fact. Two facts."), ("b", "Two facts. Three facts.")])
    assert pool == [("a", "One fact."), ("a", "Two facts."), ("b", "Three facts.")]


def test_support_spread_over_two_passages_is_found_only_with_the_assembled_window(fake_runner):
    on = Verifier(fake_runner, VerifyConfig(split_claims=False)).verify(CLAIM, PASSAGES)
    off = Verifier(fake_runner, VerifyConfig(split_claims=False, assemble_sentences=0)).verify(CLAIM, PASSAGES)
    assert off.label == "unverifiable"
    assert on.label == "supported"
    assert on.evidence.passage_id == "assembled:ada#0+ada#1"
    assert on.evidence.text == "Ada was born in London. In 1815 the archives list Ada."


def test_sentences_of_different_documents_are_never_assembled(fake_runner):
    """Claim words scattered over two articles are not support."""
    other = [Evidence("ada#0", TEXTS[0], doc_id="ada"), Evidence("archive#0", TEXTS[1], doc_id="archive")]
    v = Verifier(fake_runner, VerifyConfig(split_claims=False))
    assert v.verify(CLAIM, other).label == "unverifiable"
    s = v.score_claims([(CLAIM, other)])[0]
    # within each document the best cover is one sentence, which a contiguous window holds
    assert s.assembled is None or s.assembled.sources in (("ada#0",), ("archive#0",))


def test_coverage_features_ignore_the_assembled_window(fake_runner):
    def scores(n):
        v = Verifier(fake_runner, VerifyConfig(split_claims=False, assemble_sentences=n))
        return v.score_claims([(CLAIM, PASSAGES)])[0]

    on, off = scores(6), scores(0)
    cov = ("cov_content", "cov_entity", "cov_number", "cov_all", "claim_len")
    assert {k: on.features[k] for k in cov} == {k: off.features[k] for k in cov}
    assert on.features["ent_full"] > 0.9 > off.features["ent_full"]
    assert on.assembled is not None and off.assembled is None
    assert len(on.passage_probs) == len(PASSAGES) + 1  # the assembled window is read last


def test_a_pool_given_per_claim_replaces_the_passages_sentences(fake_runner):
    v = Verifier(fake_runner, VerifyConfig(split_claims=False))
    s = v.score_claims([(CLAIM, ["Ada was born in London."])],
                       pools=[["Ada was born in London.", "Ada arrived in 1815."]])[0]
    assert s.assembled.text == "Ada was born in London. Ada arrived in 1815."
    assert s.assembled.sources == ("pool",)


def test_no_assembled_window_when_one_contiguous_window_already_holds_it(fake_runner):
    v = Verifier(fake_runner, VerifyConfig(split_claims=False))
    s = v.score_claims([(CLAIM, ["Ada was born in London in 1815."])])[0]
    assert s.assembled is None and len(s.passage_probs) == 1


def test_rag_references_are_one_context_for_the_assembled_window(fake_runner):
    """In RAG mode (the item has references) the assembled window may join sentences of
    passages from different references, and cites them all; in corpus mode two articles'
    words are never joined."""
    from offline_eval.stages.verify import Verify
    from offline_eval.types import Claim, Item, Reference, ResponseResult
    other = (Evidence("ada#0", TEXTS[0], doc_id="ada"), Evidence("archive#0", TEXTS[1], doc_id="archive"))
    refs = (Reference("ada", TEXTS[0]), Reference("archive", TEXTS[1]))
    stage = Verify(runner=fake_runner, config=VerifyConfig(split_claims=False))

    def verdict(references):
        rec = ResponseResult(Item("i", "q", CLAIM, references=references),
                             claims=(Claim("c", CLAIM, evidence=other),))
        return stage([rec])[0].claims[0].verdict

    rag, corpus = verdict(refs), verdict(())
    assert corpus.label == "unverifiable"
    assert rag.label == "supported"
    assert rag.evidence.passage_id == "assembled:ada#0+archive#0"
    assert rag.evidence.doc_id == "ada+archive"
    assert rag.evidence.text == "Ada was born in London. In 1815 the archives list Ada."


class _ByPremise:
    """Fixed probabilities per premise (entailment, neutral, contradiction); neutral else."""

    labels = ("entailment", "neutral", "contradiction")

    def __init__(self, table):
        self.table = table

    def predict(self, pairs):
        import numpy as np
        return np.array([self.table.get(p, (0.0, 1.0, 0.0)) for p, _ in pairs])


def test_an_assembled_window_that_covers_only_the_claims_names_does_not_contradict():
    # "Ada was a poet." covers "Ada" alone: it says nothing of where she was born
    claim = "Ada was born in London"
    text = "Ada was a poet. Her verse was read in Paris and Rome."
    ev = [Evidence("ada#0", text, doc_id="ada")]
    cfg = VerifyConfig(split_claims=False, assemble_sentences=1)
    v = Verifier(_ByPremise({"Ada was a poet.": (0.02, 0.03, 0.95)}), cfg)
    assert v.score_claims([(claim, ev)])[0].assembled.text == "Ada was a poet."
    assert v.verify(claim, ev).label == "unverifiable"
    # the same window, speaking to the predicate, does
    v = Verifier(_ByPremise({"Ada was born a poet.": (0.02, 0.03, 0.95)}), cfg)
    ev = [Evidence("ada#0", "Ada was born a poet. Her verse was read in Paris and Rome.", doc_id="ada")]
    assert v.verify(claim, ev).label == "contradicted"
