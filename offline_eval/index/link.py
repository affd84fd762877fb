"""Subject linking: which corpus document a claim (or a query) is about.

FActScore verifies a claim against its topic's own page first. This module does the same
for any titled corpus, with no model: it finds the names a text mentions and links them to
documents by title and alias, case- and accent-insensitively.

**Aliases** of a document, strong first:

- *strong*: its title; the title without its parenthesised part ("Ceres (dwarf planet)" ->
  "Ceres"); the names its lead gives itself ("X, better known as Marie Curie", "officially
  the Commonwealth of Australia", "also known as ...", an acronym in brackets right after
  the name);
- *weak*: the last word of a two- or three-word capitalised title (a surname: "Darwin");
  the title without a generic head ("Mount Everest" -> "Everest", "Amazon River" ->
  "Amazon"); the singular or plural of a one-word title ("Himalayas" -> "Himalaya").

A name links when exactly one document holds it as a strong alias, or, with no strong
holder, exactly one as a weak one. A name that several documents share (a common surname,
"Curie" for Marie and Pierre) links none of them, and the link says why.

**Mentions** are runs of words starting with a capital letter (small connectives such as
"of", "da", "von" may join them) that match an alias, longest first. The **subject** is the
first mention that does not follow a preposition such as "in" or "at" ("In Paris, Marie
Curie studied ..." is about Marie Curie), else the first mention.

>>> linker = Linker.from_documents([("marie", "Marie Curie", "Maria Sklodowska, better known as "
...     "Marie Curie was a physicist."), ("pierre", "Pierre Curie", "Pierre Curie was a physicist."),
...     ("paris", "Paris", "Paris is a city.")])
>>> linker.subject("In Paris, Marie Curie studied physics.").doc_id
'marie'
>>> s = linker.subject("Curie was born in Warsaw.")
>>> s.doc_id is None, s.why
(True, "'Curie' matches 2 documents (Marie Curie, Pierre Curie); none is linked")
>>> linker.names_subject("Pierre Curie married Marie Curie.", "marie")
True
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from offline_eval.index.stopwords import STOPWORDS
from offline_eval.memo import Memo

_TOKEN = re.compile(r"\w+(?:['’](?!s\b)\w+|\.\w+)*\.?|[^\w\s]", re.UNICODE)
_CONNECT = frozenset("of de da di del della du von van der den la le al bin ibn y and the "
                     "on upon".split())
_PREPS = frozenset("in at on from to by with during after before near for into under since "
                   "until between against like via about across".split())
_DETERMINERS = frozenset("the a an his her its their this that these those".split())
_GENERIC_HEAD = frozenset("river lake mount mountains desert sea ocean island islands city "
                          "falls bay strait peninsula canal".split())
_GENERIC_FIRST = frozenset("mount lake".split())
_SELF_NAME = re.compile(r"(?:(?:better|also|more commonly|commonly|simply|often|popularly) )?"
                        r"(?:known as|called|officially|or simply) (?:the )?"
                        r"((?:[A-Z][\w'’.-]*)(?: (?:[A-Z][\w'’.-]*|of|de|da|von|van|the|and))*)"
                        r"(?=[,;:.)]| is | was | are | were | or | and |$)")
# an unmatched capitalised word with one of these endings is an adjective of nationality
# ("the Austrian neurologist"), not a name that could be the subject
_DEMONYM = re.compile(r"(?:an|ese|ish|ch|ic|i)$")
_ACRONYM = re.compile(r"^[^(]{1,80}\(([A-Z]{2,6})\)")
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")
_ALPHA = re.compile(r"[A-Za-z]+")
MAX_SPAN = 7
_PRONOUNS = frozenset("it its he his him she her they their them this these those".split())
MAX_WEAK_USES = 100  # see Linker.from_documents
SENTENCE_SUBJECTS = 16_384  # sentences whose subject a Linker remembers
MIN_FORM_USES = 3  # a one-word title's other number is an alias when the leads use it this often
#: a numbered work's title: "Symphony No. 5", "Piano Concerto No. 21" (see :func:`ordinal_names`)
_NUMBERED = re.compile(r"^([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+){0,2}) No\. ([1-9]\d?)$")
_ORDINALS = ("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
             "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_TENS = "twen thir for fif six seven eigh nine".split()


@lru_cache(maxsize=8192)  # passages recur across the claims of a batch
def fold(text: str) -> str:
    """Case- and accent-insensitive key: NFKD, marks dropped, case-folded, non-alphanumerics
    as spaces, a leading "the" dropped.

    >>> fold("The Tōkyō-Tower"), fold("Skłodowska")
    ('tokyo tower', 'skłodowska')
    """
    if text.isascii():
        t = text.lower()
    else:
        t = unicodedata.normalize("NFKD", text)
        t = "".join(c for c in t if not unicodedata.combining(c)).casefold()
    t = " ".join(re.sub(r"[^\w]+", " ", t).split())
    return t[4:] if t.startswith("the ") else t


@dataclass(frozen=True)
class Link:
    """The outcome of linking one text: the mention, the document (None when unresolved),
    how strongly it is held (``title``, ``alias``, ``weak``, or ``context``: a shared
    name the text's other words pick) and why, in words."""

    mention: str | None
    doc_id: str | None
    title: str | None
    how: str | None
    why: str
    #: False when the name is not the text's subject: every name follows a preposition, or a
    #: pronoun comes first ("She was born in Warsaw.", "It is Canberra."); the query's topic
    #: is then the better subject
    positional: bool = True
    #: the documents a name several of them share could mean (none is linked, unless the
    #: text's other words pick one title alone: ``how`` is then ``context``)
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Mention:
    start: int
    text: str
    key: str | None  # None: a capitalised name that matches no alias
    after_prep: bool
    possessive: bool = False  # followed by 's: "Beethoven's Fifth" is about the Fifth


TIERS: tuple[str, ...] = ("title", "alias", "weak")


class Linker:
    """Alias tables of a titled corpus (see the module docstring).

    Args:
        tables: for each of :data:`TIERS`, folded alias -> ids of the documents holding it.
            An exact title beats a bare title or lead name ("Australia" over "Australia
            (continent)"), which beats a weak alias.
        titles: document id -> title.
        acronyms: folded alias -> the documents that hold it written in capitals ("WHO"):
            text in capitals reads only those, other text never does ("The Who" is the band).
        common: lower-case words the leads write lower-case more often than capitalised
            ("home", "set"): at the start of a sentence they are not names.
    """

    def __init__(self, tables: Mapping[str, Mapping[str, Sequence[str]]],
                 titles: Mapping[str, str], acronyms: Mapping[str, Iterable[str]] | None = None,
                 common: Iterable[str] = ()) -> None:
        self.tables = {t: tables.get(t, {}) for t in TIERS}
        self.titles = titles
        self.acronyms = {k: frozenset(v) for k, v in (acronyms or {}).items()}
        self.common = frozenset(common)
        names: dict[str, set[str]] = {}
        for tier, table in self.tables.items():
            for alias, ids in table.items():
                if tier != "weak" or (len(ids) == 1 and not any(
                        alias in self.tables[t] for t in TIERS[:2])):
                    for d in ids:
                        names.setdefault(d, set()).add(alias)
        self._names = {d: tuple(sorted(a, key=lambda x: (-len(x), x))) for d, a in names.items()}
        # the subjects of corpus sentences: the same passages recur across the claims of a
        # response, and the guard asks it of every sentence that may name a linked document
        self._sentence_subjects: Memo[Link] = Memo(SENTENCE_SUBJECTS)

    @classmethod
    def from_documents(cls, docs: Iterable[tuple[str, str, str]]) -> "Linker":
        """From ``(doc_id, title, lead text)``; documents without a title are skipped."""
        tables: dict[str, dict[str, list[str]]] = {t: {} for t in TIERS}
        titles: dict[str, str] = {}
        acronyms: dict[str, set[str]] = {}
        words_seen: Counter[str] = Counter()
        forms: list[tuple[str, str]] = []  # one-word titles' other number, kept if the leads use it

        def add(tier: str, name: str, doc: str) -> None:
            key = fold(name)
            if len(key) >= 2 and not key.isdigit():
                ids = tables[tier].setdefault(key, [])
                if doc not in ids:
                    ids.append(doc)
                if name.isupper() and len(name) <= 6:
                    acronyms.setdefault(key, set()).add(doc)

        for doc, title, lead in docs:
            title = (title or "").strip()
            if not title:
                continue
            titles[doc] = title
            words_seen.update(_ALPHA.findall(lead or ""))
            add("title", title, doc)
            bare = _PAREN.sub("", title)
            if bare != title:
                add("alias", bare, doc)
            for name in lead_names(lead or ""):
                add("alias", name, doc)
            words = [w for w in bare.replace(",", " ").split() if w.lower() not in _CONNECT]
            if 2 <= len(words) <= 3 and all(w[:1].isupper() for w in words):
                if words[-1].lower() in _GENERIC_HEAD:
                    add("weak", " ".join(words[:-1]), doc)
                elif words[0].lower() in _GENERIC_FIRST:
                    add("weak", " ".join(words[1:]), doc)
                elif not words[-1].isupper() and len(words[-1]) > 2:
                    add("weak", words[-1], doc)  # a surname
            for name in ordinal_names(bare):  # "Fifth Symphony" for Symphony No. 5 (Beethoven)
                add("weak", name, doc)
            if len(words) == 1 and len(bare) > 3 and bare[1:].islower():
                forms.append((bare[:-1] if bare.endswith("s") else bare + "s", doc))
        lower = {w: n for w, n in words_seen.items() if w.islower()}
        upper = {w.lower(): n for w, n in words_seen.items() if w[:1].isupper() and w[1:].islower()}
        common = [w for w, n in lower.items() if n >= 3 and n >= upper.get(w, 0)]
        for form, doc in forms:  # "Himalaya" for Himalayas, never "Mar" for Mars
            if len(form) >= 5 and upper.get(form.lower(), 0) >= MIN_FORM_USES:
                add("weak", form, doc)
        # a one-word weak alias the leads capitalise often is an adjective or a common
        # name ("American" of Scientific American, "Indian" of Indian Ocean), not a surname
        tables["weak"] = {k: v for k, v in tables["weak"].items()
                          if " " in k or (upper.get(k, 0) <= MAX_WEAK_USES and k not in STOPWORDS)}
        return cls(tables, titles, acronyms, common)

    def _holders(self, table: Mapping[str, Sequence[str]], key: str, raw: str) -> list[str]:
        """The documents of ``table`` holding ``key`` as ``raw`` reads: text in capitals
        reads the acronym's holders alone, other text never reads them."""
        ids = list(table.get(key, ()))
        acro = self.acronyms.get(key)
        if acro is None:
            return ids
        return [d for d in ids if d in acro] if raw.isupper() else [d for d in ids if d not in acro]

    def _known(self, key: str, raw: str) -> bool:
        return any(self._holders(t, key, raw) for t in self.tables.values())

    def names(self, doc_id: str) -> tuple[str, ...]:
        """The folded names of a document, longest first: its title and lead names, and the
        weak aliases no other document holds ("darwin" for Charles Darwin, never "curie")."""
        return self._names.get(doc_id, ())

    def mentions(self, text: str) -> list[_Mention]:
        """The capitalised names of ``text``, left to right: each the longest run that
        matches an alias, or (``key`` None) a capitalised word that matches none and is not a
        function word."""
        toks = [(m.start(), m.group()) for m in _TOKEN.finditer(text or "")]
        out: list[_Mention] = []
        i = 0
        while i < len(toks):
            word = toks[i][1]
            if not word[:1].isupper():
                i += 1
                continue
            prep = _after_prep(toks, i)
            n = self._longest(text, toks, i)
            if n == 1 and word.rstrip(".").lower() in self.common and not word.isupper():
                n = 0  # "Home to ...", "the City of Light": a common word, not a name (WHO is)
            possessive = lambda j: (j + 1 < len(toks) and toks[j][1] in "'’"  # noqa: E731
                                    and toks[j + 1][1] == "s")
            if n:
                s, e = toks[i][0], toks[i + n - 1][0] + len(toks[i + n - 1][1])
                out.append(_Mention(s, text[s:e].rstrip("."), fold(text[s:e]), prep, possessive(i + n)))
                i += n
                continue
            bare = word.rstrip(".")
            low = bare.lower()
            if low not in STOPWORDS and low not in self.common and not _DEMONYM.search(bare):
                out.append(_Mention(toks[i][0], bare, None, prep, possessive(i + 1)))
            i += 1
        return out

    def _longest(self, text: str, toks: Sequence[tuple[int, str]], i: int) -> int:
        """The length of the longest alias run starting at token ``i`` (0: none)."""
        for n in range(min(MAX_SPAN, len(toks) - i), 0, -1):
            span = [w for _, w in toks[i:i + n]]
            if span[-1].lower() in _CONNECT or not span[-1][:1].isalnum() or \
                    (n > 1 and span[-1] == "s" and span[-2] in "'’"):
                continue
            ok = all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _CONNECT or w in "-'’"
                     or (w == "s" and span[j - 1] in "'’") for j, w in enumerate(span) if j)
            raw = text[toks[i][0]:toks[i + n - 1][0] + len(span[-1])]
            if ok and self._known(fold(raw), raw):
                return n
        return 0

    def resolve(self, key: str, mention: str) -> Link:
        """The document a folded name links to, or why it links none."""
        for tier in TIERS:
            ids = self._holders(self.tables[tier], key, mention)
            if len(ids) == 1:
                doc, title = ids[0], self.titles.get(ids[0])
                what = {"title": "the title", "alias": "a name"}.get(tier, "a short form")
                return Link(mention, doc, title, tier, f"{mention!r} is {what} of {title!r}")
            if len(ids) > 1:
                shown = ", ".join(sorted(self.titles.get(d, d) for d in ids)[:4])
                more = f" and {len(ids) - 4} more" if len(ids) > 4 else ""
                return Link(mention, None, None, None,
                            f"{mention!r} matches {len(ids)} documents ({shown}{more}); none is linked",
                            candidates=tuple(ids))
        return Link(mention, None, None, None, f"{mention!r} is not a corpus title")

    def subject(self, text: str) -> Link:
        """The link of ``text``'s subject: its first name that does not follow a preposition
        (else its first name). A first name that matches no title links nothing, rather than
        taking a later name for the subject."""
        ms = self.mentions(text)
        if not ms:
            return Link(None, None, None, None, "it names no corpus title")
        at = next((i for i, m in enumerate(ms) if not m.after_prep), None)
        positional = at is not None
        at = at or 0
        while ms[at].possessive and at + 1 < len(ms) and \
                text[ms[at].start + len(ms[at].text):ms[at + 1].start].strip() in ("'s", "’s"):
            at += 1  # "Hitchcock's Psycho" is about Psycho
        m = ms[at]
        if _PRONOUNS & {w.lower() for w in _TOKEN.findall(text[:m.start])}:
            positional = False  # "It is Canberra.": the subject is the pronoun, not the name
        if m.key is None:
            return Link(m.text, None, None, None, f"its subject {m.text!r} is not a corpus title",
                        positional)
        link = replace(self.resolve(m.key, m.text), positional=positional)
        return self._by_context(link, m, text) if link.candidates else link

    def _by_context(self, link: Link, m: _Mention, text: str) -> Link:
        """A name several documents share, read in its text: the one document (of any tier)
        whose title holds a word of the text besides the name ("The Amazon is the largest
        river": Amazon River, not Amazon (company) nor Amazon rainforest); else none."""
        ids = list(dict.fromkeys(d for t in TIERS for d in self._holders(self.tables[t], m.key, m.text)))
        said = set(fold(text[:m.start] + " " + text[m.start + len(m.text):]).split())
        own = set(m.key.split())
        fits = [d for d in ids if self._title_words(d, own) & said]
        if len(fits) != 1:
            return link
        title = self.titles.get(fits[0])
        return Link(m.text, fits[0], title, "context",
                    f"{m.text!r} matches {len(ids)} documents; the text's words pick {title!r}",
                    link.positional, link.candidates)

    def may_name(self, text: str, doc_id: str) -> bool:
        """A quick test: one of :meth:`names` occurs in ``text`` (False means it names none)."""
        t = f" {fold(text)} "
        return any(f" {a} " in t for a in self.names(doc_id))

    def names_subject(self, text: str, doc_id: str) -> bool:
        """True when ``text`` names the document ``doc_id`` by one of :meth:`names`, as a
        name of its own: "the Blue Nile" does not name the Nile.

        >>> linker = Linker.from_documents([("nile", "Nile", ""), ("blue", "Blue Nile", "")])
        >>> linker.names_subject("The Blue Nile joins the Nile.", "nile")
        True
        >>> linker.names_subject("The Blue Nile rises in Ethiopia.", "nile")
        False
        """
        if not self.may_name(text, doc_id):
            return False
        names = self.names(doc_id)
        return any(m.key in names for m in self.mentions(text) if m.key is not None)

    def shares_title(self, text: str, doc_id: str, subject_id: str) -> bool:
        """True when ``text`` holds a word of the title of ``doc_id`` (its parenthesised part
        dropped) that no name of ``subject_id`` holds and that is not a stop word: a claim
        about Kuwait that speaks of its capital city shares "city" with "Kuwait City"; a
        claim about Caroline Herschel shares nothing of "William Herschel" but her surname.

        >>> linker = Linker.from_documents([("c", "Caroline Herschel", ""),
        ...     ("w", "William Herschel", ""), ("s", "Symphony No. 5 (Beethoven)", ""),
        ...     ("b", "Ludwig van Beethoven", "")])
        >>> linker.shares_title("Caroline Herschel was the sister of John Herschel.", "w", "c")
        False
        >>> linker.shares_title("Beethoven's Fifth Symphony is in C minor.", "s", "b")
        True
        """
        own = {w for n in self.names(subject_id) for w in n.split()}
        return bool(self._title_words(doc_id, own, bracket=False) & set(fold(text).split()))

    def _title_words(self, doc_id: str, drop: set[str], bracket: bool = True) -> set[str]:
        """The folded words of a document's title (with its parenthesised part, or not) but
        ``drop``, stop words and numbers."""
        title = self.titles.get(doc_id, doc_id)
        return {w for w in fold(title if bracket else _PAREN.sub("", title)).split()
                if w not in drop and w not in STOPWORDS and not w.isdigit()}

    def is_subject_of(self, text: str, doc_id: str) -> bool:
        """True when the document ``doc_id`` is what ``text`` speaks of: its :meth:`subject`
        links to it (or to a name it shares with others) and stands first, not after a
        pronoun or a preposition. A sentence of another entity's article that names the
        document only on the way ("He worked with his sister Caroline Herschel", "the
        second-most populous city in Texas") is not.

        >>> linker = Linker.from_documents([("c", "Caroline Herschel", ""),
        ...     ("w", "William Herschel", "")])
        >>> linker.is_subject_of("Caroline Herschel found eight comets.", "c")
        True
        >>> linker.is_subject_of("He worked with his sister Caroline Herschel.", "c")
        False
        >>> linker.is_subject_of("William Herschel worked with Caroline Herschel.", "c")
        False
        """
        if not self.may_name(text, doc_id):
            return False
        found = self._sentence_subjects.get(text)
        if found is None:
            found = self.subject(text)
            self._sentence_subjects.put(text, found)
        return found.positional and (found.doc_id == doc_id or doc_id in found.candidates)



def _after_prep(toks: Sequence[tuple[int, str]], i: int) -> bool:
    """True when the name at token ``i`` is in a prepositional phrase: a preposition before
    it, past the phrase's determiners and capitalised words ("in the Valley of Mexico", "on
    the Mexican Central Plateau"), so that it is not taken for the claim's subject. An "of"
    between capitalised words is inside the phrase; after a common noun it is not ("the
    capital of France": France may be the subject).

    >>> toks = lambda t: [(m.start(), m.group()) for m in _TOKEN.finditer(t)]
    >>> t = toks("Set in the Valley of Mexico on the Mexican Central Plateau, Mexico City lies high.")
    >>> [w for j, (_, w) in enumerate(t) if w[0].isupper() and _after_prep(t, j)]
    ['Valley', 'Mexico', 'Mexican', 'Central', 'Plateau']
    >>> t = toks("In 1990 Nelson Mandela was freed.")
    >>> _after_prep(t, 2)
    False
    >>> t = toks("The capital of France is Paris.")
    >>> _after_prep(t, 3)
    False
    """
    def inside(j: int) -> bool:  # a word of the phrase: "the", "Mexican", the "of" of "Valley of"
        w = toks[j][1]
        return (w.lower() in _DETERMINERS or w[:1].isupper()
                or (w == "of" and j > 0 and toks[j - 1][1][:1].isupper()))

    j = i - 1
    while j >= 0 and inside(j):
        if toks[j][1].lower() in _PREPS:  # "In the ..." at the start of a sentence
            return True
        j -= 1
    return j >= 0 and toks[j][1].lower() in _PREPS


def ordinal_names(title: str) -> list[str]:
    """How text names a numbered work: "Symphony No. 5" is the "Fifth Symphony". A weak
    alias: several composers have a Fifth Symphony, and the text's other words
    ("Beethoven's") pick the title ("Symphony No. 5 (Beethoven)") that holds them. (A
    mention starts with a capital, so "5th Symphony" is not one.)

    >>> ordinal_names("Symphony No. 5"), ordinal_names("Piano Concerto No. 21")
    (['Fifth Symphony'], ['Twenty-first Piano Concerto'])
    >>> ordinal_names("Apollo 11"), ordinal_names("Symphony No. 5 (Beethoven)")
    ([], [])
    """
    m = _NUMBERED.match(title)
    if not m:
        return []
    kind, n = m.group(1), int(m.group(2))
    tens, unit = divmod(n, 10)
    if n < 20:
        word = _ORDINALS[n - 1]
    elif unit == 0:
        word = _TENS[tens - 2] + "tieth"
    else:
        word = _TENS[tens - 2] + "ty-" + _ORDINALS[unit - 1]
    return [f"{word.capitalize()} {kind}"]


def lead_names(lead: str) -> list[str]:
    """The names a lead paragraph gives its subject in its first sentence.

    >>> lead_names("Australia, officially the Commonwealth of Australia, is a country.")
    ['Commonwealth of Australia']
    >>> lead_names("The American Museum of Natural History (AMNH) is a museum.")
    ['AMNH']
    """
    first = re.split(r"(?<=[.!?])\s+(?=[A-Z])", lead.strip(), maxsplit=1)[0][:300]
    out = [m.group(1).rstrip(".") for m in _SELF_NAME.finditer(first)]
    acro = _ACRONYM.match(first)
    if acro:
        out.append(acro.group(1))
    return [n for n in out if 1 <= len(n.split()) <= 6]
