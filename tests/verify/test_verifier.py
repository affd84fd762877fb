"""Verdict rules, chunking, claim splitting and bad input, with a fake runner."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from offline_eval.nli.chunking import chunk_text
from offline_eval.nli.combiner import Combiner, fit_logistic
from offline_eval.nli.config import VerifyConfig, dump_config, load_config
from offline_eval.text import split_clauses
from offline_eval.nli.verifier import Verifier
from offline_eval.types import Claim, Evidence


def passages(*texts: str) -> tuple[Evidence, ...]:
    """Separate passages (plain strings for one claim are one document)."""
    return tuple(Evidence(str(i), t) for i, t in enumerate(texts))


def test_empty_claim_or_evidence_is_unverifiable_with_reason(fake_runner):
    v = Verifier(fake_runner)
    empty_claim = v.verify("  ", ["the cat sat"])
    no_evidence = v.verify("the cat sat", [])
    blank_evidence = v.verify("the cat sat", ["", "   "])
    for verdict in (empty_claim, no_evidence, blank_evidence):
        assert verdict.label == "unverifiable" and verdict.reason
    assert empty_claim.reason == "empty claim" and no_evidence.reason == "no evidence"
    assert fake_runner.seen == []


def test_supported_contradicted_unverifiable_inconclusive(fake_runner):
    v = Verifier(fake_runner, VerifyConfig(split_claims=False))
    sup = v.verify("the cat sat", passages("dogs bark", "the cat sat on the mat"))
    assert sup.label == "supported" and sup.evidence.text == "the cat sat on the mat"
    assert sup.probs["entailment"] > 0.9
    con = v.verify("the cat not sat", ["the cat sat"])
    assert con.label == "contradicted"
    unv = v.verify("the dog ran", ["the cat sat"])
    assert unv.label == "unverifiable" and unv.evidence is not None
    inc = v.verify("the cat not sat", passages("the cat not sat", "the cat sat"))
    assert inc.label == "inconclusive"


class _OffTopicContradicts:
    """Entails by word inclusion; any passage mentioning nutria strongly contradicts."""

    def __init__(self, runner):
        self._runner = runner

    def __getattr__(self, name):
        return getattr(self._runner, name)

    def predict(self, pairs):
        out = self._runner.predict(pairs)
        for i, (premise, _) in enumerate(pairs):
            if "nutria" in premise.lower():
                out[i] = [0.01, 0.02, 0.97]
        return out


def test_a_passage_naming_nothing_of_the_claim_cannot_make_it_inconclusive(fake_runner):
    claim = "A cactus is a member of the family Cactaceae"
    own = "a cactus is a member of the family cactaceae"
    runner = _OffTopicContradicts(fake_runner)
    cfg = VerifyConfig(split_claims=False)
    off_topic = "the nutria is a member of the family of rodents"
    assert Verifier(runner, cfg).verify(claim, passages(own, off_topic)).label == "supported"
    old_rule = VerifyConfig(split_claims=False, conflict_shared_name=False)
    assert Verifier(runner, old_rule).verify(claim, passages(own, off_topic)).label == "inconclusive"
    # a passage that names the claim's subject still counts as a conflict, even when an
    # off-topic passage "contradicts" more strongly
    on_topic = "the nutria is not a member of the family Cactaceae"
    verdict = Verifier(runner, cfg).verify(claim, passages(own, off_topic, on_topic))
    assert verdict.label == "inconclusive" and verdict.reason.endswith("passage 2 contradicts")


def test_claim_split_requires_every_clause(fake_runner):
    v = Verifier(fake_runner)
    claim = "he was born in paris in 1990, and he moved to rome in 2001"
    assert len(split_clauses(claim)) == 2
    half = v.verify(claim, ["he was born in paris in 1990"])
    both = v.verify(claim, passages("he was born in paris in 1990", "later he moved to rome in 2001"))
    assert half.label == "unverifiable"
    assert both.label == "supported"


def test_long_evidence_is_chunked_and_the_claim_is_never_cut(fake_runner):
    filler = " ".join(f"Sentence number {i} talks about rivers." for i in range(40))
    evidence = filler + " The cat sat on the mat."
    claim = "the cat sat on the mat"
    verdict = Verifier(fake_runner, VerifyConfig(split_claims=False)).verify(claim, [evidence])
    assert verdict.label == "supported"
    assert len(fake_runner.seen) > 1
    for premise, hypothesis in fake_runner.seen:
        assert hypothesis == claim
        assert len(premise.split()) + len(hypothesis.split()) + 3 <= fake_runner.max_length
    # every evidence word is shown to the model in some window
    shown = " ".join(p for p, _ in fake_runner.seen).split()
    assert set(evidence.split()) <= set(shown)


def test_chunk_text_splits_an_overlong_sentence():
    text = " ".join(["word"] * 100)
    chunks = chunk_text(text, budget=20, count=lambda ts: [len(t.split()) for t in ts], overlap=0)
    assert all(len(c.split()) <= 20 for c in chunks) and sum(len(c.split()) for c in chunks) == 100


def test_evidence_objects_and_top_k(fake_runner):
    ev = tuple(Evidence(f"p{i}", "dogs bark") for i in range(6)) + (Evidence("p6", "the cat sat"),)
    v = Verifier(fake_runner, VerifyConfig(top_k=5, split_claims=False))
    assert v.verify("the cat sat", ev).label == "unverifiable"
    assert v.verify("the cat sat", ev[::-1]).evidence.passage_id == "p6"
    claim = Claim("c", "the cat sat").with_verdict(v.verify("the cat sat", ev[::-1]))
    assert claim.judgment is True


def test_combiner_json_round_trip_and_config(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.random((60, 6))
    y = (x[:, 0] + x[:, 3] > 1).astype(int)
    comb = fit_logistic(x, y)
    again = Combiner.from_json(comb.to_json())
    np.testing.assert_allclose(comb.predict(x), again.predict(x))
    cfg = VerifyConfig(support=0.42, combiner=comb)
    import json
    (tmp_path / "verifier.json").write_text(json.dumps(dump_config(cfg)))
    loaded = load_config(tmp_path)
    assert loaded.support == 0.42 and loaded.combiner == again


def test_two_way_runner_never_contradicts(fake_runner):
    class TwoWay:
        labels = ("entailment", "not_entailment")

        def predict(self, pairs):
            return np.array([[0.1, 0.9]] * len(pairs))

    assert Verifier(TwoWay()).verify("the cat not sat", ["the cat sat"]).label == "unverifiable"


def test_decisive_passage_is_the_one_the_combiner_prefers():
    class Flat:
        labels = ("entailment", "neutral", "contradiction")

        def predict(self, pairs):
            return np.full((len(pairs), 3), 1 / 3)

    comb = Combiner(("cov_content",), (5.0,), 0.0, (0.5,), (0.25,))
    v = Verifier(Flat(), VerifyConfig(combiner=comb, support=0.5, split_claims=False))
    verdict = v.verify("the museum opened in lyon", passages("a river flows", "the museum opened in lyon in 1990"))
    assert verdict.label == "supported"
    assert verdict.evidence.text == "the museum opened in lyon in 1990"


def test_a_linked_passage_the_model_does_not_entail_is_never_cited(fake_runner):
    """The subject's own document comes first only when the model entails it: with a low
    ``support`` the combiner alone passes a neutral passage (a real case: "The Italian
    front was one of the main theatres of war of World War I." cited World War I's lead,
    P(neutral) 1.00, over the Italian front's lead that says it word for word)."""
    comb = Combiner(("ent_full",), (1.0,), 0.0, (0.5,), (0.25,))
    cfg = VerifyConfig(combiner=comb, support=0.05, entail_floor=0.4, split_claims=False,
                       min_overlap=0.0)
    subject = Evidence("war#0", "the war was a global conflict", found_by="subject")
    page = Evidence("front#0", "the front was a theatre of the war", found_by="bm25")
    v = Verifier(fake_runner, cfg)
    verdict = v.verify("the front was a theatre of the war", (subject, page))
    assert verdict.label == "supported"
    assert verdict.evidence.passage_id == "front#0" and verdict.probs["entailment"] > 0.9
    # the subject's document is still preferred when the model entails it too
    both = Evidence("war#1", "the front was a theatre of the war they fought", found_by="subject")
    assert v.verify("the front was a theatre of the war", (page, both)).evidence.passage_id == "war#1"


def test_overlap_gate_skips_unrelated_windows_and_counts_them_neutral(fake_runner):
    claim = "The bridge opened in 1932."
    related, unrelated = "The bridge opened in 1932 after years of work.", "Cats sleep most of the day."
    gated = Verifier(fake_runner, VerifyConfig(min_overlap=0.3, split_claims=False))
    v = gated.verify(claim, passages(unrelated, related))
    assert v.label == "supported" and v.evidence.passage_id == "1"
    assert [p for p, _ in fake_runner.seen] == [related]  # the cat passage never reached the model
    s = gated.score_claims([(claim, passages(unrelated, related))])[0]
    assert s.passage_probs[0] == {"entailment": 0.0, "neutral": 1.0, "contradiction": 0.0}
    fake_runner.seen.clear()
    Verifier(fake_runner, VerifyConfig(split_claims=False)).verify(claim, passages(unrelated, related))
    assert len(fake_runner.seen) == 2  # no gate by default


def test_max_windows_sends_only_the_best_covered_windows(fake_runner):
    claim = "The old stone bridge opened in 1932."
    best, second = "The old stone bridge opened in 1932.", "The stone bridge opened to traffic."
    weak = "A bridge crosses the river."
    capped = Verifier(fake_runner, VerifyConfig(max_windows=2, split_claims=False))
    v = capped.verify(claim, passages(weak, second, best))
    assert v.label == "supported" and v.evidence.passage_id == "2"
    assert [p for p, _ in fake_runner.seen] == [second, best]  # reading order kept; weakest skipped
    fake_runner.seen.clear()
    tie = Verifier(fake_runner, VerifyConfig(max_windows=1, split_claims=False))
    tie.verify("The bridge opened.", passages("The bridge opened in May.", "The bridge opened in June."))
    assert [p for p, _ in fake_runner.seen] == ["The bridge opened in May."]  # a tie goes to the first


def test_a_custom_splitter_supplies_the_atomic_facts(fake_runner):
    claim = "The bridge opened in 1932 and the tower fell in 1950."
    facts = ["The bridge opened in 1932.", "The tower fell in 1950."]
    v = Verifier(fake_runner, VerifyConfig(combiner=None), splitter=lambda c: facts)
    s = v.score_claims([(claim, ["The bridge opened in 1932."])])[0]
    assert s.clauses == tuple(facts)
    assert {h for _, h in fake_runner.seen} == {claim, *facts}
    assert v.verify(claim, ["The bridge opened in 1932."]).label != "supported"  # one fact lacks support


def test_a_supported_claim_naming_someone_else_in_the_same_slot_is_contradicted(fake_runner):
    passage = "The old mill was designed by Ada Brook, who lived in Leeds."
    swapped = Verifier(fake_runner, VerifyConfig(combiner=None, split_claims=False, support=0.0))
    v = swapped.verify("The old mill was designed by Tom Hale, who lived in Leeds.", [passage])
    assert v.label == "contradicted" and "'Tom Hale'" in v.reason and "'Ada Brook'" in v.reason
    same = swapped.verify("The old mill was designed by Ada Brook, who lived in Leeds.", [passage])
    assert same.label == "supported"
    other_frame = swapped.verify("Tom Hale restored the old mill.", [passage])  # no shared frame
    assert other_frame.label == "supported"
    off = Verifier(fake_runner, VerifyConfig(combiner=None, split_claims=False, support=0.0,
                                             check_names=False))
    assert off.verify("The old mill was designed by Tom Hale, who lived in Leeds.", [passage]).label == "supported"


def test_the_name_rule_reads_an_alignment_unless_told_not_to(fake_runner):
    # the frame differs letter for letter ("was an" / "was a"), and the passage names the
    # claim's "American" elsewhere: only the word alignment of the sentence sees the swap
    passage = ("Audrey Hepburn was a British actress and humanitarian. The American Film "
               "Institute ranked her among the greatest female screen legends.")
    claim = "Audrey Hepburn was an American actress and humanitarian."
    cfg = VerifyConfig(combiner=None, split_claims=False, support=0.0)
    v = Verifier(fake_runner, cfg).verify(claim, [passage])
    assert (v.label, v.rule) == ("contradicted", "names")
    assert (v.compared.claim, v.compared.evidence) == ("American", ("British",))
    frame_only = Verifier(fake_runner, replace(cfg, align_names=False)).verify(claim, [passage])
    assert frame_only.label == "supported"


def test_a_passage_about_another_name_of_the_claim_is_checked_too(fake_runner):
    # the deciding passage (the first) never names the mill; the passage titled with the
    # claim's other name does, with someone else in the slot and other words after it
    claim = "Brook Mill was designed by Tom Hale."
    about_hale = Evidence(passage_id="hale", text="Tom Hale was an architect from Leeds.",
                          title="Tom Hale")
    about_mill = Evidence(passage_id="mill", title="Brook Mill",
                          text="Brook Mill is a water mill designed by Ada Brook around 1820.")
    cfg = VerifyConfig(combiner=None, split_claims=False, support=0.0)
    v = Verifier(fake_runner, cfg).verify(claim, [about_hale, about_mill])
    assert v.label == "contradicted" and v.evidence.passage_id == "mill"
    assert "'Ada Brook'" in v.reason
    untitled = Evidence(passage_id="mill", text=about_mill.text)  # no anchor: the word after differs
    assert Verifier(fake_runner, cfg).verify(claim, [about_hale, untitled]).label == "supported"
    other = Evidence(passage_id="x", title="Ada Brook", text=about_mill.text)  # about a third name
    assert Verifier(fake_runner, cfg).verify(claim, [about_hale, other]).label == "supported"


def test_a_supported_claim_with_a_far_off_number_is_contradicted(fake_runner):
    passage = "About 9.1 million people live in the city of Brask."
    claim = "About 18.2 million people live in the city of Brask."
    fake = type(fake_runner)()
    fake.predict = lambda pairs: np.array([[0.95, 0.03, 0.02]] * len(pairs))  # NLI misses the number
    v = Verifier(fake, VerifyConfig(split_claims=False)).verify(claim, [passage])
    assert v.label == "contradicted" and v.rule == "numbers"
    assert "'18.2 million'" in v.reason and "'9.1 million'" in v.reason  # both values compared
    assert Verifier(fake, VerifyConfig(split_claims=False)).verify(passage, [passage]).label == "supported"
    off = Verifier(fake, VerifyConfig(split_claims=False, check_numbers=False))
    assert off.verify(claim, [passage]).label == "supported"


def test_token_count_memo_clears_without_losing_the_texts_asked_for(fake_runner, monkeypatch):
    """A long run fills the memo; the call that finds it full must still count every text
    (it once cleared the memo after deciding which texts it already had: a KeyError)."""
    import offline_eval.nli.verifier as verifier_module
    from offline_eval.nli.config import VerifyConfig
    from offline_eval.nli.verifier import Verifier
    monkeypatch.setattr(verifier_module, "_CACHE_MAX", 3)
    v = Verifier(fake_runner, VerifyConfig(split_claims=False))
    assert v._count(["a b", "c", "d e f", "g"]) == v._count(["a b", "c", "d e f", "g"])
    assert len(v._count(["a b", "new text", "c"])) == 3
