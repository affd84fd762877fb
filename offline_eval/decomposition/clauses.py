"""Split one parsed sentence into clause-level claim plans on the dependency parse.

A *plan* is an ordered list of parts (token indices and literal strings) that
:func:`~offline_eval.decomposition.tokens.render` turns into a claim. The splits
follow the guideline's clause-level granularity:

- coordinated clauses and predicates ("He was born in X and served as Y"), with the
  subject (and auxiliaries of a bare verb) copied to the second predicate;
- adverbial clauses of reason or contrast ("…, because it uses…");
- non-restrictive relative clauses ("Obama, who served two terms, …");
- appositives and "also known as" modifiers (becoming "X is Y");
- participial modifiers (", making it easy…" becomes "X makes it easy…");
- coordinated objects and subjects, one claim per conjunct.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from offline_eval.decomposition.tokens import copula, core_np, inflect, is_past, is_plural

MAX_CONJUNCTS = 8
_SUBJ = ("nsubj", "nsubjpass", "expl", "csubj")
_REL_PRON = frozenset({"who", "which", "that", "whom"})
_SPLIT_MARKS = frozenset({"because", "since", "although", "though", "whereas", "while", "as",
                          "so"})
_DISCOURSE = frozenset("""additionally however also furthermore moreover overall finally therefore
thus hence consequently meanwhile generally typically indeed nevertheless nonetheless instead
similarly likewise specifically notably besides lastly first second third firstly secondly
thirdly importantly interestingly essentially basically ultimately then now today""".split())
DISCOURSE_PHRASES = ("in addition", "in fact", "for example", "for instance", "in general",
                     "as a result", "on the other hand", "in particular", "in contrast",
                     "of course", "at the same time", "in short", "in other words")
_NO_DISTRIBUTE_HEADS = frozenset({"between", "among", "amongst", "both", "together"})
_SYMMETRIC = frozenset("""marry meet share differ compare combine mix connect link separate
join merge collaborate partner unite""".split())
_KNOWN_AS = frozenset({"know", "call", "name", "nickname", "dub", "refer", "title"})
_STATIVE = _KNOWN_AS | frozenset({"locate", "situate", "base", "compose", "consider", "regard",
                                  "make", "use", "design", "associate", "relate", "connect",
                                  "surround", "cover", "border", "link", "own", "operate"})
_OPEN_NOUN = ("NOUN", "PROPN")


@dataclass
class Unit:
    """A clause to render: its head, the tokens it drops, what it prepends and
    substitutes (``repl`` maps a token index to its replacement text)."""

    head: int
    prefix: list[int | str] = field(default_factory=list)
    drop: set[int] = field(default_factory=set)
    repl: dict[int, str | list[int]] = field(default_factory=dict)


def leading_discourse(doc: Any) -> set[int]:
    """Token indices of an opening connective ("Additionally,", "In fact,")."""
    words = [t.lower_ for t in doc[:5]]
    for n in (4, 3, 2, 1):
        phrase = " ".join(words[:n])
        if (n == 1 and phrase in _DISCOURSE) or phrase in DISCOURSE_PHRASES:
            end = n + 1 if len(doc) > n and doc[n].text == "," else n
            return set(range(end))
    return set()


def _subject(head: Any) -> list[int]:
    for c in head.children:
        if c.dep_ in _SUBJ:
            return sorted(t.i for t in c.subtree)
    if head.dep_ in ("conj", "advcl", "xcomp") and head.head.i != head.i:
        return _subject(head.head)
    if head.dep_ == "relcl" or head.dep_ == "acl":
        return core_np(head.head)
    return []


def subject_token(head: Any) -> Any | None:
    for c in head.children:
        if c.dep_ in _SUBJ:
            return c
    if head.dep_ in ("conj", "advcl", "xcomp") and head.head.i != head.i:
        return subject_token(head.head)
    return None


def comma_before(tok: Any) -> bool:
    left = tok.left_edge.i
    return left > 0 and tok.doc[left - 1].text in (",", "(", "–", "—", ";")


def _after_colon(tok: Any) -> bool:
    return any(t.text == ":" for t in tok.doc[max(0, tok.head.i):tok.left_edge.i])


def _acronym(tok: Any) -> bool:
    """"(WHO)" after "World Health Organization": an abbreviation, not a claim."""
    return tok.text.isupper() and all(c.is_punct for c in tok.children) and tok.i > 0 and \
        tok.doc[tok.i - 1].text == "("


def _verbal(tok: Any) -> bool:
    return tok.pos_ in ("VERB", "AUX")


_CLAUSAL = frozenset({"relcl", "acl", "advcl", "ccomp", "xcomp", "csubj", "pcomp", "csubjpass"})
_HEDGE_VERBS = frozenset("""think believe say know estimate report suggest show indicate note
remember keep bear consider notice realize realise understand argue claim assume expect
predict mention state find reveal""".split())
_DEMONSTRATIVE = frozenset({"this", "that", "these", "those", "it"})


def _path_clear(tok: Any, heads: set[int]) -> bool:
    """No clause boundary between ``tok`` and the nearest unit head above it."""
    if tok.i in heads:
        return True
    cur = tok
    while cur.head.i != cur.i and cur.head.i not in heads:
        cur = cur.head
        if cur.dep_ in _CLAUSAL:
            return False
    return cur.head.i in heads or cur.i in heads


def _hedge_content(head: Any) -> Any | None:
    """For "It is thought that X", "This suggests that X", "Keep in mind that X":
    the clause X, which is the claim (the frame carries no checkable fact)."""
    ccomp = next((c for c in head.children if c.dep_ == "ccomp" and _verbal(c)), None)
    if ccomp is None:
        # "This is because X" -> X
        because = next((c for c in head.children if c.dep_ == "advcl" and any(
            m.lower_ == "because" for m in c.children if m.dep_ == "mark")), None)
        subj = next((c for c in head.children if c.dep_ in _SUBJ), None)
        if because is not None and head.lemma_ == "be" and subj is not None and \
                subj.lower_ in _DEMONSTRATIVE and not any(c.dep_ in ("attr", "acomp")
                                                          for c in head.children):
            return because
        return None
    if head.lemma_ not in _HEDGE_VERBS and head.lemma_ != "be":
        return None
    subj = next((c for c in head.children if c.dep_ in _SUBJ), None)
    if subj is None:  # imperative: "keep in mind that", "note that"
        return ccomp if head.tag_ == "VB" else None
    if subj.lower_ in _DEMONSTRATIVE or subj.dep_ == "expl" or any(
            c.lower_ in _DEMONSTRATIVE and c.dep_ == "det" for c in subj.children):
        return ccomp if head.lemma_ != "be" or subj.lower_ == "it" else None
    return None


def plan_units(doc: Any, extra: Callable[[Any], Unit | None] | None = None) -> list[Unit]:
    """Find clause heads top-down and their prefixes; the first is the main clause.

    A unit whose head is in its own ``drop`` set only marks a subtree to cut (the
    frame of a hedge such as "keep in mind that…"); it renders nothing. ``extra`` adds
    split points of its own (tried where the clause rules find none; see
    :mod:`~offline_eval.decomposition.atomic`)."""
    root = next((t for t in doc if t.dep_ == "ROOT"), doc[0])
    first = Unit(root.i, drop=leading_discourse(doc))
    content = _hedge_content(root)
    if content is not None:
        first = Unit(content.i, drop={c.i for c in content.children if c.dep_ == "mark"})
    units = [first]
    heads = {first.head}
    queue = [doc[first.head]]
    while queue:
        node = queue.pop(0)
        for tok in node.children:
            unit = None
            if _path_clear(tok, heads):
                unit = _split_point(tok)
                if unit is None and extra is not None:
                    unit = extra(tok)
                if unit is not None and unit.head == tok.i:
                    hedge = _hedge_content(tok) if tok.dep_ == "conj" else None
                    if hedge is not None:
                        unit = Unit(hedge.i, drop={c.i for c in hedge.children
                                                   if c.dep_ == "mark"})
            if unit is not None:
                units.append(unit)
                heads.add(unit.head)
                if unit.head != tok.i:
                    heads.add(tok.i)
                    units.append(Unit(tok.i, drop={t.i for t in tok.subtree}))
            queue.append(tok)
    return units


def _needs_aux(tok: Any) -> bool:
    """A coordinated bare verb borrows its host's auxiliaries ("can be caused … and
    passed down", "was born … and raised"); a finite or transitive one does not."""
    if any(c.dep_ in ("aux", "auxpass") for c in tok.children):
        return False
    if tok.tag_ in ("VB", "VBG"):
        return True
    return tok.tag_ == "VBN" and not any(c.dep_ in ("dobj", "ccomp", "xcomp") for c in tok.children)


_GERUND_PREPS = frozenset({"by", "including"})


def _gerund_unit(tok: Any) -> Unit | None:
    """"By replacing X, BPE creates Y" / "…, including requiring a license":
    the gerund becomes a claim about the clause subject ("BPE replaces X")."""
    prep = tok.head
    if prep.lower_ not in _GERUND_PREPS or tok.tag_ != "VBG":
        return None
    verb = prep.head
    while not _verbal(verb) and verb.head.i != verb.i:
        verb = verb.head
    subj = subject_token(verb)
    if subj is None or subj.pos_ == "PRON":
        return None
    past, plural = is_past(verb), is_plural(subj)
    repl: dict[int, str | list[int]] = {}
    for t in [tok, *(c for c in tok.subtree if c.dep_ == "conj" and c.tag_ == "VBG")]:
        repl[t.i] = inflect(t, past, plural)
    return Unit(tok.i, prefix=sorted(t.i for t in subj.subtree), repl=repl)


def _split_point(tok: Any) -> Unit | None:
    head, dep = tok.head, tok.dep_
    if dep == "pcomp":
        return _gerund_unit(tok)
    if dep == "conj" and _verbal(tok) and _verbal(head) and not tok.ent_type_ and not any(
            c.tag_ == "TO" for c in head.children) and not (head.tag_ == "VBG" and not any(
            c.dep_ in ("aux", "auxpass") for c in head.children)):
        unit = Unit(tok.i)
        if not any(c.dep_ in _SUBJ for c in tok.children):
            unit.prefix = list(_subject(head))
            if _needs_aux(tok):
                unit.prefix += [c.i for c in head.children if c.dep_ in ("aux", "auxpass", "neg")]
        return unit if unit.prefix or any(c.dep_ in _SUBJ for c in tok.children) else None
    if dep == "advcl" and _verbal(tok):
        mark = next((c for c in tok.children if c.dep_ == "mark"), None)
        has_subj = any(c.dep_ in _SUBJ for c in tok.children)
        if mark is not None and mark.lower_ in _SPLIT_MARKS and has_subj:
            return Unit(tok.i, drop={mark.i})
        if mark is None and tok.tag_ in ("VBG", "VBN") and not has_subj and comma_before(tok):
            subj = subject_token(head)
            if subj is None or subj.lower_ in ("it", "this", "that", "there"):
                return None
            subj_ids = sorted(t.i for t in subj.subtree)
            past, plural = is_past(head), is_plural(subj)
            if tok.tag_ == "VBN":
                return Unit(tok.i, prefix=[*subj_ids, copula(past, plural)])
            return Unit(tok.i, prefix=list(subj_ids), repl={tok.i: inflect(tok, past, plural)})
        return None
    if dep == "relcl" and not comma_before(tok) and head.dep_ == "attr" and \
            head.head.lemma_ == "be":
        # "X is a case that dealt with Y" -> "X dealt with Y"
        rel = next((c for c in tok.children if c.lower_ in _REL_PRON and c.dep_ in _SUBJ), None)
        subj = next((c for c in head.head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if rel is None or subj is None or subj.pos_ == "PRON" or subj.tag_ == "EX":
            return None
        return Unit(tok.i, repl={rel.i: core_np(subj)})
    if dep == "relcl" and comma_before(tok) and head.pos_ in _OPEN_NOUN + ("PRON",):
        rel = next((c for c in tok.children if c.lower_ in _REL_PRON | {"whose"}), None)
        if rel is None or rel.dep_ not in _SUBJ + ("poss",) and rel.lower_ != "whose":
            return None
        np = core_np(head)
        return Unit(tok.i, repl={rel.i: np if rel.lower_ != "whose" else [*np, "'s"]})
    if dep == "appos" and head.pos_ in _OPEN_NOUN and tok.pos_ != "PRON" and tok.tag_ != "PRP" \
            and not _after_colon(tok) and not _acronym(tok) and comma_before(tok) and \
            tok.doc[tok.left_edge.i - 1].text != "(":
        if tok.ent_type_ in ("GPE", "LOC", "DATE", "CARDINAL", "TIME", "MONEY", "PERCENT") or (
                head.ent_type_ in ("GPE", "LOC") and tok.ent_type_ in ("", "GPE", "LOC")):
            return None
        past = is_past(head.head) if head.head.i != head.i else False
        return Unit(tok.i, prefix=[*core_np(head), copula(past, is_plural(head))])
    if dep == "acl" and tok.tag_ in ("VBN", "VBG") and comma_before(tok) and head.pos_ in _OPEN_NOUN:
        past = is_past(head.head) if head.head.i != head.i else False
        np = core_np(head)
        if tok.tag_ == "VBN" or tok.lemma_ in _KNOWN_AS:
            past = past or tok.lemma_ not in _STATIVE
            return Unit(tok.i, prefix=[*np, copula(past, is_plural(head))])
        return Unit(tok.i, prefix=list(np), repl={tok.i: inflect(tok, past, is_plural(head))})
    return None


def distribute(doc: Any, parts: list[int | str], head: int | None = None,
               limit: int = 12, _done: frozenset[int] = frozenset()) -> list[list[int | str]]:
    """One plan per conjunct of each coordinated group in ``parts`` (nouns, predicate
    adjectives, gerunds after a preposition), at most ``limit`` plans."""
    present = {p for p in parts if isinstance(p, int)}
    heads = {head} if head is not None else set()
    for i in (p for p in parts if isinstance(p, int)):
        tok = doc[i]
        if i in _done or not _group_head(tok):
            continue
        chain = _conj_chain(tok, present)
        if len(chain) < 2 or len(chain) > MAX_CONJUNCTS or not _distributable(tok, chain):
            continue
        if len({_coarse(c) for c in chain}) > 1 or (heads and not _path_clear(tok, heads)):
            continue
        group = {t.i for t in tok.subtree} & present
        shared = _shared_object(chain)
        out: list[list[int | str]] = []
        for c in chain:
            keep = (_own(c, chain) | shared) & present
            variant = [p for p in parts if not isinstance(p, int) or p not in group or p in keep]
            room = max(1, limit - len(out))
            out.extend(distribute(doc, variant, head, room, _done | {i}))
            if len(out) >= limit:
                return out[:limit]
        return out
    return [parts]


def _shared_object(chain: list[Any]) -> set[int]:
    """"sourcing, screening and hiring candidates": the last gerund's object is shared."""
    if chain[0].tag_ != "VBG" or any(c.dep_ == "dobj" for k in chain[:-1] for c in k.children):
        return set()
    obj = next((c for c in chain[-1].children if c.dep_ == "dobj"), None)
    return {t.i for t in obj.subtree} if obj is not None else set()


def _group_head(tok: Any) -> bool:
    if tok.dep_ == "conj" or tok.ent_iob_ == "I":
        return False
    if tok.pos_ in _OPEN_NOUN:
        return True
    if tok.pos_ == "ADJ" and tok.dep_ == "acomp":
        return True
    return tok.tag_ == "VBG" and tok.dep_ in ("pobj", "pcomp")


def _coarse(tok: Any) -> str:
    return "ADJ" if tok.pos_ == "ADV" else tok.pos_


def _conj_chain(tok: Any, present: set[int]) -> list[Any]:
    chain, todo = [tok], [tok]
    while todo:
        cur = todo.pop()
        for c in cur.children:
            if c.dep_ == "conj" and (c.pos_ in _OPEN_NOUN or _coarse(c) == _coarse(tok)) and \
                    c.i in present:
                chain.append(c)
                todo.append(c)
    return sorted(chain, key=lambda t: t.i)


def _own(tok: Any, chain: list[Any]) -> set[int]:
    others = {t.i for c in chain if c.i != tok.i and c.i > tok.i for t in c.subtree}
    own = {t.i for t in tok.subtree} - others
    return {i for i in own if tok.doc[i].dep_ not in ("cc", "preconj") and not (
        tok.doc[i].dep_ == "punct" and tok.doc[i].head.i == tok.i)}


def _distributable(tok: Any, chain: list[Any]) -> bool:
    head = tok.head
    if head.lower_ in _NO_DISTRIBUTE_HEADS or any(c.lower_ in _NO_DISTRIBUTE_HEADS
                                                  for c in tok.children):
        return False
    verb = head if _verbal(head) else head.head
    if verb.lemma_ in _SYMMETRIC:
        return False
    if tok.ent_type_ and tok.ent_type_ in ("ORG", "WORK_OF_ART", "PRODUCT", "EVENT", "LAW"):
        ents = [e for e in tok.doc.ents if e.start <= tok.i < e.end]
        if ents and all(ents[0].start <= c.i < ents[0].end for c in chain):
            return False
    return tok.dep_ in ("dobj", "pobj", "attr", "oprd", "nsubj", "nsubjpass", "dative", "appos",
                        "acomp", "pcomp")
