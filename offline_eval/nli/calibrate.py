"""Calibrate a verifier on labelled claims: fit the combiner and the thresholds by CV.

A checkpoint you import (a DeBERTa NLI model, say) arrives without a combiner, so its
verdicts rest on the weakest clause's raw P(entailment) against a 0.5 threshold, and no
dev set has told it how much to trust the evidence features. ``offline-eval models
calibrate MODEL DEV.jsonl`` fits, on your own labelled claims, the same things the
embedded model's recipe fits on WiCE dev (``benchmarks/verifier.py --fit-combiner`` calls
:func:`fit_combiner` too):

* the **combiner**: an L2-regularised logistic regression over the NLI features and the
  evidence-coverage features (:data:`~offline_eval.nli.combiner.FEATURE_NAMES`), its
  L2 strength picked from :data:`L2_GRID` by stratified 5-fold CV;
* ``support``: the P(supported) threshold maximising balanced accuracy on the dev claims;
* ``contradict``, when the dev set holds enough contradicted claims: the 0.05-grid
  P(contradiction) threshold maximising balanced accuracy of contradicted vs the rest.

It reports the CV balanced accuracy beside three baselines on the same folds (word
overlap: the share of the claim's content words in its best coverage window, with a CV
threshold; a logistic regression on the coverage features alone; the NLI features alone),
so you see what the model adds to word overlap on your data before you trust it, and the
balanced accuracy the model's current config had on the same claims.

Dev rows: ``{"id", "claim", "references": [str, ...], "label"}`` (``evidence``, the older name, is read too) with ``label`` one of
:data:`LABELS` (or ``true`` / ``false``); ``supported`` is the positive class.

>>> y = np.array([0, 0, 0, 1, 1, 1, 0, 1])
>>> [(len(f), int(y[f].sum())) for f in folds(y, k=2, seed=0)]  # (claims, supported) per fold
[(4, 2), (4, 2)]
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from offline_eval.errors import InputError
from offline_eval.options import check, option
from offline_eval.runners.base import BACKENDS, DEVICES
from offline_eval.nli.combiner import (FEATURE_NAMES, Combiner, balanced_accuracy, best_threshold,
                                       fit_logistic, grid_threshold)

if TYPE_CHECKING:
    from offline_eval.nli.verifier import Verifier

SUPPORTED = ("supported", "entailment")
CONTRADICTED = ("contradicted", "contradiction", "refuted")
OTHER = ("partially_supported", "not_supported", "unverifiable", "neutral", "not_entailment")
LABELS = SUPPORTED + CONTRADICTED + OTHER
L2_GRID = (0.1, 1.0, 10.0)
SEEDS = range(13, 33)  # the fold assignments of the repeated CV (13: the single split)
MIN_CLASS = 10  # fewest claims of each class a fit accepts
COVERAGE = slice(3, None)  # FEATURE_NAMES[3:]: the evidence-coverage features
NLI = slice(0, 3)  # ent_full, ent_split, con_max


def folds(y: np.ndarray, k: int = 5, seed: int = 13) -> list[np.ndarray]:
    """``k`` test folds, stratified by class, from a seeded permutation of each class."""
    rng = np.random.default_rng(seed)
    idx = [rng.permutation(np.where(y == c)[0]) for c in (0, 1)]
    return [np.concatenate([i[f::k] for i in idx]) for f in range(k)]


def cv_threshold(score: np.ndarray, y: np.ndarray, seed: int = 13,
                 pick: Callable[[np.ndarray, np.ndarray], float] = best_threshold) -> float:
    """Balanced accuracy of ``score >= t``, ``t`` chosen by ``pick`` (``best_threshold``, or
    ``grid_threshold`` for the 0.05 grid) on the training folds only."""
    pred = np.zeros(len(y), dtype=int)
    for test in folds(y, seed=seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        pred[test] = score[test] >= pick(score[train], y[train])
    return balanced_accuracy(y, pred)


def cv_combiner(x: np.ndarray, y: np.ndarray, l2: float = 1.0, seed: int = 13,
                features: Sequence[str] | None = None) -> float:
    """Balanced accuracy of a logistic regression and its threshold, both fitted on the
    training folds only (nested: the test fold never sets either)."""
    names = tuple(features) if features is not None else FEATURE_NAMES[: x.shape[1]]
    pred = np.zeros(len(y), dtype=int)
    for test in folds(y, seed=seed):
        train = np.setdiff1d(np.arange(len(y)), test)
        c = fit_logistic(x[train], y[train], l2=l2, features=names)
        t = best_threshold(c.predict(x[train]), y[train])
        pred[test] = c.predict(x[test]) >= t
    return balanced_accuracy(y, pred)


def cv_combiner_repeats(x: np.ndarray, y: np.ndarray, seeds: Sequence[int] = SEEDS,
                        l2: float = 1.0) -> tuple[float, float]:
    """Mean and sd of :func:`cv_combiner` over fold assignments: with a few hundred
    claims one split moves the balanced accuracy by a point or two."""
    got = [cv_combiner(x, y, l2=l2, seed=s) for s in seeds]
    return float(np.mean(got)), float(np.std(got))


def fit_combiner(x: np.ndarray, y: np.ndarray, l2s: Sequence[float] = L2_GRID,
                 features: Sequence[str] = FEATURE_NAMES
                 ) -> tuple[Combiner, float, float, dict[float, float]]:
    """The combiner fitted on all rows with the L2 strength of best CV balanced accuracy
    (ties: the first of ``l2s``), the ``support`` threshold maximising balanced accuracy
    on those rows, that L2 strength, and the CV score of every L2 tried."""
    scores = {l2: cv_combiner(x, y, l2, features=features) for l2 in l2s}
    l2 = max(l2s, key=lambda k: scores[k])
    comb = fit_logistic(x, y, l2=l2, features=features)
    return comb, best_threshold(comb.predict(x), y), l2, scores


@dataclass(frozen=True)
class DevClaim:
    """One labelled dev claim."""

    id: str
    claim: str
    evidence: tuple[str, ...]
    supported: bool
    contradicted: bool


def read_dev(path: str | Path) -> list[DevClaim]:
    """Labelled claims from JSONL; InputError names the file, line and field."""
    from offline_eval.io.jsonl import ReferencesField, UniqueIds, get_field, read_jsonl

    out, unique, refs = [], UniqueIds(path), ReferencesField(path)
    for line, row in read_jsonl(path):
        rid = unique(get_field(row, "id", (str, int), path=str(path), line=line), line)
        claim = get_field(row, "claim", str, path=str(path), line=line)
        ev = get_field(row, refs.key(row, line), list, path=str(path), line=line, items=str)
        label = get_field(row, "label", (str, bool), path=str(path), line=line)
        if isinstance(label, str):
            label = label.strip().lower()
            if label not in LABELS:
                raise InputError(f"unknown label {row['label']!r}; expected one of {', '.join(LABELS)}, "
                                 "true or false", path=str(path), line=line, field="label")
        sup = label is True or label in SUPPORTED
        out.append(DevClaim(rid, claim, tuple(ev), sup, label in CONTRADICTED))
    if not out:
        raise InputError("no labelled claims", path=str(path))
    refs.note()
    return out


@dataclass
class Calibration:
    """What :func:`calibrate` fitted and measured. ``config`` is the verifier config to
    store; ``report`` the figures (also stored in the combiner's ``meta``)."""

    config: Any
    report: dict[str, Any] = field(default_factory=dict)


def calibrate(verifier: Verifier, dev: Sequence[DevClaim], source: str = "dev",
              backend: str = "") -> Calibration:
    """Score ``dev`` with ``verifier`` (its config's gate, windows and splitting) and fit
    the combiner and thresholds (see the module docstring).

    Claims with no scorable text (empty claim or evidence) are left out of the fit and
    counted in the report: the verifier calls them ``unverifiable`` whatever it learns.

    Raises:
        InputError: fewer than :data:`MIN_CLASS` supported or unsupported claims remain.
    """
    scores = verifier.score_claims([(d.claim, list(d.evidence)) for d in dev])
    keep = [i for i, s in enumerate(scores) if not s.reason]
    y = np.array([int(dev[i].supported) for i in keep])
    n_pos, n_neg = int(y.sum()), int(len(y) - y.sum())
    if n_pos < MIN_CLASS or n_neg < MIN_CLASS:
        raise InputError(f"calibration needs at least {MIN_CLASS} supported and {MIN_CLASS} other "
                         f"claims with text and evidence; got {n_pos} and {n_neg}", path=source)
    x = np.array([[scores[i].features[k] for k in FEATURE_NAMES] for i in keep])
    # what the verifier's config did before calibration (not cross-validated: it was not
    # fitted on these claims, unless they were its own dev set)
    before = balanced_accuracy(y, [int(verifier.p_supported(scores[i]) >= verifier.config.support)
                                   for i in keep])
    comb, support, l2, by_l2 = fit_combiner(x, y)
    mean, sd = cv_combiner_repeats(x, y, l2=l2)
    report: dict[str, Any] = {
        "claims": len(dev), "left_out": len(dev) - len(keep), "supported": n_pos, "other": n_neg,
        "before": round(before, 4), "l2": l2, "support": round(support, 4),
        "cv_balanced_accuracy": round(by_l2[l2], 4),
        "cv_balanced_accuracy_repeats": [round(mean, 4), round(sd, 4)],
        "baselines": {
            "word_overlap": round(cv_threshold(x[:, FEATURE_NAMES.index("cov_content")], y), 4),
            "coverage_only": round(cv_combiner(x[:, COVERAGE], y, features=FEATURE_NAMES[COVERAGE]), 4),
            "nli_only": round(cv_combiner(x[:, NLI], y, features=FEATURE_NAMES[NLI]), 4)},
    }
    overrides: dict[str, Any] = {"support": round(support, 4)}
    yc = np.array([int(dev[i].contradicted) for i in keep])
    if MIN_CLASS <= yc.sum() <= len(yc) - MIN_CLASS:
        pc = x[:, FEATURE_NAMES.index("con_max")]
        overrides["contradict"] = grid_threshold(pc, yc)
        report["contradict"] = overrides["contradict"]
        report["contradict_cv_balanced_accuracy"] = round(cv_threshold(pc, yc, pick=grid_threshold), 4)
    digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:12] if Path(source).is_file() else ""
    meta = {"fitted_on": f"{Path(source).name} ({len(keep)} claims{', sha256 ' + digest if digest else ''})"
                         + (f", backend {backend}" if backend else ""),
            **{k: report[k] for k in ("l2", "cv_balanced_accuracy", "cv_balanced_accuracy_repeats",
                                      "baselines")}}
    comb = Combiner(comb.features, comb.coef, comb.bias, comb.mean, comb.scale, meta)
    return Calibration(verifier.config.with_overrides(combiner=comb, **overrides), report)


def format_report(report: Mapping[str, Any]) -> str:
    """The calibration figures as a few lines of text."""
    b = report["baselines"]
    m, s = report["cv_balanced_accuracy_repeats"]
    lines = [f"claims: {report['claims']} ({report['supported']} supported, {report['other']} other, "
             f"{report['left_out']} without text or evidence left out)",
             f"combiner: l2 {report['l2']:g}, support threshold {report['support']}",
             f"balanced accuracy of the model's current config on these claims: {report['before']:.3f}",
             "balanced accuracy, 5-fold CV (threshold and fit on the training folds):",
             f"  combiner        {report['cv_balanced_accuracy']:.3f}  ({m:.3f} +- {s:.3f} over "
             f"{len(SEEDS)} fold assignments)",
             f"  word overlap    {b['word_overlap']:.3f}",
             f"  coverage only   {b['coverage_only']:.3f}",
             f"  NLI only        {b['nli_only']:.3f}"]
    if "contradict" in report:
        lines.append(f"contradict threshold {report['contradict']} (CV balanced accuracy of "
                     f"contradicted vs the rest {report['contradict_cv_balanced_accuracy']:.3f})")
    return "\n".join(lines)


@dataclass(frozen=True)
class CalibrateOptions:
    """Fit the verifier's combiner (NLI + evidence-coverage features) and its support
    threshold by 5-fold CV on labelled claims, report the CV balanced accuracy next to word
    overlap, coverage only and NLI only, and store them in the model's verifier.json (the
    manifest is rewritten). Rows: {"id", "claim", "references": [str, ...], "label"}; label
    supported | partially_supported | not_supported | unverifiable | contradicted (or true /
    false). With 10+ contradicted claims the contradict threshold is fitted too. Shipped
    models are read-only: import a copy first (offline-eval models import models/nli-minilm
    --name mine)."""

    backend: str | None = option(None, "runtime to calibrate on (default: the model's default; "
                                 "calibrate on the one you score with)", choices=BACKENDS)
    device: str | None = option(None, "default: best available", choices=DEVICES)
    batch_size: int = option(32, "pairs per forward pass", positive=True)
    min_overlap: float | None = option(None, "set the overlap gate before fitting (default: "
                                       "the model's)", type=float, minimum=0.0)
    max_windows: int | None = option(None, "set the windows per claim before fitting (default: "
                                     "the model's; 0 = all)", type=int, minimum=0)
    coverage_sentences: int | None = option(None, "sentences per window of the coverage "
                                            "features before fitting (default: the model's; "
                                            "0 = the windows the model reads)", type=int,
                                            minimum=0)
    coverage_windows: int | None = option(None, "windows the coverage features read per claim "
                                          "(default: the model's)", type=int, minimum=1)
    dry_run: bool = option(False, "report only; write nothing")

    def __post_init__(self) -> None:
        if self.min_overlap is not None and self.min_overlap > 1.0:
            raise InputError("min_overlap (--min-overlap) must be between 0 and 1")


def calibrate_model(model: str | Path, dev_path: str | Path,
                    options: CalibrateOptions | None = None) -> tuple[Calibration, list[Path]]:
    """Fit ``model``'s combiner and thresholds on the labelled claims of ``dev_path`` and,
    unless ``dry_run``, write its ``verifier.json`` and manifest; returns the calibration and
    the files written.

    Raises:
        ModelError: a shipped (read-only) model without ``dry_run``.
    """
    import json

    from offline_eval.errors import ModelError
    from offline_eval.modelstore import MANIFEST, resolve_model, shipped_dir, verify_model, write_manifest
    from offline_eval.nli.config import CONFIG_FILE, dump_config, load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner, resolve_backend

    o = check(options or CalibrateOptions())
    path = resolve_model(model).resolve()
    if not o.dry_run and path.parent == shipped_dir().resolve():
        raise ModelError(f"{path}: shipped models are read-only; import a copy "
                         f"(offline-eval models import {path} --name NAME) and calibrate that, "
                         "or pass --dry-run")
    dev = read_dev(dev_path)
    manifest = verify_model(path)
    runner = load_runner(path, o.backend, o.device, o.batch_size)
    kind, precision = resolve_backend(path, manifest, o.backend, o.device, None)
    config = load_config(path).with_overrides(
        min_overlap=o.min_overlap, max_windows=o.max_windows,
        coverage_sentences=o.coverage_sentences, coverage_windows=o.coverage_windows)
    cal = calibrate(Verifier(runner, config), dev, source=str(dev_path),
                    backend=f"{kind}-{precision}" if precision else kind)
    if o.dry_run:
        return cal, []
    fields = {k: v for k, v in manifest.items() if k not in ("files", "format")}
    (path / CONFIG_FILE).write_text(json.dumps(dump_config(cal.config), indent=2) + "\n",
                                    encoding="utf-8")
    write_manifest(path, **fields)
    return cal, [path / CONFIG_FILE, path / MANIFEST]
