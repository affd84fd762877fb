"""The three comprehensiveness methods over (query, sources, response).

``entail(pairs) -> list[float]`` gives P(entailment) for (premise, hypothesis) pairs; build
it from an NLI runner with :func:`entailer_from_runner`. ``decompose(query, sentence)``
splits a source sentence into facts; one that also has ``sources(query, texts)`` (the
shipped one, :func:`~offline_eval.coverage.api.load_decomposer`) decomposes each source as
one document instead; without a decomposer, sentences are facts.

**Which facts** (``facts``, see :mod:`~offline_eval.coverage.facts`). ``vital``
(the default): the key facts, one per source, that answer the query; sources that answer
differently are separate viewpoints, and the score is the share of viewpoints covered.
``all``: every query-relevant fact, deduplicated, weighted by importance with
:data:`WEIGHTS` (vital when it carries an answer of the query's expected type or, for
queries without one, shares at least half the query's content words; otherwise okay). The
score is ``Σ w(fact)·covered / Σ w(fact)``.

* ``nli``: a fact is covered when some window of up to :data:`WINDOW` response sentences
  entails it with P ≥ :data:`ENTAIL_THRESHOLD`.
* ``qa``: a key fact with an answer span is covered when the response states that answer:
  a span of a compatible kind, anywhere in the response (which answers the query as a
  whole, so a terse "1874" counts), that matches it (:func:`same_answer`) and that no
  negation in its clause denies ("was not lit in 1874"). Stating two conflicting answers
  covers both viewpoints; stating only another one covers neither. Other facts: each
  answer span (except spans the query names) becomes a cloze question answered from the
  response, read in the query's context, by span alignment, and the fact is covered when
  at least half its answered questions get the source's answer. A fact with no answerable
  question falls back to ``nli``.
* ``direct``: source sentences, not decomposed, checked by NLI against response windows —
  one NLI pass per sentence and window, no decomposer: cheaper than ``nli``.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from offline_eval.coverage.align import (answer_question, response_answers, same_answer,
                                                  sentences, stated_answers)
from offline_eval.coverage.facts import (BM25_PARAMS, FACT_SETS, Decompose, SourceFact,
                                                  answer_spans, extract_facts)
from offline_eval.index.bm25 import BM25Params
from offline_eval.io.focus import SOURCE_CHARS, query_sources
from offline_eval.memo import Memo, digest
from offline_eval.types import Coverage, Fact, Reference

Entail = Callable[[Sequence[tuple[str, str]]], Sequence[float]]
METHODS = ("nli", "qa", "direct")
WEIGHTS = {"vital": 1.0, "okay": 0.25}
ENTAIL_THRESHOLD = 0.5
WINDOW = 3
DEFAULT_FACTS = "vital"


def entailer_from_runner(runner: object) -> Entail:
    """P(entailment) from a Runner whose labels include ``entailment``."""
    labels = [lab.lower() for lab in runner.labels]  # type: ignore[attr-defined]
    if "entailment" not in labels:
        raise ValueError(f"the NLI model has no 'entailment' label (labels: {labels})")
    col = labels.index("entailment")
    return lambda pairs: [float(p) for p in np.asarray(runner.predict(list(pairs)))[:, col]] \
        if pairs else []  # type: ignore[attr-defined]


def _windows(response: str) -> list[list[str]]:
    """The response's windows of 1, 2, ... :data:`WINDOW` consecutive sentences, by width
    (a response shorter than a width gives that width no window)."""
    sents = sentences(response) or [response]
    return [[" ".join(sents[i:i + w]) for i in range(len(sents) - w + 1)]
            for w in range(1, min(WINDOW, len(sents)) + 1)]


def _nli_covered(facts: Sequence[Fact], response: str, entail: Entail) -> list[bool]:
    """Whether some window of the response entails each fact. Windows are read narrowest
    first, and a fact that a narrower window entails reads no wider one: the answer is the
    same with an ``entail`` whose probability of a pair depends on that pair alone (the
    default NLI runner on CPU, int8, one pair per run)."""
    covered = [False] * len(facts)
    for wins in _windows(response):
        todo = [i for i, c in enumerate(covered) if not c]
        pairs = [(w, facts[i].text) for i in todo for w in wins]
        if not pairs:
            break
        probs = np.asarray(entail(pairs), dtype=float).reshape(len(todo), len(wins))
        for i, row in zip(todo, probs):
            covered[i] = bool(row.max() >= ENTAIL_THRESHOLD)
    return covered


def _qa_covered(facts: Sequence[SourceFact], query: str, response: str,
                entail: Entail) -> list[bool]:
    # The response answers the query, so a terse answer ("1874") is read in the query's
    # context; spans the query itself names are not asked (they carry no information).
    rs = sentences(response) or [response]
    in_response = response_answers(rs)  # parsed once, whatever the number of key facts
    out: list[bool | None] = []
    for sf in facts:
        if sf.answer is not None:
            stated = stated_answers(sf.answer, in_response)
            out.append(any(same_answer(sf.answer, a) for a in stated) if stated else None)
            continue
        spans = answer_spans(query, sf.fact.text)
        answers = [answer_question(s, rs, context=query) for s in spans]
        asked = [(s, a) for s, a in zip(spans, answers) if a is not None]
        out.append(None if not asked else
                   sum(same_answer(s, a) for s, a in asked) >= len(asked) / 2)
    need = [sf.fact for sf, o in zip(facts, out) if o is None]
    fallback = iter(_nli_covered(need, response, entail))
    return [next(fallback) if o is None else o for o in out]


#: Recent :func:`extract_facts` results, by their inputs: the answers of several systems to
#: one query (``score --group-by``) share their facts, built once.
FACTS_MEMO = 64
_FACTS: Memo[list[SourceFact]] = Memo(FACTS_MEMO)


def _facts_of(query: str, sources: Sequence[tuple[str, str]], decompose: Decompose | None,
              facts: str, bm25: BM25Params, source_chars: int) -> list[SourceFact]:
    """:func:`extract_facts` of the sources :func:`~offline_eval.io.focus.query_sources`
    keeps, remembered for the last :data:`FACTS_MEMO` inputs (the same decomposer object,
    the same facts)."""
    def build() -> list[SourceFact]:
        kept = query_sources([Reference(sid, text) for sid, text in sources], query, source_chars)
        return extract_facts(query, [(r.id, r.text) for r in kept], decompose, facts, bm25)

    key = (digest(query, [list(s) for s in sources]), decompose, facts, bm25, source_chars)
    try:
        hash(key)
    except TypeError:   # a decomposer that cannot be a key: built each time
        return build()
    found = _FACTS.get(key)
    if found is None:
        found = build()
        _FACTS.put(key, found)
    return found


def comprehensiveness(query: str, sources: Sequence[tuple[str, str]], response: str,
                      method: str, entail: Entail, decompose: Decompose | None = None,
                      facts: str = DEFAULT_FACTS, bm25: BM25Params = BM25_PARAMS,
                      source_chars: int = SOURCE_CHARS) -> Coverage:
    """Coverage of the sources' facts (``facts``: ``vital`` | ``all``; ``bm25``: see
    :func:`~offline_eval.coverage.facts.extract_facts`) by ``response``. The facts come from
    at most ``source_chars`` characters of the sources, those most relevant to the query
    (:func:`~offline_eval.io.focus.query_sources`; 0: every source)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")
    if facts not in FACT_SETS:
        raise ValueError(f"unknown fact set {facts!r}; valid: {', '.join(FACT_SETS)}")
    found = _facts_of(query, sources, None if method == "direct" else decompose, facts, bm25,
                      source_chars)
    if not found:
        return Coverage(method, None, reason="the sources hold no fact relevant to the query")
    plain = [sf.fact for sf in found]
    if not response.strip():
        covered = [False] * len(found)
    elif method == "qa":
        covered = _qa_covered(found, query, response, entail)
    else:
        covered = _nli_covered(plain, response, entail)
    w = np.array([WEIGHTS.get(f.importance, 0.0) for f in plain])
    score = float((w * np.array(covered)).sum() / w.sum()) if w.sum() > 0 else None
    return Coverage(method, score,
                    tuple(f for f, c in zip(plain, covered) if c),
                    tuple(f for f, c in zip(plain, covered) if not c),
                    None if score is not None else "no weighted facts")
