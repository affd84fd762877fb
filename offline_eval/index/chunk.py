"""Sentence-aware chunking of documents into passages that cite their source.

A document is split into sentences with a light regular expression (no model), then
sentences are packed greedily into passages of about ``min_words``..``max_words``
words. Consecutive passages of one document overlap by up to ``overlap_words`` words
of whole sentences. A sentence longer than ``max_words`` is cut into word windows.
Each passage keeps its document id, title, url and the character offsets of its text
in the document, so ``document.text[p.start:p.end] == p.text``.

>>> doc = Document("d1", "One. Two two. Three three three.", title="T")
>>> [(p.id, p.text) for p in chunk_document(doc, max_words=3, min_words=1, overlap_words=0)]
[('d1#0', 'One. Two two.'), ('d1#1', 'Three three three.')]
>>> chunk_document(doc)[0].contents
'T\\nOne. Two two. Three three three.'
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

# A boundary: end punctuation (plus closing quotes/brackets) then whitespace before an
# upper-case letter, digit or opening quote; or a blank line.
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*(\s+)(?=[\"'“‘(\[]?[A-Z0-9])|\n\s*\n")
_WORD = re.compile(r"\S+")
_LAST_WORD = re.compile(r"(\w+)\.$")
# No boundary after these, nor after a single letter ("Arthur C. Clarke", "U.S."): titles,
# "No. 5", "Op. 67", "pp. 3-9", "ca. 1500", "est. 1850", months.
_ABBREVIATIONS = frozenset("mr mrs ms dr prof st jr sr vs etc eg ie al fig no nos vol ed rev gen "
                           "col lt sgt capt mt ft inc ltd co corp op pp ca approx cf est jan feb "
                           "mar apr jun jul aug sep sept oct nov dec".split())


@dataclass(frozen=True)
class Document:
    """A source document: ``id``, ``text``, optional ``title`` and ``url``."""

    id: str
    text: str
    title: str = ""
    url: str | None = None


@dataclass(frozen=True)
class Passage:
    """A chunk of a document; ``text`` is ``document.text[start:end]``. (A passage of a RAG
    context that holds several documents starts at ``start`` in its first and ends at
    ``end`` in its last: :func:`chunk_context`.)"""

    id: str
    doc_id: str
    text: str
    start: int
    end: int
    title: str = ""
    url: str | None = None

    @property
    def contents(self) -> str:
        """The indexed text: the title, a newline, then the passage text."""
        return f"{self.title}\n{self.text}" if self.title else self.text

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "doc_id": self.doc_id, "title": self.title, "url": self.url,
                "start": self.start, "end": self.end, "text": self.text}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "Passage":
        return cls(id=row["id"], doc_id=row["doc_id"], text=row["text"], start=row["start"],
                   end=row["end"], title=row.get("title") or "", url=row.get("url"))


@dataclass(frozen=True)
class ChunkConfig:
    """Passage sizes in words (whitespace-separated)."""

    max_words: int = 200
    min_words: int = 100
    overlap_words: int = 30

    def __post_init__(self) -> None:
        if not 0 < self.min_words <= self.max_words or not 0 <= self.overlap_words < self.max_words:
            raise ValueError("need 0 < min_words <= max_words and 0 <= overlap_words < max_words")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``, stripped of surrounding space.

    >>> t = "Dr. Who met Arthur C. Clarke in the U.S. Army. It was 1950."
    >>> [t[s:e] for s, e in sentence_spans(t)]
    ['Dr. Who met Arthur C. Clarke in the U.S. Army.', 'It was 1950.']
    >>> t = "The Symphony No. 5 in C minor, Op. 67, is a symphony. It was first played in 1808."
    >>> [t[s:e] for s, e in sentence_spans(t)]
    ['The Symphony No. 5 in C minor, Op. 67, is a symphony.', 'It was first played in 1808.']
    """
    spans, pos = [], 0
    for m in _BOUNDARY.finditer(text):
        end = m.start(1) if m.group(1) is not None else m.start()
        if text[m.start()] == ".":
            last = _LAST_WORD.search(text, max(0, m.start() - 12), m.start() + 1)
            if last and (len(last.group(1)) == 1 or last.group(1).lower() in _ABBREVIATIONS):
                continue
        spans.append((pos, end))
        pos = m.end()
    spans.append((pos, len(text)))
    out = []
    for s, e in spans:
        seg = text[s:e]
        stripped = seg.strip()
        if stripped:
            s += len(seg) - len(seg.lstrip())
            out.append((s, s + len(stripped)))
    return out


def _units(text: str, max_words: int) -> list[tuple[int, int, int]]:
    """Sentences as (start, end, n_words); over-long sentences cut into word windows."""
    units = []
    for s, e in sentence_spans(text):
        n = len(text[s:e].split())
        if n <= max_words:
            units.append((s, e, n))
            continue
        words = [m.span() for m in _WORD.finditer(text, s, e)]
        for i in range(0, len(words), max_words):
            win = words[i:i + max_words]
            units.append((win[0][0], win[-1][1], len(win)))
    return units


def chunk_document(doc: Document, max_words: int = 200, min_words: int = 100,
                   overlap_words: int = 30) -> list[Passage]:
    """Split ``doc`` into passages (see the module docstring). Empty text gives ``[]``."""
    ChunkConfig(max_words, min_words, overlap_words)
    return [Passage(f"{doc.id}#{k}", doc.id, doc.text[start:end], start, end, doc.title, doc.url)
            for k, (start, end) in enumerate(_pack(_units(doc.text, max_words), max_words,
                                                   min_words, overlap_words))]


def _pack(units: list[tuple[int, int, int]], max_words: int, min_words: int,
          overlap_words: int) -> list[tuple[int, int]]:
    """Character spans of passages: sentence units packed greedily (see the module docstring)."""
    if not units:
        return []
    total = sum(n for _, _, n in units)
    target = max(min_words, math.ceil(total / math.ceil(total / max_words)))
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        j, words = i + 1, units[i][2]
        while j < len(units) and words < target and words + units[j][2] <= max_words:
            words += units[j][2]
            j += 1
        spans.append((units[i][0], units[j - 1][1]))
        if j >= len(units):
            break
        back, nxt = 0, j
        while nxt - 1 > i and back + units[nxt - 1][2] <= overlap_words:
            nxt -= 1
            back += units[nxt][2]
        i = nxt
    return spans


def chunk_documents(docs: Iterable[Document], config: ChunkConfig | None = None
                    ) -> Iterator[Passage]:
    """Chunk every document in turn."""
    c = config or ChunkConfig()
    for doc in docs:
        yield from chunk_document(doc, c.max_words, c.min_words, c.overlap_words)


#: what joins documents read as one context (a blank line: always a sentence boundary)
CONTEXT_JOIN = "\n\n"


def flat_blank_lines(text: str) -> str:
    """``text`` with each blank line inside it read as a line break (``"\\n\\n"`` becomes
    ``"\\n "``: the same length, so offsets hold), so that in a context a blank line is
    only ever the boundary between two documents.

    >>> flat_blank_lines("A.\\n\\nB.\\n\\n\\nC.")
    'A.\\n B.\\n \\nC.'
    """
    return text.replace(CONTEXT_JOIN, "\n ")


def chunk_context(docs: Iterable[Document], config: ChunkConfig | None = None) -> list[Passage]:
    """Passages of documents read as **one context**, in order (an item's RAG references).

    Each document is cut into sentences on its own (no sentence spans two documents), and
    the sentences of all of them are packed into passages as one text, joined by a blank
    line: short documents (a page given line by line, web snippets) pack together into
    passages of the usual size instead of each being a passage of a few words. A passage
    cites every document it holds: ``doc_id`` is their ids joined by ``+`` (one id when it
    lies in one document), ``title`` and ``url`` are theirs when they all share them (else
    empty), ``start`` is an offset into its first document and ``end`` into its last; its id
    is its first document's id, ``#``, and a count of the passages that start there. A blank
    line inside a document reads as a line break (:func:`flat_blank_lines`), so in a
    passage a blank line always separates two documents.

    >>> docs = [Document("a", "Ada was born in 1815.", "Ada"), Document("b", "She died in 1852.", "B")]
    >>> [(p.id, p.doc_id, p.title, p.text) for p in chunk_context(docs)]
    [('a#0', 'a+b', '', 'Ada was born in 1815.\\n\\nShe died in 1852.')]
    >>> [(p.id, p.doc_id, p.title, p.start, p.end) for p in chunk_context(docs, ChunkConfig(5, 1, 0))]
    [('a#0', 'a', 'Ada', 0, 21), ('b#0', 'b', 'B', 0, 17)]
    """
    docs = [d for d in docs if d.text.strip()]
    if not docs:
        return []
    c = config or ChunkConfig()
    starts, units, pos = [], [], 0
    for d in docs:
        starts.append(pos)
        units += [(s + pos, e + pos, n) for s, e, n in _units(d.text, c.max_words)]
        pos += len(d.text) + len(CONTEXT_JOIN)
    joined = CONTEXT_JOIN.join(flat_blank_lines(d.text) for d in docs)
    out: list[Passage] = []
    counts: dict[str, int] = {}
    for start, end in _pack(units, c.max_words, c.min_words, c.overlap_words):
        first, last = _doc_at(starts, start), _doc_at(starts, end - 1)
        held = docs[first:last + 1]
        head = held[0]
        n = counts.get(head.id, 0)
        counts[head.id] = n + 1
        titles = {d.title for d in held}
        urls = {d.url for d in held}
        out.append(Passage(f"{head.id}#{n}", "+".join(dict.fromkeys(d.id for d in held)),
                           joined[start:end], start - starts[first], end - starts[last],
                           titles.pop() if len(titles) == 1 else "",
                           urls.pop() if len(urls) == 1 else None))
    return out


def _doc_at(starts: list[int], offset: int) -> int:
    """The index of the document whose text (joined at ``starts``) holds ``offset``."""
    return bisect.bisect_right(starts, offset) - 1
