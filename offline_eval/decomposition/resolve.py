"""Decontextualisation: replace pronouns, short names and "the company"-style
references with the nearest compatible mention, or with the query's topic.

The resolver reads the response's sentences in order and keeps a small memory of
mentions (named entities and clause subjects). Rules, not a coreference model:

- he/she/him/her/his → the nearest PERSON of that gender or of none known; possessives
  become "Name's". A person's gender is known from a pronoun already resolved to them, a
  title or role noun before the name ("Queen Victoria", "his sister Caroline Herschel"), an
  apposition ("Caroline, his sister") or "X was a queen"; with none compatible, the pronoun
  stays (a claim about the wrong person is worse than an unresolved one);
- it/its → the nearest singular non-person subject or entity (not expletive "it");
- they/them/their → the nearest plural subject or group entity;
- "this/these/the" + a noun already seen with more detail → that fuller phrase;
- "the company/city/country…" → the nearest entity of the matching type;
- a one-word PERSON name → the full name seen earlier ("Obama" → "Barack Obama").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from offline_eval.decomposition.tokens import np_text

PERSON_PRON = frozenset({"he", "she", "him", "her", "his", "hers"})
IT_PRON = frozenset({"it", "its"})
THEY_PRON = frozenset({"they", "them", "their", "theirs"})
POSSESSIVE = frozenset({"his", "her", "its", "their"})
UNRESOLVED = PERSON_PRON | IT_PRON | THEY_PRON
_GROUP_LABELS = ("ORG", "NORP")
_THING_LABELS = ("ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT", "LAW", "LANGUAGE")
CATEGORY = {
    "ORG": "company firm corporation organization organisation business brand group band team "
           "agency university institution startup manufacturer party club network".split(),
    "GPE": "city country state nation town capital province region island county village".split(),
    "PERSON": "man woman person actor actress singer author writer president player politician "
              "artist scientist musician director leader king queen".split(),
    "WORK_OF_ART": "film movie book novel song album show series painting game play".split(),
    "EVENT": "race tournament war battle election match championship festival event competition "
             "olympics cup season ceremony conference summit".split(),
}
_CAT_LABEL = {noun: label for label, nouns in CATEGORY.items() for noun in nouns}
#: words that say a person's gender: their pronouns, titles, and nouns of a person
GENDER_WORDS = {
    "f": frozenset("she her hers queen princess lady mrs ms madame dame duchess empress countess "
                   "baroness woman girl actress mother daughter sister wife aunt niece grandmother "
                   "granddaughter widow nun heroine businesswoman chairwoman congresswoman "
                   "stepmother stepdaughter".split()),
    "m": frozenset("he him his king prince lord mr sir duke emperor tsar pope man boy father son "
                   "brother husband uncle nephew grandfather grandson widower monk businessman "
                   "chairman congressman stepfather stepson".split()),
}


def gender_of(word: str) -> str | None:
    """``"f"``, ``"m"`` or None: the gender a word gives the person it names or refers to.

    >>> gender_of("Queen"), gender_of("his"), gender_of("physicist")
    ('f', 'm', None)
    """
    w = word.lower().rstrip(".")
    return next((g for g, words in GENDER_WORDS.items() if w in words), None)


@dataclass(frozen=True)
class Mention:
    text: str
    label: str  # entity label, or "NP" for a plain noun phrase
    plural: bool
    head: str
    subject: bool = False
    gender: str | None = None  # "f", "m" or None (unknown)


@dataclass
class Memory:
    """Mentions seen so far, most recent last; ``topic`` comes from the query; ``genders``:
    what the response said of each person's gender, by mention text."""

    mentions: list[Mention] = field(default_factory=list)
    topic: Mention | None = None
    acronyms: dict[str, str] = field(default_factory=dict)
    genders: dict[str, str] = field(default_factory=dict)

    def gender(self, m: Mention) -> str | None:
        """The gender known for ``m``: its own, else what the response said of its text."""
        return m.gender or self.genders.get(m.text)

    def find(self, pred: Any, window: int = 8, upto: int | None = None,
             subjects_only: bool = False) -> str | None:
        """The nearest matching mention (among the first ``upto``), preferring
        recent clause subjects."""
        pool = self.mentions if upto is None else self.mentions[:upto]
        for m in reversed(pool[-window:]):
            if m.subject and pred(m):
                return m.text
        if subjects_only:
            return None
        for m in reversed(pool):
            if pred(m):
                return m.text
        if self.topic is not None and pred(self.topic):
            return self.topic.text
        return None


def _expletive(tok: Any) -> bool:
    """"It" that refers to nothing: "it is thought that…", "it is hard to…",
    "making it easy to…", "it rains"."""
    head = tok.head
    kids = {c.dep_ for c in head.children}
    if tok.dep_ == "expl":
        return True
    if tok.dep_ == "nsubjpass":
        return bool(kids & {"ccomp", "xcomp"})
    if tok.dep_ == "nsubj":
        if head.pos_ in ("ADJ", "NOUN") or head.lemma_ in ("rain", "snow", "seem", "appear"):
            return True
        if head.lemma_ in ("be", "become", "remain", "take"):
            return bool(kids & {"xcomp", "ccomp", "csubj"}) or any(
                c.dep_ in ("acomp", "attr") and any(g.dep_ in ("xcomp", "ccomp") for g in c.children)
                for c in head.children)
    if tok.dep_ == "dobj":
        return bool(kids & {"ccomp", "oprd", "xcomp"})
    return False


def _bound(tok: Any) -> bool:
    """A possessive or object pronoun in a clause that has its own subject
    ("China made its debut"): the guideline keeps it as is."""
    if tok.dep_ in ("nsubj", "nsubjpass") and not any(c.tag_ == "TO" for c in tok.head.children):
        return False
    cur = tok
    while cur.head.i != cur.i and cur.pos_ not in ("VERB", "AUX"):
        cur = cur.head
    while True:
        subj = next((c for c in cur.children if c.dep_ in ("nsubj", "nsubjpass")
                     and c.i != tok.i), None)
        if subj is not None:
            return tok.i not in {t.i for t in subj.subtree}
        if cur.dep_ not in ("conj", "xcomp", "advcl", "ccomp") or cur.head.i == cur.i:
            return False
        cur = cur.head


def _acronyms(doc: Any, mem: Memory) -> set[int]:
    """Record "Long Form (LF)" definitions; returns the indices of the defining tokens."""
    out: set[int] = set()
    for tok in doc[2:len(doc) - 1]:
        acr = tok.text
        if not (2 <= len(acr) <= 6 and acr.isupper() and acr.isalpha()):
            continue
        if doc[tok.i - 1].text != "(" or doc[tok.i + 1].text != ")":
            continue
        words = [t for t in doc[max(0, tok.i - 1 - len(acr)):tok.i - 1] if t.is_alpha]
        if len(words) >= len(acr) and "".join(w.text[0] for w in words[-len(acr):]).upper() == acr:
            mem.acronyms[acr] = " ".join(w.text for w in words[-len(acr):])
            out.add(tok.i)
    return out


def _full_name(mem: Memory, tok: Any) -> str | None:
    """"Curie" -> "Marie Curie" when the full name was mentioned before."""
    if tok.dep_ == "compound" or any(c.dep_ == "compound" for c in tok.children):
        return None
    last = tok.text
    return mem.find(lambda m: m.label == "PERSON" and len(m.text.split()) > 1 and
                    m.text.split()[-1] == last)


def resolve_sentence(doc: Any, mem: Memory) -> dict[int, str]:
    """Replacement texts for token indices of ``doc`` (``""`` deletes a token).

    The memory is updated with the sentence's mentions as they are read, so later
    sentences (and later tokens of this one) can refer back to them.
    """
    repl: dict[int, str] = {}
    start = len(mem.mentions)
    defined = _acronyms(doc, mem)
    ents: dict[int, list[Any]] = {}
    for ent in doc.ents:
        ents.setdefault(ent.start, []).append(ent)
    for tok in doc:
        low = tok.lower_
        ante: str | None = None
        label = "NP"
        if tok.tag_ in ("PRP", "PRP$") and _bound(tok):
            pass
        elif tok.text in mem.acronyms and tok.i not in defined:
            repl[tok.i] = mem.acronyms[tok.text]
            continue
        elif tok.tag_ in ("PRP", "PRP$") and low in PERSON_PRON:
            said = gender_of(low)
            ante, label = mem.find(lambda m: m.label == "PERSON" and mem.gender(m) in (None, said)), "PERSON"
            if ante and said:
                mem.genders.setdefault(ante, said)
        elif tok.tag_ in ("PRP", "PRP$") and low in IT_PRON and not _expletive(tok):
            ante = mem.find(lambda m: not m.plural and m.label not in ("PERSON",))
        elif tok.tag_ in ("PRP", "PRP$") and low in THEY_PRON:
            ante = mem.find(lambda m: m.plural or m.label in _GROUP_LABELS) or mem.find(
                lambda m: m.label != "NP" or m.text[:1].isupper(), subjects_only=True)
        elif tok.pos_ == "PROPN" and tok.ent_type_ in ("PERSON", "", "ORG", "GPE", "NORP"):
            ante, label = _full_name(mem, tok), "PERSON"
        elif tok.pos_ == "NOUN" and tok.dep_ != "compound":
            _resolve_np(tok, mem, repl, start)
        if ante:
            possessive = (low in POSSESSIVE or tok.tag_ == "PRP$") and not (
                low == "her" and tok.dep_ in ("dobj", "pobj", "dative"))
            repl[tok.i] = (ante + ("'" if ante.endswith("s") else "'s")) if possessive else ante
            if tok.dep_ in ("nsubj", "nsubjpass") or tok.pos_ == "PROPN":
                mem.mentions.append(Mention(ante, label, low in THEY_PRON, ante.split()[-1].lower(),
                                            tok.dep_ in ("nsubj", "nsubjpass"),
                                            mem.genders.get(ante)))
                continue
        for m in _mentions_at(tok, ents.get(tok.i, ())):
            mem.mentions.append(m)
            if m.gender:
                mem.genders.setdefault(m.text, m.gender)
    del mem.mentions[:-60]
    return repl


def _resolve_np(tok: Any, mem: Memory, repl: dict[int, str], upto: int) -> None:
    kids = list(tok.children)
    det = next((c for c in kids if c.dep_ == "det" and c.lower_ in ("this", "these", "that",
                                                                     "those", "the")), None)
    if det is None or len([c for c in kids if c.i < tok.i]) != 1:
        return
    # "the capital of France", "the company that ...": a post-modified phrase already says
    # what it refers to
    if any(c.i > tok.i and c.dep_ in ("prep", "relcl", "acl", "appos") for c in kids):
        return
    lemma = tok.lemma_.lower()
    if det.lower_ == "the" and tok.dep_ not in ("nsubj", "nsubjpass"):
        return
    ante = mem.find(lambda m: m.head == lemma and len(m.text.split()) > 1 and
                    m.text.lower().split()[0] not in ("the", "this", "these", "that", "those"),
                    upto=upto)
    label = _CAT_LABEL.get(lemma)
    if ante is None and label is not None:
        ante = mem.find(lambda m: m.label == label, upto=upto)
    if ante:
        repl[det.i] = ""
        repl[tok.i] = ante


def _mentions_at(tok: Any, ents: Sequence[Any]) -> list[Mention]:
    """Mentions that start at ``tok``: named entities (``ents``: those starting at
    ``tok``) and subject noun phrases."""
    out = []
    for ent in ents:
        if ent.label_ in ("PERSON",) + _THING_LABELS:
            root = ent.root
            cat = _attr_category(root)
            text = ent.text
            if ent.start > 0 and tok.doc[ent.start - 1].lower_ == "the" and ent.label_ != "PERSON":
                text = "the " + text
            out.append(Mention(text, cat[1] if cat and cat[1] != "NP" else ent.label_,
                               root.tag_ in ("NNS", "NNPS"), root.lemma_.lower(),
                               root.dep_ in ("nsubj", "nsubjpass"),
                               _ent_gender(ent) if ent.label_ == "PERSON" else None))
            if cat:
                out.append(Mention(text, cat[1], False, cat[0], True))
    if tok.dep_ in ("nsubj", "nsubjpass") and tok.pos_ in ("NOUN", "PROPN") and not tok.ent_type_:
        text = np_text(tok.doc, tok, keep_prep=True)
        first = tok.left_edge
        if first.i == 0 and first.pos_ != "PROPN" and text[:1].isupper() and text[1:2].islower():
            text = text[0].lower() + text[1:]
        if 1 <= len(text.split()) <= 8:
            out.append(Mention(text, "NP", tok.tag_ in ("NNS", "NNPS"), tok.lemma_.lower(), True))
            cat = _attr_category(tok)
            if cat:
                out.append(Mention(text, cat[1], tok.tag_ in ("NNS", "NNPS"), cat[0], True))
    return out


def _ent_gender(ent: Any) -> str | None:
    """The gender a person's name comes with: a title or role noun just before it or at its
    start ("Queen Victoria", "his sister Caroline Herschel"), the noun it is in apposition
    with ("Caroline Herschel, his sister"), or "X was a queen"."""
    doc, root = ent.doc, ent.root
    words = [doc[ent.start - 1]] if ent.start > 0 else []
    words.append(doc[ent.start])
    if root.dep_ == "appos":
        words.append(root.head)
    words += [c for c in root.children if c.dep_ == "appos"]
    cat = _attr_category(root)
    found = {gender_of(w.lemma_ if w.pos_ == "NOUN" else w.text) for w in words}
    if cat:
        found.add(gender_of(cat[0]))
    found.discard(None)
    return found.pop() if len(found) == 1 else None


def _attr_category(subj: Any) -> tuple[str, str] | None:
    """For "X is a city…": ("city", "GPE"), so that "the city"/"it" can find X."""
    if subj.dep_ not in ("nsubj", "nsubjpass") or subj.head.lemma_ != "be":
        return None
    attr = next((c for c in subj.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
    if attr is None:
        return None
    lemma = attr.lemma_.lower()
    return lemma, _CAT_LABEL.get(lemma, "NP")


def topic_from_query(doc: Any) -> Mention | None:
    """The query's topic: its first named entity, else its first noun chunk."""
    for ent in doc.ents:
        if ent.label_ in ("PERSON",) + _THING_LABELS:
            return Mention(ent.text, ent.label_, False, ent.root.lemma_.lower(),
                           gender=_ent_gender(ent) if ent.label_ == "PERSON" else None)
    for chunk in getattr(doc, "noun_chunks", ()):
        if chunk.root.tag_ not in ("WP", "WDT", "PRP") and chunk.root.pos_ != "PRON":
            text = " ".join(t.text for t in chunk if t.tag_ not in ("WDT", "WP", "WP$"))
            return Mention(text, "NP", chunk.root.tag_ == "NNS", chunk.root.lemma_.lower())
    return None
