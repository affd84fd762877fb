"""Kill Ray worker processes mid-run: the job still writes every row exactly once, either
by itself (Ray restarts the actor and retries its tasks) or, when it gives up, after
``--resume``. Runs on a local, loopback-only Ray instance; skipped without the ray extra.

Why not a second node from ``ray start --address``: Ray rewrites a loopback bootstrap
address to the machine's interface address, and this project sends no traffic beyond
loopback. Killing the actor processes exercises the same recovery path (lost actor,
retried tasks) on one node.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from tests.engines.test_local_engine import make_input, run, sorted_lines  # noqa: E402

DRIVER = Path(__file__).with_name("ray_driver.py")


def stage_workers() -> list[int]:
    """PIDs of Ray worker processes currently hosting our stage actors."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if cmd.startswith("ray::") and ("MapWorker" in cmd or "_StageRunner" in cmd):
                pids.append(int(d.name))
    return pids


def test_actor_killed_mid_run(tmp_path):
    inp = make_input(tmp_path, n=16)
    ref = tmp_path / "ref.jsonl"
    assert run(inp, ref).returncode == 0
    out = tmp_path / "out"
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "PYTHONPATH": str(Path.cwd())}
    driver = subprocess.Popen([sys.executable, str(DRIVER), str(inp), str(out), "fresh", "0.5"],
                              env=env, stderr=subprocess.PIPE, text=True)
    target = out / "scores.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and not (target.exists() and len(target.read_text().splitlines()) >= 2):
        time.sleep(0.2)
    killed = stage_workers()
    assert killed, "no stage actor found to kill"
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    _, err = driver.communicate(timeout=600)
    if driver.returncode != 0:  # it gave up with a clear message: resume completes it
        assert driver.returncode == 3 and "--resume" in err, err[-3000:]
        again = subprocess.run([sys.executable, str(DRIVER), str(inp), str(out), "resume", "0"],
                               env=env, capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, again.stderr[-3000:]
    ids = [json.loads(x)["id"] for x in target.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 16
    assert sorted_lines(target) == sorted_lines(ref)
