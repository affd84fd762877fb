"""The verdict of one scored claim: a contradiction-aware decision, then the rules.

Order (each step is named in :attr:`Verdict.rule`):

1. **Contradiction first** (``nli``). A passage *about the claim's subject* (when retrieval
   linked the subject, the linked document and other documents' sentences that name it and
   speak to the claim's predicate; otherwise a passage naming one of the claim's names, or
   any when the claim names none) whose contradicting window has
   P(contradiction) >= ``contradict`` and above its P(entailment) makes the claim
   ``contradicted``. Word coverage never outweighs it. When another passage entails the
   claim with P >= ``strong`` while this one contradicts with P >= ``strong``, the claim is
   ``inconclusive`` instead. The assembled window does not contradict when it holds none of
   the claim's predicate words (it covers only the claim's names).
2. **Support** (``combiner``). The calibrated combiner's P(supported) >= ``support`` *and*
   the model itself leaning to entailment: the whole claim's best window has
   P(entailment) >= ``entail_floor``. Coverage may reject a claim the model entails (a
   missing fact), but it cannot accept one the model does not. The passage cited is the
   one the combiner, alone, rates highest among those the model entails past
   ``entail_floor`` (the subject's own document first when it passes ``support``).
3. Otherwise ``unverifiable`` (not enough evidence).

Then, on a supported or unverifiable verdict, the **negation** rule (``negation``: a
sentence about the claim's subject that states the claim with its polarity flipped makes it
contradicted, see :mod:`offline_eval.nli.negation`), and on a supported verdict only, the
**number** and **name** rules (``numbers``, ``names``), each comparing the claim with
passages about its subject and reporting both values it compared. The reported
probabilities are always those of the window that decided.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from offline_eval.types import Compared, Evidence, Verdict

if TYPE_CHECKING:  # pragma: no cover
    from offline_eval.nli.config import VerifyConfig
    from offline_eval.nli.verifier import ClaimScores


LINKED = ("subject", "topic")


def named(passage_features: Sequence[Mapping[str, float]],
          passages: Sequence[Evidence] = ()) -> list[int]:
    """Indices of the passages about the claim's subject.

    When retrieval linked the claim's subject (a passage ``found_by`` ``subject`` or
    ``topic``), every passage is: the retrieve stage kept only the linked documents and the
    sentences of other documents that speak of them. Otherwise, those naming one of the claim's
    names (``cov_entity`` > 0; a claim with no names scores 1.0 on every passage). Adding the
    passage that holds most of the claim's words was measured and dropped (RESULTS.md,
    ``verdicts``: WiCE dev 0.704 -> 0.684 leave-one-set-out)."""
    if _linked(passages):
        return list(range(len(passage_features)))
    return [i for i, f in enumerate(passage_features) if f.get("cov_entity", 1.0) > 0.0]


def contradiction_features(per: Sequence[Mapping[str, float]], con_probs: Sequence[np.ndarray],
                           ent: int, con: int | None) -> dict[str, float]:
    """``con_named``: the highest P(contradiction) on a passage about the claim's subject;
    ``margin_named``: P(contradiction) - P(entailment) on that window (0.0 when none)."""
    idx = named(per)
    if con is None or not idx:
        return {"con_named": 0.0, "margin_named": 0.0}
    k = max(idx, key=lambda i: (float(con_probs[i][con]), -i))
    p = con_probs[k]
    return {"con_named": float(p[con]), "margin_named": float(p[con] - p[ent])}


def cite(passage: Evidence, window: str) -> Evidence:
    """``passage`` narrowed to the ``window`` of it that decided: its text, with offsets
    when the window is found in the passage (relative to the passage's own start)."""
    if not window or window == passage.text:
        return passage
    at = passage.text.find(window)
    if at < 0:
        return replace(passage, text=window)
    base = passage.start or 0
    return replace(passage, text=window, start=base + at, end=base + at + len(window))


def _linked(passages: Sequence[Evidence]) -> bool:
    return any(p.found_by in LINKED for p in passages)


_CALENDAR = frozenset("year month week day century decade percent".split())


def _speaks_to(claim: str, window: str) -> bool:
    """True when ``window`` holds one of the claim's content words that is not a name, a
    number or a unit (the predicate: "born", "capital", "long"), or the claim has none."""
    from offline_eval.audit.quantities import UNITS, _SCALE
    from offline_eval.text import content_words, entities

    measures = {p for u in UNITS for p in u.split()} | set(_SCALE) | _CALENDAR
    need = {w for w in content_words(claim) - entities(claim)  # content_words drops a plural s
            if not any(ch.isdigit() for ch in w) and w not in measures and w + "s" not in measures}
    return not need or bool(need & content_words(window))


def _contradicting(claim: str, s: "ClaimScores", passages: Sequence[Evidence],
                   cfg: "VerifyConfig") -> int | None:
    """The passage whose window most contradicts the claim, among those about its subject.
    Two kinds of window contradict only when they speak to the claim's predicate
    (:func:`_speaks_to`): with a linked subject, another document's sentences that name the
    subject ("he married Marie Curie" says nothing of where she was born); and the
    assembled window, drawn to cover the claim's words, which when it covers only the
    claim's names says nothing of what the claim says of them."""
    idx = named(s.passage_features, passages) if cfg.conflict_shared_name and s.passage_features \
        else list(range(len(s.passage_con)))
    linked = _linked(passages)

    def may_contradict(i: int) -> bool:
        p = passages[i]
        if p.passage_id.startswith("assembled:") or (linked and p.found_by not in LINKED):
            return _speaks_to(claim, s.con_windows[i] if s.con_windows else p.text)
        return True

    idx = [i for i in idx if i < len(passages) and may_contradict(i)]
    return max(idx, key=lambda i: (s.passage_con[i], -i)) if idx else None


def decide(s: "ClaimScores", passages: Sequence[Evidence], cfg: "VerifyConfig",
           p_supported: float, claim: str = "") -> Verdict:
    """The decision of steps 1-3 (see the module docstring)."""
    if s.reason:
        return Verdict("unverifiable", reason=s.reason, rule="input")
    n = min(len(passages), len(s.passage_probs))  # equal by construction; never index past either
    if n == 0:
        return Verdict("unverifiable", reason="no evidence", rule="input")
    ents = [p.get("entailment", 0.0) for p in s.passage_probs[:n]]
    pe = int(np.argmax(ents))
    pk = _contradicting(claim, s, passages, cfg)
    if pk is not None:
        ck = s.con_probs[pk] if s.con_probs else s.passage_probs[pk]
        pc = ck.get("contradiction", 0.0)
        if pc >= cfg.contradict and pc > ck.get("entailment", 0.0):
            if ents[pe] >= cfg.strong and pc >= cfg.strong and pe != pk:
                return Verdict("inconclusive", dict(s.passage_probs[pe]),
                               cite(passages[pe], s.passage_windows[pe] if s.passage_windows else ""),
                               reason=f"passage {passages[pe].passage_id} entails, passage "
                                      f"{passages[pk].passage_id} contradicts", rule="nli")
            unit = s.con_units[pk] if s.con_units else ""
            what = f"its part {unit!r}" if unit in s.clauses else "the claim"
            return Verdict("contradicted", dict(ck),
                           cite(passages[pk], s.con_windows[pk] if s.con_windows else ""),
                           reason=f"P(contradiction) {pc:.2f} of {what} on a passage about its subject",
                           rule="nli")
    if cfg.combiner and s.passage_features:  # the passage that, alone, best supports the claim
        alone = [cfg.combiner.predict_one(f) for f in s.passage_features[:n]]
        # among those the model itself entails past the floor, as a supported claim needs:
        # a low ``support`` lets the combiner pass a passage the model reads as neutral
        able = [i for i in range(n) if ents[i] >= cfg.entail_floor] or list(range(n))
        pe = max(able, key=lambda i: (alone[i], -i))
        own = [i for i in able if alone[i] >= cfg.support and passages[i].found_by in LINKED]
        if own:  # the subject's own document, when it alone supports the claim
            pe = max(own, key=lambda i: (alone[i], -i))
    window = s.passage_windows[pe] if s.passage_windows else ""
    if p_supported >= cfg.support and s.features.get("ent_full", 0.0) >= cfg.entail_floor:
        return Verdict("supported", dict(s.passage_probs[pe]), cite(passages[pe], window),
                       rule="combiner" if cfg.combiner else "nli")
    why = ("no evidence passage entails the claim" if p_supported < cfg.support else
           f"the model does not entail it (P(entailment) {s.features.get('ent_full', 0.0):.2f} "
           f"< {cfg.entail_floor:g})")
    return Verdict("unverifiable", dict(s.passage_probs[pe]), cite(passages[pe], window),
                   reason=why, rule="nli" if p_supported >= cfg.support else
                   ("combiner" if cfg.combiner else "nli"))


def apply_rules(claim: str, s: "ClaimScores", passages: Sequence[Evidence], verdict: Verdict,
                cfg: "VerifyConfig") -> Verdict:
    """The negation rule on a supported or unverifiable verdict, then the number and name
    rules on a supported one (see :class:`VerifyConfig`)."""
    if verdict.label not in ("supported", "unverifiable") or verdict.evidence is None:
        return verdict
    if _linked(passages):  # the subject's own document: another's numbers are of other things
        about = [p for p in passages if p.found_by in LINKED]
        passages = about
    else:
        about = [passages[i] for i in (named(s.passage_features, passages) if s.passage_features
                                       else range(len(passages))) if i < len(passages)]
    if cfg.check_negation:
        v = _check_negation(claim, verdict, about)
        if v is not verdict or verdict.label != "supported":
            return v
    elif verdict.label != "supported":
        return verdict
    if cfg.check_numbers:
        v = _check_numbers(claim, verdict, about)
        if v is not verdict:
            return v
    if cfg.check_names:
        return _check_names(claim, verdict, passages, cfg.align_names)
    return verdict


def _check_negation(claim: str, verdict: Verdict, about: Sequence[Evidence]) -> Verdict:
    """A sentence of the deciding window or of a passage about the claim's subject that
    states the claim with its polarity flipped (:mod:`offline_eval.nli.negation`):
    contradicted, citing that passage and quoting the sentence."""
    from offline_eval.nli.negation import negated_twin
    from offline_eval.text import split_sentences

    assert verdict.evidence is not None
    for ev in [verdict.evidence] + [e for e in about if e.text != verdict.evidence.text]:
        twin = negated_twin(claim, (x for t in segments_about(claim, ev, about)
                                    for x in split_sentences(t)))
        if twin is not None:
            return Verdict("contradicted", dict(verdict.probs), ev, rule="negation",
                           reason=f"the evidence states the claim with its polarity flipped: {twin!r}",
                           compared=Compared("negation", claim, (twin,)))
    return verdict


def _check_numbers(claim: str, verdict: Verdict, about: Sequence[Evidence]) -> Verdict:
    """Supported, but a number of the claim is far (beyond twice its tolerance) from every
    number of the same kind (type, unit, counted noun) in the deciding window and the
    passages about the claim's subject: contradicted, naming both values."""
    from offline_eval.audit.quantities import far_quantity

    whole = [verdict.evidence] + [e for e in about if e.text != verdict.evidence.text]
    read = [(e, t) for e in whole for t in segments_about(claim, e, about)]
    # only the parts about the claim's subject count against it; any part may clear it
    hit = far_quantity(claim, [t for _, t in read], also=[e.text for e in whole])
    if hit is None:
        return verdict
    q, found, i = hit
    ev = read[i][0]
    return Verdict("contradicted", dict(verdict.probs), ev, rule="numbers",
                   reason=f"the claim says {q!r} where the evidence says "
                          f"{', '.join(repr(f) for f in found)} (beyond tolerance)",
                   compared=Compared("number", q, tuple(found)))


def _check_names(claim: str, verdict: Verdict, passages: Sequence[Evidence], align: bool = True) -> Verdict:
    """Supported, but the deciding window names Y in the claim's slot for X, or a passage
    titled with another name of the claim does: contradicted, naming both."""
    from offline_eval.nli.substitution import find_substitution

    deciding = verdict.evidence
    if deciding is None:
        return verdict
    others = [e for e in passages if e.title and e.passage_id != deciding.passage_id
              and not e.passage_id.startswith("assembled:")]
    for ev, anchored_only in [(deciding, False)] + [(e, True) for e in others]:
        sub = next((x for x in (find_substitution(claim, t, title=ev.title, anchored_only=anchored_only,
                                                  align=align) for t in segments_about(claim, ev, passages))
                    if x is not None), None)
        if sub is not None:
            return Verdict("contradicted", dict(verdict.probs), ev, rule="names",
                           reason=f"the claim names {sub.claim_name!r} where the evidence "
                                  f"names {sub.passage_name!r}",
                           compared=Compared("name", sub.claim_name, (sub.passage_name,)))
    return verdict


def segments_about(claim: str, ev: Evidence, passages: Sequence[Evidence] = ()) -> list[str]:
    """The texts of ``ev`` the number and name rules read: its whole text, or, for a passage
    or window of several references (``doc_id`` ``"r1+r2"``; a blank line separates them),
    only the parts that come from a reference sharing a name with the claim (every part when
    none does, or the claim names nothing), so that a swap or a number about another
    reference's subject is not held against the claim. A window cut from such a passage (its
    sentences re-joined) keeps the sentences that lie in those references' parts of
    ``passages``.

    >>> ev = Evidence("r1#0", "Hamlet is a play.\\n\\nFaustus is by Marlowe.", doc_id="r1+r2")
    >>> segments_about("Hamlet is by Shakespeare.", ev)
    ['Hamlet is a play.']
    >>> segments_about("Hamlet is by Shakespeare.", Evidence("r1#0", "Hamlet is a play. Faustus is by Marlowe.",
    ...                doc_id="r1+r2"), [ev])
    ['Hamlet is a play.']
    """
    from offline_eval.index.chunk import CONTEXT_JOIN
    from offline_eval.text import entities, split_sentences

    if "+" not in (ev.doc_id or ""):
        return [ev.text]
    names = entities(claim)

    def about(part: str) -> bool:
        return not names or bool(names & entities(part))

    def named(parts: list[str]) -> list[str]:
        return [t for t in parts if about(t)] or parts

    if CONTEXT_JOIN in ev.text:
        return named([t for t in ev.text.split(CONTEXT_JOIN) if t.strip()])
    parts = [t for p in passages for t in named([t for t in p.text.split(CONTEXT_JOIN) if t.strip()])]
    kept = [x for x in split_sentences(ev.text) if not parts or any(x in t for t in parts)]
    return [" ".join(kept)] if kept else []


def judged_row(j: Any) -> dict[str, Any]:
    """The fields a verdict adds to a ``verify`` row, named as in a ``score`` row's claims."""
    v = j.verdict
    return {"verdict": v.label, "verdict_rule": v.rule, "verdict_reason": v.reason,
            "compared": v.compared.to_json() if v.compared else None,
            "p_supported": None if j.p_supported is None else round(float(j.p_supported), 6)}
