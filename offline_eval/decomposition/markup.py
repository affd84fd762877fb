"""Markdown and voice-assistant layout: lines, list items and headings, with offsets.

A response is cut into *blocks* before sentence splitting. Line breaks are real
newlines or the literal two characters ``\\n`` that voice assistants often emit. A
bullet or numbered line is a list item (its own unit); a ``# heading`` or a line
that is only ``**bold**`` is a heading; a ``**Label:** text`` line gives a heading
and a text block. Offsets always point into the original response.

>>> [(b.kind, b.text) for b in blocks("Birds:\\\\n- Kiwi\\\\n- Emu\\n**Note:** Both run.")]
[('text', 'Birds:'), ('item', 'Kiwi'), ('item', 'Emu'), ('heading', 'Note:'), ('text', 'Both run.')]
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Literal

BlockKind = Literal["text", "item", "heading"]

_LINE_BREAK = re.compile(r"\r?\n|\\n|\\r\\n")
_BULLET = re.compile(r"^(?:[-*•·‣▪●◦+–—]|\d{1,3}[.)](?!\d)|\(?[a-zA-Z]\)|[ivx]{1,4}\.)\s*")
_HEADING = re.compile(r"^#{1,6}\s+")
_ONLY_BOLD = re.compile(r"^(\*\*|__)(?P<body>[^*_].*?)(\1)\s*:?\s*$")
_BOLD_LEAD = re.compile(r"^(\*\*|__)(?P<label>[^*_\n]{1,80}?)\s*(?::\s*\1|\1\s*:)\s+(?=\S)")
_EMPHASIS = re.compile(r"(\*\*|__|\*(?=\S)|`)")


@dataclass(frozen=True)
class Block:
    """A piece of the response on its own line: ``text[start:end]`` of the response."""

    start: int
    end: int
    kind: BlockKind
    text: str


def _lines(text: str) -> Iterator[tuple[int, int]]:
    pos = 0
    for m in _LINE_BREAK.finditer(text):
        yield pos, m.start()
        pos = m.end()
    yield pos, len(text)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def strip_emphasis(text: str) -> str:
    """Drop inline markdown emphasis and code marks.

    >>> strip_emphasis("**Paris** is the *capital*.")
    'Paris is the capital.'
    """
    return _EMPHASIS.sub("", text).strip()


def _is_marker(marker: str) -> bool:
    # A symbol bullet needs a space after it ("**bold**", "-5 degrees" are not bullets).
    core = marker.strip()
    if core[:1].isalnum() or core[:1] == "(":
        return True
    return marker != core


def blocks(text: str) -> list[Block]:
    """Cut ``text`` into text, item and heading blocks (empty lines dropped)."""
    out: list[Block] = []
    for a, b in _lines(text):
        a, b = _trim(text, a, b)
        if a >= b:
            continue
        line = text[a:b]
        kind: BlockKind = "text"
        m = _HEADING.match(line)
        if m:
            out.append(Block(a + m.end(), b, "heading", strip_emphasis(line[m.end():])))
            continue
        if _ONLY_BOLD.match(line):
            out.append(Block(a, b, "heading", strip_emphasis(line)))
            continue
        m = _BULLET.match(line)
        if m and m.end() < len(line) and _is_marker(m.group(0)):
            kind, a = "item", a + m.end()
            line = text[a:b]
        m = _BOLD_LEAD.match(line)
        if m:
            ha, hb = _trim(text, a, a + m.end())
            out.append(Block(ha, hb, "heading", strip_emphasis(m.group("label")) + ":"))
            a = a + m.end()
        a, b = _trim(text, a, b)
        if a < b:
            out.append(Block(a, b, kind, strip_emphasis(text[a:b])))
    return out
