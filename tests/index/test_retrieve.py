"""The retrieve stage: RAG references per item, corpus search, query expansion."""
from __future__ import annotations

import pytest

from offline_eval.errors import InputError, StageError
from offline_eval.index.chunk import Document
from offline_eval.index.searcher import SearchIndex
from offline_eval.index.store import write_corpus
from offline_eval.pipeline import Pipeline
from offline_eval.stages.retrieve import Retrieve, search
from offline_eval.types import Claim, Evidence, Item, Reference, ResponseResult

DOCS = [Document("paris", "Paris is the capital of France. It hosts the Louvre museum.",
                 "Paris", "https://example.org/paris"),
        Document("berlin", "Berlin is the capital of Germany.", "Berlin"),
        Document("louvre", "The Louvre is the most visited museum in the world.", "Louvre"),
        Document("tower", "The Eiffel Tower was completed in 1889.", "Eiffel Tower")]


def record(claims, query="", references=()):
    item = Item("i1", query, "response", references=tuple(references))
    return ResponseResult(item, claims=tuple(Claim(f"c{i}", t) for i, t in enumerate(claims)))


def test_search_returns_evidence_that_cites_its_source():
    ev = search(SearchIndex.from_documents(DOCS), "capital of France", k=2)
    assert isinstance(ev[0], Evidence)
    assert (ev[0].passage_id, ev[0].doc_id, ev[0].title, ev[0].url) == (
        "paris#0", "paris", "Paris", "https://example.org/paris")
    assert DOCS[0].text[ev[0].start:ev[0].end] == ev[0].text
    assert ev[0].score > ev[1].score


def test_corpus_mode_sets_top_k_evidence_per_claim(tmp_path):
    write_corpus(tmp_path / "corpora" / "mini", DOCS)
    claims = ["Berlin is the capital of Germany.", "The tower was completed in 1889."]
    bm25 = Pipeline([Retrieve("mini", k=2, home=tmp_path, retrieval="bm25")],
                    provided=("item", "claims"))([record(claims)])
    c0, c1 = bm25[0].claims
    assert [e.doc_id for e in c0.evidence] == ["berlin", "paris"]
    assert c1.evidence[0].doc_id == "tower"
    assert {e.found_by for e in c0.evidence} == {"bm25"}
    # the default: the linked subject's document, and no other article that does not name it
    subject = Pipeline([Retrieve("mini", k=2, home=tmp_path)], provided=("item", "claims"))(
        [record(claims)])
    c0, c1 = subject[0].claims
    assert [(e.doc_id, e.found_by) for e in c0.evidence] == [("berlin", "subject")]
    assert c0.evidence[0].why == "'Berlin' is the title of 'Berlin'"
    assert c1.evidence[0].doc_id == "tower" and c1.evidence[0].found_by == "bm25"
    assert "no subject linked" in c1.evidence[0].why


def test_query_expansion_uses_the_item_query():
    index = SearchIndex.from_documents(DOCS)
    rec = record(["It was completed in 1889."], query="Tell me about the Eiffel Tower")
    plain = Retrieve(index, k=1, expand_query=False)([rec])[0].claims[0].evidence
    expanded = Retrieve(index, k=1)([rec])[0].claims[0].evidence
    assert expanded[0].doc_id == "tower"
    assert expanded[0].score > plain[0].score


def test_rag_mode_searches_only_the_item_references():
    refs = [Reference("r1", "Mount Everest is 8,849 metres tall.", url="https://e.org/1"),
            Reference("r2", "K2 is the second-highest mountain.")]
    stage = Retrieve(SearchIndex.from_documents(DOCS), k=3)
    ev = stage([record(["Everest is 8,849 metres tall."], references=refs)])[0].claims[0].evidence
    # no corpus passage; two short references are one context: one passage, citing both
    # (a url only when they share it)
    assert [e.doc_id for e in ev] == ["r1+r2"] and ev[0].url is None
    assert ev[0].text == "Mount Everest is 8,849 metres tall.\n\nK2 is the second-highest mountain."
    alone = stage([record(["Everest is 8,849 metres tall."], references=refs[:1])])[0].claims[0].evidence
    assert [e.doc_id for e in alone] == ["r1"] and alone[0].url == "https://e.org/1"


def test_rag_references_pack_into_passages_that_cite_each_reference():
    """A page given line by line reads as the page: lines pack into passages of the usual
    size (not a passage a line), each naming the references it holds, with offsets into its
    first and last reference."""
    lines = [f"Line {i} tells fact number {i} about the river Nile and its long course." for i in range(40)]
    refs = [Reference(f"L{i}", t, title=f"line {i}") for i, t in enumerate(lines)]
    ev = Retrieve(k=50)([record(["The Nile has a long course."], references=refs)])[0].claims[0].evidence
    assert 1 < len(ev) < 10  # 40 lines of 14 words, in passages of 100-200 words
    by_id = {r.id: r.text for r in refs}
    for e in ev:
        held = e.doc_id.split("+")
        assert len(held) > 1 and e.passage_id.startswith(held[0] + "#")
        assert e.title is None  # the lines' titles differ: a passage of several has none
        assert e.text.startswith(by_id[held[0]][e.start:]) and e.text.endswith(by_id[held[-1]][:e.end])
    assert len({e.passage_id for e in ev}) == len(ev)
    covered = {d for e in ev for d in e.doc_id.split("+")}
    assert covered == set(by_id)  # every line is in some passage


def test_rag_passage_inside_one_reference_keeps_its_offsets():
    from offline_eval.index.chunk import ChunkConfig
    long = " ".join(f"Sentence {i} of the long reference." for i in range(60))
    refs = [Reference("big", long), Reference("small", "A short note.")]
    ev = Retrieve(k=20, chunking=ChunkConfig(50, 20, 0))(
        [record(["Sentence 30 of the long reference."], references=refs)])[0].claims[0].evidence
    inside = [e for e in ev if e.doc_id == "big"]
    assert inside and all(long[e.start:e.end] == e.text for e in inside)


def test_rag_mode_with_empty_references_is_an_input_error():
    with pytest.raises(InputError, match="references have no text"):
        Retrieve()([record(["x"], references=[Reference("r", "  ")])])


def test_no_corpus_and_no_references_is_a_clear_error():
    with pytest.raises(StageError, match="no corpus was given"):
        Retrieve()([record(["A claim."])])


def test_records_without_claims_pass_through_and_k_is_checked():
    rec = record([])
    assert Retrieve()([rec]) == [rec]
    with pytest.raises(ValueError):
        Retrieve(k=0)
