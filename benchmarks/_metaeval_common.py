"""Shared by ``metaeval.py``: the models loaded once, running records, the audit-judgment
diagnostic, paired tests and table cells. (Run on its own, it does nothing.)"""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence

PREC = ("factscore_precision", "vital_precision", "linear_decay_precision")
SHORT = {"factscore_precision": "FActScore P", "vital_precision": "VITAL P",
         "linear_decay_precision": "linear-decay P", "vital_recall": "VITAL recall",
         "vital_rlp": "VITAL-RLP", "vital_rlr": "VITAL-RLR",
         "nugget_recall_strict_all": "nugget recall (strict, all)"}
# The paper's single-answer table (3,000 queries): means in normal, missing, wrong.
PAPER = {"factscore_precision": (0.8247, 0.8253, 0.7657), "vital_precision": (0.7281, 0.7222, 0.4873),
         "linear_decay_precision": (0.7299, 0.7414, 0.5183), "vital_rlp": (0.4503, 0.4217, 0.8953),
         "vital_recall": (0.5244, 0.2745, 0.3670)}


class CachedRunner:
    """The NLI runner with a memo of (premise, hypothesis) -> probabilities. The int8
    model scores one pair at a time, so a cached pair is bit-identical to a fresh one."""

    def __init__(self, runner: Any) -> None:
        self._runner, self._memo = runner, {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runner, name)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> Any:
        import numpy as np

        todo = list(dict.fromkeys(p for p in pairs if p not in self._memo))
        if todo:
            for p, probs in zip(todo, self._runner.predict(todo)):
                self._memo[p] = probs
        return np.array([self._memo[p] for p in pairs]).reshape(len(pairs), len(self._runner.labels))


class Models:
    """The score pipeline's stages, built once, and the sub-pipelines made from them."""

    def __init__(self) -> None:
        from offline_eval.engines.spec import build_pipeline
        from offline_eval.modelstore import resolve_model
        from offline_eval.nli.config import load_config
        from offline_eval.pipeline import Pipeline
        from offline_eval.runners.load import shared_runner
        from offline_eval.scoring import ScoreOptions, score_specs
        from offline_eval.stages.verify import Verify

        path = resolve_model(None)
        self.verify = Verify(runner=CachedRunner(shared_runner(path)), config=load_config(path))
        stages = {s.name.split(".")[-2]: s for s in build_pipeline(
            score_specs(ScoreOptions(comprehensiveness=None))).stages}
        stages["verify"] = self.verify
        stages["retrieve-bm25"] = next(s for s in build_pipeline(score_specs(ScoreOptions(
            comprehensiveness=None, retrieval="bm25"))).stages if s.name.endswith("retrieve.v1"))
        self.stages = stages

        def pipe(names: str, provided: Iterable[str] = ("item",)) -> Pipeline:
            return Pipeline([stages[n] for n in names.split()], provided=provided)

        full = "split decompose rank retrieve verify"
        self.score = pipe(full + " nuggets metrics audit")  # `score` (no comprehensiveness)
        self.score_no_nuggets = pipe(full + " metrics audit")
        # the same, with plain BM25 evidence instead of the subject path (issue: evidence)
        self.score_bm25 = pipe(full.replace("retrieve", "retrieve-bm25") + " nuggets metrics audit")
        given = ("item", "claims", "order", "n2s", "deflection")
        self.check = pipe("retrieve verify metrics audit", given)  # given claims
        self.judged = pipe("metrics", given)  # given claims and judgments
        self.verify_only = pipe("verify", given)


AUDIT_JUDGMENT = {"correct": True, "incorrect": False, "partially_correct": False,
                  "unverifiable": False, "inconclusive": None}


def audited(rec: Any) -> Any:
    """The record with each claim's judgment taken from its guideline audit (number,
    date and direction rules on top of the NLI verdict) and the metrics recomputed: a
    diagnostic; ``score``'s metrics use the NLI judgments."""
    from offline_eval.measures.report import compute_response_metrics

    if rec is None or rec.audit is None:
        return rec
    verdicts = {a.claim_id: a.verdict for a in rec.audit.claims}
    claims = tuple(replace(c, judgment=AUDIT_JUDGMENT.get(verdicts.get(c.id, ""), c.judgment))
                   for c in rec.claims)
    rec = replace(rec, claims=claims)
    return replace(rec, metrics=compute_response_metrics(rec))


def run(pipe: Any, records: Sequence[Any], batch: int = 16) -> list[Any]:
    """Records through ``pipe`` in batches; a failing record is reported and dropped
    (returned as None, so positions still match)."""
    out: list[Any] = []
    for i in range(0, len(records), batch):
        chunk = list(records[i:i + batch])
        try:
            out += pipe(chunk)
            continue
        except Exception:  # noqa: BLE001 - isolate the failing record below
            pass
        for r in chunk:
            try:
                out += pipe([r])
            except Exception as exc:  # noqa: BLE001 - reported, the benchmark goes on
                print(f"failed {r.id}: {exc}", file=sys.stderr)
                out.append(None)
    return out


def value(rec: Any, key: str) -> float | None:
    if rec is None:
        return None
    v = rec.metrics[key].value
    return None if v is None else float(v)


def mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def f3(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def pval(p: float | None) -> str:
    return "-" if p is None else f"{p:.1e}"


def comparisons(values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
                continuous: Sequence[str], binary: Sequence[str]) -> dict[tuple[str, str, str], Any]:
    """Paired tests (Holm within each family), keyed by (metric, a, b)."""
    from offline_eval.measures.compare import compare_conditions

    return {(c.metric, c.a, c.b): c for c in compare_conditions(values, continuous, binary)}


def drop_cell(comp: Mapping[tuple[str, str, str], Any], metric: str, a: str, b: str) -> str:
    """``-x.x pts (n, p_t / p_W)`` for a continuous metric, ``x% -> y% (p)`` for a flag."""
    c = comp.get((metric, a, b))
    if c is None:
        return "-"
    t = c.test
    if hasattr(t, "mean_diff"):
        return (f"{-100 * t.mean_diff + 0.0:+.1f} (n={t.n}; p={pval(c.p_holm[0])} / "
                f"{pval(c.p_holm[1])})")
    return f"{pct(t.rate_a)} -> {pct(t.rate_b)} (n={t.n}; {t.a_only}/{t.b_only}; p={pval(c.p_holm[0])})"


def metric_table(values: Mapping[str, Mapping[str, Mapping[str, float | None]]],
                 keys: Sequence[str]) -> list[str]:
    lines = ["| condition | " + " | ".join(SHORT[k] for k in keys) + " | n |",
             "|---|" + "---|" * (len(keys) + 1)]
    for cond, rows in values.items():
        cells = []
        for k in keys:
            m = mean(r.get(k) for r in rows.values())
            cells.append(pct(m) if k in ("vital_rlp", "vital_rlr") else f3(m))
        lines.append(f"| {cond} | " + " | ".join(cells) + f" | {len(rows)} |")
    return lines


def by_condition(recs: Sequence[Any], cond: Callable[[Any], str], pair: Callable[[Any], str],
                 keys: Sequence[str]) -> dict[str, dict[str, dict[str, float | None]]]:
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for r in recs:
        if r is not None:
            out.setdefault(cond(r), {})[pair(r)] = {k: value(r, k) for k in keys}
    return out
