"""Answer a cloze question from the response by span alignment, and compare answers."""
from __future__ import annotations

import re
from typing import Sequence

from offline_eval.audit.quantities import extract_quantities, quantities_match
from offline_eval.audit.relevance import content_words
from offline_eval.comprehensiveness.answers import MASK, AnswerSpan, select_answers

MIN_CONTEXT_OVERLAP = 0.3
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_TOKEN = re.compile(r"[a-z0-9]+")


def sentences(text: str) -> list[str]:
    """A light sentence split (used on responses and sources).

    >>> sentences("Paris is big. It has 2 million people.\\nBerlin too.")
    ['Paris is big.', 'It has 2 million people.', 'Berlin too.']
    """
    return [s.strip() for s in _SENT.split(text) if s and s.strip()]


def same_answer(gold: AnswerSpan, predicted: str) -> bool:
    """Numbers within tolerance; otherwise token F1 ≥ 0.5 after normalisation.

    >>> same_answer(select_answers("It opened in 1889.")[0], "1889")
    True
    >>> same_answer(select_answers("It was built by Gustave Eiffel.")[0], "Eiffel")
    True
    """
    if gold.kind in ("number", "year", "date"):
        gq, pq = extract_quantities(gold.text), extract_quantities(predicted)
        if gq and pq:
            return any(quantities_match(p, g) for p in pq for g in gq)
    g, p = _TOKEN.findall(gold.text.lower()), _TOKEN.findall(predicted.lower())
    common = sum(min(g.count(t), p.count(t)) for t in set(g))
    if not common:
        return False
    prec, rec = common / len(p), common / len(g)
    return 2 * prec * rec / (prec + rec) >= 0.5


def _neighbours(text: str, start: int, end: int, width: int = 3) -> set[str]:
    left = _TOKEN.findall(text[:start].lower())[-width:]
    right = _TOKEN.findall(text[end:].lower())[:width]
    return set(left + right)


def answer_question(span: AnswerSpan, response_sentences: Sequence[str],
                    context: str = "") -> str | None:
    """The response's answer to ``span.question``: a same-kind span in the sentence that
    best shares the question's context words, nearest to the mask's neighbours.
    None when no sentence shares at least :data:`MIN_CONTEXT_OVERLAP` of them. ``context``
    (e.g. the query a terse response answers) counts towards every sentence's overlap
    but never supplies the answer."""
    ctx = content_words(span.question.replace(MASK, " ")) - content_words(span.text)
    if not ctx:
        return None
    extra = content_words(context)
    scored = sorted(((len(ctx & (content_words(s) | extra)) / len(ctx), i) for i, s in
                     enumerate(response_sentences)), key=lambda t: (-t[0], t[1]))
    q_nb = _neighbours(span.question, span.start, span.start + len(MASK))
    compatible = {"number": {"number", "year"}, "year": {"year", "date", "number"},
                  "date": {"date", "year"}, "entity": {"entity"}}[span.kind]
    for overlap, i in scored:
        if overlap < MIN_CONTEXT_OVERLAP:
            break
        sent = response_sentences[i]
        cands = [a for a in select_answers(sent) if a.kind in compatible]
        if cands:
            best = max(cands, key=lambda a: (len(q_nb & _neighbours(sent, a.start, a.end)),
                                             same_answer(span, a.text), -a.start))
            return best.text
    return None
