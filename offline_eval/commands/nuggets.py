"""``nuggets``: nuggets from references, with their support by the response.

Input rows: ``{"id", "query", "references": [text | {"id", "text"}], "response"?}``.
Output rows: ``{"id", "nuggets": [{"id", "text", "importance", "source_ids",
"support"?}], "metrics"?}``; support and the recall metrics (nugget recall in four
variants, VITAL recall, VITAL-RLR) come when a response is given.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from offline_eval.commands import RowCommand, chunks
from offline_eval.decomposition.base import DECOMPOSERS
from offline_eval.io.focus import SOURCE_CHARS
from offline_eval.options import option
from offline_eval.types import Item, ResponseResult


@dataclass(frozen=True)
class NuggetsOptions:
    """The options of :func:`offline_eval.nuggets` and ``offline-eval nuggets``."""

    max_nuggets: int = option(30, "nuggets kept per item", positive=True)
    decomposer: str = option("syntactic", "the decomposer that splits references into facts",
                             choices=DECOMPOSERS)
    corpus: str | None = option(None, "corpus name or folder searched for items without "
                                "references")
    k: int = option(5, "corpus passages per query", flag="-k", positive=True)
    support: bool = option(True, "skip grading the response (no support, no recall)",
                           flag="--no-support")
    source_chars: int = option(SOURCE_CHARS, "nuggets come from at most this many characters "
                               "of a row's references (or corpus passages), those that share a "
                               "word with its query, most relevant first (0: all of them)",
                               minimum=0)
    batch_size: int = option(16, "rows per batch (rows do not depend on it)", positive=True,
                             compared=False)


def read(items: Any) -> list[Item]:
    """Every row validated (ids unique); ``response`` is optional here."""
    from offline_eval.io.items import parse_item
    from offline_eval.io.jsonl import UniqueIds, row_source

    where, source = row_source(items)
    out, unique = [], UniqueIds(where)
    for line, row in source:
        if row.get("response") is None:
            row = {**row, "response": ""}
        out.append(parse_item(row, where, line))
        unique(out[-1].id, line)
    return out


def models(o: NuggetsOptions) -> dict[str, Any]:
    from offline_eval.importance.ranker import default_model_dir
    from offline_eval.provenance import corpus_record, embedder_record, files_digest, nli_record

    return {"ranker": files_digest(default_model_dir()), "embedder": embedder_record(None),
            "nli": nli_record(None, None, None),
            "corpus": corpus_record(o.corpus, None) if o.corpus else None}


def stage(o: NuggetsOptions) -> Any:
    """The Nuggets stage these options build (its models load on first use)."""
    from offline_eval.nuggetization.builder import NuggetConfig
    from offline_eval.stages.nuggets import Nuggets, default_builder

    corpus = None
    if o.corpus:
        from offline_eval.index.searcher import open_corpus
        corpus = open_corpus(o.corpus)
    builder = default_builder(NuggetConfig(max_nuggets=o.max_nuggets,
                                           source_chars=o.source_chars), o.decomposer)
    return Nuggets(builder, corpus=corpus, k=o.k, support=o.support)


def compute(items: Sequence[Item], o: NuggetsOptions) -> Iterator[dict[str, Any]]:
    if not items:
        return
    yield from nugget_rows(items, stage(o), o.batch_size)


def nugget_rows(items: Sequence[Item], stage: Any, batch_size: int = 16) -> Iterator[dict[str, Any]]:
    """Run the Nuggets stage and yield output rows."""
    from offline_eval.nuggetization.builder import recall_metrics

    for chunk in chunks(items, batch_size):
        for rec in stage([ResponseResult(item=it) for it in chunk]):
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


COMMAND = RowCommand("nuggets", NuggetsOptions, read, lambda it: str(it.id), models, compute)
