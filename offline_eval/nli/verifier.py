"""The verifier: NLI over chunked evidence windows, claim splitting, combiner, verdict rules.

It talks to a model only through the runner interface (``predict(pairs) -> probs`` with
``labels``), so it never knows whether torch or ONNX Runtime runs underneath.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from offline_eval.nli.assemble import Assembled, assemble_best, sentence_pool
from offline_eval.nli.chunking import approx_tokens, chunk_text
from offline_eval.nli.config import DEFAULTS, VerifyConfig
from offline_eval.nli.decide import apply_rules, contradiction_features, decide
from offline_eval.nli.evidence import (as_passages, cite_references, doc_ids, given_references,
                                       one_context)
from offline_eval.nli.features import coverage, pooled_windows
from offline_eval.text import content_words, split_clauses
from offline_eval.types import Evidence, Verdict

if TYPE_CHECKING:
    from offline_eval.runners.base import Runner

EvidenceLike = "str | Evidence"
_CACHE_MAX = 50_000  # remembered token counts / chunkings before the memo is cleared


@dataclass(frozen=True)
class ClaimScores:
    """Everything the verdict rules look at for one claim (kept for audit and fitting).

    Per passage (the top-k, then the assembled window when there is one): ``passage_probs``
    and ``passage_windows`` are the probabilities and the text of the window that best
    entails the whole claim; ``passage_con`` is the highest P(contradiction) of the claim or
    any clause, and ``con_probs`` / ``con_windows`` / ``con_units`` are the probabilities,
    the window and the claim or clause of that pair."""

    features: Mapping[str, float] = field(default_factory=dict)
    passage_probs: tuple[Mapping[str, float], ...] = ()
    passage_con: tuple[float, ...] = ()
    clauses: tuple[str, ...] = ()
    reason: str | None = None
    passage_features: tuple[Mapping[str, float], ...] = ()  # the features on each passage alone
    assembled: Assembled | None = None  # the assembled window, read as one more passage (last)
    passage_windows: tuple[str, ...] = ()
    con_probs: tuple[Mapping[str, float], ...] = ()
    con_windows: tuple[str, ...] = ()
    con_units: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judged:
    """A claim's verdict with the scores it came from (``p_supported``: the combiner's
    output, None when nothing was scored)."""

    verdict: Verdict
    scores: ClaimScores
    p_supported: float | None


def read_passages(evidence: Sequence[Any], top_k: int, s: "ClaimScores") -> list[Evidence]:
    """The passages a claim's scores index: the top-k, then the assembled window, which
    names the document it was drawn from (its title, url and doc_id when it has one)."""
    ev = as_passages(evidence, top_k)
    if s.assembled is not None:
        a = s.assembled
        first = next((e for e in ev if e.passage_id in a.sources), None)
        docs = list(dict.fromkeys(d for e in ev if e.passage_id in a.sources
                                  for d in (doc_ids(e.doc_id) or [e.passage_id])))
        ev.append(Evidence(passage_id="assembled:" + "+".join(a.sources), text=a.text,
                           doc_id="+".join(docs) if docs else None,
                           title=(first.title if first is not None and first.title else
                                  f"{a.sentences} sentence(s) assembled from {', '.join(docs) or 'the evidence'}"),
                           url=first.url if first is not None else None,
                           found_by=first.found_by if first is not None else None,
                           why=first.why if first is not None else None))
    return ev


class Verifier:
    """Decide whether evidence supports claims.

    Args:
        runner: an NLI runner (``labels`` must include "entailment").
        config: thresholds and the combiner (see :class:`VerifyConfig`).
        splitter: ``claim -> [atomic facts]`` for ``split_claims``; default: the regex clause
            split :func:`~offline_eval.text.split_clauses`. Pass a claim decomposer (e.g.
            ``decomposer_splitter()``) to verify its atomic facts instead.
    """

    def __init__(self, runner: Runner, config: VerifyConfig = DEFAULTS,
                 splitter: Callable[[str], Sequence[str]] | None = None) -> None:
        self.runner, self.config = runner, config
        self.splitter = splitter
        self.labels = tuple(runner.labels)
        self._ent = self.labels.index("entailment")
        self._con = self.labels.index("contradiction") if "contradiction" in self.labels else None
        # what a gated pair (too little overlap to be worth a forward pass) counts as
        others = [i for i, l in enumerate(self.labels) if i not in (self._ent, self._con)]
        self._neutral = np.zeros(len(self.labels))
        self._neutral[others[0] if others else self._ent] = 1.0 if others else 0.0
        self._count_raw = getattr(runner, "token_lengths", approx_tokens)
        self._lengths: dict[str, int] = {}  # token counts: passages recur across claims
        self._chunks: dict[tuple[str, int], list[str]] = {}
        self._max_len = int(getattr(runner, "max_length", 512))
        overhead = getattr(runner, "pair_overhead", None)
        self._overhead = int(overhead()) if callable(overhead) else 3

    def _count(self, texts: Sequence[str]) -> list[int]:
        """Token counts, remembered per text (bounded: the memo is cleared when full, before
        the texts it lacks are counted, so every text asked for is in it)."""
        if len(self._lengths) > _CACHE_MAX:
            self._lengths.clear()
        todo = list(dict.fromkeys(t for t in texts if t not in self._lengths))
        if todo:
            self._lengths.update(zip(todo, self._count_raw(todo)))
        return [self._lengths[t] for t in texts]

    def _windows(self, passage: str, budget: int) -> list[str]:
        """:func:`chunk_text` of a passage, remembered per (passage, budget) (bounded)."""
        key = (passage, budget)
        if key not in self._chunks:
            if len(self._chunks) > _CACHE_MAX:
                self._chunks.clear()
            self._chunks[key] = chunk_text(passage, budget, self._count)
        return self._chunks[key]

    def classify_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """Label probabilities for (premise, hypothesis) pairs, as dicts."""
        probs = self.runner.predict(list(pairs))
        return [{l: float(p[j]) for j, l in enumerate(self.labels)} for p in probs]

    def score_claims(self, items: Sequence[tuple[str, Sequence[Any]]],
                     pools: Sequence[Sequence[Any] | None] | None = None) -> list[ClaimScores]:
        """NLI over all (window, unit) pairs of all claims in one runner call.

        ``pools`` (one per item, or None for the default) are the sentences the assembled
        window may draw from (str, or ``(passage id, sentence)``), read as one document. By
        default, evidence given as text or ``{"id", "text"}`` objects is one pool (one
        context, whatever its ids), and retrieved :class:`~offline_eval.types.Evidence`
        passages make a pool per source document (``doc_id``); the pool whose sentences
        cover the most claim words gives the window.
        """
        cfg = self.config
        jobs: list[tuple[int, int, int, int, str, str]] = []
        gated: list[tuple[int, int, int, int]] = []
        plans: list[tuple[list[str], list[list[str]], Assembled | None, list[str]] | str] = []
        for ci, (claim, evidence) in enumerate(items):
            claim = (claim or "").strip()
            evs = as_passages(evidence, cfg.top_k)
            passages = [e.text for e in evs]
            if not claim:
                plans.append("empty claim")
                continue
            if not any(p.strip() for p in passages):
                plans.append("no evidence")
                continue
            units = [claim]
            if cfg.split_claims:
                clauses = [c for c in (self.splitter(claim) if self.splitter else
                                       split_clauses(claim, cfg.min_clause_words)) if c.strip()]
                units += clauses if len(clauses) > 1 else []
            budget = max(32, self._max_len - self._overhead - max(self._count(units)) - 2)
            windows = [self._windows(p, budget) for p in passages]
            assembled, groups = None, []
            if cfg.assemble_sentences > 0 or cfg.coverage_sentences > 0:
                if pools is not None and pools[ci] is not None:
                    groups = [[x if isinstance(x, tuple) else ("pool", str(x)) for x in pools[ci]]]
                elif one_context(evidence):
                    # evidence given as text or {"id", "text"} objects is one context (as an
                    # item's references are in RAG mode): one pool across its documents;
                    # retrieved passages (Evidence, or an id whose first object names its
                    # doc_id, as as_passages reads it) are not
                    groups = [sentence_pool([(e.passage_id, e.text) for e in evs])]
                else:  # retrieved passages: one pool per source document, in the order they came
                    docs: dict[str, list[tuple[str, str]]] = {}
                    for e in evs:
                        docs.setdefault(e.doc_id or e.passage_id, []).append((e.passage_id, e.text))
                    groups = [sentence_pool(ps) for ps in docs.values()]
            covered = (pooled_windows(claim, [[t for _, t in g] for g in groups],
                                      cfg.coverage_windows, cfg.coverage_sentences)
                       if cfg.coverage_sentences > 0 else [])
            if cfg.assemble_sentences > 0:
                assembled = assemble_best(claim, groups, budget, self._count, cfg.assemble_sentences)
                if assembled is not None and any(assembled.text == w for ws in windows for w in ws):
                    assembled = None  # one contiguous window already holds it
                if assembled is not None:
                    windows.append([assembled.text])
            plans.append((units, windows, assembled, covered))
            for ui, u in enumerate(units):
                keep = self._select_windows(u, windows)
                for pi, ws in enumerate(windows):
                    for wi, w in enumerate(ws):
                        if (pi, wi) in keep:
                            jobs.append((ci, ui, pi, wi, w, u))
                        else:
                            gated.append((ci, ui, pi, wi))
        probs = self.runner.predict([(w, u) for *_, w, u in jobs]) if jobs else np.zeros((0, len(self.labels)))
        by_claim: dict[int, list[tuple[int, int, int, np.ndarray]]] = {}
        for ci, ui, pi, wi in gated:
            by_claim.setdefault(ci, []).append((ui, pi, wi, self._neutral))
        for (ci, ui, pi, wi, _, _), p in zip(jobs, probs):
            by_claim.setdefault(ci, []).append((ui, pi, wi, p))
        return [self._aggregate(items[ci][0].strip(), plan, by_claim.get(ci, []))
                if not isinstance(plan, str) else ClaimScores(reason=plan)
                for ci, plan in enumerate(plans)]

    def _select_windows(self, unit: str, windows: list[list[str]]) -> set[tuple[int, int]]:
        """The (passage, window) indices worth a forward pass for ``unit``: the overlap gate,
        then the ``max_windows`` with the most of its content words (ties: reading order)."""
        cfg = self.config
        every = [(pi, wi) for pi, ws in enumerate(windows) for wi in range(len(ws))]
        if cfg.min_overlap <= 0 and (cfg.max_windows <= 0 or len(every) <= cfg.max_windows):
            return set(every)
        need = content_words(unit)
        if not need:
            return set(every[: cfg.max_windows] if cfg.max_windows > 0 else every)
        hits = {(pi, wi): len(need & content_words(windows[pi][wi])) for pi, wi in every}
        passing = [k for k in every if hits[k] >= cfg.min_overlap * len(need)]
        if cfg.max_windows > 0:
            passing = sorted(passing, key=lambda k: (-hits[k], k))[: cfg.max_windows]
        return set(passing)

    def _aggregate(self, claim: str, plan: tuple[list[str], list[list[str]], Assembled | None, list[str]],
                   rows: list[tuple[int, int, int, np.ndarray]]) -> ClaimScores:
        units, windows, assembled, covered = plan
        n_p = len(windows)
        contiguous = windows[:-1] if assembled is not None else windows
        ent = np.zeros((len(units), n_p))
        con = np.full(n_p, -1.0)
        zero = np.zeros(len(self.labels))
        best: list[np.ndarray] = [zero] * n_p
        best_w = [""] * n_p
        con_p: list[np.ndarray] = [zero] * n_p
        con_w, con_u = [""] * n_p, [""] * n_p
        for ui, pi, wi, p in rows:
            if p[self._ent] >= ent[ui, pi]:
                ent[ui, pi] = p[self._ent]
                if ui == 0:
                    best[pi], best_w[pi] = p, windows[pi][wi]
            c = float(p[self._con]) if self._con is not None else 0.0
            if c > con[pi]:
                con[pi], con_p[pi], con_w[pi], con_u[pi] = c, p, windows[pi][wi], units[ui]
        con = np.maximum(con, 0.0)
        feats = {"ent_full": float(ent[0].max()),
                 "ent_split": float(ent[1:].max(axis=1).min()) if len(units) > 1 else float(ent[0].max()),
                 "con_max": float(con.max())}
        # coverage reads the small sentence windows (``coverage_sentences``), else the
        # contiguous windows; never the assembled window, which covers the claim's words by
        # construction and so says little about support
        feats.update(coverage(claim, covered or [w for ws in contiguous for w in ws]))
        per = tuple({"ent_full": float(ent[0, i]),
                     "ent_split": float(ent[1:, i].min()) if len(units) > 1 else float(ent[0, i]),
                     "con_max": float(con[i]), **coverage(claim, windows[i])} for i in range(n_p))
        feats.update(contradiction_features(per, con_p, self._ent, self._con))
        per = tuple({**f, **contradiction_features([f], [con_p[i]], self._ent, self._con)}
                    for i, f in enumerate(per))
        as_dict = lambda b: {l: float(b[j]) for j, l in enumerate(self.labels)}  # noqa: E731
        return ClaimScores(feats, tuple(as_dict(b) for b in best), tuple(float(c) for c in con),
                           tuple(units[1:]), None, per, assembled, tuple(best_w),
                           tuple(as_dict(b) for b in con_p), tuple(con_w), tuple(con_u))

    def p_supported(self, s: ClaimScores) -> float:
        """The combiner's P(supported), or the weakest clause's P(entailment) without one."""
        c = self.config.combiner
        return c.predict_one(s.features) if c else s.features["ent_split"]

    def decide(self, s: ClaimScores, evidence: Sequence[Any], claim: str = "") -> Verdict:
        """The NLI decision alone, before the number and name rules (see :mod:`offline_eval.nli.decide`)."""
        return decide(s, read_passages(evidence, self.config.top_k, s), self.config,
                      self.p_supported(s), claim)

    def judge(self, items: Sequence[tuple[str, Sequence[Any]]],
              pools: Sequence[Sequence[Any] | None] | None = None) -> list[Judged]:
        """The one verdict path: scores, the decision, then the number and name rules, for
        ``(claim, evidence)`` pairs (evidence: str, ``{"id", "text"}`` or Evidence; see
        :mod:`offline_eval.nli.evidence`). Every command and stage that needs a claim's
        verdict comes here."""
        return [self.finish(claim, ev, s) for s, (claim, ev) in zip(self.score_claims(items, pools), items)]

    def finish(self, claim: str, evidence: Sequence[Any], s: ClaimScores) -> Judged:
        """The verdict of one scored claim: the decision, then the rules."""
        if s.reason:
            return Judged(Verdict("unverifiable", reason=s.reason, rule="input"), s, None)
        p = self.p_supported(s)
        passages = read_passages(evidence, self.config.top_k, s)
        v = decide(s, passages, self.config, p, claim or "")
        v = apply_rules(claim or "", s, passages, v, self.config)
        if v.evidence is not None and "+" in (v.evidence.doc_id or ""):
            refs = given_references(evidence)  # {"id", "text"} objects: one context
            if refs:
                v = replace(v, evidence=cite_references(v.evidence, refs))
        return Judged(v, s, p)

    def verify_many(self, items: Sequence[tuple[str, Sequence[Any]]]) -> list[Verdict]:
        """Verdicts for ``(claim, evidence)`` pairs (see :meth:`judge`)."""
        return [j.verdict for j in self.judge(items)]

    def verify(self, claim: str, evidence: Sequence[Any]) -> Verdict:
        """One claim against its evidence passages (best first)."""
        return self.verify_many([(claim, evidence)])[0]


def decomposer_splitter(name: str = "syntactic") -> Callable[[str], list[str]]:
    """A ``splitter`` that verifies a claim's atomic facts from a claim decomposer."""
    from offline_eval.decomposition.base import decompose_sentence, get_decomposer

    decomposer = get_decomposer(name)
    return lambda claim: list(decompose_sentence(decomposer, "", claim).claims)


def load_nli(model: str | Any = None, backend: str | None = None, device: str | None = None,
             batch_size: int = 32, purpose: str = "claims") -> Verifier:
    """The one way an NLI model is loaded: resolved by name or folder (default: the embedded
    one), its manifest checked, its runner shared by every stage of the process with the same
    arguments (:func:`~offline_eval.runners.load.shared_runner`), and its ``verifier.json``
    read for ``purpose`` (``claims``, or ``nuggets`` for the nuggets block)."""
    from offline_eval.modelstore import resolve_model
    from offline_eval.nli.config import load_config
    from offline_eval.runners.load import shared_runner

    path = resolve_model(model)
    return Verifier(shared_runner(path, backend, device, batch_size), load_config(path, purpose))
