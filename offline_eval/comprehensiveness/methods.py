"""The three comprehensiveness methods over (query, sources, response).

``entail(pairs) -> list[float]`` gives P(entailment) for (premise, hypothesis) pairs; build
it from an NLI runner with :func:`entailer_from_runner`. ``decompose(query, sentence)``
splits a source sentence into facts (the claim decomposer); without it, sentences are facts.

**Facts and importance.** Source sentences (decomposed for ``nli`` and ``qa``) that share no
content word with the query are dropped as off-topic. A kept fact is *vital* when it
carries an answer of the query's expected type (a number, year, name or place) or, for
queries without one, shares at least half the query's content words; otherwise *okay*.
Facts are deduplicated across sources (token Jaccard ≥ :data:`DEDUP_JACCARD`), keeping every
source id. The score is ``Σ w(fact)·covered / Σ w(fact)`` with :data:`WEIGHTS`.

* ``nli``: a fact is covered when some window of up to :data:`WINDOW` response sentences
  entails it with P ≥ :data:`ENTAIL_THRESHOLD`.
* ``qa``: each answer span of a fact (except spans the query itself names) becomes a cloze
  question answered from the response, read in the query's context, by span alignment; the fact is covered when at least half its questions get the source's
  answer, or (no answerable question) when NLI covers it. A response giving a *different*
  answer leaves the fact missing. Conflicting sources are separate viewpoints: each one's
  fact must be covered on its own.
* ``direct``: source sentences, not decomposed, checked by NLI against response windows —
  one NLI pass per sentence and window, no decomposer: cheaper than ``nli``.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from offline_eval.audit.relevance import carries_type, content_words, expected_type
from offline_eval.comprehensiveness.align import answer_question, same_answer, sentences
from offline_eval.comprehensiveness.answers import select_answers
from offline_eval.types import Coverage, Fact

Entail = Callable[[Sequence[tuple[str, str]]], Sequence[float]]
Decompose = Callable[[str, str], Sequence[str]]
METHODS = ("nli", "qa", "direct")
WEIGHTS = {"vital": 1.0, "okay": 0.25}
ENTAIL_THRESHOLD = 0.5
WINDOW = 3
DEDUP_JACCARD = 0.8


def entailer_from_runner(runner: object) -> Entail:
    """P(entailment) from a Runner whose labels include ``entailment``."""
    labels = [lab.lower() for lab in runner.labels]  # type: ignore[attr-defined]
    if "entailment" not in labels:
        raise ValueError(f"the NLI model has no 'entailment' label (labels: {labels})")
    col = labels.index("entailment")
    return lambda pairs: [float(p) for p in np.asarray(runner.predict(list(pairs)))[:, col]] \
        if pairs else []  # type: ignore[attr-defined]


def _importance(query: str, fact: str) -> str | None:
    q = content_words(query)
    shared = q & content_words(fact)
    if q and not shared:
        return None
    kind = expected_type(query)
    if kind:
        return "vital" if carries_type(fact, kind) else "okay"
    return "vital" if q and len(shared) >= len(q) / 2 else "okay"


def extract_facts(query: str, sources: Sequence[tuple[str, str]],
                  decompose: Decompose | None = None) -> list[Fact]:
    """Query-relevant facts of ``(source_id, text)`` sources, deduplicated."""
    facts: list[tuple[str, set[str], str, set[str]]] = []  # text, ids, importance, tokens
    for sid, text in sources:
        for sent in sentences(text):
            for fact in (decompose(query, sent) if decompose else [sent]):
                imp = _importance(query, fact)
                if imp is None:
                    continue
                toks = content_words(fact)
                dup = next((f for f in facts if toks and len(toks & f[3]) /
                            len(toks | f[3]) >= DEDUP_JACCARD), None)
                if dup:
                    dup[1].add(sid)
                else:
                    facts.append((fact, {sid}, imp, toks))
    return [Fact(t, tuple(sorted(ids)), imp) for t, ids, imp, _ in facts]


def _windows(response: str) -> list[str]:
    sents = sentences(response) or [response]
    return [" ".join(sents[i:i + w]) for w in range(1, WINDOW + 1)
            for i in range(0, max(1, len(sents) - w + 1))]


def _nli_covered(facts: Sequence[Fact], response: str, entail: Entail) -> list[bool]:
    wins = _windows(response)
    pairs = [(w, f.text) for f in facts for w in wins]
    probs = np.asarray(entail(pairs), dtype=float).reshape(len(facts), len(wins)) \
        if facts else np.zeros((0, len(wins)))
    return [bool(row.max() >= ENTAIL_THRESHOLD) for row in probs]


def _qa_covered(facts: Sequence[Fact], query: str, response: str, entail: Entail) -> list[bool]:
    # The response answers the query, so a terse answer ("1965") is read in the query's
    # context; spans the query itself names are not asked (they carry no information).
    rs = sentences(response) or [response]
    q_low = query.lower()
    out: list[bool | None] = []
    for f in facts:
        spans = [s for s in select_answers(f.text) if s.text.lower() not in q_low]
        answers = [answer_question(s, rs, context=query) for s in spans]
        asked = [(s, a) for s, a in zip(spans, answers) if a is not None]
        out.append(None if not asked else
                   sum(same_answer(s, a) for s, a in asked) >= len(asked) / 2)
    need = [f for f, o in zip(facts, out) if o is None]
    fallback = iter(_nli_covered(need, response, entail))
    return [next(fallback) if o is None else o for o in out]


def comprehensiveness(query: str, sources: Sequence[tuple[str, str]], response: str,
                      method: str, entail: Entail,
                      decompose: Decompose | None = None) -> Coverage:
    """Coverage of the sources' query-relevant facts by ``response``."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}")
    facts = extract_facts(query, sources, None if method == "direct" else decompose)
    if not facts:
        return Coverage(method, None, reason="the sources hold no fact relevant to the query")
    if not response.strip():
        covered = [False] * len(facts)
    elif method == "qa":
        covered = _qa_covered(facts, query, response, entail)
    else:
        covered = _nli_covered(facts, response, entail)
    w = np.array([WEIGHTS.get(f.importance, 0.0) for f in facts])
    score = float((w * np.array(covered)).sum() / w.sum()) if w.sum() > 0 else None
    return Coverage(method, score,
                    tuple(f for f, c in zip(facts, covered) if c),
                    tuple(f for f, c in zip(facts, covered) if not c),
                    None if score is not None else "no weighted facts")
