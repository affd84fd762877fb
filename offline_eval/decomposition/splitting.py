"""Split a response into classified units (sentences, list items, headings).

Blocks from :mod:`~offline_eval.decomposition.markup` are segmented by spaCy's
sentence segmenter in chunks of bounded size, all responses of a batch in one
``nlp.pipe`` stream, and each ``Doc`` is reduced to its sentence spans as it arrives,
so a 20k-word response never holds more than one batch of chunk ``Doc`` objects. Every unit keeps offsets into the response.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from offline_eval.decomposition.filters import classify
from offline_eval.decomposition.markup import Block, blocks
from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL
from offline_eval.index.stopwords import STOPWORDS
from offline_eval.types import Sentence

if TYPE_CHECKING:
    from spacy.language import Language

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


_Span = tuple[int, int, Block, list[str], list[str]]


def _pieces(k: int, text: str, todo: list[Block], limit: int) -> Iterator[tuple[str, tuple[int, int, Block]]]:
    """The spaCy inputs of response ``k``: its non-heading blocks, in bounded chunks."""
    masked = mask_emphasis(text)
    for block in todo:
        if block.kind != "heading":
            for off, piece in _chunks(masked, block, limit):
                yield piece, (k, off, block)


def _sentences(doc: Any, off: int, block: Block) -> list[_Span]:
    """(start, end, block, tags, words) per sentence of one parsed piece.

    Whitespace tokens are tagged ``_SP`` (what the attribute ruler, not run here, does)."""
    out = []
    for sent in doc.sents:
        for a, b in _subsplit(sent.text):
            toks = [t for t in sent if a <= t.idx - sent.start_char < b]
            out.append((off + sent.start_char + a, off + sent.start_char + b, block,
                        ["_SP" if t.is_space else t.tag_ for t in toks], [t.text for t in toks]))
    return out


def _spans_many(texts: Sequence[str], nlp: Language, limit: int, batch_size: int = 64) -> list[list[_Span]]:
    """Sentence spans of every text, in order, from one spaCy stream over all of them.

    Docs are turned into spans as they arrive, so memory holds at most one batch of
    chunk-sized docs however long the responses are."""
    todo = [blocks(t) for t in texts]
    found: list[list[tuple[int, Block, list[_Span]]]] = [[] for _ in texts]
    stream = (p for k, t in enumerate(texts) for p in _pieces(k, t, todo[k], limit))
    for doc, (k, off, block) in nlp.pipe(stream, as_tuples=True, batch_size=batch_size):
        found[k].append((off, block, _sentences(doc, off, block)))
    out = []
    for k in range(len(texts)):
        spans: list[_Span] = []
        headings = iter(b for b in todo[k] if b.kind == "heading")
        pending = next(headings, None)
        for off, _block, sents in found[k]:
            while pending is not None and pending.start < off:
                spans.append((pending.start, pending.end, pending, [], []))
                pending = next(headings, None)
            spans.extend(sents)
        while pending is not None:
            spans.append((pending.start, pending.end, pending, [], []))
            pending = next(headings, None)
        out.append(spans)
    return out


def _subsplit(s: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in _ELLIPSIS_BREAK.finditer(s):
        out.append((pos, m.start() + (1 if s[m.start()] == "…" else 3)))
        pos = m.end()
    out.append((pos, len(s.rstrip())))
    return [(a, b) for a, b in out if b > a]


def split_response(text: str, nlp: Language, limit: int = CHUNK_CHARS) -> SplitResult:
    """Split and classify ``text``; ``nlp`` is a spaCy pipeline with sentence boundaries.

    An empty response yields no units, ``deflection=False`` and a reason. A response
    whose units are deflections and non-claims only is a deflection.
    """
    return split_responses([text], nlp, limit)[0]


def split_responses(texts: Sequence[str], nlp: Language, limit: int = CHUNK_CHARS,
                    model: str | None = DEFAULT_SPACY_MODEL) -> list[SplitResult]:
    """:func:`split_response` for many texts, with one batched spaCy stream.

    When ``nlp`` is the ``split`` pipeline :func:`~offline_eval.decomposition.nlp.load_spacy`
    loaded for ``model`` (None: never) and the texts hold more than :data:`POOL_START`
    characters, they are cut into chunks shared with the process's spaCy workers
    (:func:`~offline_eval.spacy_workers.shared_pool`); a text's units depend on it alone,
    so the result is the same.
    """
    pool = _pool(texts, nlp, model)
    if pool is not None:
        from offline_eval.spacy_workers import chunked
        chunks = chunked(list(texts), pool, CHUNK_MIN, CHUNK_MAX, weight=len)
        return pool.map("split", {"limit": limit}, chunks,
                        lambda c: _split_here(c, nlp, limit), split_from_json)
    return _split_here(texts, nlp, limit)


#: characters of one call that start the shared spaCy workers
POOL_START = 20_000
#: characters per chunk sent to a spaCy worker: at least / at most
CHUNK_MIN, CHUNK_MAX = 2_000, 20_000


def _pool(texts: Sequence[str], nlp: Language, model: str | None) -> Any:
    from offline_eval.decomposition.nlp import is_loaded
    if model is None or not is_loaded(nlp, model, "split"):
        return None
    from offline_eval.spacy_workers import pool_for
    return pool_for(model, sum(len(t) for t in texts), 2 * CHUNK_MIN, POOL_START)


def split_task(model: str, options: dict[str, Any], items: list[Any]) -> list[Any]:
    """A spaCy worker's side of :func:`split_responses`: each text's units, as JSON."""
    from offline_eval.decomposition.nlp import load_spacy
    limit = int(options.get("limit", CHUNK_CHARS))
    return [split_to_json(r) for r in _split_here([str(t) for t in items],
                                                  load_spacy(model, "split"), limit)]


def split_to_json(res: SplitResult) -> list[Any]:
    """A JSON-ready list of ``res`` (:func:`split_from_json` reads it back)."""
    return [[[u.text, u.start, u.end, u.kind, u.reason] for u in res.sentences],
            res.deflection, res.reason, list(res.warnings)]


def split_from_json(data: list[Any]) -> SplitResult:
    """The :class:`SplitResult` of :func:`split_to_json`'s list."""
    units, deflection, reason, warnings = data
    return SplitResult(tuple(Sentence(str(t), int(a), int(b), k, r) for t, a, b, k, r in units),
                       bool(deflection), reason, tuple(warnings))


def _split_here(texts: Sequence[str], nlp: Language, limit: int) -> list[SplitResult]:
    live = [k for k, t in enumerate(texts) if t.strip()]
    spans = dict(zip(live, _spans_many([texts[k] for k in live], nlp, limit)))
    out = []
    for k, t in enumerate(texts):
        res = _classify(t, spans[k]) if k in spans else SplitResult((), False, reason="empty response")
        longest = max((len(w) for w in t.split()), default=0)
        if longest > limit:
            res = replace(res, warnings=res.warnings + (
                f"a {longest:,}-character word is longer than {limit:,} characters and was cut "
                "into pieces; claims from it are best effort",))
        out.append(res)
    return out


def _classify(text: str, spans: list[_Span]) -> SplitResult:
    units = []
    masked = mask_emphasis(text)
    for a, b, block, tags, words in spans:
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


def text_warnings(text: str) -> list[str]:
    """Warnings for text that does not look like English prose.

    >>> text_warnings("The kiwi is a bird of New Zealand.")
    []
    >>> text_warnings("qzx vbnm ptlk wrrr zzzt kkkq jjjh")
    ['text does not look like English; claims are best effort']
    >>> text_warnings("I'm sorry, I can't access real-time market prices.")
    []
    """
    words = re.findall(r"[^\W\d_]+", text.lower())
    letters = sum(len(w) for w in words)
    if not words or letters < 0.4 * len(text.replace(" ", "")):
        return ["text has few letters; claims are best effort"]
    ascii_share = sum(w.isascii() for w in words) / len(words)
    stop_share = sum(w in STOPWORDS for w in words) / len(words)
    vowelless = sum(not re.search(r"[aeiouy]", w) for w in words) / len(words)
    if ascii_share < 0.7 or vowelless > 0.3 or (len(words) >= 8 and stop_share < 0.15):
        return ["text does not look like English; claims are best effort"]
    return []
