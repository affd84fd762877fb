"""Compressed inputs (``.gz``, ``.bz2``) read as the file inside, for the rows of every
command and for ``corpus build --from``; a broken stream is an error naming file and line;
outputs stay plain (resumable). Texts are written for these tests."""
from __future__ import annotations

import bz2
import gzip
import json

import pytest

from offline_eval.errors import InputError
from offline_eval.index.documents import DocumentReader
from offline_eval.io.items import read_items
from offline_eval.io.jsonl import read_jsonl
from offline_eval.io.resume import RunOutput
from offline_eval.io.tables import read_rows

ROWS = [{"id": f"r{i}", "query": "How tall is the lighthouse?",
         "response": f"The lighthouse is {40 + i} metres tall."} for i in range(50)]
DOCS = [{"id": f"d{i}", "title": f"Island {i}", "text": f"The island number {i} has a harbour."}
        for i in range(20)]


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


@pytest.mark.parametrize("suffix, pack", [(".gz", gzip.compress), (".bz2", bz2.compress)])
def test_jsonl_rows_read_the_same_compressed(tmp_path, suffix, pack):
    plain, packed = tmp_path / "in.jsonl", tmp_path / f"in.jsonl{suffix}"
    plain.write_bytes(_jsonl(ROWS))
    packed.write_bytes(pack(_jsonl(ROWS)))
    assert list(read_jsonl(packed)) == list(read_jsonl(plain))
    assert read_items(packed) == read_items(plain)


def test_csv_and_tsv_read_the_same_compressed(tmp_path):
    text = "id,query,response\nr1,How tall?,\"It is 42 metres, they say.\"\n"
    (tmp_path / "a.csv").write_text(text)
    (tmp_path / "a.csv.gz").write_bytes(gzip.compress(text.encode()))
    tsv = "id\tquery\tresponse\nr1\tHow tall?\tIt is 42 metres, they say.\n"
    (tmp_path / "a.tsv.bz2").write_bytes(bz2.compress(tsv.encode()))
    plain = list(read_rows(tmp_path / "a.csv"))
    assert plain[0][1]["response"] == "It is 42 metres, they say."
    assert list(read_rows(tmp_path / "a.csv.gz")) == plain
    assert list(read_rows(tmp_path / "a.tsv.bz2")) == plain


def test_a_cut_gzip_is_an_error_naming_the_line(tmp_path):
    data = gzip.compress(_jsonl(ROWS * 40))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"cut\.jsonl\.gz:\d+: unreadable compressed file"):
        list(read_jsonl(cut))
    table = gzip.compress(b"id,text\n" + "".join(f"{i},{i * 7919 % 10007}\n" for i in range(5000)).encode())
    (tmp_path / "cut.csv.gz").write_bytes(table[: len(table) // 2])
    with pytest.raises(InputError, match=r"cut\.csv\.gz.*unreadable compressed file"):
        list(read_rows(tmp_path / "cut.csv.gz"))


def test_corpus_sources_read_the_same_compressed(tmp_path):
    (tmp_path / "docs.jsonl").write_bytes(_jsonl(DOCS))
    (tmp_path / "docs.jsonl.gz").write_bytes(gzip.compress(_jsonl(DOCS)))
    tsv = "id\ttext\ttitle\n" + "".join(f"{d['id']}\t{d['text']}\t{d['title']}\n" for d in DOCS)
    (tmp_path / "psgs_w100.tsv.gz").write_bytes(gzip.compress(tsv.encode()))
    plain = list(DocumentReader(tmp_path / "docs.jsonl"))
    assert list(DocumentReader(tmp_path / "docs.jsonl.gz")) == plain
    assert list(DocumentReader(tmp_path / "psgs_w100.tsv.gz")) == plain
    (tmp_path / "kb.db.gz").write_bytes(gzip.compress(b"SQLite format 3\x00"))
    with pytest.raises(InputError, match="decompress it first"):
        list(DocumentReader(tmp_path / "kb.db.gz"))


def test_a_mediawiki_dump_reads_gzipped(tmp_path):
    pytest.importorskip("mwparserfromhell")
    dump = ('<mediawiki><page><title>Nile</title><ns>0</ns><revision><text>The Nile is a '
            'river.</text></revision></page></mediawiki>')
    (tmp_path / "dump.xml.gz").write_bytes(gzip.compress(dump.encode()))
    docs = list(DocumentReader(tmp_path / "dump.xml.gz"))
    assert [(d.id, d.text) for d in docs] == [("Nile", "The Nile is a river.")]


def test_outputs_are_plain_jsonl(tmp_path):
    with pytest.raises(InputError, match="written as plain JSONL"):
        RunOutput(tmp_path / "out.jsonl.gz", None)
