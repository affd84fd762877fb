"""Per-text signals read off spaCy parses: content lemmas, focus words, the head noun
phrase of a query, a claim's subject and predicate, and answer-type matches.

Every function takes an already parsed ``spacy.tokens.Doc`` (or, for the claim signals,
its :class:`ClaimView`); nothing here loads a model, so the module imports no model
runtime.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union

from offline_eval.importance.query import TYPE_ENTITIES

Doc = Any  # a spacy.tokens.Doc; typed loosely so importing this module needs no spaCy

_GENERIC = frozenset({"paragraph", "answer", "explain", "tell", "write", "describe", "be",
                      "do", "have", "who", "what", "when", "where", "which", "why", "how",
                      "whom", "whose", "many", "much", "-pron-"})
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b")
_SUBJ = ("nsubj", "nsubjpass", "csubj", "expl")


def _key(token: Any) -> str:
    return (token.lemma_ or token.text).lower()


def content_lemmas(doc: Doc) -> set[str]:
    """Lower-cased lemmas of the content words (no stop words, punctuation, spaces)."""
    return {_key(t) for t in doc
            if not (t.is_stop or t.is_punct or t.is_space) and (t.is_alpha or t.like_num)}


def focus_lemmas(doc: Doc) -> set[str]:
    """Content lemmas of a query without wh-words and instruction words."""
    return content_lemmas(doc) - _GENERIC


def head_phrase(doc: Doc) -> set[str]:
    """Content lemmas of the query's head noun phrase: the noun chunk with the most
    content words (proper nouns count double); the last one wins ties."""
    best: set[str] = set()
    best_weight = 0.0
    for chunk in doc.noun_chunks:
        words = {_key(t) for t in chunk if not (t.is_stop or t.is_punct) and t.is_alpha}
        words -= _GENERIC
        weight = sum(2.0 if t.pos_ == "PROPN" else 1.0 for t in chunk
                     if _key(t) in words)
        if words and weight >= best_weight:
            best, best_weight = words, weight
    return best


def subject_lemmas(doc: Doc) -> set[str]:
    """Content lemmas of the subject(s) of the sentence roots."""
    out: set[str] = set()
    for sent in doc.sents:
        for child in sent.root.children:
            if child.dep_ in _SUBJ:
                out |= {_key(t) for t in child.subtree
                        if not (t.is_stop or t.is_punct) and (t.is_alpha or t.like_num)}
    return out


def predicate_lemmas(doc: Doc) -> set[str]:
    """Lemmas of the sentence roots and their non-subject content children."""
    out: set[str] = set()
    for sent in doc.sents:
        root = sent.root
        if not root.is_stop:
            out.add(_key(root))
        for child in root.children:
            if child.dep_ in ("dobj", "attr", "acomp", "xcomp", "prep", "agent", "pobj"):
                out |= {_key(t) for t in child.subtree
                        if not (t.is_stop or t.is_punct) and t.is_alpha}
    return out


def _entity_words(ent: Any) -> set[str]:
    return {_key(t) for t in ent if (t.is_alpha or t.like_num) and not t.is_stop}


@dataclass(frozen=True)
class ClaimView:
    """All that the features read from a claim's parse, without the parse: small, plain
    values that cross a process boundary as JSON (:mod:`~offline_eval.importance.parsing`
    parses in worker processes).

    ``entities`` keeps spaCy's entities in order, each as (label, its content words);
    ``numbers`` the lemmas of number-like tokens; ``years`` the year-like strings of the
    text; ``length`` the number of tokens.
    """

    words: frozenset[str]
    subject: frozenset[str]
    predicate: frozenset[str]
    entities: tuple[tuple[str, frozenset[str]], ...]
    numbers: frozenset[str]
    years: tuple[str, ...]
    length: int

    @classmethod
    def from_doc(cls, doc: Doc) -> "ClaimView":
        return cls(frozenset(content_lemmas(doc)), frozenset(subject_lemmas(doc)),
                   frozenset(predicate_lemmas(doc)),
                   tuple((ent.label_, frozenset(_entity_words(ent))) for ent in doc.ents),
                   frozenset(_key(t) for t in doc if t.like_num),
                   tuple(m.group(1) for m in _YEAR.finditer(doc.text)), len(doc))

    def to_json(self) -> list[Any]:
        """A JSON-ready list (sets sorted, so the encoding is deterministic)."""
        return [sorted(self.words), sorted(self.subject), sorted(self.predicate),
                [[label, sorted(words)] for label, words in self.entities],
                sorted(self.numbers), list(self.years), self.length]

    @classmethod
    def from_json(cls, data: list[Any]) -> "ClaimView":
        words, subject, predicate, ents, numbers, years, length = data
        return cls(frozenset(words), frozenset(subject), frozenset(predicate),
                   tuple((str(label), frozenset(w)) for label, w in ents), frozenset(numbers),
                   tuple(years), int(length))


Parsed = Union[ClaimView, Doc]


def as_view(claim: Parsed) -> ClaimView:
    """``claim`` itself when it is a :class:`ClaimView`, else the view of its parse."""
    return claim if isinstance(claim, ClaimView) else ClaimView.from_doc(claim)


def entity_labels(claim: Parsed, exclude: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """spaCy entity labels in ``claim``, plus CARDINAL for bare numbers and DATE for years.

    Entities and numbers all of whose words are in ``exclude`` (the query's words) are
    skipped: repeating the question does not answer it.
    """
    view = as_view(claim)
    labels = {label for label, words in view.entities if words - set(exclude)}
    if any(n not in exclude for n in view.numbers):
        labels.add("CARDINAL")
    if any(y not in exclude for y in view.years):
        labels.add("DATE")
    return labels


def type_match(answer_type: str | None, claim: Parsed,
               exclude: set[str] | frozenset[str] = frozenset()) -> float:
    """1.0 when ``claim`` carries an entity, number or date of the expected answer type
    that is not just words of the query (``exclude``)."""
    if answer_type is None:
        return 0.0
    return 1.0 if entity_labels(claim, exclude) & TYPE_ENTITIES[answer_type] else 0.0


def new_entities(query_words: set[str] | frozenset[str], claim: Parsed) -> int:
    """Number of entities in ``claim`` none of whose words occur in the query: candidate
    answers rather than repetitions of the question."""
    return sum(1 for _, words in as_view(claim).entities if words and not words & query_words)


def share(part: set[str], whole: set[str]) -> float:
    """|part & whole| / |whole|, or 0.0 for an empty ``whole``.

    >>> share({"a", "b"}, {"a", "c"})
    0.5
    """
    return len(part & whole) / len(whole) if whole else 0.0
