"""The benchmarks' shared helpers (benchmarks/_results.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_peak_rss_of_a_child_is_its_own_not_its_parents():
    # ru_maxrss keeps a forking parent's peak across exec; the benchmarks time each backend
    # in a child process, so the helper must report the child's own memory
    ballast = bytearray(300 * 1024 * 1024)
    ballast[::4096] = b"\1" * len(ballast[::4096])  # touch every page: resident
    code = (f"import sys; sys.path.insert(0, {str(BENCH)!r}); import resource, _results; "
            "print(_results.peak_rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    own, inherited = map(float, subprocess.run([sys.executable, "-c", code], capture_output=True,
                                               text=True, check=True).stdout.split())
    assert inherited > 300 > own > 1
    del ballast
