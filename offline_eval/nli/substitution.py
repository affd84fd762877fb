"""Name substitution: a claim that says X where the evidence, word for word around it, says Y.

NLI models and an overlap-leaning combiner barely notice one swapped name: "The buffalo is
native to Asia, where ..." against "The buffalo is native to Africa, where ..." shares every
word but one. This check is narrow on purpose. It fires only when a capitalised name of the
claim appears nowhere in the passage *and* the passage has a different capitalised name in
the same slot: the same two words before it and the same word after it (or the claim's
sentence ends there in both). Failing that, it aligns the claim's words with each sentence
of the passage (:func:`_aligned`): a name missing from a sentence that otherwise says the
same thing, with another name in its slot, fires unless another such sentence holds it.
Aliases that keep their context ("the US" for "the United
States") would fire too; they are rare in that exact frame, and the verdict keeps its
evidence so a reader can see why.

Regex-based and deterministic (no spaCy), like :mod:`offline_eval.text`.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

from offline_eval.text import STOPWORDS

__all__ = ["Substitution", "find_substitution"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d[\d,.]*|[^\sA-Za-z\d]")
_END = frozenset({".", "!", "?"})
_ARTICLES = frozenset({"a", "an", "the"})
_MATCHED = 3  # content words of the claim the sentence must share, beside the slot
_SLOT = 4  # at most this many words on either side of a substituted slot
_LONGEST = 120  # words: a longer "sentence" (a table, a list run together) is not aligned
_CONNECT = frozenset({"of", "the", "de", "la", "von", "van", "and", "del", "du", "der"})


class Substitution(NamedTuple):
    """The claim's ``claim_name`` stands where the passage has ``passage_name``."""

    claim_name: str
    passage_name: str


def _is_cap(tok: str) -> bool:
    return tok[:1].isupper() and tok.lower() not in STOPWORDS


def _names(toks: list[str]) -> list[tuple[int, int]]:
    """Spans of capitalised names, allowing inner connectives ("Bank of England")."""
    spans, i = [], 0
    while i < len(toks):
        if _is_cap(toks[i]):
            j = i + 1
            while j < len(toks) and (_is_cap(toks[j]) or (toks[j].lower() in _CONNECT and j + 1 < len(toks)
                                                            and _is_cap(toks[j + 1]))):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def find_substitution(claim: str, passage: str, context: int = 2, title: str | None = None,
                      anchored_only: bool = False, align: bool = True) -> Substitution | None:
    """The first name of ``claim`` that ``passage`` replaces in the same frame, or None.

    With ``title`` (the name of what the passage is about, e.g. a Wikipedia article's
    title), a passage about another name of the claim may differ after the slot: "Hamlet
    was written by Christopher Marlowe." against the article *Hamlet*'s "a tragedy written
    by William Shakespeare sometime between 1599 and 1601" is a substitution; the left
    frame must still match and hold a content word. Without a matching title, the word
    after the slot must match too, unless the claim's sentence ends with the name and the
    passage names another name of the claim ("Marie Curie was born in Paris." against "Marie
    Curie was born in Warsaw in 1867"). ``anchored_only`` checks only names the title anchors.
    ``align`` (the default) then tries the same test on a word alignment of the claim with
    each sentence of the passage (:func:`_aligned`); False keeps the letter-for-letter frame
    alone (the rule before 2026-12-07 but for its spelling guard, kept for the benchmarks'
    comparison).

    >>> find_substitution("The buffalo is native to Asia, where it is common.",
    ...                   "The buffalo is native to Sub-Saharan Africa, where it roams.")
    Substitution(claim_name='Asia', passage_name='Sub-Saharan Africa')
    >>> find_substitution("The buffalo is native to Africa, where it is common.",
    ...                   "The buffalo is native to Africa, where it roams.") is None
    True
    >>> find_substitution("It was built by Ada Smith in Leeds.", "It was built in Leeds.") is None
    True
    >>> find_substitution("Italy was allied with Austria Hungary in the war.",
    ...                   "Italy was allied with Germany and Austria-Hungary in the war.") is None
    True
    >>> find_substitution("Marie Curie was born in Paris.", "Marie Curie was born in Warsaw in 1867.")
    Substitution(claim_name='Paris', passage_name='Warsaw')
    >>> find_substitution("Hamlet was written by Christopher Marlowe.",
    ...                   "Hamlet is a tragedy written by William Shakespeare in 1600.",
    ...                   title="Hamlet")
    Substitution(claim_name='Christopher Marlowe', passage_name='William Shakespeare')
    >>> find_substitution("Hamlet was written by Christopher Marlowe.",
    ...                   "Macbeth is a tragedy written by William Shakespeare in 1600.") is None
    True
    >>> find_substitution("Audrey Hepburn was an American actress and humanitarian.",
    ...                   "Audrey Hepburn was a British actress and humanitarian. The American Film "
    ...                   "Institute ranked her.")
    Substitution(claim_name='American', passage_name='British')
    """
    ct, pt = _WORD.findall(claim), _WORD.findall(passage)
    plow = [t.lower() for t in pt]
    # a hyphenated word is present as its parts too, and a hyphenated claim word when its
    # parts are: "Austria Hungary" is not missing from "Austria-Hungary", nor the reverse
    present = set(plow) | {part for t in plow if "-" in t for part in t.split("-") if part}

    def missing(tok: str) -> bool:
        t = tok.lower()
        return t not in present and not ("-" in t and all(p in present for p in t.split("-") if p))
    pspans = {s: e for s, e in _names(pt)}
    names = _names(ct)
    about = (title or "").strip().lower()
    for s, e in names:
        if s < context or any(not missing(t) for t in ct[s:e] if t.lower() not in _CONNECT):
            continue  # sentence-initial (no left frame), or part of the name is in the passage
        left = [t.lower() for t in ct[s - context:s]]
        right = ct[e].lower() if e < len(ct) else None
        # the passage is about another name of the claim: the slot's right edge may differ
        # the passage names another name of the claim (it is about the claim's subject)
        shares = any(all(not missing(t) for t in ct[a:b] if t.lower() not in _CONNECT)
                     for a, b in names if (a, b) != (s, e))
        anchored = bool(about) and any(" ".join(ct[a:b]).lower() == about
                                       for a, b in names if (a, b) != (s, e))
        if anchored and not any(w not in STOPWORDS and w.isalpha() for w in left):
            anchored = False
        if anchored_only and not anchored:
            continue
        if not anchored and not any(w not in STOPWORDS and w.isalpha() for w in left + [right or ""]):
            continue  # a frame of function words and punctuation alone is too weak
        for ps, pe in pspans.items():
            if ps < context or plow[ps - context:ps] != left:
                continue
            ends = right in _END and shares  # the claim ends after the name: any right edge
            if not anchored and right is not None and not ends and (pe >= len(pt) or plow[pe] != right):
                continue
            if not _spelt_apart(" ".join(ct[s:e]), " ".join(pt[ps:pe])):
                continue
            return Substitution(" ".join(ct[s:e]), " ".join(pt[ps:pe]))
    if not align or (anchored_only and not any(" ".join(ct[a:b]).lower() == about for a, b in names)):
        return None
    # the agent frame, when the passage names another name of the claim (it is about the
    # claim's subject: "Macbeth ... written by William Shakespeare" says nothing of Hamlet)
    def about_claim(a: int, b: int) -> bool:  # another name of the claim than ct[a:b] is there
        return any(all(not missing(t) for t in ct[x:y] if t.lower() not in _CONNECT)
                   or " ".join(ct[x:y]).lower() == about
                   for x, y in names if not (x <= a < y or a <= x < b))
    return _agent(ct, pt, about_claim) or _aligned(ct, pt)


_IRREGULAR = frozenset("built made won led held sung taught drawn written sold bought shot "
                       "found begun run told".split())
_AGENT_GAP = 6  # words that may stand between the participle and "by" in the passage


def _participle(w: str) -> bool:
    w = w.lower()
    return w.isalpha() and (w in _IRREGULAR or (len(w) > 4 and w.endswith(("ed", "en"))))


def _agents(toks: list[str], at: int) -> list[str]:
    """The names of a "by" phrase starting at ``toks[at]`` (the word after "by"): names
    joined by commas and "and" ("by John Lasseter, and written by ..." gives one)."""
    spans = dict(_names(toks))
    out, i = [], at
    while i in spans:
        out.append(" ".join(toks[i:spans[i]]))
        i = spans[i]
        if i < len(toks) and toks[i] == ",":
            i += 1
        if i < len(toks) and toks[i].lower() == "and":
            i += 1
    return out


def _agent(ct: list[str], pt: list[str],
           about: Callable[[int, int], bool] = lambda a, b: True) -> Substitution | None:
    """The agent frame: the claim's "<participle> by X" where the passage, with the same
    participle, says "by Y" (a few words may stand between: "discovered on 1 January 1801
    by Giuseppe Piazzi") and never "by X", nor names X in its "by" phrases (a list of
    agents holds every one of them). "Toy Story was directed by Andrew Stanton." against
    "... directed by John Lasseter, and written by Joss Whedon, Andrew Stanton, ..." fires,
    though the passage names Andrew Stanton as a writer. ``about(s, e)`` says whether the
    passage is about the claim, its agent ``ct[s:e]`` aside.

    >>> w = lambda t: _WORD.findall(t)
    >>> _agent(w("Ceres was discovered by William Herschel in 1801."),
    ...        w("It was discovered on 1 January 1801 by Giuseppe Piazzi at Palermo."))
    Substitution(claim_name='William Herschel', passage_name='Giuseppe Piazzi')
    >>> _agent(w("It was directed by Andrew Stanton."),
    ...        w("It was directed by John Lasseter and Andrew Stanton.")) is None
    True
    >>> _agent(w("It was directed by Stanton."), w("It was directed by Andrew Stanton.")) is None
    True

    A year on both sides that differs means another event ("appointed by Donald Trump in
    2018" against "a position he was appointed to in 2006 by President George W. Bush"):
    that phrase does not count.

    >>> _agent(w("He was appointed by President Donald Trump in 2018."),
    ...        w("He was appointed to in 2006 by President George W. Bush.")) is None
    True
    """
    starts = dict(_names(ct))
    for i in range(1, len(ct) - 1):
        if ct[i].lower() != "by" or not _participle(ct[i - 1]) or (i + 1) not in starts:
            continue
        verb, name = ct[i - 1].lower(), " ".join(ct[i + 1:starts[i + 1]])
        if not about(i + 1, starts[i + 1]):
            continue
        said: list[str] = []
        years = _years(ct)
        for j, t in enumerate(pt):
            if t.lower() != verb:
                continue
            for k in range(j + 1, min(len(pt), j + 2 + _AGENT_GAP)):
                if pt[k] in _END or pt[k] in (",", ";") or (k > j + 1 and _participle(pt[k])):
                    break
                if pt[k].lower() == "by":
                    agents = _agents(pt, k + 1)
                    after = k + 1 + sum(len(a.split()) for a in agents) + len(agents)
                    theirs = _years(pt[j + 1:k] + pt[after:after + 3])
                    if not (years and theirs and not years & theirs):  # else another event
                        said += agents
                    break
        if not said:
            continue
        if all(any(_one_person(x, a) for a in said) for x in re.split(r",\s*|\s+and\s+", name) if x):
            continue  # the claim's agents are among the passage's
        if all(_spelt_apart(name, a) for a in said):
            return Substitution(name, said[0])
    return None


def _one_person(a: str, b: str) -> bool:
    """Whether two names can name one person: the capitalised words of the shorter stand,
    in order, among the longer's, an initial for any word it begins ("Stanton" / "Andrew
    Stanton", "John F. Kennedy" / "John Fitzgerald Kennedy"; not "John Herschel" / "William
    Herschel").

    >>> _one_person("John F. Kennedy", "John Fitzgerald Kennedy"), _one_person("John Herschel", "William Herschel")
    (True, False)
    """
    def words(n: str) -> list[str]:
        return [w.rstrip(".").lower() for w in n.split() if _is_cap(w)]
    short, long_ = sorted((words(a), words(b)), key=len)
    rest = iter(long_)
    return all(any(v == w or (len(w) == 1 and v.startswith(w)) for v in rest) for w in short)


def _years(toks: Sequence[str]) -> set[str]:
    """The years (four digits, 1000-2099) among ``toks``."""
    found = (t.rstrip(".,") for t in toks)
    return {t for t in found if len(t) == 4 and t.isdigit() and t[0] in "12" and t < "2100"}


def _is_name_part(tok: str) -> bool:
    return _is_cap(tok) or tok.lower() in _CONNECT or tok in ("-", ",")


def _aligned(ct: list[str], pt: list[str]) -> Substitution | None:
    """The frame test again, on a word alignment of the claim with each passage sentence.

    The two words before the slot need not match letter for letter: articles are dropped
    and the frame is the matched words around the slot ("was an American actress" against
    "was a British actress and humanitarian"). The slot must be a whole name on both sides
    (names and their connectives only; no capitalised word just outside it, so "John F.
    Kennedy" against "John Fitzgerald Kennedy" never fires) of as many words, the two sides
    share no word and are not one name spelt two ways, and the sentence must say the same
    thing otherwise: at least :data:`_MATCHED` content words of the claim aligned, one of
    them next to the slot. No sentence of the passage that says the same thing may align the
    claim's name: "Jones scored against Spurs. Smith scored against Chelsea." states
    "Smith scored against Chelsea" (a sentence that names it elsewhere, "ranked by the
    American Film Institute", does not state "an American actress"). Sentences of over :data:`_LONGEST` words (a table or a
    list run together) are not aligned, which bounds the cost to a few claim-length
    alignments per sentence.
    """
    from difflib import SequenceMatcher

    ci = [i for i, t in enumerate(ct) if t.lower() not in _ARTICLES]
    while ci and ct[ci[-1]] in _END:
        ci.pop()
    if not any(_is_cap(ct[i]) for i in ci):
        return None  # no name, no swap
    cl = [ct[i].lower() for i in ci]
    bounds = [0] + [k + 1 for k, t in enumerate(pt) if t in _END] + [len(pt)]
    found: list[Substitution] = []
    alike: list[set[str]] = []  # the claim's words each sentence saying the same thing aligns
    for a, b in zip(bounds, bounds[1:]):
        pj = [j for j in range(a, b) if pt[j].lower() not in _ARTICLES and pt[j] not in _END]
        if not pj or len(pj) > _LONGEST:
            continue
        pl = [pt[j].lower() for j in pj]
        ops = SequenceMatcher(None, cl, pl, autojunk=False).get_opcodes()
        if sum(_content(cl[k]) for tag, i1, i2, _, _ in ops if tag == "equal" for k in range(i1, i2)) < _MATCHED:
            continue
        alike.append({cl[k] for tag, i1, i2, _, _ in ops if tag == "equal" for k in range(i1, i2)})
        for n, (tag, i1, i2, j1, j2) in enumerate(ops):
            if tag != "replace" or i2 - i1 != j2 - j1 or i2 - i1 > _SLOT or n == 0 or ops[n - 1][0] != "equal":
                continue
            at_end = i2 == len(cl)
            if not at_end and (n + 1 == len(ops) or ops[n + 1][0] != "equal"):
                continue
            near = cl[max(ops[n - 1][1], i1 - 2):i1] + ([] if at_end else cl[i2:min(ops[n + 1][2], i2 + 2)])
            if not any(_content(w) for w in near):
                continue
            cside, pside = [ct[ci[k]] for k in range(i1, i2)], [pt[pj[k]] for k in range(j1, j2)]
            whole = None  # or two names that differ at one end only, the slot being that end
            if not (_whole_name(ct, ci[i1], ci[i2 - 1]) and _whole_name(pt, pj[j1], pj[j2 - 1])):
                whole = _one_end_apart(ct, ci[i1], ci[i2 - 1], pt, pj[j1], pj[j2 - 1])
                if whole is None:
                    continue
            if {w.lower() for w in cside} & {w.lower() for w in pside}:
                continue
            if whole is not None:
                cside, pside = whole
            if not _spelt_apart(" ".join(cside), " ".join(pside)):
                continue
            if any(_is_cap(w) and w.lower() not in pl for w in cside):
                found.append(Substitution(" ".join(cside), " ".join(pside)))
    for sub in found:
        name = {w.lower() for w in _WORD.findall(sub.claim_name) if _is_cap(w)}
        if not any(name <= words for words in alike):
            return sub
    return None


#: words that name a role, not a person or place: "President Trump" and "Donald Trump" are one man
_TITLES = frozenset("""president king queen prince princess emperor empress pope saint st sir lord
lady dame dr mr mrs ms general senator governor chancellor premier minister archbishop bishop
cardinal duke duchess count countess earl baron baroness tsar czar sultan shah emir chief
captain colonel admiral judge justice professor prof reverend rev father brother sister mother
uncle aunt""".split())


def _name_span(toks: list[str], s: int, e: int) -> tuple[int, int]:
    """The name (capitalised words and inner connectives) that holds ``toks[s..e]``."""
    while s > 0 and _is_cap(toks[s - 1]):
        s -= 1
    while e + 1 < len(toks) and _is_cap(toks[e + 1]):
        e += 1
    return s, e


def _one_end_apart(ct: list[str], cs: int, ce: int, pt: list[str], ps: int, pe: int
                   ) -> tuple[list[str], list[str]] | None:
    """Two names of as many words that share every word but their first or their last, the
    aligned slot ``ct[cs..ce]`` / ``pt[ps..pe]`` being that end: "Lake Victoria" / "Lake
    Tana", "John Herschel" / "William Herschel", "North Korea" / "South Korea". Returns the
    whole names, or None: when the names differ elsewhere or in the middle ("John F. Kennedy"
    / "John Fitzgerald Kennedy"), either end is a title or role ("President Trump" /
    "Donald Trump"), an initial or part of an identifier ("SM U-30"), or the two ends begin
    with the same letter (a short form or a nickname: "Al" / "Aelred").

    >>> w = lambda t: _WORD.findall(t)
    >>> _one_end_apart(w("sister of John Herschel ."), 2, 2, w("sister of William Herschel ."), 2, 2)
    (['John', 'Herschel'], ['William', 'Herschel'])
    >>> _one_end_apart(w("by President Trump ."), 1, 1, w("by Donald Trump ."), 1, 1) is None
    True
    """
    (a, b), (x, y) = _name_span(ct, cs, ce), _name_span(pt, ps, pe)
    cname, pname = ct[a:b + 1], pt[x:y + 1]
    if len(cname) != len(pname) or len(cname) < 2 or (cs - a, ce - a) != (ps - x, pe - x):
        return None
    if not (cs == a or ce == b) or not all(_whole_name(t, i, j) for t, i, j in ((ct, a, b), (pt, x, y))):
        return None  # the slot is the first or the last words, never the middle
    inside = set(range(cs - a, ce - a + 1))
    if any((c.lower() == q.lower()) == (k in inside) for k, (c, q) in enumerate(zip(cname, pname))):
        return None  # every word outside the slot shared, every word in it different
    ends = [cname[k] for k in inside] + [pname[k] for k in inside]
    if any(len(t) < 2 or t.lower().rstrip(".") in _TITLES or not t.replace("'", "").isalpha() for t in ends):
        return None  # a title, an initial, or part of an identifier ("SM U-30")
    if cname[cs - a][0].lower() == pname[ps - x][0].lower():
        return None  # a short form or a nickname may keep the first letter ("Al" / "Aelred")
    return cname, pname


def _spelt_apart(a: str, b: str) -> bool:
    """Not one name spelt two ways: the same but for a plural ending ("Minister" /
    "Ministers"), or one edit apart in a name of six letters or more, two in one of nine or
    more, with the same first letter ("Albuquerque" / "Albuqerque"). Short names one letter
    apart are other names ("Iran" / "Iraq"), as are names with another first letter ("Gambia"
    / "Zambia") or another ending ("Niger" / "Nigeria")."""
    a, b = a.lower(), b.lower()
    short, long_ = sorted((a, b), key=len)
    if long_ in (short + "s", short + "es", short + "'s"):
        return False
    if not a or not b or a[0] != b[0]:
        return True
    d = _edits(a, b)
    return not ((d == 1 and len(short) >= 6) or (d == 2 and len(short) >= 9))


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (names are short)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _content(w: str) -> bool:
    return w.isalpha() and w not in STOPWORDS


def _whole_name(toks: list[str], s: int, e: int) -> bool:
    """``toks[s..e]`` is names and connectives only, starts and ends with a name, and no
    capitalised word touches it on either side."""
    span = toks[s:e + 1]
    return (all(_is_name_part(t) for t in span) and _is_cap(span[0]) and _is_cap(span[-1])
            and not (s > 0 and _is_cap(toks[s - 1])) and not (e + 1 < len(toks) and _is_cap(toks[e + 1])))
