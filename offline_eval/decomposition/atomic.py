"""``granularity="atomic"``: finer, FActScore-style claims on top of the clause plans.

Three refinements, each claim still a full, decontextualised sentence:

- **Pieces of a predicate.** When a clause carries two or more optional pieces, each
  piece gets its own claim with the clause's core. Pieces are prepositional phrases
  and the passive agent on the predicate ("in Ulm", "in 1879", "by Eiffel"), date
  adverbials ("last year"), a purpose clause ("to study physics"), and the descriptive
  adjectives of an object that has two or more ("a large, modern wing"). "Einstein was
  born in Ulm in 1879." gives "Einstein was born in Ulm." and "Einstein was born in
  1879.". A clause with one piece is already atomic and stays whole. Prepositions that
  complete a noun or a comparison ("of", "as", "than", "between"…), a source ("according
  to…"), connectives ("in fact"), a lone adjective ("a strong presence") and numbers on
  a noun ("six lanes") are never split off.
- **"with" phrases become possession.** "Oslo, with a population of 700,000, is the
  capital of Norway." gives "Oslo has a population of 700,000." and "Oslo is the
  capital of Norway.".
- **A title before a name becomes an attribute.** "The Polish physicist Marie Curie
  won…" gives "Marie Curie was the Polish physicist." and "Marie Curie won…".
"""
from __future__ import annotations

from typing import Any, Collection, Sequence

from offline_eval.decomposition.clauses import (DISCOURSE_PHRASES, Unit, comma_before,
                                                subject_token)
from offline_eval.decomposition.tokens import copula, core_np, is_past, is_plural

_KEEP_PREPS = frozenset({"of", "as", "than", "like", "per", "between", "among", "amongst",
                         "including", "such", "except", "according"})
_CONNECTIVES = frozenset({"in reality", "in total", "in practice", "in turn", "in essence",
                          "in summary", "in the end", "on average", "by far", "at first",
                          "for the most part", "in particular", "in general"})
_NOT_DESCRIPTIVE = frozenset("""other many several various few same such own only main certain
particular total former late next previous last first second third further additional more most
less least much numerous entire whole maximum minimum overall average typical general
specific key major minor primary""".split())
_OBJECTS = ("dobj", "attr", "oprd", "dative")
_GLUE = frozenset({",", ";", "–", "—"})


def _verbal(tok: Any) -> bool:
    return tok.pos_ in ("VERB", "AUX")


def _descriptive(adj: Any, noun: Any) -> bool:
    """An adjective before its noun that can be dropped without changing what the noun
    refers to ("large", "Polish"; not "former", "first", "largest" or part of a name)."""
    return adj.dep_ == "amod" and adj.pos_ == "ADJ" and adj.tag_ == "JJ" and adj.i < noun.i \
        and adj.lower_ not in _NOT_DESCRIPTIVE and adj.ent_type_ in ("", "NORP") \
        and not (noun.ent_type_ and noun.ent_type_ != "NORP")


def _discourse(prep: Any) -> bool:
    """"on the other hand", "in fact": a connective, not a piece of the claim."""
    text = " ".join(t.lower_ for t in prep.subtree)
    return text in DISCOURSE_PHRASES or text in _CONNECTIVES


def pieces(doc: Any, present: Collection[int], head: int) -> list[set[int]]:
    """The optional pieces of the clause headed by ``head`` among the tokens ``present``:
    adjuncts of a verbal head, descriptive adjectives of its objects (or of the head
    noun of an appositive or title claim)."""
    h = doc[head]
    out: list[set[int]] = []

    def add(tok: Any) -> None:
        span = {t.i for t in tok.subtree} & set(present)
        if span:
            out.append(span)

    for c in h.children if _verbal(h) else ():
        if c.i not in present:
            continue
        if c.dep_ == "prep" and c.lower_ not in _KEEP_PREPS and any(
                g.dep_ in ("pobj", "pcomp") for g in c.children) and not _discourse(c):
            add(c)
        elif c.dep_ == "agent" or (c.dep_ == "npadvmod" and c.ent_type_ in ("DATE", "TIME")):
            add(c)
        elif c.dep_ == "advcl" and c.tag_ == "VB" and any(
                g.dep_ == "aux" and g.tag_ == "TO" for g in c.children) and not any(
                g.dep_.startswith("nsubj") for g in c.children):
            add(c)
    nouns = [c for c in h.children if c.dep_ in _OBJECTS and c.pos_ == "NOUN" and c.i in present
             and _verbal(h)]
    if h.pos_ == "NOUN" and h.dep_ in ("appos", "compound"):
        nouns.append(h)
    for noun in nouns:
        adjectives = [c for c in noun.children if c.i in present and _descriptive(c, noun)]
        if len(adjectives) >= 2:  # "a large, modern wing"; one adjective stays with its noun
            for c in adjectives:
                add(c)
    return out


def atomize(doc: Any, parts: Sequence[int | str], head: int,
            fixed: Collection[int] = ()) -> list[list[int | str]]:
    """One plan per optional piece when a clause plan has two or more (else the plan).

    Each variant keeps the core and one piece; commas left dangling by the removed
    pieces go too, and "a"/"an" before a removed adjective is re-chosen (``fixed``:
    token indices that already have a replacement, left alone)."""
    found = pieces(doc, {p for p in parts if isinstance(p, int)}, head)
    if len(found) < 2:
        return [list(parts)]
    every = set().union(*found)
    out = []
    for piece in found:
        drop = every - piece
        variant: list[int | str] = []
        for p in parts:
            if isinstance(p, int):
                if p in drop or (doc[p].text in _GLUE and (p - 1 in drop or p + 1 in drop)):
                    continue
                if p + 1 in drop and p not in fixed and doc[p].lower_ in ("a", "an"):
                    variant.append(_article(doc, p, parts, drop))
                    continue
            variant.append(p)
        out.append(variant)
    return out


def _article(doc: Any, det: int, parts: Sequence[int | str], drop: set[int]) -> str:
    nxt = next((p for p in parts if isinstance(p, int) and p > det and p not in drop
                and not doc[p].is_punct), None)
    word = doc[nxt].lower_ if nxt is not None else ""
    form = "an" if word[:1] in tuple("aeiou") else "a"
    return form.capitalize() if doc[det].text[:1].isupper() else form


def split_point(tok: Any) -> Unit | None:
    """The atomic split points the clause rules do not have ("with" phrases, titles)."""
    if tok.dep_ == "prep" and tok.lower_ == "with":
        return _with_unit(tok)
    if tok.dep_ == "compound":
        return _title_unit(tok)
    return None


def _with_unit(tok: Any) -> Unit | None:
    """"Oslo, with a population of 700,000, is…" -> "Oslo has a population of 700,000"."""
    if not comma_before(tok) or any(t.tag_ == "VBG" for t in tok.subtree):
        return None
    if not any(c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN") for c in tok.children):
        return None
    host = tok.head
    if host.dep_ in ("nsubj", "nsubjpass") and host.pos_ in ("NOUN", "PROPN", "PRON"):
        subj, verb = host, host.head
    elif _verbal(host):
        subj, verb = subject_token(host), host
    else:
        return None
    if subj is None or subj.lower_ in ("there", "this", "that") or subj.dep_ == "expl":
        return None
    plural = is_plural(subj) or subj.lower_ in ("they", "we", "you")
    have = "had" if is_past(verb) else ("have" if plural else "has")
    inside = {t.i for t in tok.subtree}
    return Unit(tok.i, prefix=[*(i for i in core_np(subj) if i not in inside), have],
                repl={tok.i: ""})


def _title_unit(tok: Any) -> Unit | None:
    """"The Polish physicist Marie Curie won…" -> "Marie Curie was the Polish physicist"."""
    name = tok.head
    if tok.tag_ != "NN" or tok.ent_type_ or name.pos_ != "PROPN" or \
            name.ent_type_ not in ("PERSON", "ORG"):
        return None
    ent = next((e for e in tok.doc.ents if e.start <= name.i < e.end), None)
    if ent is None or tok.i != ent.start - 1 or any(c.dep_ == "det" for c in name.children):
        return None
    verb = name.head
    while not _verbal(verb) and verb.head.i != verb.i:
        verb = verb.head
    past = is_past(verb) if _verbal(verb) else False
    prefix: list[int | str] = [*range(ent.start, ent.end), copula(past, False)]
    det = next((c for c in tok.children if c.dep_ in ("det", "poss")), None)
    if det is None:
        prefix.append("an" if tok.left_edge.lower_[:1] in tuple("aeiou") else "a")
    repl: dict[int, str | list[int]] = {}
    if det is not None and det.dep_ == "det" and det.i == 0:
        repl[det.i] = det.lower_  # "The physicist X …" -> "X was the physicist"
    return Unit(tok.i, prefix=prefix, repl=repl)
