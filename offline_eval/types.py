"""The data model: frozen dataclasses that flow through the pipeline.

This module imports nothing from the package. Stages never mutate a record; they
return a new one with :func:`dataclasses.replace`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Literal, Mapping, Sequence

Importance = Literal["vital", "okay", "less-important"]
IMPORTANCE_LABELS: tuple[str, ...] = ("vital", "okay", "less-important")

VerdictLabel = Literal["supported", "contradicted", "unverifiable", "inconclusive"]
VERDICT_LABELS: tuple[str, ...] = ("supported", "contradicted", "unverifiable", "inconclusive")

NuggetSupport = Literal["support", "partial_support", "not_support"]
NUGGET_SUPPORT_LABELS: tuple[str, ...] = ("support", "partial_support", "not_support")

SentenceKind = Literal["claim", "deflection", "non_claim"]


@dataclass(frozen=True)
class Reference:
    """A source text attached to an item (RAG mode) or a corpus passage."""

    id: str
    text: str
    url: str | None = None
    title: str | None = None


@dataclass(frozen=True)
class Item:
    """One input row: a query and the response to score. ``warnings`` are what reading it
    found (a response cut at its size limit, empty references); rows carry them."""

    id: str
    query: str
    response: str
    date: str | None = None
    references: tuple[Reference, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sentence:
    """A unit of the response with character offsets into it."""

    text: str
    start: int
    end: int
    kind: SentenceKind = "claim"
    reason: str | None = None


@dataclass(frozen=True)
class Evidence:
    """A passage that was shown to the verifier, with enough to cite it.

    ``found_by`` says why retrieval chose it: ``subject`` (the claim's linked subject's
    document), ``topic`` (the query's topic's document) or ``bm25``; ``why`` says it in
    words (the link, the BM25 rank, or why no subject was linked). Both are None for
    evidence given with the input."""

    passage_id: str
    text: str
    score: float = 0.0
    doc_id: str | None = None
    title: str | None = None
    url: str | None = None
    start: int | None = None
    end: int | None = None
    found_by: str | None = None
    why: str | None = None


@dataclass(frozen=True)
class Compared:
    """What a rule compared: the claim's value and the evidence's values of the same kind.

    ``kind`` is ``number`` (a quantity off beyond tolerance), ``name`` (another name in
    the claim's slot) or ``negation`` (the claim, and the evidence sentence that states it
    with its polarity flipped)."""

    kind: str
    claim: str
    evidence: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The row's ``compared`` field."""
        return {"kind": self.kind, "claim": self.claim, "evidence": list(self.evidence)}


@dataclass(frozen=True)
class Verdict:
    """The verifier's decision for one claim.

    ``probs`` maps NLI labels (entailment/neutral/contradiction) to the
    probabilities on the deciding window; ``evidence`` is that window, citing its passage
    and document. ``rule`` names what decided: ``nli`` (the model on that window),
    ``combiner`` (the calibrated combiner, with the model agreeing), ``numbers`` or
    ``names`` (a rule that overrode the model; ``reason`` gives both values compared),
    ``input`` (nothing to score), or None (a verdict read from input). ``compared`` holds
    the values a ``numbers`` or ``names`` rule compared.
    """

    label: VerdictLabel
    probs: Mapping[str, float] = field(default_factory=dict)
    evidence: Evidence | None = None
    reason: str | None = None
    rule: str | None = None
    compared: Compared | None = None

    @property
    def supported(self) -> bool | None:
        """True/False for decided verdicts, None when undecided (inconclusive)."""
        if self.label == "inconclusive":
            return None
        return self.label == "supported"


@dataclass(frozen=True)
class Claim:
    """An atomic claim. ``judgment`` is the support decision used by metrics:
    True (supported), False (not supported) or None (undecided)."""

    id: str
    text: str
    sentence_index: int = 0
    sentence: str | None = None
    importance: Importance | None = None
    importance_score: float | None = None
    rank: int | None = None
    verdict: Verdict | None = None
    judgment: bool | None = None
    evidence: tuple[Evidence, ...] = ()

    def with_verdict(self, verdict: Verdict) -> "Claim":
        """Attach a verdict and derive the metric judgment from it."""
        return replace(self, verdict=verdict, judgment=verdict.supported)


@dataclass(frozen=True)
class Nugget:
    """A fact the answer should contain, with its importance and its support
    by the response (AutoNuggetizer's three grades)."""

    id: str
    text: str
    importance: Importance | None = None
    support: NuggetSupport | None = None
    source_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricValue:
    """A metric with its value, or None and the reason it is undefined.

    >>> MetricValue(None, "no decided claims").to_json()
    {'value': None, 'reason': 'no decided claims'}
    """

    value: float | None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "reason": self.reason}


@dataclass(frozen=True)
class ClaimAudit:
    """The guideline audit of one claim.

    ``verdict``: correct | incorrect | partially_correct | inconclusive (the evidence
    conflicts) | unverifiable (no evidence decides it). ``magnitude`` (minor | major) is set
    for non-correct claims only. ``compared``: the values the number rule compared when it
    set the verdict.
    """

    claim_id: str
    verdict: str
    core: bool
    magnitude: str | None = None
    timeliness: str = "undated"
    reasons: tuple[str, ...] = ()
    compared: Compared | None = None


@dataclass(frozen=True)
class ResponseAudit:
    """The guideline audit of one response."""

    deflection: bool
    relevance: str
    timeliness: str
    verdict: str | None
    reasons: tuple[str, ...] = ()
    claims: tuple[ClaimAudit, ...] = ()


@dataclass(frozen=True)
class Fact:
    """A fact of the sources, for comprehensiveness: its text, the sources that hold it,
    and its importance for the query (``vital`` | ``okay``)."""

    text: str
    source_ids: tuple[str, ...]
    importance: str


@dataclass(frozen=True)
class Coverage:
    """Comprehensiveness of a response: the importance-weighted share of the sources'
    query-relevant facts it covers (``score`` is None, with a reason, when there are none)."""

    method: str
    score: float | None
    covered: tuple[Fact, ...] = ()
    missing: tuple[Fact, ...] = ()
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResponseResult:
    """The record that flows through the pipeline for one item.

    ``notes`` holds what the split and decompose stages say about the text (``{"split":
    {"reason", "warnings"}, "decompose": {"warnings"}}``); ``audit`` is the guideline audit
    (:class:`ResponseAudit`), the ``audit`` key of an output row.
    """

    item: Item
    sentences: tuple[Sentence, ...] = ()
    claims: tuple[Claim, ...] = ()
    nuggets: tuple[Nugget, ...] = ()
    deflection: bool = False
    order: tuple[str, ...] = ()
    n2s: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    metrics: Mapping[str, MetricValue] = field(default_factory=dict)
    notes: Mapping[str, Any] = field(default_factory=dict)
    audit: ResponseAudit | None = None
    comprehensiveness: Coverage | None = None
    error: str | None = None

    @property
    def id(self) -> str:
        return self.item.id


@dataclass(frozen=True)
class AggregateValue:
    """A mean over responses with its bootstrap 95% confidence interval."""

    mean: float | None
    low: float | None
    high: float | None
    n: int
    reason: str | None = None


@dataclass(frozen=True)
class VerdictCounts:
    """How many answers got each response verdict (correct, partially correct, incorrect,
    inconclusive, unverifiable, deflection, no claims) and how many claims each claim
    verdict, every name present (zeros included)."""

    responses: Mapping[str, int]
    claims: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {"responses": dict(self.responses), "claims": dict(self.claims)}


@dataclass(frozen=True, eq=False)
class RunSummary(Mapping[str, Any]):
    """What a ``score`` run adds up to; its JSON (:meth:`to_json`) is ``--summary``.

    Attributes:
        n_responses: rows scored (failed rows not included).
        abstention_ratio: the share of deflections (None without rows).
        metrics: per metric ``{"mean", "ci95", "n", ...}`` (bootstrap 95% CI).
        n_failed: rows that failed (error rows).
        verdicts: the audit added up (:class:`VerdictCounts`).
        worst: the worst answers, most severe first, each with its first non-correct claims.
        warnings: rows scored with a warning: ``{"n_rows", "ids", "messages"}``.
        groups: per ``group_by`` value, that group's ``n_responses``, ``abstention_ratio``
            and ``metrics`` (None without ``group_by``).
        comparisons: paired tests between the groups (None with fewer than two).
        run: the run record (flags, models, versions), when a file run wrote one.

    It reads as a mapping too (``summary["verdicts"]["responses"]``), the same as its JSON,
    and equals a mapping with the same JSON.
    """

    n_responses: int
    abstention_ratio: float | None
    metrics: Mapping[str, Any]
    n_failed: int
    verdicts: VerdictCounts
    worst: Sequence[Mapping[str, Any]]
    warnings: Mapping[str, Any]
    groups: Mapping[str, Any] | None = None
    comparisons: Sequence[Mapping[str, Any]] | None = None
    run: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``--summary`` JSON, keys in this order; absent parts left out."""
        out: dict[str, Any] = {"n_responses": self.n_responses,
                               "abstention_ratio": self.abstention_ratio,
                               "metrics": self.metrics, "n_failed": self.n_failed,
                               "verdicts": self.verdicts.to_json(), "worst": list(self.worst),
                               "warnings": self.warnings}
        for name in ("groups", "comparisons", "run"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())
