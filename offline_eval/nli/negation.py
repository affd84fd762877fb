"""The negation rule: a sentence of the evidence that states the claim with its polarity
flipped ("Abacus computing is not faster than DNA computing" against "Abacus computing is
generally faster than DNA computing").

Small NLI models read such a pair by its shared words and often entail it. The rule asks
for a near twin: the sentence holds at least :data:`COVER` of the claim's content words and
at most :data:`EXTRA` content words the claim lacks, and one of the two carries exactly one
negation where the other carries none (two negations in one sentence are left to the
model). The negation must deny a word both say: "finished in 1932, not 1931" or "passed
without amendment" is no twin of "finished in 1932" or "passed". Phrases that do not deny
("not only", "no doubt", "no more than", "not until") are not negations.

>>> negated_twin("Abacus computing is generally faster than DNA computing for deep learning.",
...              ["Abacus computing is not faster than DNA computing for deep learning."])
'Abacus computing is not faster than DNA computing for deep learning.'
>>> negated_twin("The bridge was not finished in 1932.", ["The bridge was finished in 1932."])
'The bridge was finished in 1932.'
>>> negated_twin("The bridge was finished in 1932.", ["Not only was the bridge finished in 1932."]) is None
True
>>> negated_twin("The bridge was finished in 1932.", ["The bridge was finished in 1932, not 1931."]) is None
True
"""
from __future__ import annotations

from typing import Iterable

from offline_eval.text import content_words, tokens

#: share of the claim's content words the twin sentence must hold
COVER = 0.8
#: content words of the twin sentence that the claim lacks, at most
EXTRA = 2
#: content words a claim needs before a twin is looked for
MIN_WORDS = 3

NEGATIONS = frozenset("not no never nor neither none nobody nothing nowhere without cannot".split())
#: a negation word followed by one of these does not deny the statement
NOT_DENYING = {"not": {"only", "just", "least"}, "no": {"doubt", "less", "fewer", "more", "sooner"},
               "nothing": {"but"}, "without": {"doubt"}}


def _is_negation(word: str) -> bool:
    w = word.lower()
    return w in NEGATIONS or w.endswith("n't")


def _denials(text: str) -> list[int]:
    """Token positions of the words of ``text`` that deny: not "not only" and the like, nor
    a negation that "until" follows ("not until 1990": it did happen)."""
    toks = [t.lower() for t in tokens(text.replace("\u2019", "'"))]
    return [i for i, t in enumerate(toks)
            if _is_negation(t) and (i + 1 == len(toks) or toks[i + 1] not in NOT_DENYING.get(t, ()))
            and not {"until", "till"} & set(toks[i + 1:])]


def negations(text: str) -> int:
    """How many words of ``text`` deny (``n't`` forms included; "not only" and the like not).

    >>> negations("It isn't here, and not only that: no doubt it never was.")
    2
    >>> negations("It did not open until 1990.")
    0
    """
    return len(_denials(text))


def _denied(text: str) -> str | None:
    """The content word that ``text``'s one negation denies: the first within the next four
    words ("is not faster" -> "faster"; "without cytopathic effect" -> "cytopathic")."""
    toks = tokens(text.replace("\u2019", "'"))
    at = _denials(text)[0]
    for t in toks[at + 1:at + 5]:
        words = content_words(t)
        if words and not _is_negation(t):
            return next(iter(words))
    return None


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in content_words(text.replace("\u2019", "'")) if not _is_negation(w))


def negated_twin(claim: str, sentences: Iterable[str]) -> str | None:
    """The first of ``sentences`` that states ``claim`` with its polarity flipped, or None."""
    mine = _words(claim)
    n_claim = negations(claim)
    if len(mine) < MIN_WORDS or n_claim > 1:
        return None
    for sent in sentences:
        n_sent = negations(sent)
        if {n_claim, n_sent} != {0, 1}:
            continue
        theirs = _words(sent)
        if len(mine & theirs) < COVER * len(mine) or len(theirs - mine) > EXTRA:
            continue
        # the negation must deny what both say, not a word of its own ("in 1932, not 1931")
        if _denied(sent if n_sent else claim) in (mine if n_sent else theirs):
            return sent
    return None
