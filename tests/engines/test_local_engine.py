"""Lossless, resumable runs: kill -9 mid-run then --resume equals an uninterrupted run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from offline_eval.engines.local import batches, run_local, scored_ok
from offline_eval.io.resume import keep_rows
from offline_eval.errors import InputError
from offline_eval.io.items import read_items
from offline_eval.io.rows import score_row
from offline_eval.pipeline import Pipeline
from offline_eval.stages.audit import Audit
from offline_eval.stages.metrics import MetricsStage
from offline_eval.types import Item, Reference
from tests.engines.toy_run import ToyClaims

TOY = Path(__file__).with_name("toy_run.py")



def ids_kept(path):
    """Ids of the rows a resume keeps (scored ones); the file is rewritten without the rest."""
    return {str(r["id"]) for r in keep_rows(path, scored_ok)}

def make_input(tmp_path, n=12, explode=None):
    rows = []
    for i in range(n):
        text = f"Fact {i} is right. Fact {i} is wrong." if i % 3 else f"Fact {i} is right."
        if explode == i:
            text = "EXPLODE."
        rows.append({"id": f"r{i:02d}", "query": f"Tell me fact {i}", "response": text})
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def run(inp, out, mode="fresh", delay=0.0):
    return subprocess.run([sys.executable, str(TOY), str(inp), str(out), mode, str(delay)],
                          capture_output=True, text=True)


def sorted_lines(path):
    return sorted(path.read_text().splitlines(), key=lambda line: json.loads(line)["id"])


def test_kill_then_resume_equals_uninterrupted(tmp_path):
    inp = make_input(tmp_path)
    ref = tmp_path / "ref.jsonl"
    assert run(inp, ref).returncode == 0
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, str(TOY), str(inp), str(out), "fresh", "0.4"])
    deadline = time.time() + 60
    while time.time() < deadline:
        if out.exists() and len(out.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(out.read_text().splitlines())
    assert 3 <= partial < 12, "the kill must land mid-run"
    with out.open("a") as fh:  # simulate a torn last line
        fh.write('{"id": "r99", "sta')
    assert run(inp, out, "resume").returncode == 0
    assert sorted_lines(out) == sorted_lines(ref)


def test_failing_row_gets_error_row_and_run_goes_on(tmp_path):
    inp = make_input(tmp_path, n=6, explode=3)
    out = tmp_path / "out.jsonl"
    proc = run(inp, out)
    assert proc.returncode == 1
    rows = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert len(rows) == 6
    assert rows["r03"]["status"] == "error"
    assert rows["r03"]["error"]["stage"] == "test.toy_claims.v1"
    assert all(r["status"] == "ok" for k, r in rows.items() if k != "r03")


def test_resume_retries_error_rows(tmp_path):
    out = tmp_path / "o.jsonl"
    out.write_text('{"id":"a","status":"ok"}\n{"id":"b","status":"error"}\n{"id":"a","status":"ok"}\n')
    assert ids_kept(out) == {"a"}
    assert out.read_text() == '{"id":"a","status":"ok"}\n'


def test_output_is_deterministic(tmp_path):
    inp = make_input(tmp_path)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run(inp, a).returncode == 0 and run(inp, b).returncode == 0
    assert a.read_bytes() == b.read_bytes() and len(a.read_text().splitlines()) == 12


def test_duplicate_ids_rejected_before_work(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text('{"id": 1, "query": "q", "response": "r"}\n{"id": "1", "query": "q", "response": "s"}\n')
    with pytest.raises(InputError, match=r"in.jsonl:2: field 'id': duplicate id '1' \(first on line 1\)"):
        read_items(p)


def test_bad_reference_names_nested_field(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text('{"id": 1, "query": "q", "response": "r", "references": [{"url": "x"}]}\n')
    with pytest.raises(InputError, match=r"field 'references\[0\].text'"):
        read_items(p)


def test_audit_and_metrics_in_rows(tmp_path):
    inp = make_input(tmp_path, n=2)
    out = tmp_path / "o.jsonl"
    run(inp, out)
    row = json.loads(out.read_text().splitlines()[1])
    assert row["metrics"]["factscore_precision"] == 0.5
    assert row["audit"]["verdict"] == "partially_correct"
    assert row["claims"][1]["audit"]["verdict"] == "incorrect"


class Recorder(ToyClaims):
    """The toy stage, remembering each batch's ids; a KeyboardInterrupt in batch ``stop``."""

    def __init__(self, stop: int | None = None) -> None:
        super().__init__(0.0)
        self.seen: list[list[str]] = []
        self.stop = stop

    def __call__(self, batch):
        self.seen.append([r.item.id for r in batch])
        if self.stop is not None and len(self.seen) == self.stop:
            raise KeyboardInterrupt
        return super().__call__(batch)


def weighted_items():
    refs = {"r1": 20, "r4": 100}        # r4 alone outweighs the bound: a batch of its own
    return [Item(f"r{i}", "q", f"Fact {i} is right.",
                 references=(Reference("d", "x" * refs[f"r{i}"]),) if f"r{i}" in refs else ())
            for i in range(7)]


def test_batches_are_bounded_by_rows_and_characters(tmp_path):
    stage = Recorder()
    items = weighted_items()            # 16 characters a response
    run_local(items, Pipeline([stage, MetricsStage(), Audit()]), tmp_path / "o.jsonl",
              score_row, batch_size=3, batch_chars=60, progress=False)
    assert stage.seen == [["r0", "r1"], ["r2", "r3"], ["r4"], ["r5", "r6"]]
    assert [len(b) for b in batches(items, 3)] == [3, 3, 1]          # 0: rows alone


def test_rows_do_not_depend_on_the_batches(tmp_path):
    outs = []
    for size, chars in [(32, 0), (1, 0), (3, 60), (32, 1)]:
        out = tmp_path / f"{size}-{chars}.jsonl"
        run_local(weighted_items(), Pipeline([ToyClaims(0.0), MetricsStage(), Audit()]), out,
                  score_row, batch_size=size, batch_chars=chars, progress=False)
        outs.append(out.read_bytes())
    assert len(set(outs)) == 1


def test_an_interrupt_keeps_every_finished_batch(tmp_path):
    out = tmp_path / "o.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_local(weighted_items(), Pipeline([Recorder(stop=3), MetricsStage(), Audit()]), out,
                  score_row, batch_size=3, batch_chars=60, progress=False)
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["r0", "r1", "r2", "r3"]
    rest = Recorder()
    run_local(weighted_items(), Pipeline([rest, MetricsStage(), Audit()]), out, score_row,
              resume=True, batch_size=3, batch_chars=60, progress=False)
    assert rest.seen == [["r4"], ["r5", "r6"]]
    assert len(out.read_text().splitlines()) == 7


def test_score_passes_batch_chars_to_the_local_engine():
    from offline_eval.options import check
    from offline_eval.engines.local import DEFAULT_BATCH_CHARS
    from offline_eval.score_file import ScoreJob
    assert ScoreJob().engine_for(8).batch_chars == DEFAULT_BATCH_CHARS
    assert ScoreJob(batch_chars=0).engine_for(8).batch_chars == 0
    with pytest.raises(InputError, match=r"--batch-chars"):
        check(ScoreJob(batch_chars=-1))


def test_each_batch_is_fsynced_once_and_a_resume_rewrite_too(tmp_path, monkeypatch):
    import offline_eval.engines.local as local
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    out = tmp_path / "o.jsonl"
    run_local(weighted_items(), Pipeline([ToyClaims(0.0), MetricsStage(), Audit()]), out,
              score_row, batch_size=3, batch_chars=60, progress=False)
    assert len(synced) == 2 + 4            # the emptied output and its folder, then 4 batches
    synced.clear()
    assert len(ids_kept(out)) == 7
    assert synced == []                    # nothing to drop: the file is left as it is
    with out.open("a") as fh:
        fh.write('{"id":"z","status":"error"}\n{"id": "to')  # an error row, a torn line
    assert len(ids_kept(out)) == 7
    assert len(synced) == 2                # the rewritten file, then its folder


def test_batch_size_must_be_positive():
    with pytest.raises(ValueError, match="batch_size must be positive"):
        list(batches(weighted_items(), 0))
