"""Query cleaning and the expected answer type of a query.

The expected answer type maps wh-words ("who", "when", "how many", "which city") to
spaCy entity labels; a claim that carries such an entity likely carries the answer.

>>> clean_query("In a paragraph, could you answer: who founded Apple")
'who founded Apple'
>>> expected_answer_type("how many seas do dragons protect")
'quantity'
>>> expected_answer_type("Which city hosted the 1900 Olympics?")
'place'
>>> expected_answer_type("cash flow to firm") is None
True
"""
from __future__ import annotations

import re

_PREFIX = re.compile(
    r"^\s*(?:(?:in|with)\s+(?:a|one|two|three|a\s+few)\s+(?:short\s+)?"
    r"(?:paragraphs?|sentences?|words?)\s*[,:]?\s*)?"
    r"(?:(?:could|can|would|will)\s+you\s+(?:please\s+)?"
    r"(?:answer|tell\s+me|explain|say)\s*[:,]?\s*)?", re.IGNORECASE)

#: Answer type -> spaCy entity labels that can carry it.
TYPE_ENTITIES: dict[str, frozenset[str]] = {
    "person": frozenset({"PERSON", "ORG", "NORP"}),
    "date": frozenset({"DATE", "TIME"}),
    "place": frozenset({"GPE", "LOC", "FAC"}),
    "quantity": frozenset({"CARDINAL", "QUANTITY", "PERCENT", "MONEY"}),
    "money": frozenset({"MONEY", "CARDINAL"}),
    "organization": frozenset({"ORG", "PERSON"}),
    "work": frozenset({"WORK_OF_ART", "EVENT", "PRODUCT"}),
}
ANSWER_TYPES: tuple[str, ...] = tuple(TYPE_ENTITIES)

_NOUN_TYPES: dict[str, str] = {}
for _t, _words in {
    "date": "year years date day days month time century decade era season episode",
    "place": "city cities country countries state states place places town river mountain "
             "continent island location region capital county where",
    "person": "person people man woman actor actress singer player king queen president "
              "author writer band artist director founder leader character",
    "quantity": "number percentage percent amount population size",
    "organization": "company team organization organisation party university",
    "work": "song album movie film book show series",
}.items():
    for _w in _words.split():
        _NOUN_TYPES[_w] = _t

_WH = re.compile(r"\b(who|whom|whose|when|where|how\s+many|how\s+much|how\s+long|how\s+old|"
                 r"how\s+far|how\s+tall|how\s+big|what\s+year|which|what)\b", re.IGNORECASE)
_SIMPLE = {"who": "person", "whom": "person", "whose": "person", "when": "date",
           "where": "place", "how many": "quantity", "how much": "money",
           "how long": "quantity", "how old": "quantity", "how far": "quantity",
           "how tall": "quantity", "how big": "quantity", "what year": "date"}


def clean_query(query: str) -> str:
    """Strip a leading instruction ("In a paragraph, could you answer:") from a query."""
    cleaned = _PREFIX.sub("", query, count=1).strip()
    return cleaned or query.strip()


def expected_answer_type(query: str) -> str | None:
    """The answer type a query asks for (one of :data:`ANSWER_TYPES`), or None."""
    text = clean_query(query)
    for match in _WH.finditer(text):
        wh = re.sub(r"\s+", " ", match.group(1).lower())
        if wh in _SIMPLE:
            return _SIMPLE[wh]
        # which/what + noun: the next few words decide.
        for word in re.findall(r"[a-z]+", text[match.end():].lower())[:3]:
            if word in _NOUN_TYPES:
                return _NOUN_TYPES[word]
    return None
