"""Knowledge-base formats beyond the basics of test_kb.py: FActScore's passage separator,
format detection by content and the error listing the formats, bounded memory and broken
data in MediaWiki dumps, Parquet row groups, long CSV cells, front matter edge cases, and
`corpus build` through the CLI with OFFLINE_EVAL_HOME."""
from __future__ import annotations

import bz2
import json
import sqlite3
import tracemalloc
import warnings

import pytest

from offline_eval.cli import main
from offline_eval.errors import InputError
from offline_eval.index.documents import DocumentReader
from offline_eval.index.kb import FACTSCORE_SEPARATOR, kind_of, strip_front_matter

NILE = "The Nile is a river in northeastern Africa that flows into the Mediterranean Sea."


def _read(path):
    reader = DocumentReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = [(d.id, d.title, d.text) for d in reader]
    return docs, reader.skipped


def _db(path, rows):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    con.executemany("INSERT INTO documents VALUES (?, ?)", rows)
    con.commit()
    con.close()
    return path


def _dump(pages):
    body = "".join(f"<page><title>{t}</title><ns>0</ns><revision><text>{x}</text></revision>"
                   "</page>\n" for t, x in pages)
    return f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">\n{body}</mediawiki>\n'


def test_factscore_windows_join_back_and_the_db_is_opened_read_only(tmp_path):
    d = tmp_path / "kb #1?"  # characters that mean something in a file: URI
    d.mkdir()
    db = _db(d / "enwiki-20230401.db", [
        ("Nile", f"<s>{NILE}</s>{FACTSCORE_SEPARATOR}<s>It is 6,650 km long.</s><s>Egypt.</s>"),
        ("Only marks", f"<s></s>{FACTSCORE_SEPARATOR}<s> </s>")])
    db.chmod(0o444)
    before = sorted(p.name for p in d.iterdir())
    docs, skipped = _read(db)
    assert docs == [("Nile", "Nile", f"{NILE} It is 6,650 km long. Egypt.")]
    assert skipped == [(f"{db}:row 2", "no title or no text")]
    assert sorted(p.name for p in d.iterdir()) == before  # no journal, nothing written


def test_a_corrupt_database_is_an_input_error_naming_the_file(tmp_path):
    db = tmp_path / "broken.sqlite"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.raises(InputError, match=r"broken.sqlite: not a FActScore database"):
        _read(db)


def test_formats_are_told_by_content_when_the_suffix_says_nothing(tmp_path):
    db = _db(tmp_path / "kb.bin", [("Nile", NILE)])
    (tmp_path / "docs.json").write_text(json.dumps({"id": "n", "text": NILE}) + "\n")
    dump = tmp_path / "enwiki-20230401-pages-articles1.xml-p1p41242.bz2"
    dump.write_bytes(bz2.compress(_dump([("Nile", NILE)]).encode()))
    other = tmp_path / "export.bz2"
    other.write_bytes(bz2.compress(_dump([("Nile", NILE)]).encode()))
    assert [kind_of(p) for p in (db, tmp_path / "docs.json", dump, other, tmp_path)] == [
        "sqlite", "jsonl", "mediawiki", "mediawiki", "folder"]
    assert _read(db)[0] == [("Nile", "Nile", NILE)]
    assert _read(tmp_path / "docs.json")[0] == [("n", "", NILE)]


@pytest.mark.parametrize("name,data", [("notes.txt", b"Just some words."),
                                       ("sheet.xlsx", b"PK\x03\x04 zipped"),
                                       ("plain.bz2", bz2.compress(b"not xml"))])
def test_an_unknown_format_is_an_input_error_listing_the_formats(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(InputError) as err:
        _read(p)
    msg = str(err.value)
    assert msg.startswith(f"{p}: not a format `corpus build --from` reads")
    for fmt in ("JSONL", "folder", "FActScore", "MediaWiki", "psgs_w100.tsv", ".parquet"):
        assert fmt in msg


def _peak(path):
    tracemalloc.start()
    try:
        n = sum(1 for _ in DocumentReader(path))
        return n, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_dump_is_read_in_bounded_memory(tmp_path):
    pytest.importorskip("mwparserfromhell")
    sizes = {}
    for n in (300, 300, 3000):  # the first run pays for imports
        p = tmp_path / f"d{n}.xml"
        p.write_text(_dump((f"Page {i}", f"Page {i} is about thing {i}.") for i in range(n)))
        count, sizes[n] = _peak(p)
        assert count == n
    # 2,700 more pages: kept, they would cost ~80 bytes each (216 kB)
    assert sizes[3000] - sizes[300] < 60_000, sizes


def test_a_cut_bz2_dump_keeps_the_pages_before_the_cut(tmp_path):
    pytest.importorskip("mwparserfromhell")
    # as pages-articles-multistream.xml.bz2: bz2 streams one after another, the last one cut
    pages = [(f"P{i}", f"Page {i} text.") for i in range(2000)]
    head, tail = _dump(pages).split("<page><title>P1000<")
    second = bz2.compress(("<page><title>P1000<" + tail).encode())
    p = tmp_path / "cut.xml.bz2"
    p.write_bytes(bz2.compress(head.encode()) + second[: len(second) // 2])
    docs, skipped = _read(p)
    # the pages of the first stream, but for those read with the broken block (<16 kB)
    assert 700 < len(docs) <= 1000
    assert docs == [(t, t, x) for t, x in pages[: len(docs)]]
    assert skipped[-1][0] == str(p) and "compressed data broken" in skipped[-1][1]
    p.write_bytes(b"BZh9" + b"\x00" * 64)  # corrupt from the first block
    docs, skipped = _read(p)
    assert docs == [] and [(w, why.split(" (")[0]) for w, why in skipped] == [
        (str(p), "compressed data broken")]


def test_a_page_that_fails_to_parse_is_skipped_and_counted(tmp_path, monkeypatch):
    mw = pytest.importorskip("mwparserfromhell")
    real = mw.parse

    def parse(text, *a, **k):
        if "BOOM" in text:
            raise RecursionError("too deep")
        return real(text, *a, **k)

    monkeypatch.setattr(mw, "parse", parse)
    p = tmp_path / "dump.xml"
    p.write_text(_dump([("A", "Alpha."), ("B", "BOOM"), ("C", "Gamma.")]))
    reader = DocumentReader(p)
    with pytest.warns(UserWarning, match=r"skipped 1 input\(s\): .*dump.xml:B "
                                         r"\(unparsable markup \(RecursionError\)\)"):
        assert [d.id for d in reader] == ["A", "C"]


def test_parquet_is_read_by_row_groups_and_a_missing_column_is_named(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    p = tmp_path / "kb.parquet"
    rows = [{"id": f"d{i}", "title": f"T{i}", "text": f"Text number {i}.",
             "url": f"https://kb.example/{i}" if i % 2 else None} for i in range(5)]
    pq.write_table(pa.Table.from_pylist(rows), p, row_group_size=2)
    assert pq.ParquetFile(p).num_row_groups == 3
    reader = DocumentReader(p)
    docs = list(reader)
    assert [(d.id, d.title, d.text, d.url) for d in docs] == [
        (r["id"], r["title"], r["text"], r["url"]) for r in rows]
    pq.write_table(pa.Table.from_pylist([{"id": "a", "body": "x"}]), p)
    with pytest.raises(InputError, match=r"kb.parquet:1: missing column 'text'"):
        list(DocumentReader(p))


def test_csv_cells_longer_than_the_csv_default_limit(tmp_path):
    long = "word " * 40_000  # 200 kB, past csv's 128 kB default field limit
    p = tmp_path / "kb.csv"
    p.write_text(f'id,text\nbig,"{long}"\n', encoding="utf-8")
    [(doc_id, _, text)], _ = _read(p)
    assert doc_id == "big" and text == long
    p.write_text("id,title\nn,Nile\n")
    with pytest.raises(InputError, match=r"kb.csv:2: missing column 'text'"):
        _read(p)


@pytest.mark.parametrize("text,meta,rest", [
    ("---\n---\nBody.", {}, "Body."),
    ("---\ntitle: 'Quoted: yes'\nURL: \"https://a.example\"\n# note: x\n---\nBody.",
     {"title": "Quoted: yes", "url": "https://a.example"}, "Body."),
    ("---\r\ntitle: Win\r\n---\r\nBody.", {"title": "Win"}, "Body."),
    ("No front matter.\n---\ntitle: x\n---\n", {}, "No front matter.\n---\ntitle: x\n---\n"),
    ("---\ntitle: never closed\nBody.", {}, "---\ntitle: never closed\nBody."),
])
def test_front_matter(text, meta, rest):
    assert strip_front_matter(text) == (meta, rest)


def test_markdown_without_a_front_matter_title_uses_its_heading(tmp_path):
    (tmp_path / "a.md").write_text("---\nurl: https://a.example\n---\n# Alpha\nAlpha is first.")
    [doc] = list(DocumentReader(tmp_path))
    assert (doc.title, doc.url) == ("Alpha", "https://a.example")
    assert doc.text == "# Alpha\nAlpha is first."


def test_corpus_build_help_lists_the_formats(capsys):
    with pytest.raises(SystemExit):
        main(["corpus", "build", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for fmt in ("FActScore", "MediaWiki", "psgs_w100.tsv", ".parquet", ".pdf/.docx"):
        assert fmt in out


def test_corpus_build_from_a_dump_with_the_home_from_the_environment(tmp_path, capsys,
                                                                     monkeypatch):
    pytest.importorskip("mwparserfromhell")
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(tmp_path / "home"))
    dump = tmp_path / "enwiki.xml.bz2"
    dump.write_bytes(bz2.compress(_dump([
        ("Nile", "The '''Nile''' is a [[river]] in northeastern [[Africa]]."),
        ("Curie", "Marie Curie was born in [[Warsaw]] in 1867.{{Infobox person}}")]).encode()))
    (tmp_path / "notes.txt").write_text("not a corpus")
    assert main(["corpus", "build", "wiki", "--from", str(dump)]) == 0
    assert "built wiki: 2 documents" in capsys.readouterr().out
    assert (tmp_path / "home").is_dir()
    assert main(["search", "wiki", "where was Curie born", "--json"]) == 0
    hits = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert hits[0]["doc_id"] == "Curie" and "Warsaw in 1867" in hits[0]["text"]
    assert main(["corpus", "build", "bad", "--from", str(tmp_path / "notes.txt")]) == 2
    assert "not a format `corpus build --from` reads" in capsys.readouterr().err


def test_dump_text_is_prose_only(tmp_path):
    """Pictures, categories, interlanguage links, references and redirects written as text
    never reach the index; a heading is its own paragraph."""
    pytest.importorskip("mwparserfromhell")
    raw = ("The Nile flows north.[[File:Nile.jpg|thumb|200px|A caption]]<ref>cite web</ref>\n"
           "== Course ==\nIt is long.\n[[Category:Rivers]] [[de:Nil]]")
    p = tmp_path / "d.xml"
    from xml.sax.saxutils import escape  # a dump escapes the markup's tags

    p.write_text(_dump([("Nile", escape(raw)), ("Old redirect", "#redirect [[Nile]]")]),
                 encoding="utf-8")
    docs, skipped = _read(p)
    [(doc_id, _, text)] = docs
    assert doc_id == "Nile" and not skipped
    assert text.split("\n\n") == ["The Nile flows north.", "Course", "It is long."]
