"""``offline-eval search NAME "text" [-k 5] [--retrieval bm25|subject] [--json]``: search a
corpus by BM25, or the way ``score`` gathers a claim's evidence (``--retrieval subject``)."""
from __future__ import annotations

import argparse
import sys

from offline_eval.stages.retrieve import RETRIEVALS


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="search a corpus with BM25",
                       description="Search the corpus NAME (or a corpus folder) and print the "
                                   "best passages; --json emits one object per hit: "
                                   "{id, doc_id, title, url, score, found_by, why, text}.")
    p.add_argument("name", help="corpus name in the data home, or a corpus folder")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5, help="number of passages (default 5, as in score)")
    p.add_argument("--retrieval", choices=RETRIEVALS, default="bm25",
                   help="bm25 (default), or subject: the text is a claim, and its linked "
                        "subject's passages come first, as score gathers evidence")
    p.add_argument("--json", action="store_true", help="emit JSON lines")
    p.add_argument("--home", help="data directory (default: $OFFLINE_EVAL_HOME or the user data dir)")
    p.set_defaults(func=run)


def _text(rank: int, hit: dict) -> str:
    head = f"{rank}. [{hit['score']:.3f}] {hit['title'] or hit['doc_id']} ({hit['id']})"
    if hit["url"]:
        head += f" {hit['url']}"
    return f"{head}\n   why: {hit['found_by']}, {hit['why']}\n   {hit['text']}"


def run(args: argparse.Namespace) -> int:
    from offline_eval.errors import InputError
    from offline_eval.index.searcher import open_corpus
    from offline_eval.io.jsonl import dumps

    if args.k <= 0:
        raise InputError("-k must be positive")
    if not args.query.strip():
        raise InputError("the query is empty")
    index = open_corpus(args.name, args.home)
    found = (index.search_about(args.query, args.k) if args.retrieval == "subject"
             else index.search(args.query, args.k))
    hits = [h.to_json() for h in found]
    if not hits:  # stdout stays empty (scripts read --json output); people read stderr
        print(f"offline-eval: no passage of {args.name} shares a word with {args.query!r}",
              file=sys.stderr)
    writers = {True: lambda i, h: dumps(h), False: _text}
    for i, hit in enumerate(hits, 1):
        print(writers[args.json](i, hit))
    return 0
