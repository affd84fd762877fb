"""Assembled evidence: the sentences that, together, cover a claim.

A claim's support is often spread over sentences that no single contiguous window holds
(the date in one sentence, the place three sentences later, or in the next passage of the
same document). The verifier therefore reads, beside the best contiguous windows, one
*assembled* window: sentences of one source document, picked greedily, each adding the
most claim content words not yet covered, then joined in reading order. Retrieved passages
are never mixed across documents: words of a claim scattered over different articles (a
swapped name found in another person's lead) are not support. Evidence that is one context
(an item's RAG references, the references given to ``verify``) is one pool
(:func:`context_pool`): the text the answer was written from. The NLI model sees the facts side by
side; word coverage alone never decides, since the combiner's coverage features never
read it (see the model card for why).

>>> pool = [("p1", "Ada Lovelace was born in London."), ("p1", "She liked music."),
...         ("p2", "In 1843 Ada Lovelace published notes on the Analytical Engine.")]  # one document
>>> a = assemble("Ada Lovelace, born in London, published notes in 1843.", pool, budget=100)
>>> a.text
'Ada Lovelace was born in London. In 1843 Ada Lovelace published notes on the Analytical Engine.'
>>> a.sources
('p1', 'p2')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from offline_eval.nli.chunking import TokenCounter, approx_tokens
from offline_eval.nli.evidence import as_passages
from offline_eval.text import content_words, split_sentences


@dataclass(frozen=True)
class Assembled:
    """The assembled window, the ids of the passages its sentences come from, how many
    sentences it holds and how many of the claim's content words they cover."""

    text: str
    sources: tuple[str, ...]
    sentences: int
    covered: int = 0


def sentence_pool(passages: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(passage id, sentence)`` for every sentence of ``(id, text)`` passages, in order,
    each distinct sentence once (overlapping passages repeat sentences).

    >>> sentence_pool([("a", "X is Y. Z is W."), ("b", "Z is W. Q.")])
    [('a', 'X is Y.'), ('a', 'Z is W.'), ('b', 'Q.')]
    """
    seen: set[str] = set()
    out = []
    for pid, text in passages:
        for s in split_sentences(text or ""):
            if s not in seen:
                seen.add(s)
                out.append((pid, s))
    return out


def context_pool(evidence: Sequence[Any], top_k: int) -> list[tuple[str, str]]:
    """The sentences of a claim's first ``top_k`` passages (any evidence shape) as **one**
    pool, whichever documents they come from: for evidence that is one context (an item's
    RAG references, the references given to ``verify``), where support spread over two
    references is support. Retrieved corpus passages are pooled per document instead.

    >>> from offline_eval.types import Evidence
    >>> context_pool([Evidence("a#0", "X is Y. Z.", doc_id="a"), Evidence("b#0", "Z. Q is R.", doc_id="b")], 5)
    [('a#0', 'X is Y.'), ('a#0', 'Z.'), ('b#0', 'Q is R.')]
    """
    return sentence_pool([(e.passage_id, e.text) for e in as_passages(evidence, top_k)])


def assemble(claim: str, pool: Sequence[tuple[str, str]], budget: int,
             count: TokenCounter = approx_tokens, max_sentences: int = 6) -> Assembled | None:
    """Greedy cover of ``claim``'s content words by sentences of ``pool``.

    Each step takes the sentence adding the most uncovered content words (ties: the
    earlier sentence) whose tokens still fit in ``budget``; it stops when no sentence adds
    a word or ``max_sentences`` are taken. The picked sentences are joined in pool order.
    None when no sentence shares a content word with the claim.

    >>> assemble("Cats purr.", [("p", "Dogs bark.")], budget=50) is None
    True
    """
    need = set(content_words(claim))
    if not need or not pool:
        return None
    words = [content_words(s) for _, s in pool]
    lens = count([s for _, s in pool])
    picked: list[int] = []
    used = 0
    while need and len(picked) < max_sentences:
        best, gain = -1, 0
        for i, w in enumerate(words):
            g = len(need & w)
            if g > gain and i not in picked and used + lens[i] <= budget:
                best, gain = i, g
        if best < 0:
            break
        picked.append(best)
        used += lens[best]
        need -= words[best]
    if not picked:
        return None
    picked.sort()
    return Assembled(" ".join(pool[i][1] for i in picked),
                     tuple(dict.fromkeys(pool[i][0] for i in picked)), len(picked),
                     len(content_words(claim)) - len(need))


def assemble_best(claim: str, pools: Sequence[Sequence[tuple[str, str]]], budget: int,
                  count: TokenCounter = approx_tokens, max_sentences: int = 6) -> Assembled | None:
    """:func:`assemble` within each pool (one per source document); the one covering the
    most claim words (ties: the earlier pool), or None.

    >>> a = assemble_best("Ada was born in London in 1815",
    ...                   [[("lovelace", "Ada was born in London.")],
    ...                    [("byron", "Byron was born in London."), ("byron", "Ada came in 1815.")]], 50)
    >>> a.sources, a.covered
    (('byron',), 4)
    """
    best: Assembled | None = None
    for pool in pools:
        a = assemble(claim, pool, budget, count, max_sentences)
        if a is not None and (best is None or a.covered > best.covered):
            best = a
    return best
