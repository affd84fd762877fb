"""Readers, the on-disk format and bad input: empty corpora, undecodable files,
version mismatch, interrupted builds."""
from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.errors import InputError
from offline_eval.index import store
from offline_eval.index.bm25 import BM25Builder
from offline_eval.index.chunk import Document
from offline_eval.index.documents import DocumentReader, html_to_text
from offline_eval.index.searcher import SearchIndex
from offline_eval.index.store import read_header, write_corpus

DOCS = [{"id": "paris", "title": "Paris", "text": "Paris is the capital of France.",
         "url": "https://example.org/paris"},
        {"id": "lyon", "title": "Lyon", "text": "Lyon is a city in France on the Rhone."},
        {"id": 3, "text": "The Rhine flows through Germany."}]


def jsonl(tmp_path, rows, name="docs.jsonl"):
    p = tmp_path / name
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return p


def test_jsonl_reader(tmp_path):
    docs = list(DocumentReader(jsonl(tmp_path, DOCS)))
    assert [(d.id, d.title, d.url) for d in docs] == [
        ("paris", "Paris", "https://example.org/paris"), ("lyon", "Lyon", None), ("3", "", None)]


@pytest.mark.parametrize("row,match", [
    ({"title": "x", "text": "y"}, r"docs.jsonl:2: field 'id': missing"),
    ({"id": "b", "text": 5}, r"docs.jsonl:2: field 'text': expected str"),
    ({"id": "a", "text": "dup"}, r"docs.jsonl:2: field 'id': duplicate"),
    ("{not json", r"docs.jsonl:2: invalid JSON"),
])
def test_jsonl_errors_name_file_line_and_field(tmp_path, row, match):
    p = jsonl(tmp_path, [{"id": "a", "text": "ok"}, row])
    with pytest.raises(InputError, match=match):
        list(DocumentReader(p))


def test_folder_reader_skips_and_counts_undecodable_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("Plain text file.")
    (tmp_path / "b.md").write_text("# Bee\nBees make honey.")
    (tmp_path / "sub" / "c.html").write_text(
        "<html><head><title>Sea</title><style>p{}</style></head><body><p>Salt water.</p>"
        "<script>var x;</script></body></html>")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 latin-1")
    (tmp_path / "empty.md").write_text("   ")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF")  # a corrupt PDF is skipped, named
    reader = DocumentReader(tmp_path)
    with pytest.warns(UserWarning, match=r"skipped 3 input\(s\): .*bad.txt \(not valid UTF-8.*"
                                         r"broken.pdf \(unreadable"):
        docs = list(reader)
    assert [(d.id, d.title, d.text) for d in docs] == [
        ("a.txt", "a", "Plain text file."), ("b.md", "Bee", "# Bee\nBees make honey."),
        ("sub/c.html", "Sea", "Salt water.")]
    assert len(reader.skipped) == 3


def test_html_to_text_blocks_and_entities():
    assert html_to_text("<div>A<br>B &lt; C</div>")[1] == "A\n\nB < C"


def test_empty_folder_and_empty_jsonl_are_clear_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="corpus is empty"):
        write_corpus(tmp_path / "out", DocumentReader(tmp_path / "empty"))
    with pytest.raises(InputError, match="corpus is empty"):
        write_corpus(tmp_path / "out", DocumentReader(jsonl(tmp_path, [])))
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_missing_source_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        DocumentReader(tmp_path / "nope")


def test_round_trip_is_memory_mapped_and_scores_equal(tmp_path):
    docs = [Document(d["id"] if isinstance(d["id"], str) else str(d["id"]), d["text"],
                     d.get("title", ""), d.get("url")) for d in DOCS]
    header = write_corpus(tmp_path / "c", docs, meta={"license": "test"})
    assert header["n_passages"] == 3 and header["license"] == "test"
    disk = SearchIndex.open(tmp_path / "c")
    mem = SearchIndex.from_documents(docs)
    assert isinstance(disk.bm25.weights, np.memmap)
    for q in ["capital of France", "Rhone river city", "Germany"]:
        a, b = disk.search(q, 3), mem.search(q, 3)
        assert [(h.passage, h.score) for h in a] == [(h.passage, h.score) for h in b]
    hit = disk.search("capital", 1)[0].to_json()
    assert hit == {"id": "paris#0", "doc_id": "paris", "title": "Paris",
                   "url": "https://example.org/paris", "score": hit["score"],
                   "found_by": "bm25", "why": "BM25 rank 1", "text": "Paris is the capital of France."}
    assert disk.passages[-1].doc_id == "3" and len(disk.passages[0:2]) == 2


def test_version_mismatch_suggests_a_rebuild(tmp_path):
    write_corpus(tmp_path / "c", [Document("a", "Some text here.")])
    hp = tmp_path / "c" / "header.json"
    header = json.loads(hp.read_text())
    hp.write_text(json.dumps({**header, "format_version": 999}))
    with pytest.raises(InputError, match=r"version 999 .*Rebuild it: offline-eval corpus build c"):
        SearchIndex.open(tmp_path / "c")
    hp.write_text("{broken")
    with pytest.raises(InputError, match="unreadable header"):
        read_header(tmp_path / "c")


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_interrupted_build_leaves_no_index_and_keeps_the_old_one(tmp_path, monkeypatch, exc):
    write_corpus(tmp_path / "c", [Document("old", "The old corpus text.")])

    def boom(self, params=None):
        raise exc("interrupted")

    monkeypatch.setattr(BM25Builder, "finish", boom)
    with pytest.raises(exc):
        write_corpus(tmp_path / "c", [Document("new", "The new corpus text.")])
    with pytest.raises(exc):
        write_corpus(tmp_path / "fresh", [Document("new", "The new corpus text.")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]
    monkeypatch.undo()
    assert SearchIndex.open(tmp_path / "c").passages[0].doc_id == "old"


def test_rebuild_replaces_atomically(tmp_path):
    write_corpus(tmp_path / "c", [Document("old", "The old corpus text.")])
    write_corpus(tmp_path / "c", [Document("new", "The new corpus text.")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]
    assert SearchIndex.open(tmp_path / "c").passages[0].doc_id == "new"


def test_header_counts_skipped_inputs(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.txt").write_text("Good text.")
    (src / "bad.txt").write_bytes(b"\xff\xfe\xfa")
    with pytest.warns(UserWarning):
        header = write_corpus(tmp_path / "c", DocumentReader(src))
    assert header["skipped"]["count"] == 1 and header["n_documents"] == 1


def test_no_pickle_in_the_format(tmp_path):
    write_corpus(tmp_path / "c", [Document("a", "Some text here.")])
    for f in (tmp_path / "c").glob("*.npy"):
        assert np.load(f, allow_pickle=False).dtype != object
    assert store.FORMAT_VERSION >= 1
