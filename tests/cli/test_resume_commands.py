"""``--resume`` for the commands that write one row per input row: a run stopped after some
rows (Ctrl-C, an error or a kill) keeps them in the output, and ``--resume`` computes only
the rest and writes the same file as an uninterrupted run. They write through the one
resumable output ``score`` uses (:class:`~offline_eval.io.resume.RunOutput`). Texts are
written for these tests."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from offline_eval.cli import main
from offline_eval.io.resume import RunOutput

ROWS = {
    "verify": [
        {"id": "p1", "premise": "The ferry Marta entered service in 2011.", "hypothesis": "The Marta is a ferry."},
        {"id": "c1", "claim": "The Marta entered service in 2011.",
         "evidence": ["The current ship, the Marta, entered service in 2011 and carries 40 cars."]},
        {"id": "p2", "premise": "The lighthouse is 42 metres tall.", "hypothesis": "The lighthouse is 95 metres tall."},
        {"id": "c2", "claim": "The island has no harbour.", "evidence": []},
        {"id": "p3", "premise": "Keepers lived at the base of the tower.", "hypothesis": "People lived near the tower."},
    ],
    "decompose": [
        {"id": f"d{i}", "response": r} for i, r in enumerate([
            "The lighthouse is 42 metres tall and it was finished in 1874.",
            "I'm sorry, I can't help with that.",
            "The ferry carries 40 cars. Would you like the timetable?",
            "Its lamp burned whale oil, and later paraffin.",
            "About 300 people live on the island."])],
    "rank": [
        {"id": f"r{i}", "query": "How tall is the lighthouse?",
         "claims": [{"id": "a", "text": t}, {"id": "b", "text": "The island has a small harbour."}]}
        for i, t in enumerate(["The lighthouse is 42 metres tall.", "It was finished in 1874.",
                               "The tower is white.", "Keepers lived at its base.",
                               "The lamp burned whale oil."])],
    "nuggets": [
        {"id": f"n{i}", "query": "When did the Marta enter service?", "response": r,
         "references": ["The Marta entered service in 2011. It carries up to 40 cars."]}
        for i, r in enumerate(["It entered service in 2011.", "It carries 40 cars.", "",
                               "The Marta started in 2011.", "In 1999."])],
    "comprehensiveness": [
        {"id": f"k{i}", "query": "When did the Marta enter service?", "response": r,
         "sources": ["The Marta entered service in 2011 and carries up to 40 cars."]}
        for i, r in enumerate(["It entered service in 2011.", "It carries 40 cars.",
                               "I don't know.", "The Marta started in 2011.", "In 1999."])],
}
EXTRA = {"comprehensiveness": ["--method", "direct"]}
REAL_WRITE = RunOutput.write


def _run(command: str, inp: Path, out: Path, *extra: str) -> int:
    return main([command, str(inp), "-o", str(out), *EXTRA.get(command, []), *extra])


@pytest.fixture
def stop_after(monkeypatch):
    """Make the next run stop (KeyboardInterrupt) after writing ``n`` rows."""
    def arm(n: int) -> None:
        real = RunOutput.write
        count = {"n": 0}

        def write(self, rows):
            rows = list(rows)
            take = rows[:max(0, n - count["n"])]
            real(self, take)
            count["n"] += len(take)
            if len(take) < len(rows):
                raise KeyboardInterrupt

        monkeypatch.setattr(RunOutput, "write", write)
    yield arm
    monkeypatch.undo()


@pytest.mark.parametrize("command", sorted(ROWS))
def test_a_stopped_run_resumes_to_the_uninterrupted_file(command, tmp_path, stop_after, monkeypatch, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS[command]))
    full = tmp_path / "full.jsonl"
    assert _run(command, inp, full) == 0
    out = tmp_path / "out.jsonl"
    stop_after(2)
    assert _run(command, inp, out) == 130
    assert len(out.read_text().splitlines()) == 2
    assert "the 2 row(s) finished so far are kept" in capsys.readouterr().err
    assert _run(command, inp, out) == 2  # its rows are not replaced by accident
    assert "pass --resume to continue that run" in capsys.readouterr().err
    with out.open("a") as fh:
        fh.write('{"id": "torn')  # a kill in the middle of a write
    monkeypatch.undo()
    assert _run(command, inp, out, "--resume") == 0
    assert "resuming after 2 finished row(s)" in capsys.readouterr().err
    assert out.read_bytes() == full.read_bytes()
    record = json.loads((tmp_path / "out.jsonl.run.json").read_text())
    assert record["command"] == command and record == json.loads(
        (tmp_path / "full.jsonl.run.json").read_text())


def test_resume_computes_only_the_rest(tmp_path, stop_after, monkeypatch):
    import offline_eval.commands.verify as verify_cli

    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS["verify"]))
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(verify_cli, "CHUNK", 2)
    stop_after(2)
    assert _run("verify", inp, out) == 130
    seen = []
    real = verify_cli.verify_chunk
    def counted(verifier, rows):
        seen.extend(r["id"] for _, _, r in rows)
        return real(verifier, rows)

    monkeypatch.setattr(verify_cli, "verify_chunk", counted)
    monkeypatch.setattr(RunOutput, "write", REAL_WRITE)  # no more stops
    assert _run("verify", inp, out, "--resume") == 0
    assert seen == ["p2", "c2", "p3"]
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == ["p1", "c1", "p2", "c2", "p3"]


def test_resume_refuses_another_input_or_options(tmp_path, stop_after, monkeypatch, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS["decompose"]))
    out = tmp_path / "out.jsonl"
    stop_after(2)
    assert _run("decompose", inp, out) == 130
    monkeypatch.undo()
    partial = out.read_bytes()
    capsys.readouterr()
    assert _run("decompose", inp, out, "--resume", "--granularity", "atomic") == 2
    err = capsys.readouterr().err
    assert "granularity: 'clause' then, 'atomic' now" in err and "--resume to continue" not in err
    inp.write_text(inp.read_text() + json.dumps({"id": "d9", "response": "A new row."}) + "\n")
    assert _run("decompose", inp, out, "--resume") == 2
    assert "the input file changed" in capsys.readouterr().err
    assert out.read_bytes() == partial  # nothing lost
    assert _run("decompose", inp, out, "--overwrite") == 0  # started again
    assert len(out.read_text().splitlines()) == 6


def test_resume_without_a_stopped_run_starts_from_the_first_row(tmp_path, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS["decompose"]))
    out = tmp_path / "out.jsonl"
    assert _run("decompose", inp, out, "--resume") == 0
    assert "no stopped run to resume" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 5
    assert main(["decompose", str(inp), "--resume"]) == 2  # standard output cannot resume
    assert "--resume needs a regular output file" in capsys.readouterr().err


def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path):
    """A real SIGKILL in the middle of `decompose` (rows are written a batch at a time)."""
    from tests._process import kill_cli_after

    sentences = [r["response"] for r in ROWS["decompose"]]
    rows = [{"id": f"x{i:03d}", "response": " ".join(sentences[(i + j) % 5] for j in range(3))}
            for i in range(600)]
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ref, out = tmp_path / "ref.jsonl", tmp_path / "out.jsonl"
    assert _run("decompose", inp, ref, "--batch-size", "4") == 0
    kept = kill_cli_after(["decompose", str(inp), "-o", str(out), "--batch-size", "4"],
                          out, 8, timeout=120)
    assert 8 <= kept < len(rows), f"the kill must land mid-run ({kept} rows)"
    assert _run("decompose", inp, out, "--batch-size", "4", "--resume") == 0
    assert out.read_bytes() == ref.read_bytes()


def test_a_damaged_output_is_a_clear_error(tmp_path, stop_after, monkeypatch, capsys):
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS["decompose"]))
    out = tmp_path / "out.jsonl"
    stop_after(2)
    assert _run("decompose", inp, out) == 130
    monkeypatch.undo()
    out.write_text(out.read_text().splitlines()[0] + "\nnot json\n")
    capsys.readouterr()
    assert _run("decompose", inp, out, "--resume") == 2
    assert "out.jsonl:2: not a row this command wrote" in capsys.readouterr().err


def test_a_zero_filled_region_is_torn_and_its_rows_computed_again(tmp_path, stop_after,
                                                                  monkeypatch, capsys):
    # a crash of the machine leaves zeros where the unsynced last batch was, maybe before
    # some of its rows that reached the disk: from the first NUL on, the file is torn
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in ROWS["decompose"]))
    whole = tmp_path / "whole.jsonl"
    assert _run("decompose", inp, whole) == 0
    out = tmp_path / "out.jsonl"
    stop_after(3)
    assert _run("decompose", inp, out) == 130
    monkeypatch.undo()
    first, second, third = out.read_text().splitlines()[:3]
    out.write_bytes(f"{first}\n".encode() + b"\0" * 300 + f"{third}\n".encode())
    capsys.readouterr()
    assert _run("decompose", inp, out, "--resume") == 0
    assert out.read_bytes() == whole.read_bytes()
    # the rows dropped after the zeros are said, with the line where the zeros start
    assert ("out.jsonl:2: zero-filled from here on (the machine stopped mid-write); the rows "
            "from this line on are computed again, 1 complete one(s) after the zeros included"
            in " ".join(capsys.readouterr().err.split()))


def test_a_new_run_empties_the_output_before_its_record_replaces_the_old(tmp_path, monkeypatch):
    """Old rows never sit beside a record that does not describe them: when the new record
    is written the output is already empty, and a failure writing it leaves the old record
    (with the output emptied, a resume then starts from the first row)."""
    import offline_eval.io.resume as resume

    out = tmp_path / "out.jsonl"
    with RunOutput(out, {"model": "A"}) as w:
        w.write([{"id": "1"}, {"id": "2"}])
    seen = []
    real = resume.write_record
    monkeypatch.setattr(resume, "write_record",
                        lambda path, record: (seen.append(out.read_text()), real(path, record))[1])
    with RunOutput(out, {"model": "B"}) as w:
        w.write([{"id": "3"}])
    assert seen == [""]

    def fail(path, record):
        raise OSError("disk full")

    monkeypatch.setattr(resume, "write_record", fail)
    with pytest.raises(OSError):
        RunOutput(out, {"model": "C"}).__enter__()
    assert out.read_text() == ""
    assert json.loads(resume.record_beside(out).read_text()) == {"model": "B"}


def test_a_refused_resume_leaves_output_and_record_as_they_were(tmp_path, stop_after, monkeypatch):
    """Rows that are not the first rows of the input refuse the resume before the output is
    cut or the record is written again."""
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS["verify"]))
    out = tmp_path / "out.jsonl"
    assert main(["verify", str(src), "-o", str(out)]) == 0
    rows = out.read_text().splitlines()
    out.write_text("\n".join(rows[1:] + rows[1:2]) + '\n{"id": "torn')  # reordered, duplicated, torn
    before, record = out.read_bytes(), (tmp_path / "out.jsonl.run.json").read_bytes()
    assert main(["verify", str(src), "-o", str(out), "--resume"]) != 0
    assert out.read_bytes() == before
    assert (tmp_path / "out.jsonl.run.json").read_bytes() == record


def test_standard_output_holds_no_rows_unless_asked(capsys):
    with RunOutput(None, None) as w:
        w.write([{"id": "1"}])
    assert w.streamed == [] and '"id": "1"' in capsys.readouterr().out.replace('"id":"1"', '"id": "1"')
    with RunOutput(None, None, collect=True) as w:
        w.write([{"id": "1"}])
    assert len(w.streamed) == 1
