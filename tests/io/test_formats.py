"""Peer formats and tables in: every format on a small self-written file gives the same
validated items as the native row, and its errors name the file, line and its own field."""
from __future__ import annotations

import csv
import json

import pytest

from offline_eval.errors import InputError
from offline_eval.io.formats import detect
from offline_eval.io.items import read_items

Q, A = "Where was Marie Curie born?", "Marie Curie was born in Warsaw. She won two Nobel Prizes."
CTX = ["Marie Curie was born in Warsaw, in Congress Poland.", "She won the Nobel Prize twice."]
NATIVE = {"id": "1", "query": Q, "response": A, "references": CTX}

PEERS = {
    "ragas": {"user_input": Q, "response": A, "retrieved_contexts": CTX},
    "veriscore": {"question": Q, "response": A, "model": "gpt-4"},
    "factscore": {"topic": "Marie Curie", "output": A, "cat": ["rare"]},
    "nuggetizer": {"query": {"qid": "q7", "text": Q}, "answer": [{"text": "Marie Curie was born in "
                   "Warsaw."}, {"text": "She won two Nobel Prizes."}],
                   "candidates": [{"docid": f"d{i}", "doc": {"segment": c}} for i, c in enumerate(CTX)]},
}


def _jsonl(tmp_path, rows, name="in.jsonl"):
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize("fmt", sorted(PEERS))
def test_each_peer_format_reads_as_the_native_row(tmp_path, fmt):
    [item] = read_items(_jsonl(tmp_path, [PEERS[fmt]]), fmt=fmt)
    assert item.response == A
    if fmt == "factscore":
        assert item.query == "Marie Curie" and item.meta == {"cat": ["rare"]}
    else:
        assert item.query == Q
    if fmt in ("ragas", "nuggetizer"):
        assert [r.text for r in item.references] == CTX
    else:
        assert not item.references
    assert item.id == ("q7" if fmt == "nuggetizer" else "1")  # peer rows without id: the line
    if fmt == "veriscore":
        assert item.meta == {"model": "gpt-4"}
    if fmt == "nuggetizer":
        assert [r.id for r in item.references] == ["d0", "d1"]


@pytest.mark.parametrize("fmt", sorted(PEERS))
def test_auto_tells_each_format_and_says_which(tmp_path, fmt):
    said = []
    [item] = read_items(_jsonl(tmp_path, [PEERS[fmt]]), fmt="auto", chosen=said.append)
    assert said == [fmt] and item.response == A


def test_auto_refuses_a_row_it_cannot_tell_listing_the_formats(tmp_path):
    with pytest.raises(InputError) as e:
        read_items(_jsonl(tmp_path, [{"prompt": Q, "completion": A}]), fmt="auto")
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'in.jsonl'}:1: cannot tell the input format")
    for name in ("native", "factscore", "veriscore", "ragas", "nuggetizer"):
        assert name in msg


def test_a_missing_peer_field_names_that_formats_field(tmp_path):
    rows = [PEERS["factscore"], {"topic": "Ada Lovelace"}]
    with pytest.raises(InputError) as e:
        read_items(_jsonl(tmp_path, rows), fmt="factscore")
    assert str(e.value) == (f"{tmp_path / 'in.jsonl'}:2: field 'output': missing required "
                            "field (factscore format)")
    with pytest.raises(InputError, match=r":1: field 'retrieved_contexts\[1\]': expected a string"):
        read_items(_jsonl(tmp_path, [{"user_input": Q, "response": A,
                                      "retrieved_contexts": ["a", 3]}]), fmt="ragas")
    with pytest.raises(InputError, match=r"field 'candidates\[0\].doc.segment'"):
        read_items(_jsonl(tmp_path, [{"query": {"qid": 1, "text": Q}, "answer": A,
                                      "candidates": [{"docid": "x"}]}]), fmt="nuggetizer")
    with pytest.raises(InputError, match=r"field 'user_input': missing required field \(or 'question'\)"):
        read_items(_jsonl(tmp_path, [{"response": A}]), fmt="ragas")


def test_ragas_reference_answer_is_one_more_reference():
    row = {"question": Q, "answer": A, "contexts": CTX, "reference": "Warsaw."}
    assert detect(row) == "ragas"
    [item] = read_items([row], fmt="ragas")
    assert [(r.id, r.text) for r in item.references] == [("ref0", CTX[0]), ("ref1", CTX[1]),
                                                         ("reference", "Warsaw.")]


def test_veriscore_and_ragas_without_contexts_are_told_apart():
    assert detect({"question": Q, "response": A}) == "veriscore"
    assert detect({"user_input": Q, "response": A}) == "ragas"
    assert detect({"id": 1, "query": Q, "response": A}) == "native"


def test_csv_reads_as_jsonl_with_json_cells_and_line_numbers(tmp_path):
    p = tmp_path / "in.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "query", "response", "references", "date"])
        w.writerow(["1", Q, A, json.dumps(CTX), ""])          # an empty cell is an absent field
        w.writerow(["2", Q, "Line one.\nLine two.", "", "2024-05-01"])  # a cell over two lines
        w.writerow(["3", "", A, "", ""])
    with pytest.raises(InputError) as e:
        read_items(p)
    assert str(e.value).startswith(f"{p}:5: field 'query': must not be empty")  # line 5: record 3
    p.write_text(p.read_text(encoding="utf-8").rsplit("3,", 1)[0], encoding="utf-8")
    a, b = read_items(p)
    assert a == read_items([NATIVE])[0]
    assert b.response == "Line one.\nLine two." and b.date == "2024-05-01" and not b.references


def test_csv_with_a_short_record_names_its_line(tmp_path):
    p = tmp_path / "in.tsv"
    p.write_text("id\tquery\tresponse\n1\tq\ta\n2\tq\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"in.tsv:3: 2 cells for 3 columns"):
        read_items(p)


def test_parquet_and_dataframe_read_as_jsonl(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.DataFrame([PEERS["ragas"], {**PEERS["ragas"], "response": "Warsaw.", "score": float("nan")}])
    path = tmp_path / "in.parquet"
    df.to_parquet(path)
    from_file = read_items(path, fmt="auto")
    assert from_file == read_items(df, fmt="ragas")
    assert from_file[0] == read_items([NATIVE])[0]
    assert [it.id for it in from_file] == ["1", "2"] and "score" not in from_file[1].meta
    with pytest.raises(InputError, match=r"^<DataFrame>:1: field 'topic'"):
        read_items(df, fmt="factscore")


def test_unreadable_tables_are_input_errors(tmp_path):
    pytest.importorskip("pyarrow")
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(InputError, match=r"x.parquet: unreadable Parquet"):
        read_items(bad)
    with pytest.raises(InputError, match="no such file"):
        read_items(tmp_path / "missing.csv")


def test_csv_stray_quote_is_an_error_and_text_columns_are_never_decoded(tmp_path):
    p = tmp_path / "in.csv"
    p.write_text('id,query,response\n1,q,"oops\n2,q,r2\n3,q,r3\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"in.csv:4: unreadable CSV"):
        read_items(p)
    p.write_text('id,query,response,references\n1,q,"[1, 2]","[""a passage""]"\n', encoding="utf-8")
    [item] = read_items(p)
    assert item.response == "[1, 2]" and [r.text for r in item.references] == ["a passage"]


def test_typed_tables_nested_nulls_dates_and_named_index(tmp_path):
    import datetime

    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.DataFrame([
        {"id": "a", "query": Q, "response": A, "date": datetime.date(2024, 5, 1),
         "references": [{"id": "d1", "text": CTX[0]}, {"text": CTX[1], "title": "Curie"}]}])
    path = tmp_path / "in.parquet"
    df.to_parquet(path)
    [item] = read_items(path)
    assert item.date == "2024-05-01"
    assert [(r.id, r.text, r.title) for r in item.references] == [("d1", CTX[0], None),
                                                                  ("ref1", CTX[1], "Curie")]
    [same] = read_items(df.set_index("id"))  # a named index is the id column
    assert same == item


def test_peer_ids_count_rows_and_peer_rows_keep_their_own_references(tmp_path):
    p = tmp_path / "in.csv"
    p.write_text("question,response\nq1,a1\nq2,a2\n", encoding="utf-8")
    assert [it.id for it in read_items(p, fmt="veriscore")] == ["1", "2"]  # not CSV lines 2, 3
    [item] = read_items([{"question": Q, "response": A, "references": CTX}], fmt="veriscore")
    assert [r.text for r in item.references] == CTX
    [item] = read_items([{"topic": "Marie Curie", "input": "Tell me a bio of Marie Curie.",
                          "output": A}], fmt="factscore")
    assert item.query == "Tell me a bio of Marie Curie." and item.meta == {"topic": "Marie Curie"}
    [item] = read_items([{"question": Q, "answer": A, "contexts": CTX, "ground_truth": "Warsaw."}],
                        fmt="auto")
    assert item.references[-1].text == "Warsaw."
