"""Sentence splitting: markdown/voice layout, offsets, deflections, bad input."""
from __future__ import annotations

import pytest

from offline_eval.decomposition.markup import blocks
from offline_eval.decomposition.nlp import load_spacy
from offline_eval.decomposition.splitting import _chunks, split_response


@pytest.fixture(scope="module")
def nlp():
    return load_spacy(mode="split")


def test_blocks_bullets_numbers_headings_and_literal_newlines():
    text = "## Flightless birds\\n1. Kiwi\\n2) Emu\n- Ostrich\n**Diet:** They eat seeds."
    got = [(b.kind, b.text) for b in blocks(text)]
    assert got == [("heading", "Flightless birds"), ("item", "Kiwi"), ("item", "Emu"),
                   ("item", "Ostrich"), ("heading", "Diet:"), ("text", "They eat seeds.")]
    for b in blocks(text):
        assert text[b.start:b.end].replace("**", "").strip(" :*") .startswith(b.text.rstrip(":")[:3])


def test_symbol_without_space_is_not_a_bullet():
    assert [b.kind for b in blocks("-5 degrees is cold.\n**Bold** words here.")] == ["text", "text"]


def test_offsets_point_into_the_response(nlp):
    text = "Kiwis are birds. **They** cannot fly.\\n- Emus are large.\n3.Penguins swim well."
    res = split_response(text, nlp)
    assert [s.text for s in res.sentences] == ["Kiwis are birds.", "They cannot fly.",
                                               "Emus are large.", "Penguins swim well."]
    for s in res.sentences:
        assert text[s.start:s.end].replace("**", "") == s.text


def test_each_list_item_is_its_own_unit(nlp):
    text = "The planets nearest the Sun are:\n* Mercury\n* Venus\n* Earth"
    res = split_response(text, nlp)
    assert [s.text for s in res.sentences][1:] == ["Mercury", "Venus", "Earth"]
    assert res.sentences[0].kind == "non_claim" and res.sentences[0].reason == "topic introduction"


def test_only_a_deflection_is_flagged_and_has_no_claim_units(nlp):
    for text in ("I'm sorry, but I don't have real-time information about that.",
                 "FAILED TO CAPTURE RESPONSE", "Sorry but the system is temporarily unavailable.",
                 "I am unable to browse the internet. Is there anything else I can help with?"):
        res = split_response(text, nlp)
        assert res.deflection, text
        assert all(s.kind != "claim" for s in res.sentences)


def test_partial_deflection_keeps_the_valid_sentence(nlp):
    text = ("I apologize, I can't look up today's prices… Generally, a pedigree kitten costs "
            "between $500 and $2,000.")
    res = split_response(text, nlp)
    assert not res.deflection
    assert [s.kind for s in res.sentences] == ["deflection", "claim"]
    assert res.sentences[1].text.startswith("Generally, a pedigree kitten costs")


def test_empty_response_has_no_units_no_deflection_and_a_reason(nlp):
    for text in ("", "   \n  "):
        res = split_response(text, nlp)
        assert res.sentences == () and res.deflection is False and res.reason == "empty response"


def test_garbled_text_gives_units_and_a_warning(nlp):
    res = split_response("xq zzv brrkt plonq. vvv qqq zzt! ### @@ %%", nlp)
    assert res.warnings
    res = split_response("Der Eiffelturm steht in Paris und wurde 1889 eröffnet.", nlp)
    assert res.warnings and res.sentences


def test_long_blocks_are_cut_into_bounded_chunks():
    from offline_eval.decomposition.markup import Block

    text = "The river is long. " * 2000
    pieces = list(_chunks(text, Block(0, len(text), "text", text), 1000))
    assert all(len(p) <= 1000 for _, p in pieces)
    assert "".join(p for _, p in pieces) == text


def test_long_response_is_split_in_chunks(nlp):
    text = " ".join(f"City number {i} has a large old harbour." for i in range(400))
    res = split_response(text, nlp, limit=2000)
    assert len(res.sentences) == 400
    assert all(text[s.start:s.end] == s.text for s in res.sentences)


@pytest.mark.slow
def test_twenty_thousand_words_in_bounded_memory(nlp):
    import tracemalloc

    text = " ".join(f"The museum in town {i} opened in {1800 + i % 200} and has many rooms."
                    for i in range(1500))  # ~20k words
    tracemalloc.start()
    res = split_response(text, nlp)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(res.sentences) == 1500
    assert peak < 400 * 2**20
