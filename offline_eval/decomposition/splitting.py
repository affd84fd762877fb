"""Split a response into classified units (sentences, list items, headings).

Blocks from :mod:`~offline_eval.decomposition.markup` are segmented by spaCy's
sentence segmenter in chunks of bounded size, so a 20k-word response never holds
more than one chunk's ``Doc`` in memory. Every unit keeps offsets into the response.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from offline_eval.decomposition.filters import classify
from offline_eval.decomposition.markup import Block, blocks
from offline_eval.types import Sentence

CHUNK_CHARS = 10_000
_ELLIPSIS_BREAK = re.compile(r"(?:…|\.\.\.)\s+(?=[A-Z])")
_CHUNK_BREAK = re.compile(r"[.!?]\s+")
_MARKS = re.compile(r"\*\*|__|`|\*(?=\S)|(?<=\S)\*")


def mask_emphasis(text: str) -> str:
    """Blank out emphasis marks with spaces of the same length (offsets stay valid).

    >>> mask_emphasis("**Paris** is *big*.")
    '  Paris   is  big .'
    """
    return _MARKS.sub(lambda m: " " * len(m.group(0)), text)


@dataclass(frozen=True)
class SplitResult:
    """The units of one response, whether it deflects, and why (when it matters)."""

    sentences: tuple[Sentence, ...]
    deflection: bool
    reason: str | None = None
    warnings: tuple[str, ...] = ()


def _chunks(text: str, block: Block, limit: int) -> Iterator[tuple[int, str]]:
    """Cut a block into pieces of at most ~``limit`` chars at sentence ends."""
    start = block.start
    while block.end - start > limit:
        window = text[start:start + limit]
        cuts = [m.end() for m in _CHUNK_BREAK.finditer(window)]
        cut = cuts[-1] if cuts and cuts[-1] > limit // 4 else limit
        yield start, text[start:start + cut]
        start += cut
    yield start, text[start:block.end]


def _spans(text: str, nlp: Any, limit: int) -> Iterator[tuple[int, int, Block, list[str], list[str]]]:
    """Yield (start, end, block, tags, words) per sentence, in order."""
    todo = blocks(text)
    masked = mask_emphasis(text)

    def pieces() -> Iterator[tuple[str, tuple[int, Block]]]:
        for block in todo:
            if block.kind == "heading":
                continue
            for off, piece in _chunks(masked, block, limit):
                yield piece, (off, block)

    headings = iter(b for b in todo if b.kind == "heading")
    pending = next(headings, None)
    for doc, (off, block) in nlp.pipe(pieces(), as_tuples=True, batch_size=64):
        while pending is not None and pending.start < off:
            yield pending.start, pending.end, pending, [], []
            pending = next(headings, None)
        for sent in doc.sents:
            for a, b in _subsplit(sent.text):
                toks = [t for t in sent if a <= t.idx - sent.start_char < b]
                yield (off + sent.start_char + a, off + sent.start_char + b, block,
                       [t.tag_ for t in toks], [t.text for t in toks])
    while pending is not None:
        yield pending.start, pending.end, pending, [], []
        pending = next(headings, None)


def _subsplit(s: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in _ELLIPSIS_BREAK.finditer(s):
        out.append((pos, m.start() + (1 if s[m.start()] == "…" else 3)))
        pos = m.end()
    out.append((pos, len(s.rstrip())))
    return [(a, b) for a, b in out if b > a]


def split_response(text: str, nlp: Any, limit: int = CHUNK_CHARS) -> SplitResult:
    """Split and classify ``text``; ``nlp`` is a spaCy pipeline with sentence boundaries.

    An empty response yields no units, ``deflection=False`` and a reason. A response
    whose units are deflections and non-claims only is a deflection.
    """
    if not text.strip():
        return SplitResult((), False, reason="empty response")
    units = []
    masked = mask_emphasis(text)
    for a, b, block, tags, words in _spans(text, nlp, limit):
        while a < b and masked[a].isspace():
            a += 1
        while b > a and masked[b - 1].isspace():
            b -= 1
        clean = " ".join(masked[a:b].split()) if block.kind != "heading" else block.text
        if not clean:
            continue
        kind, reason = classify(clean, heading=block.kind == "heading", tags=tags, words=words)
        units.append(Sentence(text=clean, start=a, end=b, kind=kind, reason=reason))
    kinds = {u.kind for u in units}
    deflection = "deflection" in kinds and "claim" not in kinds
    reason = None
    if deflection:
        reason = "response is a deflection"
    elif "claim" not in kinds:
        reason = "no check-worthy sentences"
    return SplitResult(tuple(units), deflection, reason, tuple(text_warnings(text)))


_STOPWORDS = frozenset("the a an of and or to in is are was were be it that this for on with as by "
                       "at from not have has had he she they its their which".split())


def text_warnings(text: str) -> list[str]:
    """Warnings for text that does not look like English prose.

    >>> text_warnings("The kiwi is a bird of New Zealand.")
    []
    >>> text_warnings("qzx vbnm ptlk wrrr zzzt kkkq jjjh")
    ['text does not look like English; claims are best effort']
    """
    words = re.findall(r"[^\W\d_]+", text.lower())
    letters = sum(len(w) for w in words)
    if not words or letters < 0.4 * len(text.replace(" ", "")):
        return ["text has few letters; claims are best effort"]
    ascii_share = sum(w.isascii() for w in words) / len(words)
    stop_share = sum(w in _STOPWORDS for w in words) / len(words)
    vowelless = sum(not re.search(r"[aeiouy]", w) for w in words) / len(words)
    if ascii_share < 0.7 or vowelless > 0.3 or (len(words) >= 8 and stop_share < 0.15):
        return ["text does not look like English; claims are best effort"]
    return []
