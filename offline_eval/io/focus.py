"""An item's references kept within a size budget, the parts most relevant kept.

Two budgets use it. RAG mode verifies claims against an item's references, so its time
grows with their size. Past :attr:`Limits.references_chars
<offline_eval.io.items.Limits>` characters in all (``--max-references-chars``), the
references are ranked by BM25 against the query and the answer (a reference's score is
its best passage's) and kept, most relevant first, while they fit, in their given order; a
reference longer than what is left of the budget is cut to the window around its best
passage. Each cut is said in a warning that names the row. Within the budget, nothing
changes. The nuggets and comprehensiveness facts then come from far fewer characters,
:data:`SOURCE_CHARS` by default (:func:`query_sources`): the references that share a word
with the query, ranked against the query alone.

>>> from offline_eval.types import Reference
>>> refs = (Reference("a", "Paris is the capital of France. " * 4), Reference("b", "Cats purr. " * 4))
>>> kept, notes = focus_references(refs, "What is the capital of France?", "Paris.", 140)
>>> [r.id for r in kept], len(notes)
(['a'], 1)
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from offline_eval.types import Reference

#: Characters of a row's references that its nuggets and comprehensiveness facts are built
#: from (:func:`query_sources`; ``score --source-chars``): the parts most relevant to the
#: query. The verify stage reads every reference.
SOURCE_CHARS = 5_000


def _window(text: str, start: int, end: int, budget: int) -> tuple[int, int]:
    """The span of at most ``budget`` characters around ``[start, end)``, no word cut.

    >>> t = "aaa bbb ccc ddd eee"
    >>> [t[slice(*_window(t, 4, 7, n))] for n in (11, 7, 12)]
    ['aaa bbb ccc', 'bbb', 'aaa bbb ccc']
    """
    lo = max(0, min(start - max(0, budget - (end - start)) // 2, len(text) - budget))
    hi = min(len(text), lo + budget)
    if lo > 0 and not text[lo - 1].isspace():       # inside a word: start after it
        space = text.find(" ", lo, min(hi, lo + 200))
        lo = space + 1 if space >= 0 else lo
    if hi < len(text) and not text[hi].isspace():   # inside a word: end before it
        space = text.rfind(" ", max(lo, hi - 200), hi)
        hi = space if space > lo else hi
    return lo, hi


def _best_passages(refs: Sequence[Reference], query: str, response: str
                   ) -> dict[int, tuple[float, int, int]]:
    """Reference -> (BM25 score, start, end) of its best passage; Lucene's idf, which stays
    positive when a word is in most passages (Okapi's would floor them all to one)."""
    from offline_eval.errors import InputError
    from offline_eval.index.bm25 import BM25Params
    from offline_eval.index.chunk import Document
    from offline_eval.index.searcher import SearchIndex

    try:
        index = SearchIndex.from_documents((Document(str(i), r.text) for i, r in enumerate(refs)),
                                           params=BM25Params(idf="lucene"))
    except InputError:   # no indexable word at all: the given order stands
        return {}
    scores = index.bm25.scores(index.tokenizer(f"{query} {response}"))
    best: dict[int, tuple[float, int, int]] = {}
    for p, s in zip(index.passages, scores):
        i = int(p.doc_id)
        if i not in best or s > best[i][0]:
            best[i] = (float(s), p.start, p.end)
    return best


def _best_sentence(text: str, start: int, end: int, about: str) -> tuple[int, int]:
    """The span of the sentence of ``text[start:end]`` sharing most words with ``about``.

    >>> t = "Tides rise. The tower was built in 1874. Fares fall."
    >>> t[slice(*_best_sentence(t, 0, len(t), "When was the tower built?"))]
    'The tower was built in 1874.'
    """
    from offline_eval.index.chunk import sentence_spans
    from offline_eval.index.tokenize import Tokenizer

    tok = Tokenizer()
    want = set(tok(about))
    spans = [(start + a, start + b) for a, b in sentence_spans(text[start:end])]
    return max(spans, key=lambda s: (len(want & set(tok(text[s[0]:s[1]]))), -s[0]),
               default=(start, end))


def focus_references(refs: Sequence[Reference], query: str, response: str, budget: int,
                     numbers: Sequence[int] | None = None
                     ) -> tuple[tuple[Reference, ...], list[str]]:
    """``refs`` within ``budget`` characters (see the module docstring), and the notes that
    say what was left out or cut; ``numbers`` are the references' places in the row (for
    the notes; their order by default)."""
    total = sum(len(r.text) for r in refs)
    if total <= budget:
        return tuple(refs), []
    numbers = list(range(len(refs))) if numbers is None else list(numbers)
    best = _best_passages(refs, query, response)
    order = sorted(range(len(refs)), key=lambda i: (-best.get(i, (0.0, 0, 0))[0], i))
    kept: dict[int, Reference] = {}
    notes: list[str] = []
    left = budget
    for i in order:
        r = refs[i]
        if len(r.text) <= left:
            kept[i], left = r, left - len(r.text)
        elif not kept:                        # the most relevant one is too long: its best part
            start, end = best.get(i, (0.0, 0, 0))[1:]
            if end - start > left:            # a passage longer than the room: its best sentence
                start, end = _best_sentence(r.text, start, end, f"{query} {response}")
            lo, hi = _window(r.text, start, end, left)
            kept[i], left = replace(r, text=r.text[lo:hi]), 0
            notes.append(f"references[{numbers[i]}] cut from {len(r.text):,} characters to "
                         f"characters {lo:,}-{hi:,}, its part most relevant to the query and "
                         "answer (--max-references-chars)")
        if left <= 0:
            break
    if len(kept) < len(refs):
        notes.append(f"{len(refs)} references of {total:,} characters in all: the "
                     f"{len(kept)} most relevant to the query and answer are read "
                     f"({sum(len(r.text) for r in kept.values()):,} characters, "
                     f"--max-references-chars {budget:,})")
    return tuple(kept[i] for i in sorted(kept)), notes


def query_sources(refs: Sequence[Reference], query: str,
                  budget: int = SOURCE_CHARS) -> tuple[Reference, ...]:
    """The references that an item's nuggets and comprehensiveness facts are built from,
    ranked against the query alone (a fact the answer should hold is not chosen for what
    the answer says): those that share a word with the query (all of them when none does),
    then :func:`focus_references` within ``budget`` characters. With ``budget`` 0, every
    reference.

    >>> refs = (Reference("a", "Paris is the capital of France. " * 4), Reference("b", "Cats purr."))
    >>> [r.id for r in query_sources(refs, "What is the capital of France?", 140)]
    ['a']
    >>> [r.id for r in query_sources(refs, "What is the capital of France?", 0)]
    ['a', 'b']
    """
    if budget <= 0:
        return tuple(refs)
    best = _best_passages(refs, query, "")
    if any(s > 0 for s, _, _ in best.values()):
        refs = [r for i, r in enumerate(refs) if best.get(i, (0.0, 0, 0))[0] > 0]
    return focus_references(refs, query, "", budget)[0]
