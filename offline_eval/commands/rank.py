"""``rank``: importance of claims against a query.

Input rows: ``{"id", "query", "claims": [{"id", "text", "sentence_index"?} | "text"]}``
(a plain-string claim gets its place in the list as id). Output rows: ``{"id", "claims":
[{"id", "importance", "importance_score", "score"}], "order": [ids], "proportions": {"vital", "okay",
"less-important"}}``; ``proportions`` are the shares the labels were cut at (predicted for
the response by the shipped ranker; counts are rounded, at least one vital) and are absent
for a row without claims. A row with no claims gives an empty result; a missing query or
duplicate claim ids are input errors naming the file and line.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from offline_eval.commands import RowCommand, chunks
from offline_eval.errors import InputError
from offline_eval.options import option
from offline_eval.runners.base import BACKENDS, DEVICES

if TYPE_CHECKING:
    from offline_eval.importance.ranker import ImportanceRanker

Parsed = tuple[str, str, list[dict[str, Any]]]


@dataclass(frozen=True)
class RankOptions:
    """The options of :func:`offline_eval.rank` and ``offline-eval rank``."""

    model_dir: str | None = option(None, "folder holding combiner.json (default: the shipped "
                                   "importance ranker)")
    backend: str | None = option(None, "embedder runtime (default: onnx when `offline-eval "
                                 "models export-embedding` has been run, else torch)",
                                 choices=BACKENDS)
    device: str | None = option(None, "default: the best available", choices=DEVICES)
    precision: str | None = option(None, "ONNX precision of the embedder (default fp32, as the "
                                   "ranker was fitted)", choices=("fp32", "int8"))
    parse_workers: int | None = option(
        None, "spaCy worker processes of this ranker's own parsing claims beside this one "
        "(default: the process's shared ones, one fewer than the CPUs, at most 8, or "
        "OFFLINE_EVAL_SPACY_WORKERS; 0: parse here only); same output", type=int, metavar="N",
        minimum=0, compared=False)
    batch_size: int = option(64, "rows per batch (rows do not depend on it)", positive=True,
                             compared=False)


def parse_row(row: Mapping[str, Any], path: str, line: int) -> Parsed:
    """Validate one input row; returns ``(id, query, claims)``."""
    from offline_eval.io.jsonl import get_field

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
        if isinstance(claim, str):
            claim = {"id": str(k), "text": claim}
        if not isinstance(claim, dict):
            raise InputError("expected a string or an object with 'id' and 'text'", path=path,
                             line=line, field=where)
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


def read(items: Any) -> list[Parsed]:
    """Every row validated (ids unique): ``(id, query, claims)``."""
    from offline_eval.io.jsonl import UniqueIds, row_source

    where, source = row_source(items)
    unique, rows = UniqueIds(where), []
    for line, row in source:
        rows.append(parse_row(row, where, line))
        unique(rows[-1][0], line)
    return rows


def models(o: RankOptions) -> dict[str, Any]:
    from offline_eval.importance.ranker import default_model_dir
    from offline_eval.provenance import embedder_record, files_digest

    from offline_eval.errors import ModelError
    from offline_eval.runners import int8

    folder = Path(o.model_dir) if o.model_dir else default_model_dir()
    if not (folder / "combiner.json").is_file():  # said before any output file is opened
        raise ModelError(f"{folder}: no combiner.json (an importance ranker folder holds one)")
    out = {"ranker": files_digest(folder),
           "embedder": None if o.backend or o.precision else embedder_record(None)}
    if o.precision == "int8" and int8.record():
        out["int8_weights"] = int8.record()
    return out


def compute(rows: Sequence[Parsed], o: RankOptions) -> Iterator[dict[str, Any]]:
    """Output rows, in order; the ranker loads on the first row."""
    if not rows:
        return
    from offline_eval.importance.ranker import ImportanceRanker

    ranker = ImportanceRanker(o.model_dir, backend=o.backend, device=o.device,
                              precision=o.precision, parse_workers=o.parse_workers)
    try:
        yield from rank_rows(rows, ranker, o.batch_size)
    finally:
        ranker.close()


def rank_rows(rows: Sequence[Parsed], ranker: ImportanceRanker, batch_size: int = 64) -> Iterator[dict[str, Any]]:
    """Output rows for parsed rows, in order, from ``ranker`` (an ``ImportanceRanker``)."""
    from offline_eval.importance.ranker import RankRequest

    for chunk in chunks(rows, batch_size):
        requests = []
        for _, query, claims in (r for r in chunk if r[2]):
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
                   # "score" is importance_score's name before 0.2, kept for one release
                   "claims": [{"id": c["id"], "importance": lab, "importance_score": round(sc, 6),
                               "score": round(sc, 6)}
                              for c, lab, sc in zip(claims, rk.labels, rk.scores)],
                   "order": [claims[i]["id"] for i in rk.order]}
            if rk.proportions is not None:
                out["proportions"] = dict(zip(("vital", "okay", "less-important"),
                                              (round(p, 4) for p in rk.proportions)))
            yield out


COMMAND = RowCommand("rank", RankOptions, read, lambda r: r[0], models, compute)
