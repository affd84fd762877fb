"""``offline-eval rank IN.jsonl [-o OUT.jsonl]``: importance of claims against a query.

Input rows: ``{"id", "query", "claims": [{"id", "text", "sentence_index"?}]}``.
Output rows: ``{"id", "claims": [{"id", "importance", "score"}], "order": [ids],
"proportions": {"vital", "okay", "less-important"}}``; ``proportions`` are the shares the
labels were cut at (predicted for the response by the shipped ranker; counts are rounded,
at least one vital) and are absent for a row without claims.
A row with no claims gives an empty result; a missing query or duplicate claim ids
are input errors naming the file and line.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Iterator

from offline_eval.cli._shared import add_row_flags
from offline_eval.cli._resume import run_options
from offline_eval.errors import InputError
from offline_eval.io.jsonl import UniqueIds, get_field, read_jsonl
from offline_eval.runners.base import BACKENDS, DEVICES


def parse_row(row: dict[str, Any], path: str, line: int) -> tuple[str, str, list[dict[str, Any]]]:
    """Validate one input row; returns ``(id, query, claims)``."""
    rid = get_field(row, "id", (str, int), path=path, line=line)
    query = get_field(row, "query", str, path=path, line=line)
    if not query.strip():
        raise InputError("must not be empty (importance is judged against the query)",
                         path=path, line=line, field="query")
    claims = get_field(row, "claims", list, path=path, line=line, default=[])
    seen: set[str] = set()
    out = []
    for k, claim in enumerate(claims):
        where = f"claims[{k}]"
        if not isinstance(claim, dict):
            raise InputError("expected an object with 'id' and 'text'", path=path, line=line,
                             field=where)
        try:
            cid = str(get_field(claim, "id", (str, int)))
            text = get_field(claim, "text", str)
            sent = get_field(claim, "sentence_index", int, default=None)
        except InputError as exc:
            raise InputError(exc.reason, path=path, line=line, field=f"{where}.{exc.field}") from None
        if cid in seen:
            raise InputError(f"duplicate claim id {cid!r}", path=path, line=line,
                             field=f"{where}.id")
        seen.add(cid)
        out.append({"id": cid, "text": text, "sentence_index": sent})
    return str(rid), query, out


def read_rank_rows(path: str) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """Every row of ``path`` validated (ids unique): ``(id, query, claims)``."""
    unique, rows = UniqueIds(path), []
    for line, row in read_jsonl(path):
        rows.append(parse_row(row, path, line))
        unique(rows[-1][0], line)
    return rows


def rank_file(path: str, ranker: Any, batch_size: int = 64) -> Iterator[dict[str, Any]]:
    """Yield output rows for ``path``; every row is validated before any model loads."""
    return rank_rows(read_rank_rows(path), ranker, batch_size)


def rank_rows(rows: list[tuple[str, str, list[dict[str, Any]]]], ranker: Any,
              batch_size: int = 64) -> Iterator[dict[str, Any]]:
    """Output rows for parsed rows, in order."""
    from offline_eval.importance.ranker import RankRequest
    for start in range(0, len(rows), batch_size):
        chunk = rows[start:start + batch_size]
        todo = [r for r in chunk if r[2]]
        requests = []
        for _, query, claims in todo:
            sents = [c["sentence_index"] for c in claims]
            requests.append(RankRequest(query, tuple(c["text"] for c in claims),
                                        None if None in sents else tuple(sents)))
        rankings = iter(ranker.rank_many(requests) if requests else [])
        for rid, _, claims in chunk:
            if not claims:
                yield {"id": rid, "claims": [], "order": []}
                continue
            rk = next(rankings)
            out = {"id": rid,
                   "claims": [{"id": c["id"], "importance": lab, "score": round(sc, 6)}
                              for c, lab, sc in zip(claims, rk.labels, rk.scores)],
                   "order": [claims[i]["id"] for i in rk.order]}
            if rk.proportions is not None:
                out["proportions"] = dict(zip(("vital", "okay", "less-important"),
                                              (round(p, 4) for p in rk.proportions)))
            yield out


def run(args: argparse.Namespace) -> int:
    from offline_eval.importance.ranker import ImportanceRanker, default_model_dir
    from offline_eval.io.resume import ResumableWriter
    from offline_eval.provenance import embedder_record, files_digest

    if args.parse_workers is not None and args.parse_workers < 0:
        raise InputError("--parse-workers must be >= 0")
    rows = read_rank_rows(args.input)  # every row validated before any model loads
    folder = Path(args.model_dir) if args.model_dir else default_model_dir()
    options = run_options(args, ranker=files_digest(folder),
                          embedder=None if args.backend or args.precision else embedder_record(None))
    ranker = ImportanceRanker(args.model_dir, backend=args.backend, device=args.device,
                              precision=args.precision, parse_workers=args.parse_workers)
    try:
        with ResumableWriter(args.output, args.input, options, resume=args.resume) as out:
            done = out.start([rid for rid, _, _ in rows])
            for row in rank_rows(rows[done:], ranker, args.batch_size):
                out.write(row)
    finally:
        ranker.close()
    return 0


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("rank", help="label claims vital / okay / less-important",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN.jsonl")
    p.add_argument("-o", "--output", metavar="OUT.jsonl", default=None,
                   help="output file (default: standard output)")
    p.add_argument("--model-dir", default=None, help="folder holding combiner.json")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="embedder runtime (default: onnx when `offline-eval models "
                        "export-embedding` has been run, else torch)")
    p.add_argument("--device", choices=DEVICES, default=None,
                   help="default: the best available")
    p.add_argument("--precision", choices=("fp32", "int8"), default=None,
                   help="ONNX precision of the embedder (default fp32, as the ranker was fitted)")
    p.add_argument("--parse-workers", type=int, default=None, metavar="N",
                   help="spaCy worker processes parsing claims beside this one (default: one "
                        "fewer than the CPUs, at most 3; 0: parse here only); same output")
    add_row_flags(p, batch_size=64)
    p.set_defaults(func=run)
