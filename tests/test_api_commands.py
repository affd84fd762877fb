"""One library API behind every command: ``offline_eval.<command>(rows)`` gives the rows that
``offline-eval <command>`` writes, on the same input, with the shipped models; options are
dataclasses whose fields are the flags. Texts are written for these tests."""
from __future__ import annotations

import dataclasses
import json

import pytest

import offline_eval
from offline_eval.cli import ROW_COMMANDS, build_parser, main
from offline_eval.errors import InputError
from offline_eval.options import flag_of

ROWS = {
    "verify": [
        {"id": "p1", "premise": "The ferry Marta entered service in 2011.",
         "hypothesis": "The Marta is a ferry."},
        # the number rule: the claim's height is not the reference's
        {"id": "c1", "claim": "The lighthouse on Varo is 95 metres tall.",
         "references": ["The lighthouse on Varo is 42 metres tall and was finished in 1874."]},
        {"id": "c2", "claim": "The Marta entered service in 2011.",
         "references": [{"id": "d", "text": "The Marta entered service in 2011.", "title": "Marta"}]},
        {"id": "c3", "claim": "The island has no harbour.", "references": []},
    ],
    "decompose": [
        {"id": 1, "query": "Tell me about the lighthouse",
         "response": "The lighthouse is 42 metres tall and it was finished in 1874."},
        {"id": 2, "response": "I'm sorry, I can't help with that."},
    ],
    "rank": [
        {"id": "r", "query": "How tall is the lighthouse?",
         "claims": ["The lighthouse is 42 metres tall.", "The island has a small harbour."]},
        {"id": "e", "query": "How tall is the lighthouse?", "claims": []},
    ],
    "comprehensiveness": [
        {"id": "k", "query": "When did the Marta enter service?", "response": "In 2011.",
         "references": ["The Marta entered service in 2011 and carries up to 40 cars.",
                        {"id": "w", "text": "The Marta was built in Gdansk."}]},
    ],
}
FLAGS = {"comprehensiveness": ["--method", "direct"]}


@pytest.mark.parametrize("command", sorted(ROWS))
def test_cli_and_api_give_the_same_rows(command, tmp_path):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS[command]), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main([command, str(inp), "-o", str(out), "--quiet", *FLAGS.get(command, [])]) == 0
    written = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    options = {"method": "direct"} if command == "comprehensiveness" else {}
    fn = getattr(offline_eval, command)
    assert fn(str(inp), **options) == written  # a path
    assert fn(ROWS[command], **options) == written  # the rows themselves
    assert len(written) == len(ROWS[command])


def test_verify_gives_the_shipped_verdicts():
    """(tests/verify/test_verdict_path.py pins the number and name rules through the CLI and
    the API with a stand-in model that entails everything.)"""
    rows = {r["id"]: r for r in offline_eval.verify(ROWS["verify"])}
    assert rows["c1"]["verdict"] == "contradicted"
    assert rows["c2"]["verdict"] == "supported" and rows["c2"]["evidence_source"]["title"] == "Marta"
    assert rows["c3"]["verdict"] == "unverifiable"
    assert rows["p1"]["label"] == "entailment"


def test_decompose_takes_plain_strings():
    assert offline_eval.decompose(["The lighthouse is 42 metres tall and it was finished in 1874."]) \
        == offline_eval.decompose([{"id": 1, "response": "The lighthouse is 42 metres tall and it "
                                                          "was finished in 1874."}])


def test_metrics_api_equals_the_cli(tmp_path):
    rows = [{"id": "r1", "query": "Where is the tower?", "claims": [
        {"id": "c1", "text": "The tower is in Varo.", "judgment": True, "importance": "vital"},
        {"id": "c2", "text": "It opened in 1890.", "judgment": False, "importance": "okay"}]}]
    inp = tmp_path / "judged.jsonl"
    inp.write_text(json.dumps(rows[0]) + "\n")
    out, summary = tmp_path / "m.jsonl", tmp_path / "s.json"
    assert main(["metrics", str(inp), "-o", str(out), "--summary", str(summary), "--gamma", "5"]) == 0
    run = offline_eval.metrics(str(inp), gamma=5)
    assert run.rows == [json.loads(x) for x in out.read_text().splitlines()]
    assert run.summary == json.loads(summary.read_text())
    assert offline_eval.metrics(rows, gamma=5).rows == run.rows
    assert run.rows[0]["metrics"]["factscore_precision"] == 0.5


@pytest.mark.parametrize("command", [*sorted(ROW_COMMANDS), "metrics", "score"])
def test_a_misspelled_option_is_a_type_error_naming_the_valid_ones(command):
    with pytest.raises(TypeError, match=r"unknown option 'nli_modle'; valid: .*"):
        getattr(offline_eval, command)([], nli_modle="x")


def test_a_value_out_of_its_choices_or_range_names_the_option():
    with pytest.raises(InputError, match=r"backend \(--backend\): 'tensorflow' is not one of onnx, torch"):
        offline_eval.verify([], backend="tensorflow")
    with pytest.raises(InputError, match=r"batch_size \(--batch-size\) must be positive"):
        offline_eval.rank([], batch_size=0)
    with pytest.raises(InputError, match="needs --decomposer syntactic"):
        offline_eval.decompose([], decomposer="generative", granularity="atomic")


def _options(command: str) -> list[type]:
    if command == "score":
        from offline_eval.score_file import ScoreJob
        return [offline_eval.ScoreOptions, ScoreJob]
    name = {"comprehensiveness": "Comprehensiveness"}.get(command, command.capitalize())
    return [getattr(offline_eval, f"{name}Options")]


@pytest.mark.parametrize("command", [*sorted(ROW_COMMANDS), "metrics", "score"])
def test_every_option_is_a_flag_with_its_default_and_choices(command):
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    actions = {a.dest: a for a in sub._actions}
    for cls in _options(command):
        for f in dataclasses.fields(cls):
            if not f.metadata.get("cli", True):
                continue
            action = actions[f.name]
            assert flag_of(f) in action.option_strings
            assert action.default == f.default
            if f.metadata.get("choices"):
                assert tuple(action.choices) == f.metadata["choices"]
    for shared in ("--resume", "--overwrite", "--quiet"):
        if command != "metrics":
            assert any(shared in a.option_strings for a in sub._actions), shared


def test_score_returns_a_typed_summary():
    from offline_eval.types import RunSummary

    run = offline_eval.score([], comprehensiveness=None)
    assert isinstance(run.summary, RunSummary)
    assert run.summary.n_responses == 0 and run.summary.verdicts.responses["incorrect"] == 0
    assert dict(run.summary) == run.summary.to_json()
    assert list(run.summary.to_json())[:4] == ["n_responses", "abstention_ratio", "metrics",
                                               "n_failed"]


def test_verify_reads_one_string_as_one_reference():
    claim = "The Marta entered service in 2011."
    one = offline_eval.verify([{"id": 1, "claim": claim, "references": "The Marta entered "
                                "service in 2011 and carries 40 cars."}])
    assert one == offline_eval.verify([{"id": 1, "claim": claim, "references": [
        "The Marta entered service in 2011 and carries 40 cars."]}])
    assert one[0]["verdict"] == "supported"
    with pytest.raises(InputError, match=r"<items>:1: field 'references': expected list or str"):
        offline_eval.verify([{"id": 1, "claim": claim, "references": 3}])


def test_the_summary_reads_as_its_json_where_a_dict_was_read():
    from offline_eval.report._fmt import as_dict
    from offline_eval.scoring import summarize_run

    summary = summarize_run([])
    assert as_dict(summary) == summary.to_json() and summary == summary.to_json()
    assert json.loads(json.dumps(summary.to_json())) == summary


def test_the_writer_keeps_an_output_that_holds_rows(tmp_path):
    from offline_eval.commands import write
    from offline_eval.commands.decompose import COMMAND

    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    inp.write_text(json.dumps({"id": 1, "response": "Sorry, I can't help with that."}) + "\n")
    out.write_text('{"id": "old"}\n')
    with pytest.raises(InputError, match="already holds rows"):
        write(COMMAND, inp, out)
    assert write(COMMAND, inp, out, overwrite=True) == 1
    assert json.loads(out.read_text())["deflection"] is True
