"""Readers that turn user input into :class:`~offline_eval.index.chunk.Document`.

Input shapes accepted:

- a JSONL file, one ``{"id", "title"?, "text", "url"?}`` object per line (``.jsonl``);
- a folder of ``.txt``, ``.md``, ``.html``/``.htm``, ``.pdf`` and ``.docx`` files, read
  recursively in sorted order. The id is the path relative to the folder; the title is a
  Markdown file's front matter ``title`` (its ``url`` too; the block is not text), its
  first ``# heading``, or the HTML ``<title>``, else the file name without its suffix;
- the knowledge bases of :mod:`offline_eval.index.kb` (which tells every format apart):
  FActScore's SQLite database, a MediaWiki XML dump, DPR's TSV, CSV and Parquet tables.

Files that are not valid UTF-8 and documents with no text are skipped; the reader
counts them in :attr:`DocumentReader.skipped` and emits one warning naming them.

>>> from pathlib import Path; import tempfile
>>> d = Path(tempfile.mkdtemp()); _ = (d / "a.md").write_text("# Alpha\\nAlpha is first.")
>>> [(doc.id, doc.title, doc.text) for doc in DocumentReader(d)]
[('a.md', 'Alpha', '# Alpha\\nAlpha is first.')]
"""
from __future__ import annotations

import os
import warnings
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator

from offline_eval.errors import InputError
from offline_eval.index.chunk import Document

FOLDER_SUFFIXES: tuple[str, ...] = (".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx")


class _HTMLText(HTMLParser):
    """Collects visible text and the <title>; drops script/style; blocks become lines."""

    _SKIP = {"script", "style", "noscript", "template", "head"}
    _BLOCK = {"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "section",
              "article", "header", "footer", "blockquote", "pre", "table", "ul", "ol"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._stack.append(tag)
        if tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass
        if tag in self._BLOCK:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if "title" in self._stack:
            self.title += data
        elif not self._SKIP.intersection(self._stack):
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page; paragraphs are separated by blank lines.

    >>> html_to_text("<html><head><title>T</title></head><p>A &amp; B</p><p>C</p></html>")
    ('T', 'A & B\\n\\nC')
    """
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    paragraphs = (" ".join(p.split()) for p in "".join(parser.parts).split("\n\n"))
    return " ".join(parser.title.split()), "\n\n".join(p for p in paragraphs if p)


def _markdown_title(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


class DocumentReader:
    """Iterates the documents of a file or a folder (see the module docstring).

    Attributes:
        skipped: ``(path or path:line, reason)`` for each skipped file or document,
            filled while iterating.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.skipped: list[tuple[str, str]] = []
        if not self.path.exists():
            raise InputError("no such file or folder", path=str(path))

    def __iter__(self) -> Iterator[Document]:
        from offline_eval.index.kb import read_file

        self.skipped = []
        docs = self._folder() if self.path.is_dir() else read_file(self.path, self.skipped)
        yield from docs
        if self.skipped:
            shown = ", ".join(f"{p} ({r})" for p, r in self.skipped[:10])
            more = f" and {len(self.skipped) - 10} more" if len(self.skipped) > 10 else ""
            warnings.warn(f"skipped {len(self.skipped)} input(s): {shown}{more}", UserWarning,
                          stacklevel=2)

    def _folder(self) -> Iterator[Document]:
        files = sorted(p for p in self.path.rglob("*")
                       if p.is_file() and p.suffix.lower() in FOLDER_SUFFIXES
                       and not any(part.startswith(".") for part in p.relative_to(self.path).parts))
        from offline_eval.index.kb import BINARY_SUFFIXES, binary_text, strip_front_matter

        for f in files:
            rel = f.relative_to(self.path).as_posix()
            if f.suffix.lower() in BINARY_SUFFIXES:
                text = binary_text(f, self.skipped)
                if text is not None:
                    yield Document(rel, text, f.stem, None)
                continue
            try:
                raw = f.read_bytes().decode("utf-8")
            except UnicodeDecodeError as exc:
                self.skipped.append((str(f), f"not valid UTF-8 at byte {exc.start}"))
                continue
            raw = raw.lstrip("\ufeff")
            meta: dict[str, str] = {}
            if f.suffix.lower() in (".html", ".htm"):
                title, text = html_to_text(raw)
            elif f.suffix.lower() == ".txt":
                title, text = "", raw
            else:
                meta, text = strip_front_matter(raw)
                title = meta.get("title") or _markdown_title(text)
            if not text.strip():
                self.skipped.append((str(f), "empty text"))
                continue
            yield Document(rel, text, title or f.stem, meta.get("url") or None)
