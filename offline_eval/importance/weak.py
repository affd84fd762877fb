"""Weak supervision without an LLM: template questions from parsed sentences.

From an encyclopedic lead, a sentence carrying an answer-typed entity that is not
its subject ("X was founded by Y in 1975") gives an NQ-style question with that
entity removed and a wh-word in front ("when x was founded by y"). The lead's atomic
facts are then labelled: the facts of that sentence carrying the answer are vital,
its other facts and facts elsewhere naming the answer are okay, the rest is
less-important.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

WH_FOR_ENTITY = {"PERSON": "who", "DATE": "when", "GPE": "where", "LOC": "where",
                 "FAC": "where", "CARDINAL": "how many", "QUANTITY": "how much"}
_KEEP_DEPS = frozenset({"dobj", "attr", "prep", "agent", "acomp", "dative", "oprd"})


@dataclass(frozen=True)
class WeakExample:
    """One generated training response."""

    query: str
    claims: tuple[str, ...]
    sentence_index: tuple[int, ...]
    levels: tuple[int, ...]   # 2 vital, 1 okay, 0 less-important
    answer: str


def template_question(sent: Any, answer: Any, max_words: int = 14,
                      title: str | None = None) -> str | None:
    """An NQ-style question for ``answer`` (an entity span inside ``sent``), or None.

    Keeps the subject, auxiliaries, the root verb and its object / prepositional
    phrases that do not hold the answer; the answer's own phrase is dropped. The
    answer must hang off the root (as object, attribute or in a prepositional phrase).
    A pronoun subject is replaced by ``title`` (the article's subject) when given.
    """
    wh = WH_FOR_ENTITY.get(answer.label_)
    root = sent.root
    if wh is None or root.pos_ not in ("VERB", "AUX"):
        return None
    head = answer.root.head
    if not (head == root or (head.head == root and head.dep_ in ("prep", "agent"))
            or (head.dep_ == "pobj" and head.head.head == root)):
        return None
    subject = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subject or any(t.i in {u.i for u in subject[0].subtree} for t in answer):
        return None
    answer_ids = {t.i for t in answer}
    keep = {t.i for t in subject[0].subtree} | {root.i}
    for child in root.children:
        sub = {t.i for t in child.subtree}
        if child.dep_ in ("aux", "auxpass", "neg", "prt"):
            keep |= sub
        elif child.dep_ in _KEEP_DEPS and not sub & answer_ids:
            keep |= sub
    words = []
    for t in sent:
        if t.i not in keep or t.is_punct or t.dep_ in ("relcl", "appos"):
            continue
        if t.i == subject[0].i and t.pos_ == "PRON":
            if title is None:
                return None
            words.extend(title.lower().split())
        else:
            words.append(t.text.lower())
    if len(words) < 3 or len(words) > max_words:
        return None
    return f"{wh} {' '.join(words)}"


def label_facts(facts: Sequence[Sequence[str]], answer_sentence: int,
                answer: str) -> tuple[int, ...]:
    """Levels for facts grouped by sentence (see the module docstring)."""
    key = answer.lower()
    levels = []
    for si, group in enumerate(facts):
        for fact in group:
            has = key in fact.lower()
            if si == answer_sentence:
                levels.append(2 if has else 1)
            else:
                levels.append(1 if has else 0)
    return tuple(levels)


def candidates(doc: Any, title: str | None = None) -> list[tuple[int, str, str]]:
    """Every (sentence index, answer text, template question) a parsed lead offers."""
    out = []
    for si, sent in enumerate(doc.sents):
        for ent in sent.ents:
            query = template_question(sent, ent, title=title)
            if query:
                out.append((si, ent.text, query))
    return out


def _example(facts: Sequence[Sequence[str]], cand: tuple[int, str, str]) -> WeakExample | None:
    si, answer, query = cand
    levels = label_facts(facts, si, answer)
    if 2 not in levels or len(levels) < 3:
        return None
    claims = tuple(f for group in facts for f in group)
    sent_idx = tuple(i for i, group in enumerate(facts) for _ in group)
    return WeakExample(query, claims, sent_idx, levels, answer)


def make_example(doc: Any, facts: Sequence[Sequence[str]], pick: int = 0,
                 title: str | None = None) -> WeakExample | None:
    """A weak example from a parsed lead and its facts per sentence; ``pick`` chooses
    among the candidate (sentence, answer) pairs."""
    if len(list(doc.sents)) != len(facts):
        return None
    cands = candidates(doc, title)
    return _example(facts, cands[pick % len(cands)]) if cands else None


def make_examples(doc: Any, facts: Sequence[Sequence[str]], order: Sequence[int],
                  limit: int, title: str | None = None) -> list[WeakExample]:
    """Up to ``limit`` weak examples from one lead, each from a different candidate
    (sentence, answer) pair, tried in the order given by ``order`` (indices taken modulo
    the number of candidates; the caller draws it from a seeded generator)."""
    if len(list(doc.sents)) != len(facts):
        return []
    cands = candidates(doc, title)
    out: list[WeakExample] = []
    seen: set[int] = set()
    for k in order:
        if len(out) >= limit or not cands:
            break
        i = k % len(cands)
        if i in seen:
            continue
        seen.add(i)
        ex = _example(facts, cands[i])
        if ex is not None:
            out.append(ex)
    return out
