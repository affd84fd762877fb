"""Verifier settings in one place, with the meaning of every threshold.

Stored with a model as ``verifier.json`` (``{"thresholds": {...}, "combiner": {...}}``);
:func:`load_config` reads it, falling back to :data:`DEFAULTS`. The shipped values were
calibrated on dev data, never on test data (``benchmarks/verifier.py --fit-combiner``; see
the model card): ``support`` and the combiner on WiCE dev, by cross-validation;
``contradict`` and ``strong`` on the held-out split of the NLI training sets.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from offline_eval.errors import ModelError
from offline_eval.nli.combiner import Combiner


@dataclass(frozen=True)
class VerifyConfig:
    """Thresholds of the verdict rules.

    Attributes:
        support: P(supported) (combiner output, or the weakest clause's P(entailment)
            without a combiner) at or above which a claim is ``supported``.
        contradict: P(contradiction) at or above which (and above its P(entailment)) the
            contradicting window of a passage about the claim's subject makes the claim
            ``contradicted``, checked before support, so coverage never outweighs it (see
            :mod:`offline_eval.nli.decide`).
        entail_floor: a claim is ``supported`` only when, besides the combiner, the model
            itself gives the whole claim P(entailment) >= this on its best window: word
            coverage may reject a claim the model entails, never accept one it does not.
            0 (the default for a ``verifier.json`` without the key) leaves the combiner alone.
        strong: when one passage entails with P >= ``strong`` and another contradicts with
            P >= ``strong``, the claim is ``inconclusive`` (shipped: the lowest value at
            which each of the two probabilities picks its label with precision >= 0.95 on
            held-out NLI pairs).
        conflict_shared_name: a contradicting passage counts towards ``inconclusive`` only
            if it names something the claim names (one of its capitalised words; always, for
            a claim with none). A passage that names nothing of the claim is about something
            else: NLI models readily "contradict" "A cactus is a member of the family
            Cactaceae" with a passage about nutria, and a claim its own article entails
            would otherwise be ``inconclusive``.
        top_k: how many evidence passages are read per claim (in the given order).
        split_claims: verify each clause of a long claim as well as the whole claim.
        min_clause_words: clauses shorter than this are merged into their neighbour.
        min_overlap: a cheap gate before NLI. A (window, claim-or-clause) pair whose window
            holds less than this share of the claim's content words is not sent to the
            model and counts as neutral (P(neutral) = 1). 0 sends every pair.
        max_windows: after the gate, at most this many windows per claim (or clause) go to
            the model: those holding the largest share of its content words, ties in passage
            order; the rest count as neutral. 0 sends every window that passes the gate. The
            shipped combiner was fitted on the two best windows by this share (see the model
            card), so 2 also matches what it was calibrated on.
        assemble_sentences: besides the contiguous windows, read one *assembled* window:
            up to this many sentences of one source document among the claim's evidence
            passages (grouped by ``doc_id``; evidence that is one context, an item's RAG
            references or ``verify``'s references, is one pool), picked greedily to cover the claim's content
            words, in reading order (support spread over sentences or passages of a
            document; see :mod:`offline_eval.nli.assemble`). It is one more
            candidate for ``max_windows``; the coverage features never read it. 0 turns
            it off.
        coverage_sentences: the coverage features (word overlap of the claim with the
            evidence: content words, entities, numbers; the combiner's lexical inputs) read
            small windows of this many consecutive evidence sentences, drawn from the same
            per-document sentence pools as the assembled window, never spanning two documents.
            0 reads the contiguous windows the model reads instead (the design before this
            setting existed; a ``verifier.json`` without the key gets 0, since its combiner
            was fitted that way). Smaller windows separate "every fact of the claim is stated
            close together" from "its words occur somewhere in the passage" (see the model
            card: WiCE dev, QAGS, SummaC).
        coverage_windows: how many such windows (the ones holding the largest share of the
            claim's content words, non-overlapping, best first) the coverage features read:
            ``cov_content``, ``cov_entity`` and ``cov_number`` are the best single window's,
            ``cov_all`` their union's.
        check_numbers: a claim the model finds supported, whose numbers (money, percentages,
            years, counts, measurements; see :mod:`offline_eval.audit.quantities`) are off
            beyond twice their tolerance from every number of the same kind in the top-k
            passages, is ``contradicted`` instead (NLI models are weak at numbers; the
            combiner leans on word overlap, which a changed number barely moves).
        check_names: a supported claim that names X where its deciding passage, in the same
            frame (the two words before and the word after), names Y and never X, is
            ``contradicted`` instead; so is one where a passage titled with another name of
            the claim (the passage about its subject) names Y after the same two words
            (see :mod:`offline_eval.nli.substitution`).
        check_negation: a supported or unverifiable claim that a sentence of a passage about
            its subject states with its polarity flipped (a near twin of the claim, one of
            the two with a single negation, the other with none; see
            :mod:`offline_eval.nli.negation`) is ``contradicted`` instead (small NLI models
            read such a pair by its shared words).
        align_names: the name rule also reads a word alignment of the claim with each
            passage sentence, so the frame may differ in articles and in words away from the
            slot ("was an American actress" against "was a British actress"); False keeps the
            letter-for-letter frame alone (the rule before 2026-12-07, but that neither reading
            takes one name spelt two ways, "Albuquerque" / "Albuqerque", for a swap).
    """

    support: float = 0.5
    contradict: float = 0.6
    entail_floor: float = 0.0
    strong: float = 0.9
    conflict_shared_name: bool = True
    top_k: int = 5
    split_claims: bool = True
    min_clause_words: int = 4
    min_overlap: float = 0.0
    max_windows: int = 0
    assemble_sentences: int = 6
    coverage_sentences: int = 3
    coverage_windows: int = 5
    check_numbers: bool = True
    check_names: bool = True
    check_negation: bool = True
    align_names: bool = True
    combiner: Combiner | None = None

    def with_overrides(self, **kw: Any) -> "VerifyConfig":
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


DEFAULTS = VerifyConfig()
CONFIG_FILE = "verifier.json"


def load_config(model_dir: str | Path | None, purpose: str = "claims") -> VerifyConfig:
    """Read ``model_dir/verifier.json`` if present, else the defaults.

    ``purpose="nuggets"`` reads the file's ``"nuggets"`` block when it has one (same
    form: thresholds and combiner), else the claims' decision. Nugget support asks whether
    a response *states* a reference fact, a recall question: the shipped block is the
    combiner fitted on WiCE dev, whose negatives are missing facts (see the model card).

    >>> load_config(None) == DEFAULTS
    True
    """
    if model_dir is None or not (Path(model_dir) / CONFIG_FILE).is_file():
        return DEFAULTS
    path = Path(model_dir) / CONFIG_FILE
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: unreadable ({exc})") from None
    if purpose not in ("claims", "nuggets"):
        raise ValueError(f"purpose must be 'claims' or 'nuggets', not {purpose!r}")
    names = {f.name for f in fields(VerifyConfig)} - {"combiner"}
    _known_keys(path, d, {"thresholds", "combiner", "nuggets"}, "")
    _known_keys(path, d.get("thresholds") or {}, names, "thresholds.")
    if d.get("nuggets") is not None:  # the whole file is checked, whichever block is read
        _known_keys(path, d["nuggets"], {"thresholds", "combiner"}, "nuggets.")
        _known_keys(path, d["nuggets"].get("thresholds") or {}, names, "nuggets.thresholds.")
    if purpose == "nuggets" and d.get("nuggets") is not None:
        d = d["nuggets"]
    kw = dict(d.get("thresholds") or {})
    comb = Combiner.from_json(d["combiner"]) if d.get("combiner") else None
    if comb is not None and "coverage_sentences" not in kw:
        kw["coverage_sentences"] = 0  # its combiner was fitted on coverage of the NLI windows
    return replace(DEFAULTS, **kw, combiner=comb)


def _known_keys(path: Path, d: Any, known: set[str], where: str) -> None:
    """A key the loader would not read is a typo or a newer file: refuse it, naming both."""
    if not isinstance(d, dict):
        raise ModelError(f"{path}: {where.rstrip('.') or 'the file'} must be a JSON object")
    unknown = sorted(set(d) - known)
    if unknown:
        raise ModelError(f"{path}: unknown key '{where}{unknown[0]}' (known: "
                         f"{', '.join(sorted(known))})")


def uncalibrated_warning(model_dir: str | Path) -> str | None:
    """The warning for a model folder without a fitted combiner (an imported checkpoint),
    or None. Its verdicts rest on the weakest clause's raw P(entailment) against
    ``support``, which on long multi-fact claims trails plain word overlap."""
    if load_config(model_dir).combiner is not None:
        return None
    return (f"{model_dir} has no calibrated combiner (verifier.json): verdicts use the raw "
            "P(entailment) of the weakest clause against 0.5; fit one on your labelled claims "
            "with `offline-eval models calibrate`")


def dump_config(cfg: VerifyConfig) -> dict[str, Any]:
    """The JSON form written to ``verifier.json``."""
    th = {f.name: getattr(cfg, f.name) for f in fields(VerifyConfig) if f.name != "combiner"}
    return {"thresholds": th, "combiner": cfg.combiner.to_json() if cfg.combiner else None}
