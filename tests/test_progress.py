"""Progress on stderr: a bar per row and stage on a terminal, timed lines in a log, the
model-loading lines, and silence with --quiet."""
from __future__ import annotations

import io
import logging
import re

from offline_eval.engines.local import run_local
from offline_eval.io.rows import score_row
from offline_eval.pipeline import Pipeline
from offline_eval.progress import RunProgress, loading
from offline_eval.stages.audit import Audit
from offline_eval.stages.metrics import MetricsStage
from offline_eval.types import Item
from tests.engines.toy_run import ToyClaims


def test_log_lines_name_the_stage_and_the_rate():
    out = io.StringIO()
    p = RunProgress(10, file=out, tty=False, every=0)
    p.stage("offline_eval.stages.verify.v1")
    p.advance(2.5)
    p.close()
    first, last = out.getvalue().splitlines()
    assert re.match(r"offline-eval: 2/10 rows \(20%\) \[.*row.*\], stage verify$", first)
    assert last.startswith("offline-eval: 2/10 rows (20%)")     # close adds a line, not rows


def test_log_lines_wait_for_their_interval():
    out = io.StringIO()
    p = RunProgress(10, file=out, tty=False, every=3600)
    for _ in range(10):
        p.advance(1)
    assert out.getvalue() == ""             # none before the interval...
    p.close()
    assert out.getvalue().startswith("offline-eval: 10/10 rows (100%)")   # ...and one at the end


def test_terminal_bar_moves_per_row_with_the_stage():
    out = io.StringIO()
    p = RunProgress(4, file=out, tty=True)
    p.stage("offline_eval.stages.retrieve.v1")
    p.advance(1.5)
    p.close()
    text = out.getvalue()
    assert "stage retrieve" in text and "/4" in text and "row" in text


def test_disabled_shows_nothing():
    out = io.StringIO()
    p = RunProgress(4, enabled=False, file=out, tty=True)
    p.stage("x.y.v1")
    p.advance(4)
    p.close()
    assert out.getvalue() == ""


def test_the_engine_advances_within_a_batch(tmp_path, capsys):
    items = [Item(f"r{i}", "q", f"Fact {i} is right.") for i in range(6)]
    pipe = Pipeline([ToyClaims(0.0), MetricsStage(), Audit()])
    run_local(items, pipe, tmp_path / "o.jsonl", score_row, batch_size=4, progress=True,
              progress_every=1e-9)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("offline-eval:")]
    counts = [int(re.search(r": (\d+)/6 rows", ln).group(1)) for ln in lines]
    assert counts == sorted(counts) and counts[-1] == 6
    assert any(c % 4 for c in counts[:-1])          # moved between a batch's stages
    assert {m for ln in lines for m in re.findall(r"stage (\w+)", ln)} >= {"metrics", "audit"}


def test_loading_is_said_once(caplog):
    with caplog.at_level(logging.INFO, logger="offline_eval"):
        for _ in range(2):
            with loading("a test model (cpu)"):
                pass
    said = [r.getMessage() for r in caplog.records if "a test model" in r.getMessage()]
    assert len(said) == 1 and re.match(r"loaded a test model \(cpu\) in \d+\.\d s", said[0])
