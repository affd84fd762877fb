"""What ``corpus build --from`` reads, told apart in one place (:data:`FORMATS`, :func:`kind_of`).

=========================  ==================================================================
``--from``                 read as
=========================  ==================================================================
a folder                   ``.txt``/``.md``/``.html``/``.pdf``/``.docx`` files (see
                           :mod:`offline_eval.index.documents`)
``.jsonl``                 one ``{"id", "text", "title"?, "url"?}`` object per line
                           (``.jsonl.gz``, ``.jsonl.bz2``, and so ``.tsv``/``.csv``)
``.db``, ``.sqlite``       FActScore's database: table ``documents(title, text)``; id = title;
                           its ``####SPECIAL####SEPARATOR####`` token-window breaks are
                           joined back (they can cut a word) and its ``<s>...</s>`` marks
                           removed (opened read-only)
``.xml``, ``.xml.bz2``     a MediaWiki dump (``.xml.gz`` too), streamed
                           (:mod:`offline_eval.index.mediawiki`)
``.tsv``                   DPR's ``psgs_w100.tsv`` (``id``, ``text``, ``title`` columns)
``.csv``, ``.parquet``     a table with ``id``, ``text``, and ``title``/``url`` optional
=========================  ==================================================================

A file with another suffix is told by its first bytes (an SQLite header, a ``<mediawiki``
element, a JSON object), else refused with an :class:`~offline_eval.errors.InputError`
that lists these formats. Every reader streams, one document at a time (the build keeps
the document ids, to refuse a duplicate). A page, file or row that cannot be read is
skipped and counted (``skipped``), never a crash; a PDF or DOCX without the ``kb`` extra
too.

>>> strip_front_matter("---\\ntitle: Alpha\\nurl: https://a.example\\n---\\nAlpha is first.")
({'title': 'Alpha', 'url': 'https://a.example'}, 'Alpha is first.')
>>> kind_of(Path("psgs_w100.tsv")), kind_of(Path("enwiki-20230401.db"))
('table', 'sqlite')
"""
from __future__ import annotations

import re
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Callable, Iterator

from offline_eval.errors import InputError
from offline_eval.index.chunk import Document
from offline_eval.io.jsonl import COMPRESSED, inner_suffix
from offline_eval.io.tables import TABLE_SUFFIXES

Skipped = list  # of (where, why)
#: kind -> what it is, for ``--help`` and the error naming an unknown format
FORMATS: dict[str, str] = {
    "folder": "a folder of .txt/.md/.html/.pdf/.docx files",
    "jsonl": "a JSONL file of {id, text, title?, url?} (.gz, .bz2 too)",
    "sqlite": "FActScore's SQLite database (.db/.sqlite, table documents(title, text))",
    "mediawiki": "a MediaWiki XML dump (.xml, .xml.bz2, .xml.gz)",
    "table": "DPR's psgs_w100.tsv, or a .csv/.tsv/.parquet with id, text, title?, url? "
             "(.csv/.tsv also .gz, .bz2)",
}
SUFFIXES: dict[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".db": "sqlite",
                            ".sqlite": "sqlite", ".sqlite3": "sqlite",
                            **dict.fromkeys(TABLE_SUFFIXES, "table")}
#: files a folder may hold besides text: read with the ``kb`` extra's libraries
BINARY_SUFFIXES = (".pdf", ".docx")
FACTSCORE_SEPARATOR = "####SPECIAL####SEPARATOR####"
_FRONT = re.compile(r"\A---[ \t]*\r?\n(?:(.*?)\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.S)
_PASSAGE_MARK = re.compile(r"</?s>")


def kind_of(path: Path) -> str:
    """The key of :data:`FORMATS` that reads ``path``: by suffix, else by content.

    Raises:
        InputError: naming the file and listing the formats, when none reads it.
    """
    from offline_eval.index.mediawiki import is_dump

    if path.is_dir():
        return "folder"
    kind = SUFFIXES.get(inner_suffix(path))  # a known suffix wins over sniffing the content
    if kind is None and is_dump(path):
        return "mediawiki"
    if kind == "sqlite" and path.suffix.lower() in COMPRESSED:
        raise InputError("an SQLite database is read in place; decompress it first",
                         path=str(path))
    if kind:
        return kind
    with path.open("rb") as fh:
        head = fh.read(16)
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n") or head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
        return "jsonl"  # an empty file reads as no documents (a clear error when building)
    raise InputError("not a format `corpus build --from` reads; it reads " + describe(),
                     path=str(path))


def read_file(path: Path, skipped: Skipped) -> Iterator[Document]:
    """The documents of one file (not a folder), by :func:`kind_of`."""
    return _READERS[kind_of(path)](path, skipped)


def _jsonl(path: Path, skipped: Skipped) -> Iterator[Document]:
    from offline_eval.io.jsonl import get_field, read_jsonl

    seen: set[str] = set()
    where = str(path)
    for line, row in read_jsonl(path):
        doc_id = str(get_field(row, "id", (str, int), path=where, line=line))
        if doc_id in seen:
            raise InputError(f"duplicate document id {doc_id!r}", path=where, line=line,
                             field="id")
        seen.add(doc_id)
        text = get_field(row, "text", str, path=where, line=line)
        title = get_field(row, "title", str, path=where, line=line, default="", nullable=True)
        url = get_field(row, "url", str, path=where, line=line, default=None, nullable=True)
        if not text.strip():
            skipped.append((f"{where}:{line}", "empty text"))
            continue
        yield Document(doc_id, text, title or "", url)


def factscore_text(text: str) -> str:
    """A FActScore page as one text: its separator marks fixed-size token windows, which
    can cut a word ("War" | "saw"), so the windows are joined back as they were cut;
    ``<s>``/``</s>`` marks are removed.

    >>> factscore_text("<s>Born in War####SPECIAL####SEPARATOR####saw.</s><s>A b.</s>")
    'Born in Warsaw. A b.'
    """
    return " ".join(s.strip() for s in _PASSAGE_MARK.split(text.replace(FACTSCORE_SEPARATOR, ""))
                    if s.strip())


def _sqlite(path: Path, skipped: Skipped) -> Iterator[Document]:
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"  # '#', '?' in a name
    try:
        con = sqlite3.connect(uri, uri=True)
        cur = con.execute("SELECT title, text FROM documents")
    except sqlite3.Error as exc:
        raise InputError(f"not a FActScore database with a table documents(title, text) ({exc})",
                         path=str(path)) from None
    try:  # titles are the table's primary key in FActScore: none is remembered
        for n, (title, text) in enumerate(cur, 1):
            if isinstance(text, bytes):
                text = text.decode("utf-8", "replace")
            if not isinstance(title, str) or not title.strip() or not isinstance(text, str):
                skipped.append((f"{path}:row {n}", "no title or no text"))
                continue
            text = factscore_text(text)
            if not text:
                skipped.append((f"{path}:row {n}", "no title or no text"))
                continue
            yield Document(title, text, title, None)
    except sqlite3.Error as exc:  # a corrupt page of the database, met while reading
        raise InputError(f"unreadable SQLite database ({exc})", path=str(path)) from None
    finally:
        con.close()


def _mediawiki(path: Path, skipped: Skipped) -> Iterator[Document]:
    from offline_eval.index.mediawiki import read_dump

    return read_dump(path, skipped)


def _table(path: Path, skipped: Skipped) -> Iterator[Document]:
    from offline_eval.io.tables import read_rows  # csv field size limit raised there

    seen: set[str] = set()
    for line, row in read_rows(path):
        columns = ("text", "id") if not seen else ("id",)
        for column in columns:  # past the first row, a null text is an empty row (skipped)
            if column not in row:
                raise InputError(f"missing column {column!r} (a corpus table needs id, text "
                                 "and optionally title, url)", path=str(path), line=line)
        row.setdefault("text", "")
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
                       url if isinstance(url, str) and url else None)


_READERS: dict[str, Callable[[Path, Skipped], Iterator[Document]]] = {
    "jsonl": _jsonl, "sqlite": _sqlite, "mediawiki": _mediawiki, "table": _table}


def strip_front_matter(text: str) -> tuple[dict[str, str], str]:
    """A Markdown file's leading ``---`` block as ``key: value`` pairs, and the text after it."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    meta = {}
    for line in (m.group(1) or "").splitlines():
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
                from pypdf import PasswordType, PdfReader
            except ImportError:
                skipped.append((str(path), "needs pypdf: pip install 'offline-eval[kb]'"))
                return None
            reader = PdfReader(str(path))
            # an owner password alone locks editing, not reading: the empty password opens it
            if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
                skipped.append((str(path), "encrypted PDF"))
                return None
            text = "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
        else:
            try:
                import docx
            except ImportError:
                skipped.append((str(path), "needs python-docx: pip install 'offline-eval[kb]'"))
                return None
            text = docx_text(docx.Document(str(path)))
    except Exception as exc:  # pypdf and python-docx raise many kinds on a broken file
        skipped.append((str(path), f"unreadable ({type(exc).__name__})"))
        return None
    text = "\n\n".join(p for p in text.split("\n\n") if p.strip())
    if not text.strip():
        skipped.append((str(path), "no text (a scanned PDF needs OCR first)"
                        if path.suffix.lower() == ".pdf" else "no text"))
        return None
    return text


def docx_text(document: object) -> str:
    """A DOCX document's paragraphs and tables in the order they come: each table row one
    paragraph, its cells joined by `` | `` (a merged cell once), nested tables inside their
    cell."""
    from docx.table import Table

    def table(t: Table) -> list[str]:
        rows = []
        for row in t.rows:
            cells: list[str] = []
            seen: set[int] = set()
            for cell in row.cells:
                if id(cell._tc) in seen:  # a merged cell is the same cell again
                    continue
                seen.add(id(cell._tc))
                text = " ".join(x for x in (_block_text(b) for b in cell.iter_inner_content()) if x)
                if text:
                    cells.append(text)
            if cells:
                rows.append(" | ".join(cells))
        return rows

    def _block_text(block: object) -> str:
        return " ".join(table(block)) if isinstance(block, Table) else block.text.strip()  # type: ignore[attr-defined]

    parts: list[str] = []
    for block in document.iter_inner_content():  # type: ignore[attr-defined]
        parts.extend(table(block) if isinstance(block, Table) else [block.text.strip()])
    return "\n\n".join(parts)


def describe() -> str:
    """The formats ``--from`` reads, for help and errors."""
    return "; ".join(FORMATS.values())
