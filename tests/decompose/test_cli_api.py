"""``offline-eval decompose`` and the API it calls."""
from __future__ import annotations

import argparse
import json

import pytest

from offline_eval.cli._shared import add_row_command
from offline_eval.decomposition.api import decompose_items, to_row
from offline_eval.errors import InputError
from offline_eval.pipeline import Pipeline
from offline_eval.stages.decompose import Decompose
from offline_eval.stages.split import Split
from offline_eval.types import Item, ResponseResult


def run_cli(argv):
    parser = argparse.ArgumentParser()
    add_row_command(parser.add_subparsers(), "decompose", "claims")
    args = parser.parse_args(["decompose", *argv])
    return args.func(args)


def write(tmp_path, rows):
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_cli_output_format(tmp_path):
    src = write(tmp_path, [
        {"id": 1, "query": "Tell me about the Nile", "response":
         "Sure! The Nile flows through Egypt and Sudan. It is about 6,650 km long. "
         "Would you like to know more?"},
        {"id": "e", "response": ""},
        {"id": "d", "response": "I'm sorry, I don't have access to that information."}])
    out = tmp_path / "out.jsonl"
    assert run_cli([str(src), "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    first = rows[0]
    assert list(first) == ["id", "deflection", "sentences", "claims"]
    assert first["id"] == "1" and first["deflection"] is False
    assert [s["kind"] for s in first["sentences"]] == ["non_claim", "claim", "claim", "non_claim"]
    assert first["sentences"][0]["reason"] == "pleasantry"
    assert first["claims"] == ["The Nile flows through Egypt.", "The Nile flows through Sudan.",
                               "The Nile is about 6,650 km long."]
    for s in first["sentences"]:
        assert set(s) >= {"text", "start", "end", "kind", "claims"}
    assert rows[1] == {"id": "e", "deflection": False, "sentences": [], "claims": [],
                       "reason": "empty response"}
    assert rows[2]["deflection"] is True and rows[2]["claims"] == []


def test_cli_reports_bad_rows_with_file_and_line(tmp_path):
    src = write(tmp_path, [{"id": 1, "response": "Fine."}, {"id": 2, "query": "q"}])
    with pytest.raises(InputError, match=r"in.jsonl:2: field 'response'"):
        run_cli([str(src), "-o", str(tmp_path / "o.jsonl")])
    with pytest.raises(InputError, match="needs --decomposer generative"):
        run_cli([str(src), "--decomposer-model", str(tmp_path)])


def test_cli_generative_with_tiny_t5(tmp_path, tiny_t5):
    src = write(tmp_path, [{"id": 1, "response": "Paris is the capital of France and has museums."}])
    out = tmp_path / "out.jsonl"
    assert run_cli([str(src), "-o", str(out), "--decomposer", "generative",
                    "--decomposer-model", str(tiny_t5)]) == 0
    row = json.loads(out.read_text())
    assert row["claims"] and "warnings" in row


def test_stages_declare_fields_and_number_claims():
    pipe = Pipeline([Split(), Decompose()])
    assert Split.assigns[:2] == ("sentences", "deflection") and Decompose.requires == ("sentences",)
    rec = pipe([ResponseResult(Item("x", "", "Oslo is in Norway. Bergen is rainy and hilly."))])[0]
    assert [c.id for c in rec.claims] == ["C1", "C2", "C3"]
    assert [c.sentence_index for c in rec.claims] == [0, 1, 1]
    assert rec.claims[1].sentence == "Bergen is rainy and hilly."


def test_api_partial_deflection_keeps_valid_claims():
    rec = next(decompose_items([Item("p", "How much is a puppy?",
                                     "I apologize, I can't retrieve current prices… Generally, "
                                     "puppies cost $1,000 to $4,000.")]))
    row = to_row(rec)
    assert row["deflection"] is False
    assert [s["kind"] for s in row["sentences"]] == ["deflection", "claim"]
    assert row["claims"] == ["Puppies cost $1,000 to $4,000."]


def test_markdown_list_response():
    text = ("Here is a list of birds that cannot fly:\\n- Kiwi\\n- Emu\n"
            "**Note:** The kiwi lives in New Zealand.")
    row = to_row(next(decompose_items([Item("m", "Which birds cannot fly?", text)])))
    assert row["claims"][:2] == ["Kiwi is one of the birds that cannot fly.",
                                 "Emu is one of the birds that cannot fly."]
    assert row["claims"][2] == "The kiwi lives in New Zealand."
