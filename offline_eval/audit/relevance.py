"""Relevance and specificity of a response to its query (lexical, documented signals).

* ``not_relevant``: fewer than :data:`MIN_OVERLAP` of the query's content words (lower-cased,
  crude suffix-stripped, stopwords removed) occur in the response.
* ``not_specific``: the query asks for a specific answer type — a number ("how many",
  "how much", "how tall/long/far/old", "what percentage"), a year or date ("when", "what
  year"), a name ("who", "whom"), a place ("where") — and no kept claim carries one (a digit
  or number word; a year; a capitalised name past the first word of the sentence).
* ``relevant`` otherwise.
"""
from __future__ import annotations

import re
from typing import Sequence

from offline_eval.text import QUERY_STOPWORDS, query_words

MIN_OVERLAP = 0.2
_NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve twenty
thirty forty fifty hundred thousand million billion dozen""".split())


def expected_type(query: str) -> str | None:
    """``number`` | ``year`` | ``person`` | ``place`` | None.

    >>> expected_type("How tall is Mount Everest?"), expected_type("Who wrote Hamlet?")
    ('number', 'person')
    """
    q = query.lower()
    if re.search(r"\bhow (many|much|tall|long|far|old|high|big|deep|large)\b|\bwhat percentage\b", q):
        return "number"
    if re.search(r"\bwhen\b|\bwhat year\b|\bwhich year\b", q):
        return "year"
    if re.search(r"\bwho(m)?\b", q):
        return "person"
    if re.search(r"\bwhere\b", q):
        return "place"
    return None


def carries_type(text: str, kind: str) -> bool:
    """Whether a claim carries an answer of ``kind``."""
    if kind == "number":
        return bool(re.search(r"\d", text)) or any(w in _NUMBER_WORDS for w in text.lower().split())
    if kind == "year":
        return bool(re.search(r"\b(1[0-9]{3}|20[0-9]{2})\b|\bcentury\b", text))
    words = text.split()
    return any(w[:1].isupper() for w in words[1:]) or (bool(words) and words[0][:1].isupper()
                                                       and words[0].lower() not in QUERY_STOPWORDS)


def relevance(query: str, response: str, claims: Sequence[str]) -> tuple[str, str | None]:
    """Return (label, reason).

    >>> relevance("How tall is Mount Everest?", "Everest is very tall indeed.", ["Everest is very tall."])
    ('not_specific', 'the query asks for a number and no claim gives one')
    >>> relevance("How tall is Mount Everest?", "Bananas are yellow.", ["Bananas are yellow."])[0]
    'not_relevant'
    """
    q = query_words(query)
    if q:
        share = len(q & query_words(response)) / len(q)
        if share < MIN_OVERLAP:
            return "not_relevant", f"only {share:.0%} of the query's content words occur in the response"
    kind = expected_type(query)
    if kind and claims and not any(carries_type(c, kind) for c in claims):
        article = "an" if kind[0] in "aeiou" else "a"
        return "not_specific", f"the query asks for {article} {kind} and no claim gives one"
    return "relevant", None
