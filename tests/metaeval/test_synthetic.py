"""The synthetic missing/wrong generator on self-written answers (spaCy, stub ranker)."""
from __future__ import annotations

import re

import pytest

from offline_eval.metaeval.synthetic import VariantGenerator, drop_span
from offline_eval.types import Item, Reference

from .conftest import KeywordRanker

CURIE = Item("curie", "Where was Marie Curie born?",
             "Marie Curie was a physicist and chemist. She was born in Warsaw in 1867. "
             "She won two Nobel Prizes.",
             references=(Reference("r1", "Marie Curie was born in Warsaw, then part of the "
                                         "Russian Empire."),))
EVEREST = Item("everest", "How tall is Mount Everest?",
               "Mount Everest is 8,849 metres tall. It lies in the Himalayas.")
ONE = Item("one", "Who wrote Hamlet?", "Hamlet was written by William Shakespeare.")
FLAT = Item("flat", "Why is the sky blue?",
            "Sunlight is scattered by the air. Blue light is scattered more than red light.")
SORRY = Item("sorry", "What is the price of gold today?",
             "I'm sorry, I can't access real-time market prices.")
POOL = ["Vienna is the capital of Austria.", "Krakow lies in southern Poland.",
        "Christopher Marlowe was an English playwright.", "Madrid is in Spain."]


@pytest.fixture()
def gen(nlp):
    ranker = KeywordRanker(["born", "metres", "written", "scattered more", "Nobel"])
    return VariantGenerator(seed=0, ranker=ranker, nlp=nlp)


def test_missing_drops_the_sentence_of_the_top_claim(gen):
    v = gen.generate([CURIE], POOL)[0]
    assert v.top_importance == "vital" and "born" in v.top_claim
    assert v.dropped_sentence == "She was born in Warsaw in 1867."
    assert v.missing.response == "Marie Curie was a physicist and chemist. She won two Nobel Prizes."
    assert v.missing.id == "curie:missing" and v.missing.meta["group"] == "missing"
    assert v.missing.meta["source_id"] == "curie" and v.missing.references == CURIE.references


def test_wrong_swaps_the_answer_type_first(gen):
    v = gen.generate([CURIE], POOL)[0]
    # "where" asks for a place: Warsaw (GPE) goes before the year
    assert v.edit.original == "Warsaw" and v.edit.label == "GPE"
    assert v.edit.replacement in {"Vienna", "Krakow", "Madrid", "Austria", "Poland", "Spain"}
    assert v.wrong.response == CURIE.response.replace("Warsaw", v.edit.replacement)
    assert v.wrong_rank == 1 and v.wrong.meta["group"] == "wrong"


def test_wrong_moves_a_quantity_beyond_tolerance(gen):
    v = gen.generate([EVEREST], POOL)[0]
    assert "8,849" in v.edit.original
    new = float(re.search(r"[\d,]+", v.edit.replacement).group().replace(",", ""))
    assert abs(new - 8849) / 8849 >= 0.2
    assert v.wrong.response.endswith("metres tall. It lies in the Himalayas.")


def test_one_sentence_answer_has_no_missing_variant(gen):
    v = gen.generate([ONE], POOL)[0]
    assert v.missing is None and "only claim sentence" in v.reasons["missing"]
    assert v.edit.original == "William Shakespeare" and v.edit.replacement == "Christopher Marlowe"


def test_no_value_to_swap_gives_no_wrong_variant(gen):
    v = gen.generate([FLAT], POOL)[0]
    assert v.wrong is None and "no claim" in v.reasons["wrong"]
    assert v.missing.response == "Sunlight is scattered by the air."


def test_deflection_gives_no_variants(gen):
    v = gen.generate([SORRY])[0]
    assert v.missing is None and v.wrong is None and v.reasons["wrong"] == "deflection"


def test_deterministic_and_independent_of_order(gen, nlp):
    items = [CURIE, EVEREST, ONE]
    a = gen.generate(items, POOL)
    b = gen.generate(items[::-1], POOL)[::-1]
    assert a == b
    again = VariantGenerator(seed=0, ranker=gen.ranker, nlp=nlp).generate(items, POOL)
    assert again == a


def test_drop_span_tidies_whitespace():
    assert drop_span("A b. C d. E f.", 0, 4) == "C d. E f."
    assert drop_span("- one\n- two\n- three", 6, 11) == "- one\n- three"
    assert drop_span("- one\n- two\n- three", 8, 11) == "- one\n- three"  # marker goes too
    assert drop_span("1. one\n2. two", 10, 13) == "1. one"
    assert drop_span("One.\n\nTwo.\n\nThree.", 6, 10) == "One.\n\nThree."
