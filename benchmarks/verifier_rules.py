"""How often the verifier's narrow rules fire on real claims (writes ``verifier_rules``).

The rules turn a ``supported`` verdict into ``contradicted``: ``check_numbers`` (a number
off beyond twice its tolerance from every comparable number of the evidence),
``check_names`` (the evidence names Y in the claim's frame where the claim names X) and
``check_negation`` (a sentence of the evidence states the claim with its polarity flipped;
it reads unverifiable verdicts too). They target swapped values and denials; this counts where they would fire on human-labelled real data, by
label, so their false-alarm rate on truly supported claims is on record. No model needed:
each rule is applied to the claim and its evidence text as a supported verdict would be.

* WiCE dev: 349 claims, evidence = the two best 5-sentence windows (as `verifier.py`).
* Factcheck-GPT stance pairs (claim, one evidence passage), all of them.

Run: ``python benchmarks/verifier_rules.py``
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    import verifier as vb

    from offline_eval.audit.quantities import number_severity
    from offline_eval.nli.negation import negated_twin
    from offline_eval.nli.substitution import find_substitution
    from offline_eval.text import split_sentences

    def fires(claim: str, passages: list[str]) -> dict[str, bool]:
        return {"num": number_severity(claim, " ".join(passages)) == "far",
                "frame": any(find_substitution(claim, p, align=False) for p in passages),
                "name": any(find_substitution(claim, p) for p in passages),
                "neg": negated_twin(claim, (x for p in passages for x in split_sentences(p))) is not None}

    sets: dict[str, Counter] = {}
    for r in vb.wice_rows(0):
        label = "supported" if r["y"] else "partially / not supported"
        sets.setdefault("WiCE dev", Counter()).update(
            {(label, "n"): 1, **{(label, k): v for k, v in fires(r["claim"], r["passages"]).items()}})
    mod = vb.recipe_data()
    train, held = mod.factcheck(vb.DATA, random.Random(mod.SEED))
    for r in train + held:
        sets.setdefault("Factcheck-GPT stance pairs", Counter()).update(
            {(r["stance"], "n"): 1,
             **{(r["stance"], k): v for k, v in fires(r["hypothesis"], [r["premise"]]).items()}})

    lines = ["## Verifier rules on real claims (`benchmarks/verifier_rules.py`)", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. How often `check_numbers`, "
             "`check_names` and `check_negation` would turn a supported verdict into `contradicted`, by human label "
             "(each rule applied to every claim and its evidence; no model). A firing on a "
             "supported claim is a false alarm. `name rule, frame only` is the letter-for-letter frame "
             "alone (`align=False`: the rule before 2026-12-07, with its spelling guard); `name rule` adds the word "
             "alignment of the claim with each passage sentence (shipped); both on the same "
             "claims in this run. The negation rule (2026-12-07, evening) was written after reading "
             "two Factcheck-GPT claims its human evidence denies in so many words.", "",
             "| data | label | claims | number rule fires | name rule, frame only | name rule fires "
             "| negation rule fires |",
             "|---|---|---|---|---|---|---|"]
    for name, c in sets.items():
        for label in sorted({k[0] for k in c}):
            n = c[(label, "n")]
            lines.append(f"| {name} | {label} | {n} | "
                         + " | ".join(f"{c[(label, k)]} ({c[(label, k)] / n:.1%})" for k in ("num", "frame", "name", "neg"))
                         + " |")
    text = "\n".join(lines)
    if not args.no_write:
        write_section(text, "verifier_rules")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
