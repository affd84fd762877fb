from __future__ import annotations

from offline_eval.importance.weak import label_facts, make_example, template_question


def ent(doc, label):
    return next(e for e in doc.ents if e.label_ == label)


def test_template_questions_drop_the_answer_phrase(nlp):
    doc = nlp("Acme was founded by Jane Doe in 1975.")
    sent = next(doc.sents)
    assert template_question(sent, ent(doc, "DATE")) == "when acme was founded by jane doe"
    assert template_question(sent, ent(doc, "PERSON")) == "who acme was founded in 1975"


def test_pronoun_subject_needs_the_title(nlp):
    doc = nlp("It was founded by Jane Doe in 1975.")
    sent = next(doc.sents)
    assert template_question(sent, ent(doc, "DATE")) is None
    assert template_question(sent, ent(doc, "DATE"), title="Acme") == "when acme was founded by jane doe"


def test_label_facts():
    facts = [["Acme is a company."], ["Acme was founded in 1975.", "Acme was founded by Doe."],
             ["In 1975 Doe was 30."]]
    assert label_facts(facts, 1, "1975") == (0, 2, 1, 1)


def test_make_example(nlp):
    doc = nlp("Acme is a rocket company. Acme was founded by Jane Doe in 1975. Acme is loud.")
    facts = [["Acme is a rocket company."],
             ["Acme was founded by Jane Doe.", "Acme was founded in 1975."], ["Acme is loud."]]
    ex = make_example(doc, facts, pick=0)
    assert ex is not None and ex.query.startswith(("who ", "when "))
    assert 2 in ex.levels and len(ex.claims) == len(ex.levels) == len(ex.sentence_index) == 4
    assert make_example(doc, facts[:2]) is None  # facts must align with sentences


def test_make_examples_gives_distinct_questions_up_to_the_limit(nlp):
    from offline_eval.importance.weak import candidates, make_examples
    doc = nlp("Acme is a rocket company. Acme was founded by Jane Doe in 1975. Acme is loud.")
    facts = [["Acme is a rocket company."],
             ["Acme was founded by Jane Doe.", "Acme was founded in 1975."], ["Acme is loud."]]
    assert len(candidates(doc)) == 2
    both = make_examples(doc, facts, order=[7, 3, 5, 0], limit=5)
    assert sorted(e.answer for e in both) == ["1975", "Jane Doe"]
    assert len({e.query for e in both}) == 2
    for e in both:  # the claim that carries the answer is the vital one
        assert [c for c, v in zip(e.claims, e.levels) if v == 2] == [
            c for c in e.claims if e.answer in c]
    assert len(make_examples(doc, facts, order=[0, 1], limit=1)) == 1
    assert [e.query for e in make_examples(doc, facts, order=[1, 0], limit=2)] == [
        e.query for e in reversed(make_examples(doc, facts, order=[0, 1], limit=2))]
    assert make_examples(doc, facts[:2], order=[0], limit=3) == []
