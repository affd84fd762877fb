"""Small helpers over spaCy tokens shared by the clause splitter and the resolver:
noun-phrase cores, verb inflection and rendering token lists back to text."""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence


_CORE_EXCLUDE = frozenset({"relcl", "acl", "appos", "conj", "cc", "punct", "preconj", "advcl"})
_IRREGULAR_3SG = {"be": "is", "have": "has", "do": "does", "go": "goes"}
_IRREGULAR_PAST = {"be": "was", "have": "had", "do": "did", "go": "went", "make": "made",
                   "give": "gave", "take": "took", "become": "became", "lead": "led",
                   "bring": "brought", "hold": "held", "keep": "kept", "leave": "left",
                   "allow": "allowed", "result": "resulted", "build": "built"}


def core_np(tok: Any, keep_prep: bool = True) -> list[int]:
    """Token indices of ``tok``'s noun phrase without clauses, appositions or conjuncts."""
    out = [tok.i]
    for child in tok.children:
        if child.dep_ in _CORE_EXCLUDE or (child.dep_ == "prep" and not keep_prep):
            continue
        out.extend(t.i for t in child.subtree)
    return sorted(out)


def np_text(doc: Any, tok: Any, keep_prep: bool = True) -> str:
    """The core noun phrase of ``tok`` as text."""
    return render_raw(doc, core_np(tok, keep_prep))


def is_plural(tok: Any) -> bool:
    """True for plural nouns or coordinated noun phrases."""
    return tok.tag_ in ("NNS", "NNPS") or any(c.dep_ == "conj" for c in tok.children)


def is_past(head: Any) -> bool:
    """True when the clause headed by ``head`` is in the past tense."""
    if head.tag_ == "VBD":
        return True
    return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in head.children)


def inflect(tok: Any, past: bool, plural: bool = False) -> str:
    """Finite form of a verb token (used for participial modifiers).

    The lemma is inflected by rule; irregular past forms come from a small table.
    """
    lemma = tok.lemma_.lower()
    if past:
        if lemma in _IRREGULAR_PAST:
            return _IRREGULAR_PAST[lemma] if not (lemma == "be" and plural) else "were"
        if tok.tag_ == "VBN" or tok.tag_ == "VBD":
            return tok.text
        if lemma.endswith("e"):
            return lemma + "d"
        return lemma + "ed"
    if plural:
        return "are" if lemma == "be" else lemma
    if lemma in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[lemma]
    if re.search(r"(s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def copula(past: bool, plural: bool) -> str:
    """``is``/``are``/``was``/``were``.

    >>> copula(True, False), copula(False, True)
    ('was', 'are')
    """
    return ("were" if plural else "was") if past else ("are" if plural else "is")


def render_raw(doc: Any, idx: Iterable[int]) -> str:
    """Text of the tokens ``idx`` (sorted) with their original spacing."""
    idx = sorted(idx)
    out = []
    for k, i in enumerate(idx):
        tok = doc[i]
        nxt = idx[k + 1] if k + 1 < len(idx) else None
        out.append(tok.text + (tok.whitespace_ if nxt == i + 1 else " "))
    return "".join(out).strip()


_OPEN_TRAIL = re.compile(r"(?:\s*[,;:–—-]\s*|\s+(?:and|or|but|so|as well as|which|that|who)\s*)+$",
                         re.IGNORECASE)
_OPEN_LEAD = re.compile(r"^(?:\s*[,;:–—.-]\s*|\s*(?:and|or|but|so|then)\b\s*)+", re.IGNORECASE)


def render(doc: Any, parts: Sequence[int | str], repl: Mapping[int, str] | None = None) -> str:
    """Render a claim from token indices and literal strings, in order.

    Replacements (``repl``) substitute a token's text ("" deletes it). The result is
    tidied: no dangling commas or conjunctions, balanced brackets, a capital first
    letter and a final full stop.
    """
    repl = repl or {}
    out: list[str] = []
    for k, p in enumerate(parts):
        if isinstance(p, str):
            out.append(p + " ")
            continue
        tok = doc[p]
        text = repl.get(p, tok.text)
        if text == "":
            continue
        nxt = parts[k + 1] if k + 1 < len(parts) else None
        space = tok.whitespace_ if isinstance(nxt, int) and nxt == p + 1 else " "
        out.append(text + space)
    return tidy("".join(out))


def tidy(text: str) -> str:
    """Normalise spacing and punctuation of a rendered claim.

    >>> tidy("and , Obama served two terms ,")
    'Obama served two terms.'
    """
    s = re.sub(r"\s+", " ", text).strip()
    s = re.sub(r"\s+([,.;:!?%)\]])", r"\1", s)
    s = re.sub(r"([(\[])\s+", r"\1", s)
    s = re.sub(r",(\s*,)+", ",", s)
    s = re.sub(r"\(\s*\)", "", s)
    prev = None
    while prev != s:
        prev = s
        s = _OPEN_LEAD.sub("", s)
        s = _OPEN_TRAIL.sub("", s.rstrip(".!?"))
    s = s.strip(" ,;:")
    if s.count("(") != s.count(")"):
        s = s.replace("(", "").replace(")", "")
    if s.count('"') % 2:
        s = s.replace('"', "")
    s = re.sub(r"\s+", " ", s).strip()
    if not s:
        return ""
    s = s[0].upper() + s[1:]
    return s if s[-1] in ".!?" else s + "."
