"""Knowledge bases for ``corpus build --from``: each format read from a small self-written
file, its skips counted and named, its errors naming file and column, and one corpus built
and searched through the CLI."""
from __future__ import annotations

import bz2
import json
import sqlite3

import pytest

from offline_eval.cli import main
from offline_eval.errors import InputError
from offline_eval.index.documents import DocumentReader

CURIE = "Marie Curie was a physicist and chemist who was born in Warsaw in 1867."
NILE = "The Nile is a river in northeastern Africa that flows into the Mediterranean Sea."


def _read(path):
    reader = DocumentReader(path)
    return [(d.id, d.title, d.text, d.url) for d in reader], reader.skipped


def test_factscore_sqlite_database(tmp_path):
    db = tmp_path / "enwiki.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    con.executemany("INSERT INTO documents VALUES (?, ?)", [
        ("Marie Curie", f"<s>{CURIE}</s><s>She won two Nobel Prizes.</s>"), ("Empty", "")])
    con.commit()
    con.close()
    docs, skipped = _read(db)
    assert docs == [("Marie Curie", "Marie Curie", f"{CURIE} She won two Nobel Prizes.", None)]
    assert [why for _, why in skipped] == ["no title or no text"]
    bad = tmp_path / "other.db"
    sqlite3.connect(bad).execute("CREATE TABLE pages (x)").connection.close()
    with pytest.raises(InputError, match=r"other.db: not a FActScore database"):
        _read(bad)


DUMP = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">
  <page><title>Nile</title><ns>0</ns><revision><text>The '''Nile''' is a [[river]] in
northeastern [[Africa]] that flows into the Mediterranean Sea.{{Infobox river|name=Nile}}

== Course ==
It is about 6,650 km long.</text></revision></page>
  <page><title>Talk:Nile</title><ns>1</ns><revision><text>Discussion.</text></revision></page>
  <page><title>River Nile</title><ns>0</ns><redirect title="Nile"/><revision><text>#REDIRECT [[Nile]]</text></revision></page>
  <page><title>Stub</title><ns>0</ns><revision><text>{{stub}}</text></revision></page>
</mediawiki>"""


@pytest.mark.parametrize("name", ["dump.xml", "dump.xml.bz2"])
def test_mediawiki_dump_streamed_articles_only(tmp_path, name):
    pytest.importorskip("mwparserfromhell")
    p = tmp_path / name
    p.write_bytes(bz2.compress(DUMP.encode()) if name.endswith(".bz2") else DUMP.encode())
    docs, skipped = _read(p)
    assert [d[0] for d in docs] == ["Nile"]
    text = docs[0][2]
    assert text.startswith("The Nile is a river in northeastern Africa") and "6,650 km" in text
    assert "[[" not in text and "{{" not in text and "'''" not in text
    assert [(w.rsplit(":", 1)[-1], why) for w, why in skipped] == [("Stub", "no title or no text")]


def test_a_broken_dump_keeps_the_pages_before_the_break(tmp_path):
    pytest.importorskip("mwparserfromhell")
    p = tmp_path / "cut.xml"
    p.write_text(DUMP.split("<page><title>Talk")[0] + "<page><title>Half", encoding="utf-8")
    docs, skipped = _read(p)
    assert [d[0] for d in docs] == ["Nile"] and "XML broken" in skipped[-1][1]


def test_dpr_tsv_csv_and_parquet_tables(tmp_path):
    tsv = tmp_path / "psgs_w100.tsv"
    tsv.write_text(f'id\ttext\ttitle\n1\t"{CURIE}"\tMarie Curie\n2\t{NILE}\tNile\n', encoding="utf-8")
    docs, _ = _read(tsv)
    assert docs == [("1", "Marie Curie", CURIE, None), ("2", "Nile", NILE, None)]
    csv_path = tmp_path / "kb.csv"
    csv_path.write_text(f"id,title,text,url\nn,Nile,{NILE.replace(',', '')},https://x.example/nile\n")
    assert _read(csv_path)[0][0][3] == "https://x.example/nile"
    csv_path.write_text("id,title\nn,Nile\n")
    with pytest.raises(InputError, match=r"kb.csv:2: missing column 'text'"):
        _read(csv_path)
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pq = tmp_path / "kb.parquet"
    pd.DataFrame([{"id": 7, "title": "Nile", "text": NILE}, {"id": 8, "title": "X", "text": " "}]
                 ).to_parquet(pq)
    docs, skipped = _read(pq)
    assert docs == [("7", "Nile", NILE, None)] and skipped[0][1] == "empty text"


def _pdf(path, text=None, password=None):
    pypdf = pytest.importorskip("pypdf")
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    w = pypdf.PdfWriter()
    page = w.add_blank_page(width=400, height=200)
    if text:
        font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                                 NameObject("/Subtype"): NameObject("/Type1"),
                                 NameObject("/BaseFont"): NameObject("/Helvetica")})
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject(
            {NameObject("/F1"): w._add_object(font)})})
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 10 Tf 10 100 Td ({text}) Tj ET".encode())
        page[NameObject("/Contents")] = w._add_object(stream)
    if password:
        w.encrypt(password)
    with open(path, "wb") as fh:
        w.write(fh)


def test_folder_of_pdf_docx_and_markdown_with_front_matter(tmp_path):
    docx = pytest.importorskip("docx")
    d = tmp_path / "kb"
    d.mkdir()
    _pdf(d / "curie.pdf", CURIE)
    _pdf(d / "blank.pdf")
    _pdf(d / "locked.pdf", CURIE, password="secret")
    doc = docx.Document()
    doc.add_paragraph(NILE)
    doc.save(d / "nile.docx")
    (d / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    (d / "note.md").write_text("---\ntitle: Field notes\nurl: https://notes.example/1\n---\n"
                               "# Heading\nBees make honey.\n", encoding="utf-8")
    reader = DocumentReader(d)
    with pytest.warns(UserWarning, match=r"skipped 3 input\(s\)"):
        docs = {doc.id: doc for doc in reader}
    assert sorted(docs) == ["curie.pdf", "nile.docx", "note.md"]
    assert "born in Warsaw in 1867" in docs["curie.pdf"].text
    assert docs["nile.docx"].text == NILE
    note = docs["note.md"]
    assert (note.title, note.url, note.text) == ("Field notes", "https://notes.example/1",
                                                 "# Heading\nBees make honey.\n")
    why = {p.rsplit("/", 1)[-1]: r for p, r in reader.skipped}
    assert why["blank.pdf"].startswith("no text") and why["locked.pdf"] == "encrypted PDF"
    assert why["broken.docx"].startswith("unreadable")


def test_corpus_build_from_a_knowledge_base_and_search(tmp_path, capsys):
    db = tmp_path / "enwiki.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE documents (title, text)")
    con.executemany("INSERT INTO documents VALUES (?, ?)", [("Marie Curie", CURIE), ("Nile", NILE)])
    con.commit()
    con.close()
    home = str(tmp_path / "home")
    assert main(["corpus", "build", "fs", "--from", str(db), "--home", home]) == 0
    assert "built fs: 2 documents" in capsys.readouterr().out
    assert main(["search", "fs", "Where was Marie Curie born?", "--home", home, "--json"]) == 0
    hits = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert hits[0]["doc_id"] == "Marie Curie"


def test_docx_tables_are_read_in_document_order(tmp_path):
    docx = pytest.importorskip("docx")
    d = tmp_path / "kb"
    d.mkdir()
    doc = docx.Document()
    doc.add_paragraph("The island's ferries, by year of service:")
    t = doc.add_table(rows=4, cols=3)
    for r, cells in enumerate([("Ship", "Entered service", "Cars"), ("Marta", "2011", "40"),
                               ("Ilse", "1987", ""), ("Nora", "40", "40")]):
        for c, text in enumerate(cells):
            t.cell(r, c).text = text
    t.cell(2, 1).merge(t.cell(2, 2))  # a merged cell is read once
    t.cell(2, 1).text = "1987 (retired)"
    doc.add_paragraph("The lighthouse is 42 metres tall.")
    doc.save(d / "ferries.docx")
    text = next(iter(DocumentReader(d))).text
    assert text.split("\n\n") == ["The island's ferries, by year of service:",
                                  "Ship | Entered service | Cars", "Marta | 2011 | 40",
                                  "Ilse | 1987 (retired)", "Nora | 40 | 40",  # equal cells both
                                  "The lighthouse is 42 metres tall."]


def test_a_known_suffix_wins_over_a_mediawiki_look(tmp_path):
    from offline_eval.index.kb import kind_of

    p = tmp_path / "docs.jsonl"
    p.write_text('{"id": "a", "text": "An export starts with <mediawiki xmlns=...>."}\n')
    assert kind_of(p) == "jsonl"
    gz = tmp_path / "export.xml.jsonl.gz"
    gz.write_bytes(b"")
    assert kind_of(gz) == "jsonl"
    dump = tmp_path / "enwiki-pages-articles1.xml-p1p41242.bz2"
    dump.write_bytes(b"")
    assert kind_of(dump) == "mediawiki"
