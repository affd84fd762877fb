"""Per-text signals read off spaCy parses: content lemmas, focus words, the head noun
phrase of a query, a claim's subject and predicate, and answer-type matches.

Every function takes an already parsed ``spacy.tokens.Doc``; nothing here loads a
model, so the module imports no model runtime.
"""
from __future__ import annotations

import re
from typing import Any

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


def entity_labels(doc: Doc, exclude: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """spaCy entity labels in ``doc``, plus CARDINAL for bare numbers and DATE for years.

    Entities and numbers all of whose words are in ``exclude`` (the query's words) are
    skipped: repeating the question does not answer it.
    """
    labels: set[str] = set()
    for ent in doc.ents:
        words = _entity_words(ent)
        if words - set(exclude):
            labels.add(ent.label_)
    if any(t.like_num and _key(t) not in exclude for t in doc):
        labels.add("CARDINAL")
    if any(m.group(1) not in exclude for m in _YEAR.finditer(doc.text)):
        labels.add("DATE")
    return labels


def type_match(answer_type: str | None, doc: Doc,
               exclude: set[str] | frozenset[str] = frozenset()) -> float:
    """1.0 when ``doc`` carries an entity, number or date of the expected answer type
    that is not just words of the query (``exclude``)."""
    if answer_type is None:
        return 0.0
    return 1.0 if entity_labels(doc, exclude) & TYPE_ENTITIES[answer_type] else 0.0


def new_entities(query_words: set[str], doc: Doc) -> int:
    """Number of entities in ``doc`` none of whose words occur in the query: candidate
    answers rather than repetitions of the question."""
    count = 0
    for ent in doc.ents:
        words = _entity_words(ent)
        if words and not words & query_words:
            count += 1
    return count


def share(part: set[str], whole: set[str]) -> float:
    """|part & whole| / |whole|, or 0.0 for an empty ``whole``.

    >>> share({"a", "b"}, {"a", "c"})
    0.5
    """
    return len(part & whole) / len(whole) if whole else 0.0
