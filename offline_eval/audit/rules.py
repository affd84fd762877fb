"""Per-claim and per-response audit after the voice-assistant correctness guideline.

Per claim (from its verdict, its decisive evidence and the number check):

* ``supported`` -> **correct**, unless a quantity in the claim is off beyond tolerance
  against same-type quantities in the decisive passage -> **incorrect** (number off).
* ``unverifiable`` -> **correct** when every claim quantity matches the passage (within
  tolerance or inside a range, e.g. 100 calories vs "70 to 125 calories") and at least
  :data:`MIN_COVERAGE` of the claim's content words occur in the passage (the named rule
  "numbers match the evidence within tolerance"); **incorrect** when a quantity is off beyond
  twice its tolerance from every same-type quantity of the passage; otherwise
  **unverifiable**.
* ``contradicted`` -> **incorrect**, unless the same rule holds for a measured quantity
  (an amount, not only a year, day or ordinal, which another article may share).
* A quantity off by more than the tolerance but within twice it -> **partially_correct**.
* ``inconclusive`` (evidence conflicts) -> **inconclusive**.
* A relative direction ("east of Oslo") that the passage states otherwise for the same
  reference ("west of Oslo") -> **incorrect**, whatever the NLI verdict.
* **Magnitude** of a non-correct claim: **major** when the claim is core or a number is
  off beyond twice the tolerance, else **minor**.
* **Core**: vital claims; when none is labelled vital, the first claim in importance order.

The claim's audit verdict differs from its NLI verdict only by a rule named in ``reasons``.

Per response: a deflection has no verdict. Otherwise **incorrect** when a core claim is
incorrect or not timely, **inconclusive** when a core claim is inconclusive, **unverifiable**
when every core claim is unverifiable, **partially_correct** when the core is right but an
additional claim is incorrect, partially correct or not timely, else **correct**. Reasons:
``core fact incorrect``, ``additional facts incorrect``, ``not timely``, ``not relevant``,
``not specific``.
"""
from __future__ import annotations

import re
from typing import Sequence

from offline_eval.audit.quantities import check_numbers as _check_numbers
from offline_eval.audit.quantities import far_quantity as _far_quantity
from offline_eval.audit.quantities import number_severity as _number_severity
from offline_eval.audit.relevance import relevance
from offline_eval.text import query_words
from offline_eval.audit.timeliness import claim_timeliness
from offline_eval.types import Claim, ClaimAudit, Compared, ResponseAudit

MIN_COVERAGE = 0.6


def core_ids(claims: Sequence[Claim], order: Sequence[str] = ()) -> set[str]:
    """Ids of the core claims (see module docstring)."""
    vital = {c.id for c in claims if c.importance == "vital"}
    if vital or not claims:
        return vital
    if order:
        return {order[0]}
    ranked = [c for c in claims if c.rank is not None]
    return {min(ranked, key=lambda c: c.rank).id} if ranked else {claims[0].id}  # type: ignore


def _coverage(claim: str, passage: str) -> float:
    cw = query_words(claim)
    return len(cw & query_words(passage)) / len(cw) if cw else 0.0


_DIRECTION = re.compile(r"\b(north|south|east|west|northeast|northwest|southeast|southwest|"
                        r"above|below|upstream|downstream|left|right)(?:ern)?\s+(?:of|from)\s+"
                        r"(?:the\s+)?([A-Z][\w-]+)", re.I)


_DATES = frozenset({"year", "day", "century", "ordinal"})


def _measured(claim: str) -> bool:
    """The claim states an amount (money, a count, a measurement), not only dates."""
    from offline_eval.audit.quantities import extract_quantities

    return any(q.kind not in _DATES for q in extract_quantities(claim))


def direction_conflict(claim: str, passage: str) -> str | None:
    """A relative direction in the claim that the passage states otherwise.

    >>> direction_conflict("Oslo lies north of Copenhagen.", "Copenhagen lies south of Oslo; Oslo is north of Copenhagen.")
    >>> direction_conflict("Bergen is east of Oslo.", "Bergen lies west of Oslo, on the coast.")
    "claim says 'east of Oslo', evidence says 'west of Oslo'"
    """
    evid = {(m.group(2).lower(), m.group(1).lower()) for m in _DIRECTION.finditer(passage)}
    for m in _DIRECTION.finditer(claim):
        ref, d = m.group(2).lower(), m.group(1).lower()
        others = {e_d for e_ref, e_d in evid if e_ref == ref}
        if others and d not in others:
            return f"claim says '{d} of {m.group(2)}', evidence says '{sorted(others)[0]} of {m.group(2)}'"
    return None


def audit_claim(claim: Claim, core: bool, date: str | None = None) -> ClaimAudit:
    """Audit one claim that carries a verdict."""
    label = claim.verdict.label if claim.verdict else "unverifiable"
    passage = claim.verdict.evidence.text if claim.verdict and claim.verdict.evidence else ""
    sev = _number_severity(claim.text, passage) if passage else "none"
    reasons: list[str] = []
    compared = None
    conflict = direction_conflict(claim.text, passage) if passage else None
    if conflict and label != "inconclusive":
        verdict = "incorrect"
        reasons.append(f"relative direction: {conflict}")
    elif label == "inconclusive":
        verdict = "inconclusive"
        reasons.append("the evidence conflicts")
    elif sev == "far" or (sev == "near" and label == "supported"):
        verdict = "incorrect" if sev == "far" else "partially_correct"
        # the quantity that decided: the far one when far, else the first mismatch
        far = _far_quantity(claim.text, [passage]) if sev == "far" else None
        if far is not None:
            compared = Compared("number", far[0], tuple(far[1]))
        else:
            check = _check_numbers(claim.text, passage)
            compared = Compared("number", check.claim_value, check.evidence_values)
        reasons.append(f"a number is off beyond tolerance: the claim says {compared.claim!r}, "
                       f"the evidence {', '.join(repr(v) for v in compared.evidence)}")
    elif label == "supported" or (sev == "ok" and _coverage(claim.text, passage) >= MIN_COVERAGE
                                  and (label == "unverifiable" or _measured(claim.text))):
        verdict = "correct"
        if label != "supported":
            reasons.append("numbers match the evidence within tolerance")
    elif label == "contradicted":
        verdict = "incorrect"
        reasons.append("contradicted by the evidence")
    else:
        verdict = "unverifiable"
        reasons.append("no evidence decides it")
    magnitude = None
    if verdict != "correct":
        magnitude = "major" if core or sev == "far" else "minor"
    t = claim_timeliness(claim.text, date)
    if t.label == "not_timely" and t.reason:
        reasons.append(t.reason)
    return ClaimAudit(claim.id, verdict, core, magnitude, t.label, tuple(reasons), compared)


def audit_response(query: str, response: str, claims: Sequence[Claim], *, deflection: bool,
                   order: Sequence[str] = (), date: str | None = None) -> ResponseAudit:
    """Audit one response (see module docstring)."""
    core = core_ids(claims, order)
    audits = tuple(audit_claim(c, c.id in core, date) for c in claims)
    timeliness = ("undated" if date is None else
                  "not_timely" if any(a.timeliness == "not_timely" for a in audits) else "timely")
    rel, rel_reason = relevance(query, response, [c.text for c in claims])
    reasons: list[str] = []
    if rel != "relevant":
        reasons.append(rel.replace("_", " "))
    if deflection:
        return ResponseAudit(True, rel, timeliness, None, tuple(reasons + ["deflection"]), audits)
    core_a = [a for a in audits if a.core]
    other = [a for a in audits if not a.core]
    bad = ("incorrect", "partially_correct")
    if any(a.verdict in bad for a in core_a):
        reasons.append("core fact incorrect")
    if any(a.verdict in bad for a in other):
        reasons.append("additional facts incorrect")
    if timeliness == "not_timely":
        reasons.append("not timely")
    if not audits:
        verdict = None
    elif any(a.verdict == "incorrect" or a.timeliness == "not_timely" for a in core_a):
        verdict = "incorrect"
    elif any(a.verdict == "inconclusive" for a in core_a):
        verdict = "inconclusive"
    elif core_a and all(a.verdict == "unverifiable" for a in core_a):
        verdict = "unverifiable"
    elif any(a.verdict in bad or a.timeliness == "not_timely" for a in audits):
        verdict = "partially_correct"
    else:
        verdict = "correct"
    if rel_reason:
        reasons.append(rel_reason)
    return ResponseAudit(False, rel, timeliness, verdict, tuple(reasons), audits)
