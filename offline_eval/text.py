"""The text utilities, in one module: sentences, clauses, content words, entities, numbers
and dates. All regex-based and deterministic, so they run anywhere (no spaCy needed).

Content words come in three named variants, each with its own stop-word list, because each
was fitted to its use and changing one moves its figures: :func:`content_words` (evidence
against a claim: the verifier, its features and rules), :func:`query_words` (a query or a
fact: the audit's relevance check and comprehensiveness) and :func:`anchor_words` (a
generated claim's words that must occur in its sentence). The retrieval tokenizer's list is
:data:`offline_eval.index.stopwords.STOPWORDS`.
"""
from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset("""a an the and or but if then than that this these those is are was were be been being
am has have had do does did of in on at to for from by with as into onto about over under after before
between through during without within it its he she they them his her their our we you your i me my
him us who whom whose which what when where why how not no nor so such can could will would shall should
may might must also there here very more most other some any each all both few many much one only own
same too just s t also until while since per via among upon de la le""".split())
MONTHS = ("january february march april may june july august september october november december "
          "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_SENT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d[\d,]*(?:\.\d+)?")
_CLAUSE = re.compile(r";\s+|,\s+(?:and|but|while|whereas|although|though)\s+|\s+and\s+(?=(?:was|is|has|had|were|are|also|later|then|became|won|received)\b)")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (regex; keeps every character run except the gaps). A line
    break ends a sentence too (a page given as its lines, a list).

    The verifier's split: unlike passages (:func:`offline_eval.index.chunk.sentence_spans`)
    it knows no abbreviation ("Dr.", "No. 5" end a sentence here). Its window sizes, counted
    in these sentences, and its thresholds were fitted on it; reading evidence and claims
    with the passages' split instead, without refitting them, lowered ``real_answers.py
    verify`` (wice-doc 0.711 -> 0.680) and the leave-one-set-out macro of
    ``benchmarks/verdicts.py`` (0.644 -> 0.640) when tried (2026-12-08).

    >>> split_sentences("It rained. Then it stopped! OK")
    ['It rained.', 'Then it stopped!', 'OK']
    >>> split_sentences("Born 1815\\nDied 1852")
    ['Born 1815', 'Died 1852']
    """
    return [s.strip() for line in text.strip().split("\n") for s in _SENT.split(line.strip()) if s.strip()]


def split_clauses(claim: str, min_words: int = 4) -> list[str]:
    """Split a long claim into clause-level facts (a simple, conservative split).

    A claim of several sentences (a summary) is split into its sentences first. Parts
    shorter than ``min_words`` words are merged back into the previous part.

    >>> split_clauses("He was born in Paris in 1990, and he moved to Rome in 2001.")
    ['He was born in Paris in 1990', 'he moved to Rome in 2001.']
    >>> split_clauses("Short claim.")
    ['Short claim.']
    >>> split_clauses("The mill opened in 1820. It closed in 1901 after a fire.")
    ['The mill opened in 1820.', 'It closed in 1901 after a fire.']
    """
    parts = [p.strip(" ,") for sent in split_sentences(claim) for p in _CLAUSE.split(sent)
             if p and p.strip(" ,")]
    out: list[str] = []
    for p in parts:
        if out and len(p.split()) < min_words:
            out[-1] = f"{out[-1]}, {p}"
        elif not out and len(p.split()) < min_words and len(parts) > 1:
            out.append(p)
        else:
            out.append(p)
    if len(out) > 1 and len(out[0].split()) < min_words:
        out[1] = f"{out[0]}, {out[1]}"
        out = out[1:]
    return out or [claim.strip()]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _norm(w: str) -> str:
    w = w.lower().replace(",", "")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


@lru_cache(maxsize=65536)  # evidence windows recur across the claims of a batch
def content_words(text: str) -> frozenset[str]:
    """Lower-cased, lightly stemmed non-stopwords.

    >>> sorted(content_words("The cats were born in Paris"))
    ['born', 'cat', 'pari']
    """
    return frozenset(_norm(t) for t in tokens(text) if t.lower() not in STOPWORDS and len(t) > 1)


@lru_cache(maxsize=65536)
def entities(text: str) -> frozenset[str]:
    """Capitalised words that are not sentence-initial stopwords (a cheap NER stand-in).

    >>> sorted(entities("The band played in Berlin with Nick Cave."))
    ['berlin', 'cave', 'nick']
    """
    out = set()
    for t in tokens(text):
        if t[0].isupper() and t.lower() not in STOPWORDS and t.lower() not in MONTHS:
            out.add(_norm(t))
    return frozenset(out)


@lru_cache(maxsize=65536)
def numbers_dates(text: str) -> frozenset[str]:
    """Numbers (commas removed) and month names.

    >>> sorted(numbers_dates("On 3 May 1990 it sold 1,200 copies."))
    ['1200', '1990', '3', 'may']
    """
    out = set()
    for t in tokens(text):
        if t[0].isdigit():
            out.add(t.replace(",", "").rstrip("."))
        elif t.lower() in MONTHS:
            out.add(t.lower()[:3] if t.lower() != "may" else "may")
    return frozenset(out)


# -- the audit's and comprehensiveness's variant --------------------------------

QUERY_STOPWORDS = frozenset("""a an the of in on at to for from by with and or but is are was were be been
being do does did what which who whom whose when where why how many much is it its this that these
those there their they them he she his her you your i me my we our us can could would should will
shall may might must about into over under than then as if so not no yes please tell give list
name some any all each most more less very just also""".split())
_QUERY_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+")


def _query_stem(w: str) -> str:
    for suf in ("ies", "es", "s", "ing", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


def query_words(text: str) -> set[str]:
    """Stemmed content words of a query or a fact (the audit's relevance check and
    comprehensiveness; suffixes stripped, the question words of :data:`QUERY_STOPWORDS` dropped).

    >>> sorted(query_words("How many moons does Jupiter have?"))
    ['have', 'jupiter', 'moon']
    """
    return {_query_stem(w.lower()) for w in _QUERY_WORD.findall(text)
            if w.lower() not in QUERY_STOPWORDS}


# -- the generative decomposer's anchoring variant -------------------------------

FUNCTION_WORDS = frozenset("""the a an of and or but to in on at by for with from as is are was were be
been being it its this that these those which who whom whose what when where why how he she they
his her their them him has have had do does did not no can could may might will would shall should
also than then there here into onto over under about after before during between through such
very more most less least some any each every all both either neither one two three""".split())
_ANCHOR_WORD = re.compile(r"[^\W_]+")


def anchor_words(text: str) -> list[str]:
    """Lower-cased content words of a generated claim, in order (not
    :data:`FUNCTION_WORDS`, at least 3 characters or a digit): the generative decomposer's
    anchoring guard."""
    words = [w.lower() for w in _ANCHOR_WORD.findall(text)]
    return [w for w in words if w not in FUNCTION_WORDS and (len(w) >= 3 or w.isdigit())]
