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
        assert c["importance"] in ("vital", "okay", "less-important") and c["rank"] >= 1
        assert c["evidence"] and c["evidence"][0]["doc_id"]
    # the shipped models' verdicts, pinned: the lighthouse's own article decides both claims
    got = {r: [(c["text"], c["verdict"], c["audit"]["verdict"]) for c in rows[r]["claims"]]
           for r in ("tower", "tower-wrong", "rag")}
    assert got == {
        "tower": [("The Lighthouse of Varn is 42 metres tall.", "supported", "correct"),
                  ("The Lighthouse of Varn was completed in 1874.", "supported", "correct")],
        "tower-wrong": [("The Lighthouse of Varn is 95 metres tall.", "contradicted", "incorrect"),
                        ("The Lighthouse of Varn was completed in 1874.", "supported", "correct")],
        "rag": [("The Marta entered service in 2011.", "supported", "correct")]}
    ev = tower["claims"][0]["decisive_evidence"]
    assert (ev["doc_id"], ev["found_by"]) == ("lighthouse-of-varn", "subject")
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
    # the row names the two numbers the rule compared, for the report to mark
    assert height["compared"] == {"kind": "number", "claim": "95 metres", "evidence": ["42 metres"]}
    assert "the claim says '95 metres', the evidence '42 metres'" in height["audit"]["reasons"][0]


def test_summary_and_report(scored):
    d, _, _, _ = scored
    s = json.loads((d / "s.json").read_text())
    assert s["n_responses"] == 4 and s["n_failed"] == 0
    assert set(s["groups"]) == {"normal", "wrong"}
    # the audit added up: the right tower answer, the RAG one, the wrong height, the deflection
    assert {k: n for k, n in s["verdicts"]["responses"].items() if n} == {
        "correct": 2, "incorrect": 1, "deflection": 1}
    assert s["verdicts"]["claims"] == {"supported": 4, "contradicted": 1, "inconclusive": 0,
                                       "unverifiable": 0}
    # the answers to read first: the wrong height, its claim and why
    assert [(w["id"], w["verdict"], w["severity"]) for w in s["worst"]] == [
        ("tower-wrong", "incorrect", "major")]
    assert s["worst"][0]["claims"][0]["text"] == "The Lighthouse of Varn is 95 metres tall."
    assert "seconds" not in s  # no wall-clock time: the same run writes the same bytes
    html = (d / "r.html").read_text()
    assert "tower-wrong" in html and "<svg" in html


def test_resume_completes_a_partial_output(scored, home, capsys):
    d, inp, out, _ = scored
    lines = out.read_text().splitlines()
    part = d / "part.jsonl"
    part.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # torn line
    assert main(["score", str(inp), "-o", str(part), "--corpus", "tiny", "--home", str(home),
                 "--resume", "--quiet"]) == 0
    key = lambda line: json.loads(line)["id"]  # noqa: E731
    assert sorted(part.read_text().splitlines(), key=key) == sorted(lines, key=key)
    # an output from before run records (or copied without one) resumes with a warning
    assert "part.jsonl.run.json is missing" in capsys.readouterr().err


def test_the_run_record_names_models_runtimes_options_and_versions(scored):
    import hashlib

    d, _, out, _ = scored
    run = json.loads((d / "s.json").read_text())["run"]
    beside = json.loads(out.with_name(out.name + ".run.json").read_text())
    assert beside == run
    nli = run["models"]["nli"]
    shipped = ROOT / "models" / "nli-minilm" / "manifest.json"
    files = {k: v for k, v in sorted(json.loads(shipped.read_text())["files"].items())
             if not k.endswith(".md")}
    assert nli["files_sha256"] == hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    assert (nli["name"], nli["backend"], nli["device"]) == ("nli-minilm", "onnx", "cpu")
    assert run["models"]["importance"]["files_sha256"] and run["models"]["embedder"]["backend"]
    options = {s["name"].split(".")[-2]: s.get("options", {}) for s in run["stages"]}
    assert options["retrieve"]["k"] == 5 and options["metrics"] == {"gamma": 10, "undecided": "exclude"}
    assert run["corpus"]["name"] == "tiny" and run["corpus"]["passages"] > 0
    assert run["libraries"]["onnxruntime"] and run["libraries"]["offline-eval"]
    html = (d / "r.html").read_text()
    assert "Models, options and versions of this run" in html and nli["files_sha256"][:12] in html


def test_resume_refuses_another_configuration(scored, home, tmp_path, capsys):
    d, inp, out, _ = scored
    part = tmp_path / "part.jsonl"
    part.write_text(out.read_text().splitlines()[0] + "\n")
    record = out.with_name(out.name + ".run.json")
    part.with_name(part.name + ".run.json").write_bytes(record.read_bytes())
    base = ["score", str(inp), "-o", str(part), "--corpus", "tiny", "--home", str(home),
            "--resume", "--quiet"]
    before = part.read_bytes()
    assert main([*base, "-k", "3", "--gamma", "5"]) == 2
    err = capsys.readouterr().err
    assert "written with another configuration" in err
    assert "k: 5 then, 3 now" in err and "gamma: 10 then, 5 now" in err
    assert part.read_bytes() == before  # nothing scored, nothing lost
    assert main([*base, "--batch-size", "7"]) == 0  # batch size does not change a row
    assert len(part.read_text().splitlines()) == len(ITEMS)


def test_duplicate_ids_fail_before_work(tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps(ITEMS[0]) + "\n" + json.dumps(ITEMS[0]) + "\n")
    assert main(["score", str(p), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "duplicate id 'tower'" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_an_output_with_rows_needs_resume_or_overwrite(scored, home, tmp_path, capsys):
    d, inp, out, _ = scored
    copy = tmp_path / "out.jsonl"
    copy.write_bytes(out.read_bytes())
    base = ["score", str(inp), "-o", str(copy), "--corpus", "tiny", "--home", str(home), "--quiet"]
    assert main(base) == 2  # refused before any work: the finished rows stay
    assert "already holds rows" in capsys.readouterr().err
    assert copy.read_bytes() == out.read_bytes()
    assert main([*base, "--resume", "--overwrite"]) == 2
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(ITEMS[0]) + "\n")
    assert main(["score", str(one), "-o", str(copy), "--corpus", "tiny", "--home", str(home),
                 "--quiet", "--overwrite"]) == 0
    assert [json.loads(x)["id"] for x in copy.read_text().splitlines()] == ["tower"]


def test_gamma_and_undecided_reach_the_metrics(scored, home, tmp_path):
    d, _, out, _ = scored
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps(ITEMS[0]) + "\n")
    alt = tmp_path / "alt.jsonl"
    assert main(["score", str(inp), "-o", str(alt), "--corpus", "tiny", "--home", str(home),
                 "--gamma", "1", "--undecided", "unsupported", "--quiet"]) == 0
    base = next(r for r in map(json.loads, out.read_text().splitlines()) if r["id"] == "tower")["metrics"]
    got = json.loads(alt.read_text())["metrics"]
    n = len([c for c in json.loads(alt.read_text())["claims"] if c["verdict"] != "inconclusive"])
    assert 0 < n < 10  # so the default gamma (10) penalises and gamma 1 does not
    assert got["factscore_precision_gamma"] == got["factscore_precision"]
    assert base["factscore_precision_gamma"] < base["factscore_precision"] or base["factscore_precision"] == 0


def test_only_stages_whose_model_can_use_a_gpu_are_marked_for_one():
    from offline_eval.engines.ray_engine import actor_gpus
    from offline_eval.scoring import ScoreOptions, score_specs

    def marked(**kw):
        return {s.target.split(".")[-2] for s in score_specs(ScoreOptions(**kw)) if actor_gpus(s, 0.25)}

    assert marked() == {"verify", "nuggets", "comprehensiveness"}  # never spaCy, BM25, the ranker
    assert marked(decomposer="generative") == {"decompose", "verify", "nuggets", "comprehensiveness"}
    assert marked(comprehensiveness=None) == {"verify", "nuggets"}


def test_nli_options_reach_every_stage_that_loads_the_nli_model():
    from offline_eval.scoring import ScoreOptions, score_specs

    specs = {s.target: s.kwargs for s in score_specs(ScoreOptions(nli_model="my-deberta", backend="torch"))}
    for name in ("offline_eval.stages.verify.v1", "offline_eval.stages.nuggets.v1"):
        assert specs[name]["model"] == "my-deberta" and specs[name]["backend"] == "torch"
        specs_stage = __import__("offline_eval.registry", fromlist=["resolve"]).resolve(name)(**specs[name])
        assert specs_stage is not None


KILL_ITEMS = [  # ten responses, so that a kill lands between rows
    {"id": f"k{i:02d}", "query": q, "response": r} for i, (q, r) in enumerate([
        ("How tall is the Lighthouse of Varn?", "The Lighthouse of Varn is 42 metres tall."),
        ("How tall is the Lighthouse of Varn?", "The Lighthouse of Varn is 95 metres tall and was built in 1874."),
        ("When was the Lighthouse of Varn automated?", "The light was automated in 1969. Keepers lived at its base."),
        ("What fuel did the Varn lamp use?", "Its lamp first burned whale oil and later paraffin."),
        ("Where is the Lighthouse of Varn?", "It stands on the northern cape of the island of Varn."),
        ("How many people live on Varn?", "About 300 people live on Varn, mostly in one village."),
        ("How long did the Varn tower take to build?", "The tower took eleven years to build and was finished in 1874."),
        ("Tell me about Varn.", "Varn is a small island in a cold northern sea. It has a lighthouse."),
        ("What is the ferry called?", "The ferry is called the Marta and it carries up to 40 cars."),
        ("When did the Marta enter service?", "The Marta entered service in 1999."),
    ])
]


def test_kill_9_then_resume_with_real_models_is_byte_identical(home, tmp_path):
    """The real pipeline (spaCy, ranker, BM25, int8 NLI): kill -9 mid-run, --resume, and
    the file equals an uninterrupted run's, byte for byte after sorting by id."""
    from tests._process import kill_cli_after

    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in KILL_ITEMS))
    base = ["score", str(inp), "--corpus", "tiny", "--home", str(home), "--batch-size", "1", "--quiet"]
    ref = tmp_path / "ref.jsonl"
    assert main([*base, "-o", str(ref)]) == 0
    out = tmp_path / "out.jsonl"
    partial = kill_cli_after([*base, "-o", str(out)], out, 2)
    assert 2 <= partial < len(KILL_ITEMS), f"the kill must land mid-run ({partial} rows)"
    assert main([*base, "-o", str(out), "--resume"]) == 0
    key = lambda line: json.loads(line)["id"]  # noqa: E731
    assert sorted(out.read_text().splitlines(), key=key) == sorted(ref.read_text().splitlines(), key=key)


def test_comprehensiveness_only_for_items_with_references(scored):
    _, _, out, _ = scored
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["tower"]["comprehensiveness"] is None
    cov = rows["rag"]["comprehensiveness"]
    assert cov["method"] == "qa" and 0.0 <= cov["score"] <= 1.0
    facts = [f["fact"] for f in cov["covered"] + cov["missing"]]
    assert any("2011" in f for f in facts)  # the reference's fact that answers the query
    assert all(f["source_ids"] for f in cov["covered"] + cov["missing"])
    assert any("2011" in f["fact"] for f in cov["covered"])  # the response gives that year


def test_home_reaches_imported_models_and_is_restored(home, tmp_path):
    import os

    from offline_eval.modelstore import import_model
    from tests.verify.conftest import make_checkpoint

    ckpt = make_checkpoint(tmp_path / "ckpt", {0: "entailment", 1: "neutral", 2: "contradiction"})
    import_model(ckpt, name="tiny-in-home", home=home, max_length=64)
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps(ITEMS[0]) + "\n")
    before = os.environ.get("OFFLINE_EVAL_HOME")
    rc = main(["score", str(inp), "-o", str(tmp_path / "o.jsonl"), "--corpus", "tiny",
               "--home", str(home), "--nli-model", "tiny-in-home", "--quiet",
               "--summary", str(tmp_path / "s.json")])
    assert rc == 0 and os.environ.get("OFFLINE_EVAL_HOME") == before
    assert json.loads((tmp_path / "s.json").read_text())["run"]["models"]["nli"]["name"] == "tiny-in-home"


def test_rows_do_not_depend_on_the_batch_size(scored, home, monkeypatch):
    """The same bytes at --batch-size 1, 4 and 32 (the fixture's default): no stage reads
    its batch mates (the embedder runs fixed-shape batches, the int8 NLI one pair at a time)."""
    from offline_eval.decomposition.syntactic import _PARSED, ParseCache
    from offline_eval.runners.embedding import VectorCache

    monkeypatch.setattr(VectorCache, "SIZE", 0)   # embed afresh: no vector from the first run
    monkeypatch.setattr(ParseCache, "TOKENS", 0)  # and parse afresh
    _PARSED.clear()
    d, inp, out, _ = scored
    for b in ("1", "4"):
        other = d / f"out-{b}.jsonl"
        assert main(["score", str(inp), "-o", str(other), "--corpus", "tiny", "--home", str(home),
                     "--batch-size", b, "--quiet"]) == 0
        assert other.read_bytes() == out.read_bytes(), f"--batch-size {b} changed a row"


def test_terminal_summary_names_the_worst_answers(home, tmp_path, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ITEMS[:2]))
    assert main(["score", str(inp), "-o", str(tmp_path / "o.jsonl"), "--corpus", "tiny",
                 "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "answers: correct 1 (50%), incorrect 1 (50%)" in out
    assert ("worst answers (as in --summary and the report):\n    tower-wrong  incorrect, major "
            "severity: 'The Lighthouse of Varn is 95 metres tall.' (incorrect)") in out


def test_quiet_silences_progress_and_loading_lines(home, tmp_path, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text(json.dumps(ITEMS[0]) + "\n")
    args = ["score", str(inp), "-o", str(tmp_path / "o.jsonl"), "--corpus", "tiny",
            "--home", str(home), "--overwrite"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "offline-eval: 1/1 rows (100%)" in err            # a log's last progress line
    assert main(args + ["--quiet"]) == 0
    assert "offline-eval:" not in capsys.readouterr().err


def test_resume_compares_the_batch_size_only_where_nli_runs_batched():
    """int8 ONNX (the default) scores one pair a call, so --batch-size changes no row and is
    not compared; batched NLI (torch) pads to each batch's longest pair, so it is."""
    from offline_eval.provenance import differences, run_record
    from offline_eval.scoring import ScoreOptions, score_specs

    def record(**kw):
        opts = ScoreOptions(**kw)
        return run_record(opts, score_specs(opts), needs_corpus=False)

    assert differences(record(batch_size=8), record(batch_size=32)) == []
    torch_diff = differences(record(backend="torch", batch_size=8),
                             record(backend="torch", batch_size=32))
    assert len(torch_diff) == 1 and "models.nli.pairs_per_batch: 8 then, 32 now" in torch_diff[0]
