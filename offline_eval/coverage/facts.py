"""The facts a response should cover: every query-relevant fact of the sources (``all``),
or only the key facts (``vital``): per source, the one fact that answers the query.

**Relevant facts.** Source sentences (decomposed into facts when a decomposer is given) that
share a content word with the query; the others are off-topic.

**Key facts** (``vital``).

* *What can answer.* The query's expected answer type (:func:`expected_answer_type`) names
  the answer-span kinds (:func:`answer_kinds`): a date or year for "when" / "what year", a
  number for "how many", a name for "who" / "where" / "which city" / "what is the name".
  A yes/no question puts one answer to the test, its last answer span ("3rd March" in
  "Was X born on the 3rd March?", see :func:`polar_candidate`): its kind is the kind to
  look for, so that each source's own answer ("3 March 1902", "13 March 1902") is
  found. Spans the query names (other than that candidate) are never answers.
* *Which fact.* In each source, the key fact is the relevant fact that carries such a span
  and ranks highest by Okapi BM25 for the query, the relevant facts of all sources being the
  collection (a word every fact shares, the topic's name, counts little; a rare one,
  "father", much). Ties go to the fact whose answer span has more query words among its
  three neighbours either side, then to the earlier fact. Its answer is the span with most
  query words around it ("212" in "lined by 212 oak trees" for "how many trees line
  it"), then one that repeats no query word (the query's topic is not its answer). A
  query with no expected type ("How is X built?"), or a source with no fact carrying such
  a span, takes the top BM25 fact, with no single answer span. A source without a
  relevant fact has no key fact.
* *Viewpoints.* Key facts with the same answer are one viewpoint, whichever sources hold
  them; sources that answer differently are separate viewpoints ("Conflicting sources count
  as separate viewpoints"), each of which the response must cover. A response that gives
  both of two conflicting answers scores 1, one of them 0.5, neither 0.

**Deduplication** (``all``). Facts whose content words overlap by Jaccard ≥
:data:`DEDUP_JACCARD` are one fact, unless their answer spans differ ("In 1874, X became
keeper" and "In 1876, X became keeper" stay two facts).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from offline_eval.audit.relevance import carries_type, expected_type
from offline_eval.text import query_words
from offline_eval.coverage.align import COMPATIBLE, neighbours, same_answer, sentences
from offline_eval.coverage.answers import AnswerSpan, select_answers
from offline_eval.importance.query import clean_query, expected_answer_type
from offline_eval.index.bm25 import BM25Index, BM25Params
from offline_eval.types import Fact

#: ``(query, sentence) -> facts``; :func:`extract_facts` calls ``sources(query, texts) -> facts
#: per text`` instead when the object has it (each source decomposed as one document)
Decompose = Callable[[str, str], Sequence[str]]
FACT_SETS = ("vital", "all")
DEDUP_JACCARD = 0.8
#: Expected answer type of the query -> the answer-span kinds that can carry it.
ANSWER_KINDS: dict[str, frozenset[str]] = {
    "date": frozenset({"date", "year"}), "quantity": frozenset({"number"}),
    "money": frozenset({"number"}), "person": frozenset({"entity"}),
    "place": frozenset({"entity"}), "organization": frozenset({"entity"}),
    "work": frozenset({"entity"})}
# "What is his birth name?": a query with no wh-type that asks for a name expects an
# entity span. The rule stays here, not in expected_answer_type: that function's types are
# spaCy entity labels feeding the importance ranker's features (a name can be a person, a
# place or a work), and typing these queries there would change those features.
_NAME = re.compile(r"\bname[sd]?\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s?\b")
_POLAR = re.compile(r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b",
                    re.IGNORECASE)


@dataclass(frozen=True)
class SourceFact:
    """A fact to cover and, for a key fact of a typed query, the span that answers it."""

    fact: Fact
    answer: AnswerSpan | None = None


def answer_spans(query: str, fact: str) -> list[AnswerSpan]:
    """Answer spans of ``fact`` that the query does not itself name.

    >>> [s.text for s in answer_spans("When did Ada Byron publish?", "Ada Byron published in 1843.")]
    ['1843']
    """
    q_low = query.lower()
    return [s for s in select_answers(fact) if s.text.lower() not in q_low]


def _importance(query: str, fact: str) -> str | None:
    q = query_words(query)
    shared = q & query_words(fact)
    if q and not shared:
        return None
    kind = expected_type(query)
    if kind:
        return "vital" if carries_type(fact, kind) else "okay"
    return "vital" if q and len(shared) >= len(q) / 2 else "okay"


def _same_spans(query: str, a: str, b: str) -> bool:
    sa, sb = answer_spans(query, a), answer_spans(query, b)
    return all(any(same_answer(x, y.text) for y in sb) for x in sa) and \
        all(any(same_answer(y, x.text) for x in sa) for y in sb)


def _merge(query: str, facts: list[SourceFact], new: SourceFact) -> None:
    toks = query_words(new.fact.text)
    for i, old in enumerate(facts):
        if new.answer is not None and old.answer is not None:
            dup = same_answer(old.answer, new.answer.text) and \
                same_answer(new.answer, old.answer.text)
        else:
            o = query_words(old.fact.text)
            dup = bool(toks) and len(toks & o) / len(toks | o) >= DEDUP_JACCARD and \
                _same_spans(query, old.fact.text, new.fact.text)
        if dup:
            ids = tuple(sorted(set(old.fact.source_ids) | set(new.fact.source_ids)))
            facts[i] = SourceFact(Fact(old.fact.text, ids, old.fact.importance), old.answer)
            return
    facts.append(new)


def terms(text: str) -> set[str]:
    """Content words for matching facts to a query: the audit's :func:`query_words` (and
    its stemmer) with possessives dropped first, so "Varde's" meets "Varde".

    >>> terms("Varde's fathers") == terms("Varde father") == {"varde", "father"}
    True
    """
    return query_words(_POSSESSIVE.sub("", text))


def polar_candidate(query: str) -> AnswerSpan | None:
    """The answer a yes/no question puts to the test: its last answer span, unless that is
    its first one (a yes/no question names its subject first).

    >>> polar_candidate("Was Jon Varde born on the 3rd March?").text
    '3rd March'
    >>> polar_candidate("Is the Varn lamp painted red?") is None
    True
    """
    if not _POLAR.match(clean_query(query)):
        return None
    spans = select_answers(query)
    return spans[-1] if len(spans) > 1 else None


def answer_kinds(query: str) -> frozenset[str] | None:
    """The answer-span kinds that can answer ``query``, None when any can.

    >>> sorted(answer_kinds("When was Jon Varde born?")), sorted(answer_kinds("What is his birth name?"))
    (['date', 'year'], ['entity'])
    >>> sorted(answer_kinds("Did Jon Varde die in Bergen?"))
    ['entity']
    """
    candidate = polar_candidate(query)
    if candidate is not None:
        return frozenset(COMPATIBLE[candidate.kind])
    kind = expected_answer_type(query)
    if kind is None and _NAME.search(query):
        return ANSWER_KINDS["person"]
    return ANSWER_KINDS.get(kind or "")


#: BM25 over the relevant facts of one item's sources: Lucene's idf and k1, since a
#: collection of a handful of facts gives Okapi's idf a negative value (floored to one
#: constant) for every word in more than half of them.
BM25_PARAMS = BM25Params(k1=1.2, b=0.75, idf="lucene")


def _bm25(query: str, facts: Sequence[str], params: BM25Params = BM25_PARAMS) -> list[float]:
    """BM25 of each fact for the query, the facts being the collection (the project's
    :class:`~offline_eval.index.bm25.BM25Index` with :data:`BM25_PARAMS`; binary term
    counts): a query word that most facts share (the topic's name) counts little, a rare
    one ("father") much, and long facts are not favoured for holding more words."""
    docs = [sorted(terms(f)) for f in facts]
    if not any(docs):
        return [0.0] * len(docs)
    return BM25Index.build(docs, params).scores(sorted(terms(query))).tolist()


def _answer(q: set[str], named: str, fact: str,
            kinds: frozenset[str] | None) -> tuple[int, int, AnswerSpan | None]:
    """Whether ``fact`` can answer the query (2: carries a span of the expected kind; 1: the
    query expects none; 0: it carries none), the query terms ``q`` next to its answer span,
    and that span. Spans that ``named`` (the query less a yes/no candidate) names are not
    answers."""
    typed = [s for s in answer_spans(named, fact) if kinds and s.kind in kinds]
    if not typed:
        return (0 if kinds else 1), 0, None
    near = [len(q & terms(" ".join(neighbours(fact, s.start, s.end)))) for s in typed]
    repeats = [bool(q & terms(s.text)) for s in typed]
    best = max(range(len(typed)), key=lambda i: (near[i], not repeats[i], -i))
    return 2, near[best], typed[best]


def extract_facts(query: str, sources: Sequence[tuple[str, str]],
                  decompose: Decompose | None = None, facts: str = "vital",
                  bm25: BM25Params = BM25_PARAMS) -> list[SourceFact]:
    """The facts of ``(source_id, text)`` sources that a response should cover (``bm25``:
    the BM25 settings that pick each source's key fact)."""
    if facts not in FACT_SETS:
        raise ValueError(f"unknown fact set {facts!r}; valid: {', '.join(FACT_SETS)}")
    pool: list[tuple[str, str, str]] = []  # source id, fact, importance
    whole = getattr(decompose, "sources", None)   # each source decomposed as one document
    if whole is not None:
        found_in = list(zip([sid for sid, _ in sources], whole(query, [t for _, t in sources])))
    else:
        found_in = [(sid, decompose(query, s) if decompose else [s])
                    for sid, text in sources for s in sentences(text)]
    for sid, found in found_in:
        for fact in found:
            imp = _importance(query, fact)
            if imp is not None:
                pool.append((sid, fact, imp))
    out: list[SourceFact] = []
    if facts == "all":
        for sid, fact, imp in pool:
            _merge(query, out, SourceFact(Fact(fact, (sid,), imp)))
        return out
    kinds, candidate, q = answer_kinds(query), polar_candidate(query), terms(query)
    named = query.replace(candidate.text, " ") if candidate else query
    relevance = _bm25(query, [f for _, f, _ in pool], bm25)
    best: dict[str, tuple[tuple[int, float, int], str, AnswerSpan | None]] = {}
    for (sid, fact, _), rel in zip(pool, relevance):
        level, near, span = _answer(q, named, fact, kinds)
        if sid not in best or (level, rel, near) > best[sid][0]:
            best[sid] = ((level, rel, near), fact, span)
    for sid, (_, fact, span) in best.items():
        _merge(query, out, SourceFact(Fact(fact, (sid,), "vital"), span))
    return out
