"""Build the training pairs of the generative decomposer (fixed seed, no network).

Each pair is ``{"prompt", "target", "kind"}``: ``prompt`` is what
:func:`offline_eval.decomposition.generative.prompt` writes for (question, sentence,
preceding context), ``target`` the claims one per line. The style is the fact-checking
guideline's: clause-level, decontextualised claims (names instead of pronouns).

Sources (``../shared/data``; licences in ``decomposition/SOURCES.md``):

* ``fcgpt``     Factcheck-GPT human claims, **even responses only** (the benchmark's
  tune half; the odd half is the benchmark's held-out check half);
* ``veriscore`` the GPT-4 VeriScore sample and its demonstrations (sentences with claims);
* ``factool``   FacTool-QA rows of ``factcheck-gpt/factbench.jsonl``: response-level
  claims aligned to the response's sentences by content-word overlap;
* ``halueval``  HaluEval 2.0 facts whose claims cover the sentence (the set is not
  exhaustive, so only sentences whose content words the claims cover are kept);
* ``bingcheck`` BingCheck subclaims, same coverage rule, only sentences that split or
  rewrite (copies of the sentence taught the earlier trial to copy);
* ``hsplit``    HSplit human sentence splits (annotator 3, else 4), split sentences only;
* ``synthetic`` the syntactic decomposer's output on unlabelled sentences of HaluEval 2.0
  and BingCheck answers, kept when it is confident: 2-4 claims, every claim anchored in
  the sentence, at least 4 words, no pronoun left.

Not used: VITAL NQ (no licence, "development only" in ``shared/data/README.md``, and
FActScore-fine), PropSegmEnt (ungrammatical token subsets), RoSE/REALSumm/PyrXSum
(summary content units, finer than the guideline), Wanner demos (Russellian, very fine),
Molecular Facts (no sentence context).

Run: ``python models/recipes/decomposer_smollm2/data.py OUT_DIR [--data DIR]``; writes
``OUT_DIR/train.jsonl`` and prints the counts per kind.
"""
from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from offline_eval.decomposition.generative import prompt
from offline_eval.decomposition.guards import anchored
from offline_eval.text import anchor_words

SEED = 7
DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"
# kind -> (cap on distinct pairs, repeats); sized so that one pass fits ~40 min on 2 cores.
PLAN = {"fcgpt": (10_000, 2), "veriscore": (10_000, 2), "factool": (10_000, 1),
        "halueval": (200, 1), "bingcheck": (60, 1), "hsplit": (130, 1), "synthetic": (130, 1)}
PRONOUN = re.compile(r"\b(he|she|him|her|his|hers|it|its|they|them|their|theirs|this|these)\b", re.I)
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def read(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file (errors name ``path:line``)."""
    from offline_eval.io.jsonl import read_jsonl

    return [row for _, row in read_jsonl(path)]


def pair(question: str, sentence: str, context: str, claims: Iterable[str], kind: str) -> dict:
    ctx = [context] if context.strip() else []
    claims = [" ".join(c.split()) for c in claims if c.strip()]
    claims = [c if c[-1] in ".!?" else c + "." for c in claims]
    return {"prompt": prompt(question or "", sentence, ctx), "target": "\n".join(claims),
            "kind": kind}


def coverage(sentence: str, claims: list[str]) -> float:
    """Share of the sentence's content words that some claim repeats."""
    words = set(anchor_words(sentence))
    have = {w[:5] for c in claims for w in anchor_words(c)}
    return sum(w[:5] in have for w in words) / max(len(words), 1)


def fcgpt(data: Path) -> list[dict]:
    rows = read(data / "decomposition/factcheck-gpt/factcheckgpt_dev_sentences.jsonl")
    return [pair(r["question"], r["sentence"], r["context"], r["claims"], "fcgpt") for r in rows
            if r["claims"] and int(r["id"].split("-")[1]) % 2 == 0]


def veriscore(data: Path) -> list[dict]:
    rows = read(data / "decomposition/veriscore/veriscore_gpt4_sentences.jsonl")
    return [pair(r.get("question", ""), r["sentence"], r["context"], r["claims"], "veriscore")
            for r in rows if r["claims"]]


def factool(data: Path) -> list[dict]:
    out = []
    for r in read(data / "factcheck-gpt/factbench.jsonl"):
        if r.get("source") != "factool-qa" or not isinstance(r.get("claims"), list):
            continue
        sents = [s for s in _SENT.split(r["response"].strip()) if s.strip()]
        owned: dict[int, list[str]] = {}
        for claim in r["claims"]:
            cw = {w[:5] for w in anchor_words(claim)}
            scores = [len(cw & {w[:5] for w in anchor_words(s)}) for s in sents]
            if scores and max(scores) > 0:
                owned.setdefault(scores.index(max(scores)), []).append(claim)
        for i, s in enumerate(sents):
            if owned.get(i) and coverage(s, owned[i]) >= 0.6:
                out.append(pair(r["prompt"], s, " ".join(sents[:i]), owned[i], "factool"))
    return out


def _covered(rows: list[dict], kind: str, need_change: bool) -> list[dict]:
    out = []
    for r in rows:
        s, claims = r["sentence"], r["claims"]
        if not claims or len(s.split()) < 6 or s.lstrip()[:1] in "-*#" or coverage(s, claims) < 0.75:
            continue
        if need_change and len(claims) == 1 and claims[0].strip(" .") == s.strip(" ."):
            continue
        out.append(pair(r.get("question", ""), s, r["context"], claims, kind))
    return out


def hsplit(data: Path) -> list[dict]:
    out = []
    for r in read(data / "decomposition/hsplit/hsplit_sentences.jsonl"):
        ann = r.get("annotations", {})
        claims = next((c for c in (ann.get("hsplit3"), ann.get("hsplit4")) if c and len(c) >= 2), None)
        if claims and not any(PRONOUN.search(c) for c in claims):
            out.append(pair("", r["sentence"], r["context"], claims, "hsplit"))
    return out


def synthetic(data: Path, rng: random.Random, n: int) -> list[dict]:
    """Confident syntactic splits of sentences that the sources left without claims."""
    from offline_eval.decomposition.syntactic import SyntacticDecomposer

    pool = [r for f in ("halueval2/halueval2_sentences.jsonl", "bingcheck/bingcheck_sentences.jsonl")
            for r in read(data / "decomposition" / f)
            if not r["claims"] and 10 <= len(r["sentence"].split()) <= 40
            and r["sentence"].rstrip().endswith(".") and r["sentence"].lstrip()[:1].isalpha()]
    rng.shuffle(pool)
    dec, out = SyntacticDecomposer(), []
    for k in range(0, len(pool), 64):
        chunk = pool[k:k + 64]
        for r in chunk:
            ctx = [c for c in _SENT.split(r["context"])[-2:] if c.strip()]
            res = dec.decompose(r.get("question", ""), [*ctx, r["sentence"]], targets=[len(ctx)])[-1]
            claims = list(res.claims)
            anchors = " ".join([r.get("question", ""), r["context"], r["sentence"]])
            if (2 <= len(claims) <= 4 and all(len(c.split()) >= 4 and anchored(c, anchors)
                                              and not PRONOUN.search(c) for c in claims)):
                out.append(pair(r.get("question", ""), r["sentence"], r["context"], claims, "synthetic"))
        if len(out) >= n:
            break
    return out[:n]


def _anchored(row: dict) -> bool:
    """Every claim's content words occur in the prompt (what the decoding guard checks)."""
    return all(anchored(c, row["prompt"]) for c in row["target"].split("\n"))


def build(data: Path, seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    halu = read(data / "decomposition/halueval2/halueval2_sentences.jsonl")
    bing = read(data / "decomposition/bingcheck/bingcheck_sentences.jsonl")
    pools = {"fcgpt": fcgpt(data), "veriscore": veriscore(data), "factool": factool(data),
             "halueval": _covered(halu, "halueval", False), "bingcheck": _covered(bing, "bingcheck", True),
             "hsplit": hsplit(data), "synthetic": synthetic(data, rng, PLAN["synthetic"][0])}
    rows: list[dict] = []
    for kind, (cap, repeats) in PLAN.items():
        pool = [r for r in pools[kind] if kind == "fcgpt" or _anchored(r)]
        rng.shuffle(pool)
        rows.extend(pool[:cap] * repeats)
    rng.shuffle(rows)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    rows = build(args.data)
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "train.jsonl").open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(len(rows), dict(Counter(r["kind"] for r in rows)))


if __name__ == "__main__":
    main()
