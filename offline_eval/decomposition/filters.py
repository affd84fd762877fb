"""Deflection detection and the non-claim filter, with a reason for every drop.

Rules follow the fact-checking guideline: a deflection ("I'm sorry, I don't have
access to…") is not a claim; nor are topic introductions and conclusions, opinions
built on subjective terms, advice and instructions, questions back to the user and
pleasantries. Everything else is a claim candidate.

>>> classify("I'm sorry, but I cannot browse the internet.")
('deflection', 'deflection phrase')
>>> classify("Would you like to know more about penguins?")
('non_claim', 'question to the user')
>>> classify("Here is a list of birds that cannot fly:")
('non_claim', 'topic introduction')
>>> classify("The kiwi is a flightless bird native to New Zealand.")
('claim', None)
"""
from __future__ import annotations

import re
from typing import Literal, Sequence

UnitKind = Literal["claim", "deflection", "non_claim"]

_I = r"(?:i|we)"
_DEFLECTION = re.compile("|".join([
    r"^\W*(?:i'?m|i am|we'?re|we are)\s+(?:so\s+|very\s+|really\s+)?sorry\b",
    r"^\W*sorry\b", r"\b" + _I + r"\s+(?:sincerely\s+)?apologi[sz]e\b",
    r"\bmy\s+apologies\b",
    r"\b" + _I + r"\s+(?:do\s*n[o']?t|don't|currently\s+do\s*n[o']?t)\s+have\s+(?:access|the\s+ability|"
    r"any\s+(?:information|data|details)|real[- ]time|current|up[- ]to[- ]date|specific|enough|"
    r"information|personal|the\s+capability|browsing)",
    r"\b(?:i'?m|i\s+am|we\s+are|we'?re)\s+(?:currently\s+)?(?:unable|not\s+able)\s+to\b",
    r"\b" + _I + r"\s+(?:can\s*n[o']?t|can't|cannot|could\s*n[o']?t|am\s+not\s+able\s+to)\s+"
    r"(?:provide|access|browse|retrieve|answer|help|assist|tell|give|determine|predict|confirm|"
    r"verify|find|look\s+up|check|fulfil+|comply|share|offer|see)\b",
    r"\bas\s+an?\s+(?:ai|artificial\s+intelligence|language\s+model|large\s+language\s+model|"
    r"virtual\s+assistant|text[- ]based)\b",
    r"\bfailed\s+to\s+capture\s+response\b", r"\btemporarily\s+unavailable\b",
    r"\b" + _I + r"\s+(?:do\s*n[o']?t|don't)\s+know\b", r"\bbeyond\s+my\s+(?:knowledge|capabilities)\b",
    r"\bi'?m\s+not\s+(?:sure|certain|aware)\b", r"\bi\s+am\s+not\s+(?:sure|certain|aware)\b",
    r"\bno\s+(?:information|results?)\s+(?:is\s+|was\s+)?(?:available|found)\b",
    r"\b(?:something\s+went\s+wrong|an\s+error\s+occurred|please\s+try\s+again)\b",
]), re.IGNORECASE)

_PLEASANTRY = re.compile(
    r"^\W*(?:sure|certainly|of\s+course|absolutely|okay|ok|great|good|excellent|interesting)?\W*"
    r"(?:great\s+question|good\s+question|thanks?(?:\s+you)?(?:\s+for[^.!]*)?|you'?re\s+welcome|"
    r"happy\s+to\s+help|glad\s+(?:to|i\s+could)\s+help|i\s+hope\s+(?:this|that)\s+helps|"
    r"hope\s+(?:this|that)\s+helps|let\s+me\s+know[^.!]*|feel\s+free[^.!]*|enjoy[^.!]*|"
    r"good\s+luck[^.!]*|have\s+a\s+(?:great|nice|good)\s+\w+|sure|certainly|of\s+course|"
    r"absolutely|no\s+problem)\W*$", re.IGNORECASE)
_INTRO = re.compile(
    r"^\W*(?:(?:sure|certainly|of\s+course|okay|ok|absolutely)\W+)?(?:here\s+(?:is|are|'s)|below\s+(?:is|are)|"
    r"the\s+following|these\s+are|this\s+is\s+an?\s+(?:list|summary|overview)|let\s+me|let'?s|"
    r"i'?ll|i\s+will|i\s+can\s+(?:help|give|provide)|there\s+are\s+(?:several|many|a\s+few|some|"
    r"various|multiple|numerous)\s+(?:ways|reasons|factors|things|steps|options|tips|examples|"
    r"types|kinds|methods)\b)", re.IGNORECASE)
_CONCLUSION = re.compile(r"^\W*(?:in\s+conclusion|in\s+summary|to\s+(?:sum\s+up|summari[sz]e|"
                         r"conclude)|all\s+in\s+all|in\s+short)\b", re.IGNORECASE)
_SUBJECTIVE = re.compile(
    r"\b(?:best|worst|greatest|favou?rite|most\s+(?:popular|beautiful|interesting|important|"
    r"famous|iconic|impressive|influential|delicious|exciting|fascinating)|amazing|awesome|"
    r"wonderful|fantastic|incredible|stunning|breathtaking|delicious|must[- ]see|underrated|"
    r"overrated|highly\s+recommended|beautiful|terrible|horrible|excellent)\b", re.IGNORECASE)
# Uses of a subjective word that state a fact: compounds ("best-known", "best known as",
# "best-selling"), records ("personal best"), "at best", the "greatest common divisor".
_FACTUAL_AFTER = re.compile(
    r"(?:best[- ](?:known|selling|sellers?|preserved|documented|attested|paid|rated)\b|"
    r"greatest\s+common\b)", re.IGNORECASE)
_FACTUAL_BEFORE = re.compile(r"(?:\b(?:personal|season'?s?|world|at)\s+)$", re.IGNORECASE)


def _subjective(text: str) -> bool:
    """True when ``text`` uses a subjective term as an opinion.

    A term capitalised inside a line is part of a name or title ("won the Academy Award
    for Best Picture", "The Greatest Showman"), and the compounds and records in
    :data:`_FACTUAL_AFTER` / :data:`_FACTUAL_BEFORE` state facts.

    >>> _subjective("Lisbon has the best pastries in Europe.")
    True
    >>> _subjective("Einstein is best known for relativity."), _subjective("It won Best Picture.")
    (False, False)
    """
    for m in _SUBJECTIVE.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]  # a verse line starts anew
        if text[m.start()].isupper() and re.search(r"[^\W\d_]", line):
            continue
        if _FACTUAL_AFTER.match(text, m.start()) or _FACTUAL_BEFORE.search(text[:m.start()]):
            continue
        return True
    return False


_ADVICE = re.compile(
    r"\b(?:" + _I + r"\s+(?:would\s+)?(?:recommend|suggest|advise)|it\s+is\s+(?:always\s+)?(?:recommended|"
    r"advisable|a\s+good\s+idea|best\s+to|wise)|it'?s\s+(?:always\s+)?(?:recommended|advisable|"
    r"a\s+good\s+idea|best\s+to|wise)|(?:it\s+is|it'?s)\s+(?:also\s+)?(?:important|essential|crucial|"
    r"worth\s+noting|vital)\s+(?:to|that)|you\s+(?:should|may\s+want|might\s+want|can|could|"
    r"will\s+need\s+to|need\s+to)|should\s+(?:always|never)|be\s+sure\s+to|make\s+sure|"
    r"consult\s+(?:a|an|with|your))\b", re.IGNORECASE)
_UNCERTAIN = re.compile(
    r"^\W*(?:however,\s*)?(?:it\s+is|it'?s)\s+(?:difficult|hard|impossible|not\s+possible|"
    r"challenging|tricky)\s+to\s+(?:say|determine|know|predict|tell|estimate|give|provide)\b"
    r"|\bmore\s+research\s+is\s+needed\b", re.IGNORECASE)


def is_deflection(text: str) -> bool:
    """True when the unit contains a deflection phrase.

    >>> is_deflection("FAILED TO CAPTURE RESPONSE")
    True
    >>> is_deflection("Penguins cannot fly.")
    False
    """
    return bool(_DEFLECTION.search(text))


def classify(text: str, *, heading: bool = False, tags: Sequence[str] = (),
             words: Sequence[str] = ()) -> tuple[UnitKind, str | None]:
    """Return ``(kind, reason)`` for one unit; ``reason`` is None for claims.

    Args:
        text: the unit's text.
        heading: the unit is a markdown heading.
        tags: Penn tags of the unit's tokens (optional; enables the imperative rule).
        words: the unit's tokens, aligned with ``tags``.
    """
    t = text.strip()
    if not re.search(r"[^\W\d_]", t):
        return "non_claim", "no words"
    if is_deflection(t):
        return "deflection", "deflection phrase"
    if heading:
        return "non_claim", "heading"
    if t.endswith("?"):
        return "non_claim", "question to the user"
    if _PLEASANTRY.match(t):
        return "non_claim", "pleasantry"
    if _INTRO.match(t) or (t.endswith(":") and len(t.split()) <= 25):
        return "non_claim", "topic introduction"
    if _CONCLUSION.match(t):
        return "non_claim", "conclusion"
    if _UNCERTAIN.search(t):
        return "non_claim", "statement of uncertainty"
    if _ADVICE.search(t):
        return "non_claim", "advice or recommendation"
    if _subjective(t):
        return "non_claim", "opinion (subjective term)"
    if tags and _imperative(tags, words):
        return "non_claim", "instruction"
    return "claim", None


def _imperative(tags: Sequence[str], words: Sequence[str]) -> bool:
    # An instruction starts (after adverbs/punctuation) with a bare verb and has no
    # "you"/"we" subject before it: "Compare the quotes.", "Finally, evaluate the model."
    for i, tag in enumerate(tags):
        if tag in ("RB", ",", "``", "''", ":", "-LRB-", "-RRB-", "CC") or words[i] in ("Then", "then"):
            continue
        if tag == "VB":
            return not (i + 1 < len(tags) and tags[i + 1] in ("VBN", "VBG", "VBD") and
                        words[i].lower() in ("be", "have"))
        return False
    return False
