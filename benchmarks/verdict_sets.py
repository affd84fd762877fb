"""The labelled claim sets the verdict benchmark reads (``benchmarks/verdicts.py``).

Each set is a list of :class:`Row` (claim, evidence, label) drawn from ``../shared/data``
(nothing is copied into the repository). ``family`` groups sets that share claims or
responses, so that leave-one-set-out never fits on a twin of the set it scores. ``table``:
the set is a row of the LLM-AggreFact-style table; the others (marked ``fit only``) only
take part in fitting. Sets the NLI model trained on are read on their held-out part only
(the recipe's hash split) and say so in ``note``.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
CAP = 300  # claims per set at most (seeded sample): the whole table runs in minutes on 2 cores
SEED = 0


@dataclass(frozen=True)
class Row:
    claim: str
    evidence: list[Any]
    y: int  # 1 = supported


@dataclass(frozen=True)
class ClaimSet:
    name: str
    family: str
    rows: list[Row]
    table: bool = True
    note: str = ""
    published: str = ""  # a published balanced accuracy for the same data, with its source


@functools.lru_cache(maxsize=1)
def _recipe() -> Any:
    """The NLI recipe's data module: its hash split says what the model trained on."""
    spec = importlib.util.spec_from_file_location("nli_data", ROOT / "models/recipes/nli_minilm/data.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    return _recipe()._jsonl(path)


def _bucket(key: str) -> float:
    return _recipe()._bucket(key)


def _sample(rows: list[Row], cap: int = CAP) -> list[Row]:
    """At most ``cap`` rows, the same share of each label (seeded)."""
    if len(rows) <= cap:
        return rows
    rng = random.Random(SEED)
    pos = [r for r in rows if r.y]
    neg = [r for r in rows if not r.y]
    k = round(cap * len(pos) / len(rows))
    return rng.sample(pos, k) + rng.sample(neg, cap - k)


def wice(as_lines: bool) -> ClaimSet:
    rows = [Row(r["claim"], list(r["evidence"]) if as_lines else [" ".join(r["evidence"])],
                int(r["label"] == "supported")) for r in _jsonl(DATA / "wice" / "claim_dev.jsonl")]
    return ClaimSet("wice-lines" if as_lines else "wice-doc", "wice", rows,
                    note="the cited page as its lines" if as_lines else "the page as one string",
                    published="MiniCheck-FT5 72.2, AlignScore 66.0, GPT-4o 78.5 (LLM-AggreFact WiCE, test)")


def _factcheck_claims() -> Iterator[tuple[str, list[str], bool, str | None]]:
    """(claim, evidence, label, revised claim) as ``real_answers.py`` builds them."""
    for r in _jsonl(DATA / "factcheck-gpt" / "benchmark.jsonl"):
        for s in r["sentences"].values():
            he, ae = s.get("human_evidence") or [], s.get("auto_evidence") or []
            rev = s.get("revised_claims") or []
            for j, (c, lab) in enumerate(zip(s["claims"], s.get("claims_factuality_label") or [])):
                if lab not in (True, False):
                    continue
                h = he[j] if j < len(he) else []
                ev = [e for e in (h if isinstance(h, list) else [h]) if isinstance(e, str) and e.strip()]
                a = ae[j] if j < len(ae) else []
                ev += [e for e in (a if isinstance(a, list) else [a]) if isinstance(e, str) and e.strip()]
                if ev:
                    yield c, ev, lab, rev[j] if j < len(rev) and isinstance(rev[j], str) else None


def factcheck() -> list[ClaimSet]:
    """The dev Factcheck-GPT claims, split as the NLI recipe split the stance pairs (30% of
    claims never trained on), and the revised twins of the false ones."""
    frac = _recipe().FCGPT_HELDOUT_FRACTION
    held, seen, revised = [], [], []
    for c, ev, lab, rev in _factcheck_claims():
        (held if _bucket("fc" + c) < frac else seen).append(Row(c, ev, int(lab)))
        if not lab and rev and rev.strip() and rev.strip() != c.strip():
            revised += [Row(c, ev, 0), Row(rev, ev, 1)]
    pub = "MiniCheck-FT5 74.7, AlignScore 74.3, GPT-4o 77.5 (LLM-AggreFact Factcheck-GPT, test)"
    return [ClaimSet("factcheck-heldout", "factcheck", held, note="claims the NLI model never trained on",
                     published=pub),
            ClaimSet("factcheck-trained", "factcheck", seen, note="the NLI model trained on their stance pairs"),
            ClaimSet("factcheck-revised", "factcheck", revised, table=False,
                     note="each false claim and its corrected twin, same evidence")]


def stance() -> ClaimSet:
    """Factcheck-GPT claim-evidence stance pairs, refute vs support, held-out claims only."""
    frac = _recipe().FCGPT_HELDOUT_FRACTION
    rows = [Row(r["claim"], [r["evidence"]], int(r["stance"] == "completely-support"))
            for r in _jsonl(DATA / "factcheck-gpt" / "subtask3_claim_evidence_stance.jsonl")
            if r["stance"] in ("completely-support", "refute") and _bucket("fc" + r["claim"]) < frac]
    return ClaimSet("fcgpt-stance", "factcheck", rows, table=False,
                    note="refute vs support pairs of the held-out claims")


NLI_SETS: dict[str, tuple[str, Callable[[dict], bool], str]] = {
    # dir -> (table name, row filter, note)
    "qags": ("qags", lambda r: True, "summary sentences vs the article"),
    "summedits": ("summedits", lambda r: True, "edited summaries vs the document"),
    "faithbench": ("faithbench", lambda r: True, "LLM summaries vs the document"),
    "climate_fever": ("climate-fever", lambda r: True, "claim vs one evidence sentence"),
    "healthver": ("healthver", lambda r: True, "claim vs an abstract"),
    "covidfact": ("covid-fact", lambda r: r["split"] == "test", "test split"),
    "scifact_rte": ("scifact", lambda r: r["split"] == "dev", "dev split"),
    "begin": ("begin", lambda r: _bucket(r["premise"] + "\t" + r["hypothesis"]) < 0.08,
              "the 8% the NLI model never trained on"),
    "fever_symmetric": ("fever-symmetric", lambda r: _bucket(r["premise"] + "\t" + r["hypothesis"]) < 0.08,
                        "the 8% the NLI model never trained on"),
}


def nli_set(folder: str) -> ClaimSet:
    name, keep, note = NLI_SETS[folder]
    rows = [Row(r["hypothesis"], [r["premise"]], int(r["label"] in ("entailment", "supported")))
            for r in _jsonl(DATA / "nli" / folder / f"{folder}.jsonl") if keep(r)]
    return ClaimSet(name, name, _sample(rows), note=note)


def fever_refutations() -> ClaimSet:
    rows = [Row(r["hypothesis"], [r["premise"]], int(r["label"] == "entailment"))
            for r in _jsonl(DATA / "nli" / "fever_rte_dev" / "fever_rte_dev.jsonl")
            if _bucket(r["premise"] + "\t" + r["hypothesis"]) < 0.08]
    return ClaimSet("fever-refutes", "fever", _sample(rows), table=False,
                    note="FEVER dev, refutes vs supports, the NLI model's held-out 8%")


def swaps(n: int = 150) -> ClaimSet:
    """A sentence of a Wikipedia lead (true) and the same sentence with a number or year
    moved (false), each against the whole lead: same-type swaps inside long evidence."""
    from offline_eval.index.wiki_vital import load_summaries  # the data file; its package never imported
    from offline_eval.metaeval.swaps import shift_number
    from offline_eval.text import split_sentences

    leads = json.loads(load_summaries()[0])
    items = sorted(leads.items()) if isinstance(leads, dict) else list(enumerate(leads))
    rng = random.Random(SEED)
    rng.shuffle(items)
    rows: list[Row] = []
    for _, text in items:
        text = text if isinstance(text, str) else str(text)
        sents = split_sentences(text)
        if len(sents) < 4:
            continue
        cands = [s for s in sents[1:] if any(ch.isdigit() for ch in s) and len(s.split()) >= 6]
        if not cands:
            continue
        s = rng.choice(cands)
        false = shift_number(s, rng)
        if not false or false == s:
            continue
        rows += [Row(s, [text], 1), Row(false, [text], 0)]
        if len(rows) >= 2 * n:
            break
    return ClaimSet("swaps", "swaps", rows, table=False,
                    note="synthetic: a lead's sentence and its number-swapped twin vs the lead")


def all_sets() -> list[ClaimSet]:
    """Every set, table rows first."""
    sets = [wice(True), wice(False), *factcheck(), *(nli_set(f) for f in NLI_SETS), stance(),
            fever_refutations(), swaps()]
    return [s for s in sets if s.table] + [s for s in sets if not s.table]
