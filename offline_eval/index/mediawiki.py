"""A MediaWiki XML dump (``.xml``, ``.xml.bz2``, ``.xml.gz``, ``pages-articles1.xml-p1p41242.bz2``) as
:class:`~offline_eval.index.chunk.Document`, streamed with bounded memory.

Only articles are read: namespace 0, redirects skipped. The markup is stripped with
mwparserfromhell (the ``kb`` extra); the id and the title are the page title. A page whose
markup cannot be parsed, or that has no text left, is skipped and counted; a dump that
breaks off (a cut download, a corrupt bz2 block) keeps the pages read before the break.
Memory stays flat however long the dump: each page is dropped from the tree once read
(titles are unique in a dump, so none is remembered either).

>>> import tempfile; from pathlib import Path
>>> p = Path(tempfile.mkdtemp()) / "dump.xml"
>>> _ = p.write_text("<mediawiki><page><title>Nile</title><ns>0</ns><revision>"
...                  "<text>The '''Nile''' is a [[river]].</text></revision></page></mediawiki>")
>>> [(d.id, d.text) for d in read_dump(p, [])]
[('Nile', 'The Nile is a river.')]
"""
from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any, Iterator

from offline_eval.errors import InputError
from offline_eval.index.chunk import Document
from offline_eval.io.jsonl import open_input


def is_dump(path: Path) -> bool:
    """Whether ``path`` looks like a MediaWiki dump: by its name, else by its first bytes.

    >>> is_dump(Path("enwiki-20230401-pages-articles1.xml-p1p41242.bz2"))
    True
    """
    name = path.name.lower()
    if name.endswith(".xml") or (name.endswith((".bz2", ".gz")) and ".xml" in name):
        return True
    if path.is_dir():
        return False
    try:
        with open_input(path) as fh:
            head = fh.read(4096)
    except (OSError, EOFError, ValueError, zlib.error):
        return False
    return b"<mediawiki" in head


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]  # dumps carry an export-0.x namespace


def read_dump(path: Path, skipped: list[tuple[str, str]]) -> Iterator[Document]:
    """The articles of the dump at ``path``; skips go to ``skipped`` as ``(where, why)``."""
    import xml.etree.ElementTree as ET

    try:
        import mwparserfromhell
    except ImportError:
        raise InputError("reading a MediaWiki dump needs mwparserfromhell: "
                         "pip install 'offline-eval[kb]'", path=str(path)) from None
    root = None
    with open_input(path) as fh:
        try:
            for event, el in ET.iterparse(fh, events=("start", "end")):
                if root is None:
                    root = el
                if event != "end" or _local(el.tag) != "page":
                    continue
                fields = {_local(c.tag): c for c in el}
                rev = fields.get("revision")
                text_el = None if rev is None else next(
                    (c for c in rev if _local(c.tag) == "text"), None)
                title = ((fields["title"].text or "") if "title" in fields else "").strip()
                ns = ((fields["ns"].text or "0") if "ns" in fields else "0").strip()
                raw = (text_el.text or "") if text_el is not None else ""
                root.clear()  # bounded memory: the page (and all before it) is dropped
                if ns != "0" or "redirect" in fields or raw.lstrip()[:9].upper() == "#REDIRECT":
                    continue
                where = f"{path}:{title or '?'}"
                try:
                    text = _plain_text(mwparserfromhell.parse(raw))
                except Exception as exc:  # one broken page never stops the dump
                    skipped.append((where, f"unparsable markup ({type(exc).__name__})"))
                    continue
                text = "\n\n".join(" ".join(p.split()) for p in text.split("\n\n") if p.strip())
                if not title or not text:
                    skipped.append((where, "no title or no text"))
                    continue
                yield Document(title, text, title, None)
        except ET.ParseError as exc:
            skipped.append((str(path), f"XML broken at line {exc.position[0]}, column "
                                       f"{exc.position[1]}: the pages after it are not read"))
        except (EOFError, OSError, zlib.error) as exc:  # a cut file, a corrupt block
            skipped.append((str(path), f"compressed data broken ({exc}): the pages after "
                                       "it are not read"))


#: wikilink targets that are not text: pictures, categories (and a language code, e.g. de:Nil)
_NOT_TEXT_LINK = re.compile(r"^\s*(file|image|media|category|[a-z]{2,3}(-[a-z]+)?)\s*:", re.I)


def _plain_text(code: Any) -> str:
    """The article's prose: pictures, categories, interlanguage links and references removed
    before mwparserfromhell strips the markup; a heading is its own paragraph."""
    for link in code.filter_wikilinks(recursive=False):
        if _NOT_TEXT_LINK.match(str(link.title)):
            code.remove(link)
    for tag in code.filter_tags(recursive=False):
        if str(tag.tag).strip().lower() in ("ref", "references", "gallery"):
            code.remove(tag)
    for heading in code.filter_headings(recursive=False):
        code.replace(heading, f"\n\n{heading.title.strip_code().strip()}\n\n")
    return code.strip_code(normalize=True, collapse=True)

