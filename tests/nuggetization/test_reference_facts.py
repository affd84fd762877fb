"""One decomposition per reference: the nuggets and comprehensiveness stages share it."""
from __future__ import annotations

from offline_eval.coverage.api import load_decomposer
from offline_eval.decomposition.base import SentenceClaims
from offline_eval.decomposition.syntactic import SyntacticDecomposer
from offline_eval.nuggetization import reference_facts
from offline_eval.memo import Memo
from offline_eval.nuggetization.reference_facts import ReferenceFacts

Q = "When was the Eiffel Tower finished?"
TEXTS = ["Gustave Eiffel designed the Eiffel Tower. It was finished in 1889.",
         "The tower is in Paris. It is 330 metres tall."]


def test_comprehensiveness_reads_the_facts_the_nuggets_stage_decomposed(monkeypatch):
    monkeypatch.setattr(reference_facts, "_MEMO", Memo(reference_facts.MEMO))
    calls = []
    real = SyntacticDecomposer.decompose_batch

    def counted(self, requests):
        calls.append(len(requests))
        return real(self, requests)

    monkeypatch.setattr(SyntacticDecomposer, "decompose_batch", counted)
    nuggets = ReferenceFacts("syntactic")([(Q, t) for t in TEXTS])   # the nuggets stage's call
    assert calls == [2]
    assert load_decomposer().sources(Q, TEXTS) == nuggets            # comprehensiveness: no call
    assert calls == [2]
    assert ReferenceFacts("syntactic")([(Q, TEXTS[1]), (Q, "It opened in 1889.")])[0] == nuggets[1]
    assert calls == [2, 1]                                            # only the new text
    assert "The Eiffel Tower was finished in 1889." in nuggets[0]
    # the memo holds digests, not texts
    assert not any(TEXTS[0] in str(key) for key in reference_facts._MEMO)


def test_a_decomposer_instance_or_one_that_depends_on_its_batch_is_not_remembered(monkeypatch):
    monkeypatch.setattr(reference_facts, "_MEMO", Memo(reference_facts.MEMO))

    class Counting:
        name, batch_invariant, calls = "counting", True, 0

        def decompose_batch(self, requests):
            Counting.calls += 1
            return [[SentenceClaims(s, (s,)) for s in r.sentences] for r in requests]

    facts = ReferenceFacts(Counting())
    assert facts([(Q, TEXTS[0])]) == facts([(Q, TEXTS[0])])
    assert Counting.calls == 2 and not reference_facts._MEMO

    Counting.batch_invariant = False           # a named decomposer that pads its batches
    monkeypatch.setattr("offline_eval.decomposition.base.get_decomposer", lambda *a, **k: Counting())
    named = ReferenceFacts("generative")
    named([(Q, TEXTS[0])]), named([(Q, TEXTS[0])])
    assert Counting.calls == 4 and not reference_facts._MEMO
