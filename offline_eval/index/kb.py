"""Knowledge bases users already have, read as :class:`~offline_eval.index.chunk.Document`.

=========================  ==================================================================
``--from``                 read as
=========================  ==================================================================
``.db``, ``.sqlite``       FActScore's database: table ``documents(title, text)``; id = title;
                           its ``<s>...</s>`` passage marks are removed (opened read-only)
``.xml``, ``.xml.bz2``     a MediaWiki dump, streamed: article pages (namespace 0), redirects
                           skipped, markup stripped with mwparserfromhell; id = title
``.tsv``                   DPR's ``psgs_w100.tsv`` (``id``, ``text``, ``title`` columns)
``.csv``, ``.parquet``     a table with ``id``, ``text``, and ``title``/``url`` optional
``.pdf``, ``.docx``        in a folder, beside ``.txt``/``.md``/``.html`` (pypdf, python-docx)
=========================  ==================================================================

Every reader streams: one document at a time, so memory does not grow with the input.
A page, file or row that cannot be read is skipped and counted (``skipped``), never a crash.

>>> strip_front_matter("---\\ntitle: Alpha\\nurl: https://a.example\\n---\\nAlpha is first.")
({'title': 'Alpha', 'url': 'https://a.example'}, 'Alpha is first.')
"""
from __future__ import annotations

import bz2
import csv
import re
import sqlite3
import sys
from pathlib import Path
from typing import Iterator

from offline_eval.errors import InputError
from offline_eval.index.chunk import Document

SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")
#: files a folder may hold besides text: read with the ``kb`` extra's libraries
BINARY_SUFFIXES = (".pdf", ".docx")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_PASSAGE_MARK = re.compile(r"</?s>")
Skipped = list  # of (where, why)


def _needs(lib: str) -> ImportError:
    return ImportError(f"reading this needs {lib}: pip install 'offline-eval[kb]'")


def kind_of(path: Path) -> str | None:
    """The reader of a file by its suffix: sqlite, mediawiki, table, or None (JSONL)."""
    name = path.name.lower()
    if name.endswith((".xml", ".xml.bz2")):
        return "mediawiki"
    if path.suffix.lower() in SQLITE_SUFFIXES:
        return "sqlite"
    if path.suffix.lower() in TABLE_SUFFIXES:
        return "table"
    return None


def read_file(path: Path, skipped: Skipped) -> Iterator[Document]:
    """The documents of one knowledge-base file (:func:`kind_of` is not None)."""
    kind = kind_of(path)
    if kind == "sqlite":
        return _sqlite(path, skipped)
    if kind == "mediawiki":
        return _mediawiki(path, skipped)
    return _table(path, skipped)


def _sqlite(path: Path, skipped: Skipped) -> Iterator[Document]:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        cur = con.execute("SELECT title, text FROM documents ORDER BY rowid")
    except sqlite3.Error as exc:
        raise InputError(f"not a FActScore database with a table documents(title, text) ({exc})",
                         path=str(path)) from None
    try:
        for n, (title, text) in enumerate(cur, 1):
            if not isinstance(title, str) or not isinstance(text, str) or not text.strip():
                skipped.append((f"{path}:row {n}", "no title or no text"))
                continue
            text = " ".join(p.strip() for p in _PASSAGE_MARK.split(text) if p.strip())
            yield Document(title, text, title, None)
    finally:
        con.close()


def _mediawiki(path: Path, skipped: Skipped) -> Iterator[Document]:
    import xml.etree.ElementTree as ET

    try:
        import mwparserfromhell
    except ImportError:
        raise _needs("mwparserfromhell") from None
    opener = bz2.open if path.name.lower().endswith(".bz2") else open
    local = lambda tag: tag.rsplit("}", 1)[-1]  # noqa: E731  (dumps carry a namespace)
    with opener(path, "rb") as fh:
        try:
            for _, el in ET.iterparse(fh, events=("end",)):
                if local(el.tag) != "page":
                    continue
                fields = {local(c.tag): c for c in el}
                title = (fields.get("title").text or "") if "title" in fields else ""
                ns = fields.get("ns")
                rev = fields.get("revision")
                text_el = next((c for c in rev if local(c.tag) == "text"), None) if rev is not None else None
                el.clear()  # bounded memory: a page is dropped once read
                if (ns is not None and (ns.text or "0").strip() != "0") or "redirect" in fields:
                    continue
                raw = (text_el.text or "") if text_el is not None else ""
                try:
                    text = mwparserfromhell.parse(raw).strip_code(normalize=True, collapse=True)
                except Exception as exc:  # one broken page never stops the dump
                    skipped.append((f"{path}:{title}", f"unparsable markup ({type(exc).__name__})"))
                    continue
                text = "\n\n".join(" ".join(p.split()) for p in text.split("\n\n") if p.strip())
                if not title or not text:
                    skipped.append((f"{path}:{title or '?'}", "no title or no text"))
                    continue
                yield Document(title, text, title, None)
        except ET.ParseError as exc:
            skipped.append((str(path), f"XML broken from {exc.position}: the pages after it are not read"))


def _table(path: Path, skipped: Skipped) -> Iterator[Document]:
    from offline_eval.io.tables import read_rows

    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    seen: set[str] = set()
    for line, row in read_rows(path):
        if "text" not in row:
            raise InputError("missing column 'text' (a corpus table needs id, text and "
                             "optionally title, url)", path=str(path), line=line)
        if "id" not in row:
            raise InputError("missing column 'id'", path=str(path), line=line)
        doc_id, text = str(row["id"]), row["text"]
        if doc_id in seen:
            raise InputError(f"duplicate document id {doc_id!r}", path=str(path), line=line,
                             field="id")
        seen.add(doc_id)
        if not isinstance(text, str) or not text.strip():
            skipped.append((f"{path}:{line}", "empty text"))
            continue
        title, url = row.get("title"), row.get("url")
        yield Document(doc_id, text, title if isinstance(title, str) else "",
                       url if isinstance(url, str) else None)


def strip_front_matter(text: str) -> tuple[dict[str, str], str]:
    """A Markdown file's leading ``---`` block as ``key: value`` pairs, and the text after it."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    meta = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "#")):
            meta[key.strip().lower()] = value.strip().strip("'\"")
    return meta, text[m.end():]


def binary_text(path: Path, skipped: Skipped) -> str | None:
    """The text of a PDF or DOCX file, or None (skipped, with the reason) when it has none,
    is encrypted or is corrupt."""
    try:
        if path.suffix.lower() == ".pdf":
            try:
                from pypdf import PdfReader
            except ImportError:
                raise _needs("pypdf") from None
            reader = PdfReader(str(path))
            if reader.is_encrypted:
                skipped.append((str(path), "encrypted PDF"))
                return None
            text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
        else:
            try:
                import docx
            except ImportError:
                raise _needs("python-docx") from None
            text = "\n\n".join(p.text.strip() for p in docx.Document(str(path)).paragraphs)
    except ImportError:
        raise
    except Exception as exc:  # pypdf and python-docx raise many kinds on a broken file
        skipped.append((str(path), f"unreadable ({type(exc).__name__})"))
        return None
    text = "\n\n".join(p for p in text.split("\n\n") if p.strip())
    if not text.strip():
        skipped.append((str(path), "no text (a scanned PDF needs OCR first)"
                        if path.suffix.lower() == ".pdf" else "no text"))
        return None
    return text


def describe() -> str:
    """The formats ``--from`` reads, for help and errors."""
    return ("a JSONL file of {id, text, title?, url?}; a folder of .txt/.md/.html/.pdf/.docx; "
            "FActScore's SQLite .db; a MediaWiki .xml or .xml.bz2 dump; DPR's psgs_w100.tsv; "
            "a .csv or .parquet with id, text, title?, url?")
