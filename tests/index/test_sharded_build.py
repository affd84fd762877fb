"""A corpus built in shards (memory holds one shard of postings at a time) is the same bytes
as one built in memory, and scores the same. Texts are generated from a fixed seed."""
from __future__ import annotations

import json
import random

import pytest

import offline_eval.index.bm25 as bm25
from offline_eval.index.chunk import Document
from offline_eval.index.searcher import SearchIndex
from offline_eval.index.store import write_corpus

FILES = ("indptr.npy", "indices.npy", "weights.npy", "idf.npy", "doc_len.npy", "vocab.txt",
         "passages.jsonl", "passages.offsets.npy")


def documents(n: int = 300, seed: int = 3) -> list[Document]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)] + ["lighthouse", "ferry", "harbour", "island"]
    docs = []
    for i in range(n):
        # a skewed vocabulary: later documents bring new terms, some documents are empty
        pool = words[: 20 + i] if i % 37 else []
        text = " ".join(rng.choice(pool) for _ in range(rng.randint(0, 60))) if pool else ""
        docs.append(Document(f"d{i}", text, title=f"T{i % 7}"))
    return docs


@pytest.mark.parametrize("shard_tokens, merge", [(500, 300), (2_000, 40), (7, 1)])
def test_sharded_build_is_the_same_bytes_as_in_memory(tmp_path, monkeypatch, shard_tokens, merge):
    whole = write_corpus(tmp_path / "whole", documents())
    monkeypatch.setattr(bm25, "SHARD_TOKENS", shard_tokens)
    monkeypatch.setattr(bm25, "MERGE_POSTINGS", merge)
    made: list[int] = []
    real = bm25.BM25Builder._write_shard
    monkeypatch.setattr(bm25.BM25Builder, "_write_shard",
                        lambda self: (made.append(1), real(self))[1])
    sharded = write_corpus(tmp_path / "sharded", documents())
    assert len(made) > 2  # it really spilled
    for name in FILES:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "sharded" / name).read_bytes(), name
    for key in ("bm25", "n_passages", "n_documents"):
        assert whole[key] == sharded[key]
    assert not (tmp_path / "sharded" / "shards").exists()  # the shards are removed
    a, b = SearchIndex.open(tmp_path / "whole"), SearchIndex.open(tmp_path / "sharded")
    for query in ("lighthouse ferry", "w3 w17 harbour", "island"):
        assert [(h.passage.id, h.score) for h in a.search(query, k=5)] == \
               [(h.passage.id, h.score) for h in b.search(query, k=5)]
    assert json.loads((tmp_path / "sharded" / "header.json").read_text())["bm25"] == whole["bm25"]


def test_documents_are_counted_once_each(tmp_path):
    """``n_documents`` counts distinct ids (kept as digests, not as a set of the strings)."""
    docs = [Document("a", "lighthouse ferry"), Document("b", "harbour"), Document("a", "island"),
            Document("é", "ferry harbour")]
    assert write_corpus(tmp_path / "c", docs)["n_documents"] == 3
