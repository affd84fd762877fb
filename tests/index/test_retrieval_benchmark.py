"""`benchmarks/retrieval.py --synthetic N` (the quick mode) works at a tiny N, from each
kind of file it can build from; nothing is written to RESULTS.md."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval.py"


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "sqlite"])
def test_synthetic_quick_mode(fmt):
    results = SCRIPT.parent / "RESULTS.md"
    before = results.stat().st_mtime_ns if results.exists() else None
    out = subprocess.run([sys.executable, str(SCRIPT), "--synthetic", "200", "--synthetic-queries",
                          "20", "--synthetic-as", fmt], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert (got["n"], got["format"], got["n_passages"], got["n_queries"]) == (200, fmt, 200, 20)
    assert got["build_s"] > 0 and got["peak_rss_mb"] > 0 and got["p50_ms"] > 0
    assert (results.stat().st_mtime_ns if results.exists() else None) == before
