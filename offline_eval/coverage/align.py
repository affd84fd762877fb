"""Answer a cloze question from the response by span alignment, and compare answers."""
from __future__ import annotations

import re
from typing import Sequence

from offline_eval.audit.quantities import extract_quantities, quantities_match
from offline_eval.text import query_words
from offline_eval.coverage.answers import _MONTHS, MASK, AnswerSpan, select_answers

MIN_CONTEXT_OVERLAP = 0.3
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_TOKEN = re.compile(r"[a-z0-9]+")


def sentences(text: str) -> list[str]:
    """A light sentence split (used on responses and sources).

    >>> sentences("Paris is big. It has 2 million people.\\nBerlin too.")
    ['Paris is big.', 'It has 2 million people.', 'Berlin too.']
    """
    return [s.strip() for s in _SENT.split(text) if s and s.strip()]


_MONTH_NO = {m.lower(): i + 1 for i, m in enumerate(_MONTHS.split("|"))}
_DATE_PART = re.compile(rf"\b(?:(\d{{4}})|(\d{{1,2}})(?:st|nd|rd|th)?|({_MONTHS}))\b")


def date_parts(text: str) -> dict[str, int]:
    """Day, month and year named in a date.

    >>> date_parts("March 3rd, 1902") == date_parts("3 March 1902")
    True
    >>> date_parts("the 10th of May")
    {'day': 10, 'month': 5}
    """
    out: dict[str, int] = {}
    for year, day, month in _DATE_PART.findall(text):
        if year:
            out.setdefault("year", int(year))
        elif day:
            out.setdefault("day", int(day))
        else:
            out.setdefault("month", _MONTH_NO[month.lower()])
    return out


def same_answer(gold: AnswerSpan, predicted: str) -> bool:
    """Whether ``predicted`` gives the answer ``gold``.

    Dates agree on every part (day, month, year) both name, and the prediction names the
    source's finest part; other numbers match within the audit's tolerance; names and other
    spans match when the content words of one contain the other's ("Eiffel" is "Gustave
    Eiffel", "Nils Varde" is not "Jon Varde").

    >>> same_answer(select_answers("It opened in 1889.")[0], "1889")
    True
    >>> same_answer(select_answers("It was built by Gustave Eiffel.")[0], "Eiffel")
    True
    >>> same_answer(select_answers("His father was Jon Varde.")[0], "Nils Varde")
    False
    >>> born = select_answers("He was born on 3 March 1902.")[0]
    >>> [same_answer(born, p) for p in ("March 3rd, 1902", "March 13, 1902", "1902")]
    [True, False, False]
    """
    if gold.kind == "date":
        g, p = date_parts(gold.text), date_parts(predicted)
        finest = next((k for k in ("day", "month", "year") if k in g), None)
        return finest is not None and finest in p and all(p[k] == v for k, v in g.items()
                                                          if k in p)
    if gold.kind in ("number", "year"):
        gq, pq = extract_quantities(gold.text), extract_quantities(predicted)
        if gq and pq:
            return any(quantities_match(p, g) for p in pq for g in gq)
    g_words, p_words = query_words(gold.text), query_words(predicted)
    return bool(g_words and p_words) and (g_words <= p_words or p_words <= g_words)


def neighbours(text: str, start: int, end: int, width: int = 3) -> set[str]:
    """The lower-cased words up to ``width`` either side of ``text[start:end]``.

    >>> sorted(neighbours("the 212 oak trees that lined", 4, 7))
    ['oak', 'that', 'the', 'trees']
    """
    left = _TOKEN.findall(text[:start].lower())[-width:]
    right = _TOKEN.findall(text[end:].lower())[:width]
    return set(left + right)


COMPATIBLE = {"number": {"number", "year"}, "year": {"year", "date", "number"},
               "date": {"date", "year"}, "entity": {"entity"}}


def _in_context(span: AnswerSpan, response_sentences: Sequence[str],
                context: str) -> list[int]:
    """Indices of the sentences that share at least :data:`MIN_CONTEXT_OVERLAP` of the
    question's context words, best first."""
    ctx = query_words(span.question.replace(MASK, " ")) - query_words(span.text)
    if not ctx:
        return []
    extra = query_words(context)
    scored = sorted(((len(ctx & (query_words(s) | extra)) / len(ctx), i) for i, s in
                     enumerate(response_sentences)), key=lambda t: (-t[0], t[1]))
    return [i for overlap, i in scored if overlap >= MIN_CONTEXT_OVERLAP]


def answer_question(span: AnswerSpan, response_sentences: Sequence[str],
                    context: str = "") -> str | None:
    """The response's answer to ``span.question``: a same-kind span in the sentence that
    best shares the question's context words, nearest to the mask's neighbours.
    None when no sentence shares at least :data:`MIN_CONTEXT_OVERLAP` of them. ``context``
    (e.g. the query a terse response answers) counts towards every sentence's overlap
    but never supplies the answer."""
    q_nb = neighbours(span.question, span.start, span.start + len(MASK))
    for i in _in_context(span, response_sentences, context):
        sent = response_sentences[i]
        cands = [a for a in select_answers(sent) if a.kind in COMPATIBLE[span.kind]]
        if cands:
            best = max(cands, key=lambda a: (len(q_nb & neighbours(sent, a.start, a.end)),
                                             same_answer(span, a.text), -a.start))
            return best.text
    return None


_CLAUSE_END = re.compile(r"[,;:.!?()]")
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)


def denied(text: str, start: int) -> bool:
    """Whether the clause before ``text[start]`` negates what follows ("was not lit in
    1874", "Nils, not Jon").

    >>> text = "No, it was not lit in Bergen; it was lit in Varn."
    >>> denied(text, text.index("Bergen")), denied(text, text.index("Varn"))
    (True, False)
    """
    clause = _CLAUSE_END.split(text[:start])[-1]
    return bool(_NEGATION.search(clause))


def response_answers(response_sentences: Sequence[str]) -> list[AnswerSpan]:
    """Every answer span that the response's sentences state (not those they deny), in
    order: parsed once per response, then filtered per key fact by :func:`stated_answers`.
    Each span's offsets are within its own sentence.

    >>> [a.text for a in response_answers(["Ada wrote it in 1843, not in 1850."])]
    ['Ada', '1843']
    """
    return [a for sent in response_sentences for a in select_answers(sent)
            if not denied(sent, a.start)]


def stated_answers(span: AnswerSpan, stated: Sequence[AnswerSpan]) -> list[str]:
    """The answers of ``span``'s kind among the response's stated answers ``stated``
    (:func:`response_answers`). The whole response answers the query, so every such span
    counts: a response that gives two conflicting answers states both.

    >>> span = select_answers("Ada Byron published the notes in 1843.")[-1]
    >>> stated_answers(span, response_answers(sentences("The notes came out in 1842 or 1843, not in 1850.")))
    ['1842', '1843']
    """
    return [a.text for a in stated if a.kind in COMPATIBLE[span.kind]]
