"""``offline-eval nuggets IN.jsonl [-o OUT.jsonl]``: nuggets from references.

Input rows: ``{"id", "query", "references": [text | {"id", "text"}], "response"?}``.
Output rows: ``{"id", "nuggets": [{"id", "text", "importance", "source_ids",
"support"?}], "metrics"?}``; support and the recall metrics (nugget recall in four
variants, VITAL recall, VITAL-RLR) come when a response is given.
"""
from __future__ import annotations

import argparse
from typing import Any, Iterator

from offline_eval.cli._shared import add_row_flags
from offline_eval.cli._resume import run_options
from offline_eval.io.items import parse_item
from offline_eval.io.jsonl import UniqueIds, read_jsonl
from offline_eval.types import Item, ResponseResult


def read_nugget_items(path: str) -> list[Item]:
    """Validate every row; ``response`` is optional here."""
    items = []
    unique = UniqueIds(path)
    for line, row in read_jsonl(path):
        if row.get("response") is None:
            row = {**row, "response": ""}
        items.append(parse_item(row, path, line))
        unique(items[-1].id, line)
    return items


def nugget_rows(items: list[Item], stage: Any, batch_size: int = 16) -> Iterator[dict[str, Any]]:
    """Run the Nuggets stage and yield output rows."""
    from offline_eval.importance.nuggets import recall_metrics
    for start in range(0, len(items), batch_size):
        recs = stage([ResponseResult(item=it) for it in items[start:start + batch_size]])
        for rec in recs:
            row: dict[str, Any] = {"id": rec.id, "nuggets": []}
            for n in rec.nuggets:
                nj: dict[str, Any] = {"id": n.id, "text": n.text, "importance": n.importance,
                                      "source_ids": list(n.source_ids)}
                if n.support is not None:
                    nj["support"] = n.support
                row["nuggets"].append(nj)
            if rec.item.response.strip() and rec.nuggets:
                row["metrics"] = {k: v.to_json() for k, v in recall_metrics(rec.nuggets).items()}
            elif not rec.nuggets:
                row["reason"] = ("no references (and no --corpus to retrieve from)"
                                 if not rec.item.references and stage.corpus is None
                                 else "no fact of the sources was kept as a nugget")
            else:
                row["reason"] = "no response (or an empty one): support and recall not computed"
            yield row


def run(args: argparse.Namespace) -> int:
    from offline_eval.importance.nuggets import NuggetConfig
    from offline_eval.importance.ranker import default_model_dir
    from offline_eval.io.resume import ResumableWriter
    from offline_eval.provenance import corpus_record, embedder_record, files_digest, nli_record
    from offline_eval.stages.nuggets import Nuggets, default_builder
    items = read_nugget_items(args.input)
    corpus = None
    if args.corpus:
        from offline_eval.index.searcher import open_corpus
        corpus = open_corpus(args.corpus)
    builder = default_builder(NuggetConfig(max_nuggets=args.max_nuggets), args.decomposer)
    stage = Nuggets(builder, corpus=corpus, k=args.k, support=not args.no_support)
    options = run_options(args, ranker=files_digest(default_model_dir()),
                          embedder=embedder_record(None), nli=nli_record(None, None, None),
                          corpus=corpus_record(args.corpus, None) if args.corpus else None)
    with ResumableWriter(args.output, args.input, options, resume=args.resume) as out:
        done = out.start([it.id for it in items])
        for row in nugget_rows(items[done:], stage, args.batch_size):
            out.write(row)
    return 0


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("nuggets", help="nuggets from references, with their support",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN.jsonl")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", default=None)
    p.add_argument("--max-nuggets", type=int, default=30, help="cap per item (default 30)")
    p.add_argument("--decomposer", default="syntactic", help="syntactic | generative")
    p.add_argument("--corpus", default=None,
                   help="corpus name or folder searched for items without references")
    p.add_argument("-k", type=int, default=5, help="corpus passages per query (default 5)")
    p.add_argument("--no-support", action="store_true", help="skip grading the response")
    add_row_flags(p, batch_size=16)
    p.set_defaults(func=run)
