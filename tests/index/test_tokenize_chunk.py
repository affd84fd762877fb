"""Tokeniser and chunking: documented behaviour, offsets that cite the source."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline_eval.errors import InputError
from offline_eval.index.chunk import ChunkConfig, Document, chunk_document, sentence_spans
from offline_eval.index.tokenize import Tokenizer


def test_tokenizer_lowercases_splits_punctuation_and_drops_stopwords():
    assert Tokenizer()("The U.S. Army's 1st Division, in 1917!") == [
        "u", "army", "1st", "division", "1917"]


def test_tokenizer_keeps_negations_and_unicode_words():
    assert Tokenizer()("Zürich is not in Ｆrance") == ["zürich", "not", "france"]


def test_tokenizer_json_round_trip_and_bad_settings():
    tok = Tokenizer(stopwords=False, stem="s")
    assert Tokenizer.from_json(tok.to_json()) == tok
    with pytest.raises(InputError):
        Tokenizer.from_json({"lowercase": False})
    with pytest.raises(ValueError, match="unknown stem"):
        Tokenizer(stem="porter")


def test_sentence_spans_keep_offsets():
    text = "  Dr. Smith arrived.\n\nhe left! Then? 3 cats ran. end"
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "Dr. Smith arrived.", "he left!", "Then?", "3 cats ran. end"]


def test_a_works_number_a_title_or_an_initial_does_not_end_a_sentence():
    lead = ("The Symphony No. 5 in C minor, Op. 67, is a symphony by Ludwig van Beethoven. "
            "First performed in Vienna in 1808, it is famous. Dr. Smith met St. John in the U.S. "
            "Army. He wrote ca. 40 books.")
    assert [lead[s:e] for s, e in sentence_spans(lead)] == [
        "The Symphony No. 5 in C minor, Op. 67, is a symphony by Ludwig van Beethoven.",
        "First performed in Vienna in 1808, it is famous.",
        "Dr. Smith met St. John in the U.S. Army.", "He wrote ca. 40 books."]


def words(n, tag):
    return " ".join(f"{tag}{i}" for i in range(n)) + "."


def test_passages_are_about_the_target_size_with_overlap():
    sentences = [words(20, f"S{j}w") for j in range(30)]  # 600 words
    doc = Document("d", " ".join(sentences), title="T", url="http://x")
    ps = chunk_document(doc, max_words=200, min_words=100, overlap_words=30)
    assert len(ps) >= 3
    for p in ps:
        assert doc.text[p.start:p.end] == p.text
        assert 100 <= len(p.text.split()) <= 200 or p is ps[-1]
        assert (p.doc_id, p.title, p.url) == ("d", "T", "http://x")
        assert p.contents.startswith("T\n")
    for a, b in zip(ps, ps[1:]):
        assert b.start < a.end  # overlap
        assert b.start > a.start  # progress


def test_long_sentence_is_cut_into_windows():
    doc = Document("d", words(450, "w"))
    ps = chunk_document(doc, max_words=200, min_words=100, overlap_words=0)
    assert [len(p.text.split()) for p in ps] == [200, 200, 50]


def test_empty_document_has_no_passages():
    assert chunk_document(Document("d", "  \n ")) == []


def test_bad_chunk_config():
    with pytest.raises(ValueError):
        ChunkConfig(max_words=50, min_words=100)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\"A1")), max_size=400),
       st.integers(1, 30), st.integers(0, 5))
def test_offsets_always_cite_the_document(text, max_words, overlap):
    doc = Document("d", text)
    ps = chunk_document(doc, max_words=max_words, min_words=min(max_words, 5),
                        overlap_words=min(overlap, max_words - 1))
    covered = set()
    for p in ps:
        assert text[p.start:p.end] == p.text and p.text.strip() == p.text
        assert len(p.text.split()) <= max_words
        covered.update(range(p.start, p.end))
    # every non-space character is in some passage
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=80)
       | st.text(max_size=40))
def test_ascii_fast_path_equals_the_regex_definition(text):
    import re
    import unicodedata

    from offline_eval.index.stopwords import STOPWORDS
    expected = [t for t in re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower())
                if t not in STOPWORDS]
    assert Tokenizer()(text) == expected
