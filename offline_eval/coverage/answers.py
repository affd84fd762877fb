"""Answer-span selection and cloze questions without an LLM (QAGS / QuestEval style).

Answer candidates in a fact: numbers and quantities (digits, and number words from two to
ninety-nine), years and dates ("3 March 1902", "13th March", "March 3rd, 1902"),
and named entities (runs of capitalised words not at the start of the sentence, or spaCy
entities when a pipeline is given). Each becomes a cloze question: the fact with the span
masked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from offline_eval.audit.quantities import NUMBER_WORD

if TYPE_CHECKING:
    from spacy.language import Language

MASK = "___"
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = re.compile(rf"\b(?:{_DAY}\s+(?:of\s+)?(?:{_MONTHS})(?:,?\s+\d{{4}})?|"
                   rf"(?:{_MONTHS})\s+{_DAY}(?:,?\s+\d{{4}})?|(?:{_MONTHS})\s+\d{{4}})\b")
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b")
_NUMBER = re.compile(r"(?:[$€£])?\b\d[\d,]*(?:\.\d+)?\b(?:\s*(?:%|percent|million|billion|"
                     r"thousand|km|kilometres|kilometers|metres|meters|miles|feet|kg|years))?")
_ENTITY = re.compile(r"\b[A-Z][\w'’-]*(?:\.[A-Z][\w'’-]*)*(?:\s+(?:(?:of|the|de|da|van|von|la|le)\s+)?[A-Z][\w'’-]*)*")
_STOP_ENTITY = frozenset({"The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "This",
                          "That", "These", "Those", "His", "Her", "Its", "Their", "However",
                          "According", "After", "Before", "During", "Although", "While", "When",
                          "Yes", "No"})


@dataclass(frozen=True)
class AnswerSpan:
    """A candidate answer in a fact, its kind and its cloze question."""

    text: str
    kind: str  # "date" | "year" | "number" | "entity"
    start: int
    end: int
    question: str


def select_answers(fact: str, nlp: Language | None = None) -> list[AnswerSpan]:
    """Candidate answers of ``fact``, left to right, without overlaps.

    >>> [(a.text, a.kind) for a in select_answers("In 1874, Ilse Moor became keeper of the Lighthouse.")]
    [('1874', 'year'), ('Ilse Moor', 'entity'), ('Lighthouse', 'entity')]
    >>> [(a.text, a.kind) for a in select_answers("Yes, on the 13th of March 1902 he had six sons.")]
    [('13th of March 1902', 'date'), ('six', 'number')]
    """
    spans: list[tuple[int, int, str]] = []

    def add(s: int, e: int, kind: str) -> None:
        if all(e <= a or s >= b for a, b, _ in spans):
            spans.append((s, e, kind))

    for m in _DATE.finditer(fact):
        add(m.start(), m.end(), "date")
    for m in _YEAR.finditer(fact):
        add(m.start(), m.end(), "year")
    for m in _NUMBER.finditer(fact):
        add(m.start(), m.end(), "number")
    for m in NUMBER_WORD.finditer(fact):
        add(m.start(), m.end(), "number")
    if nlp is not None:
        for ent in nlp(fact).ents:
            add(ent.start_char, ent.end_char, "entity")
    for m in _ENTITY.finditer(fact):
        text = m.group(0)
        words = text.split()
        while words and words[0] in _STOP_ENTITY:
            words = words[1:]
        if not words:
            continue
        s = m.start() + text.index(words[0])
        add(s, s + len(" ".join(words)), "entity")
    spans.sort()
    return [AnswerSpan(fact[s:e], k, s, e, fact[:s] + MASK + fact[e:]) for s, e, k in spans]
