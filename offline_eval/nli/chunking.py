"""Chunk evidence that is longer than the model window, so the claim is never cut."""
from __future__ import annotations

from typing import Callable, Sequence

from offline_eval.text import split_sentences

TokenCounter = Callable[[Sequence[str]], list[int]]


def approx_tokens(texts: Sequence[str]) -> list[int]:
    """A fallback token counter: 1.4 tokens per whitespace word, rounded up.

    >>> approx_tokens(["one two three", ""])
    [5, 0]
    """
    return [-(-len(t.split()) * 14 // 10) for t in texts]


def chunk_text(text: str, budget: int, count: TokenCounter = approx_tokens,
               overlap: int = 1) -> list[str]:
    """Pack whole sentences into windows of at most ``budget`` tokens.

    Consecutive windows share ``overlap`` sentences. A sentence longer than the budget
    is split on words. Text that fits is returned as one window.

    >>> chunk_text("A b c. D e f. G h i.", budget=10, overlap=0)
    ['A b c. D e f.', 'G h i.']
    >>> chunk_text("short", 50)
    ['short']
    """
    text = text.strip()
    if not text:
        return []
    budget = max(8, int(budget))
    if count([text])[0] <= budget:
        return [text]
    sents: list[str] = []
    for s, n in zip(split_sentences(text), count(split_sentences(text))):
        if n <= budget:
            sents.append(s)
            continue
        words = s.split()
        step = max(1, int(len(words) * budget / max(n, 1)))
        sents += [" ".join(words[i:i + step]) for i in range(0, len(words), step)]
    lens = count(sents)
    windows, start = [], 0
    while start < len(sents):
        end, used = start, 0
        while end < len(sents) and (end == start or used + lens[end] <= budget):
            used += lens[end]
            end += 1
        windows.append(" ".join(sents[start:end]))
        if end >= len(sents):
            break
        start = max(start + 1, end - overlap)
    return windows
