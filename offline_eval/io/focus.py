"""An item's references kept within a size budget, the parts most relevant kept.

RAG mode builds nuggets and comprehensiveness facts from every sentence of an item's
references, so its time grows with their size. Past :attr:`Limits.references_chars
<offline_eval.io.items.Limits>` characters in all (``--max-references-chars``), the
references are ranked by BM25 against the query and the answer (a reference's score is
its best passage's) and kept, most relevant first, while they fit, in their given order; a
reference longer than what is left of the budget is cut to the window around its best
passage. Each cut is said in a warning that names the row. Within the budget, nothing
changes.

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


def _window(text: str, start: int, end: int, budget: int) -> tuple[int, int]:
    """The span of at most ``budget`` characters around ``[start, end)``, cut at spaces."""
    lo = max(0, min(start - max(0, budget - (end - start)) // 2, len(text) - budget))
    hi = min(len(text), lo + budget)
    if lo > 0:
        space = text.find(" ", lo, min(hi, lo + 200))
        lo = space + 1 if space >= 0 else lo
    if hi < len(text):
        space = text.rfind(" ", max(lo, hi - 200), hi)
        hi = space if space > lo else hi
    return lo, hi


def focus_references(refs: Sequence[Reference], query: str, response: str, budget: int
                     ) -> tuple[tuple[Reference, ...], list[str]]:
    """``refs`` within ``budget`` characters (see the module docstring), and the notes that
    say what was left out or cut."""
    total = sum(len(r.text) for r in refs)
    if total <= budget:
        return tuple(refs), []
    from offline_eval.index.chunk import Document
    from offline_eval.index.searcher import SearchIndex

    index = SearchIndex.from_documents(Document(str(i), r.text) for i, r in enumerate(refs))
    scores = index.bm25.scores(index.tokenizer(f"{query} {response}"))
    best: dict[int, tuple[float, int, int]] = {}   # reference -> (score, start, end)
    for p, s in zip(index.passages, scores):
        i = int(p.doc_id)
        if i not in best or s > best[i][0]:
            best[i] = (float(s), p.start, p.end)
    order = sorted(range(len(refs)), key=lambda i: (-best.get(i, (0.0, 0, 0))[0], i))
    kept: dict[int, Reference] = {}
    notes: list[str] = []
    left = budget
    for i in order:
        r = refs[i]
        if len(r.text) <= left:
            kept[i], left = r, left - len(r.text)
        elif not kept and i in best:          # the most relevant one is too long: its best part
            lo, hi = _window(r.text, best[i][1], best[i][2], left)
            kept[i], left = replace(r, text=r.text[lo:hi]), 0
            notes.append(f"references[{i}] cut from {len(r.text):,} characters to characters "
                         f"{lo:,}-{hi:,}, its part most relevant to the query and answer "
                         "(--max-references-chars)")
        if left <= 0:
            break
    if len(kept) < len(refs):
        notes.append(f"{len(refs)} references of {total:,} characters in all: the "
                     f"{len(kept)} most relevant to the query and answer are read "
                     f"({budget - left:,} characters, --max-references-chars {budget:,})")
    return tuple(kept[i] for i in sorted(kept)), notes
