"""The on-disk corpus format: plain ``.npy`` arrays, a text vocabulary, passages as
JSONL, and a JSON header with a format version. No pickle. A build holds one shard of postings in
memory at a time (:class:`~offline_eval.index.bm25.BM25Builder` with ``spill``), so its
memory does not grow with the corpus's postings.

A corpus folder holds::

    header.json          format name and version, tokenizer, BM25 parameters, counts,
                         source and attribution (written last)
    vocab.txt            one term per line; line i is term i
    indptr.npy indices.npy weights.npy idf.npy doc_len.npy    the BM25 arrays
    passages.jsonl       one passage per line: id, doc_id, title, url, start, end, text
    passages.offsets.npy byte offset of each line, plus the file size

Arrays and passages are memory-mapped on load. A build writes into a hidden
temporary folder beside the target and renames it into place only when complete, so
an interrupted build leaves no index behind.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import mmap
import os
import shutil
import uuid
from array import array
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence, overload

import numpy as np

from offline_eval.errors import InputError
from offline_eval.index.bm25 import BM25Builder, BM25Index, BM25Params
from offline_eval.index.chunk import ChunkConfig, Document, Passage, chunk_documents
from offline_eval.index.tokenize import Tokenizer

FORMAT = "offline-eval-corpus"
FORMAT_VERSION = 1
ARRAYS: tuple[str, ...] = ("indptr", "indices", "weights", "idf", "doc_len")


class PassageStore(Sequence[Passage]):
    """Random access to ``passages.jsonl`` through a memory map and line offsets."""

    def __init__(self, folder: Path) -> None:
        self._offsets = np.load(folder / "passages.offsets.npy", mmap_mode="r")
        self._fh = open(folder / "passages.jsonl", "rb")
        size = os.fstat(self._fh.fileno()).st_size
        self._mm = mmap.mmap(self._fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, i: int) -> Passage: ...
    @overload
    def __getitem__(self, i: slice) -> list[Passage]: ...

    def __getitem__(self, i: int | slice) -> Passage | list[Passage]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        s, e = int(self._offsets[i]), int(self._offsets[i + 1])
        return Passage.from_json(json.loads(self._mm[s:e]))

    def __iter__(self) -> Iterator[Passage]:
        return (self[i] for i in range(len(self)))


def write_corpus(dest: str | os.PathLike[str], documents: Iterable[Document], *,
                 tokenizer: Tokenizer | None = None, chunking: ChunkConfig | None = None,
                 params: BM25Params | None = None,
                 meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Chunk, tokenise and index ``documents`` into the folder ``dest``, atomically.

    Args:
        dest: the corpus folder; replaced if it exists.
        documents: the documents; if the iterable has a ``skipped`` list (like
            :class:`~offline_eval.index.documents.DocumentReader`), it is recorded.
        meta: extra header fields (``source``, ``attribution``, ``license``, ...).

    Returns:
        The header that was written.

    Raises:
        InputError: when there is nothing to index.
    """
    dest = Path(dest)
    tok, chunk = tokenizer or Tokenizer(), chunking or ChunkConfig()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        # memory holds one shard of postings at a time, not the whole corpus's
        builder = BM25Builder(spill=tmp / "shards")
        offsets, doc_ids = array("q", [0]), _DistinctIds()
        with open(tmp / "passages.jsonl", "wb") as fh:
            for passage in chunk_documents(_count(documents, doc_ids), chunk):
                line = (json.dumps(passage.to_json(), ensure_ascii=False) + "\n").encode()
                fh.write(line)
                offsets.append(offsets[-1] + len(line))
                builder.add(tok(passage.contents))
        if len(offsets) == 1:
            raise InputError("the corpus is empty: no document has any text",
                             path=str(getattr(documents, "path", dest)))
        bm25 = builder.write(tmp, params)
        np.save(tmp / "passages.offsets.npy", np.frombuffer(offsets, dtype=np.int64))
        (tmp / "vocab.txt").write_text("\n".join(bm25.vocab), encoding="utf-8")
        bm25_header = bm25.header()
        del bm25  # its arrays are memory-mapped from tmp, which is renamed below
        skipped = list(getattr(documents, "skipped", []))
        header = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": dest.name,
                  "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                      timespec="seconds"),
                  "n_documents": len(doc_ids), "n_passages": len(offsets) - 1,
                  "tokenizer": tok.to_json(), "chunking": vars(chunk), "bm25": bm25_header,
                  "skipped": {"count": len(skipped), "first": [list(s) for s in skipped[:100]]},
                  **dict(meta or {})}
        (tmp / "header.json").write_text(json.dumps(header, indent=1, ensure_ascii=False),
                                         encoding="utf-8")
        _swap_into_place(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return header


class _DistinctIds:
    """How many distinct document ids were seen, in 16 bytes an id (a 128-bit BLAKE2b
    digest: 160 MB for 10M ids, where a set of the strings takes several times that)."""

    def __init__(self) -> None:
        self._digests = bytearray()

    def add(self, doc_id: str) -> None:
        self._digests += hashlib.blake2b(doc_id.encode("utf-8"), digest_size=16).digest()

    def __len__(self) -> int:
        if not self._digests:
            return 0
        pairs = np.frombuffer(self._digests, dtype=np.uint64).reshape(-1, 2)
        return len(np.unique(pairs, axis=0))


def _count(documents: Iterable[Document], seen: _DistinctIds) -> Iterator[Document]:
    for doc in documents:
        seen.add(doc.id)
        yield doc


def _swap_into_place(tmp: Path, dest: Path) -> None:
    old = None
    if dest.exists():
        old = dest.parent / f".{dest.name}.old-{uuid.uuid4().hex[:8]}"
        os.replace(dest, old)
    os.replace(tmp, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def read_header(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of a corpus folder, checked for format and version."""
    folder = Path(folder)
    hp = folder / "header.json"
    if not hp.is_file():
        raise InputError("not a corpus folder (no header.json)", path=str(folder))
    try:
        header = json.loads(hp.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"unreadable header ({exc}); rebuild the corpus", path=str(hp)) from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError(f"not an {FORMAT} header; rebuild the corpus", path=str(hp))
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        name = header.get("name", folder.name)
        raise InputError(f"index format version {version} was written by another version of "
                         f"offline-eval; this one reads version {FORMAT_VERSION}. Rebuild it: "
                         f"offline-eval corpus build {name} --from SOURCE --overwrite", path=str(folder))
    return header


def load_arrays(folder: str | os.PathLike[str], header: Mapping[str, Any]) -> BM25Index:
    """Memory-map the BM25 arrays of a corpus folder."""
    folder = Path(folder)
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in ARRAYS}
    terms = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")
    b = header["bm25"]
    if len(terms) != b["n_terms"] or len(arrays["doc_len"]) != b["n_docs"]:
        raise InputError("corpus files do not match their header; rebuild the corpus",
                         path=str(folder))
    vocab = dict(zip(terms, range(len(terms))))
    params = BM25Params(b["k1"], b["b"], b["epsilon"])
    return BM25Index(vocab, arrays["indptr"], arrays["indices"], arrays["weights"],
                     arrays["idf"], arrays["doc_len"], params, b["avgdl"])
