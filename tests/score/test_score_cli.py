"""`offline-eval score` end to end with the shipped models, on a self-written corpus
(corpora/fixtures/tiny.jsonl) in a temporary data home: rows, summary, report, resume."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_eval.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "corpora" / "fixtures" / "tiny.jsonl"

ITEMS = [
    {"id": "tower", "query": "How tall is the Lighthouse of Varn?", "group": "normal",
     "response": "The Lighthouse of Varn is 42 metres tall. It was completed in 1874."},
    {"id": "tower-wrong", "query": "How tall is the Lighthouse of Varn?", "group": "wrong",
     "response": "The Lighthouse of Varn is 95 metres tall. It was completed in 1874."},
    {"id": "sorry", "query": "What is the ferry timetable today?", "group": "normal",
     "response": "I'm sorry, I can't access today's timetable."},
    {"id": "rag", "query": "When did the Marta enter service?", "group": "normal",
     "response": "The Marta entered service in 2011.",
     "references": ["The current ship, the Marta, entered service in 2011 and carries up to 40 cars."]},
]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    h = tmp_path_factory.mktemp("home")
    assert main(["corpus", "build", "tiny", "--from", str(FIXTURE), "--home", str(h)]) == 0
    return h


@pytest.fixture(scope="module")
def scored(home, tmp_path_factory):
    d = tmp_path_factory.mktemp("score")
    inp = d / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    out = d / "out.jsonl"
    rc = main(["score", str(inp), "-o", str(out), "--corpus", "tiny", "--home", str(home),
               "--summary", str(d / "s.json"), "--html", str(d / "r.html"), "--group-by", "group",
               "--quiet"])
    return d, inp, out, rc


def test_rows_carry_claims_verdicts_evidence_and_audit(scored):
    _, _, out, rc = scored
    assert rc == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(rows) == {"tower", "tower-wrong", "sorry", "rag"}
    tower = rows["tower"]
    assert tower["status"] == "ok" and tower["claims"]
    for c in tower["claims"]:
        assert c["verdict"] in ("supported", "contradicted", "unverifiable", "inconclusive")
        assert c["importance"] in ("vital", "okay", "less-important") and c["rank"] >= 1
        assert c["evidence"] and c["evidence"][0]["doc_id"]
        assert c["audit"]["verdict"]
    assert tower["audit"]["relevance"] == "relevant"
    assert rows["sorry"]["deflection"] and rows["sorry"]["audit"]["verdict"] is None
    assert rows["sorry"]["metrics"]["factscore_precision"] is None
    assert rows["rag"]["claims"][0]["evidence"][0]["passage_id"].startswith("ref0")
    assert rows["rag"]["nuggets"], "references give nuggets"


def test_wrong_number_is_caught_by_the_audit(scored):
    _, _, out, _ = scored
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    height = [c for c in rows["tower-wrong"]["claims"] if "95" in c["text"]][0]
    assert height["audit"]["verdict"] in ("incorrect", "partially_correct")
    assert rows["tower-wrong"]["audit"]["verdict"] in ("incorrect", "partially_correct")


def test_summary_and_report(scored):
    d, _, _, _ = scored
    s = json.loads((d / "s.json").read_text())
    assert s["n_responses"] == 4 and s["n_failed"] == 0
    assert set(s["groups"]) == {"normal", "wrong"}
    html = (d / "r.html").read_text()
    assert "tower-wrong" in html and "<svg" in html


def test_resume_completes_a_partial_output(scored, home):
    d, inp, out, _ = scored
    lines = out.read_text().splitlines()
    part = d / "part.jsonl"
    part.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # torn line
    assert main(["score", str(inp), "-o", str(part), "--corpus", "tiny", "--home", str(home),
                 "--resume", "--quiet"]) == 0
    key = lambda line: json.loads(line)["id"]  # noqa: E731
    assert sorted(part.read_text().splitlines(), key=key) == sorted(lines, key=key)


def test_duplicate_ids_fail_before_work(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps(ITEMS[0]) + "\n" + json.dumps(ITEMS[0]) + "\n")
    assert main(["score", str(p), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "duplicate id 'tower'" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_nli_options_reach_every_stage_that_loads_the_nli_model():
    from offline_eval.score import ScoreOptions, score_specs

    specs = {s.target: s.kwargs for s in score_specs(ScoreOptions(nli_model="my-deberta", backend="torch"))}
    for name in ("offline_eval.stages.verify.v1", "offline_eval.stages.nuggets.v1"):
        assert specs[name]["model"] == "my-deberta" and specs[name]["backend"] == "torch"
        specs_stage = __import__("offline_eval.registry", fromlist=["resolve"]).resolve(name)(**specs[name])
        assert specs_stage is not None
