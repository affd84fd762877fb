"""Kill Ray processes mid-run: the job still writes every row exactly once, either by itself
(Ray restarts the actor and retries its tasks) or, when it gives up, after ``--resume``.
Skipped without the ray extra.

Two tests:

- ``test_worker_node_killed_mid_run``: a head and a worker node started with ``ray start``
  on 127.0.0.1 (a loopback-only, two-node cluster); the worker node (its raylet and every
  process under it) is SIGKILLed while the job runs.
- ``test_actor_killed_mid_run``: a local one-node instance; the stage actors are killed.

The worker node is started through ``ray_loopback_node.py``, which is ``ray start`` with Ray's
rewrite of 127.0.0.1 to the machine's interface address turned off (see its docstring for
the exact errors the stock CLI gives). Cleanup kills, by PID, the processes whose command
line names this test's temp dir and their children, not ``ray stop --force``: ``ray stop``
takes no temp dir and kills every Ray process of the user on the machine. The cluster uses
token authentication with its own token in that temp dir.

Observed outcome, both tests, every run so far: the job finishes by itself (the lost actor is
restarted, on the head for the node test, and its batch retried); each test prints which
outcome it saw (``pytest -s``).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("ray")

from tests.engines.test_local_engine import make_input, run, sorted_lines  # noqa: E402

DRIVER = Path(__file__).with_name("ray_driver.py")
NODE = Path(__file__).with_name("ray_loopback_node.py")
RAY = Path(sys.executable).with_name("ray")


@dataclass
class Cluster:
    address: str
    env: dict
    temp_dir: Path
    worker_pids: set


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _children(pids: set) -> set:
    """``pids`` and all their descendants (by /proc parent links)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, grew = set(pids), True
    while grew:
        new = {p for p, pp in parent.items() if pp in out} - out
        out |= new
        grew = bool(new)
    return out


def _owned(temp_dir: Path) -> set:
    """Ray processes of this cluster: their command line names its temp dir."""
    return {int(d.name) for d in Path("/proc").iterdir()
            if d.name.isdigit() and str(temp_dir) in _cmdline(int(d.name))}


def _kill(pids: set) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _start(cmd: list, env: dict) -> None:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"


@pytest.fixture
def loopback_cluster():
    """A head and a worker node, 1 CPU each, everything bound to 127.0.0.1."""
    # A short path: Ray's unix socket paths live under it and must stay under 108 bytes.
    tmp = Path(tempfile.mkdtemp(prefix="oe-ray-", dir="/tmp"))
    token = tmp / "auth_token"
    token.write_text(secrets.token_hex(32))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token), "PYTHONPATH": str(Path.cwd())}
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1", f"--temp-dir={tmp}",
              "--disable-usage-stats"]
    try:
        _start([str(RAY), "start", "--head", f"--port={port}", "--include-dashboard=false",
                *common], env)
        head = _children(_owned(tmp))
        # RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 would make `ray start --address` refuse to start.
        _start([sys.executable, str(NODE), "start", f"--address=127.0.0.1:{port}", *common],
               {**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1"})
        worker = _owned(tmp) - head
        assert any("raylet" in _cmdline(p) for p in worker), "the worker node did not start"
        for _ in range(30):  # `ray status` lags the node registration by a few seconds
            status = subprocess.run([str(RAY), "status", f"--address=127.0.0.1:{port}"], env=env,
                                    capture_output=True, text=True, timeout=120)
            if status.stdout.count(" node_") == 2:
                break
            time.sleep(2)
        assert status.stdout.count(" node_") == 2, status.stdout + status.stderr
        yield Cluster(f"127.0.0.1:{port}", env, tmp, worker)
    finally:
        _kill(_children(_owned(tmp)))
        shutil.rmtree(tmp, ignore_errors=True)


def _listening_addresses(pids: set) -> set:
    """Local addresses of the TCP sockets these processes listen on (from /proc/net)."""
    inodes = set()
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    addrs = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # 0A: LISTEN
                addrs.add(f[1].rsplit(":", 1)[0])
    return addrs


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


def _kill_mid_run(tmp_path, env: dict, extra: list, victims) -> None:
    """Score 24 toy rows with the driver; once a row is written and ``victims()`` (the PIDs to
    kill) holds a stage actor, SIGKILL them all. Then: every row exactly once and equal to
    the local engine's, by the job itself or after the clear failure and ``--resume``."""
    n = 24
    inp = make_input(tmp_path, n=n)
    ref = tmp_path / "ref.jsonl"
    assert run(inp, ref).returncode == 0
    out = tmp_path / "out"
    target = out / "scores.jsonl"
    driver = subprocess.Popen([sys.executable, str(DRIVER), str(inp), str(out), "fresh", "1.0",
                               *extra], env=env, stderr=subprocess.PIPE, text=True)
    pids, deadline = set(), time.time() + 150
    while time.time() < deadline and driver.poll() is None:
        pids = victims(driver.pid)
        if (any("_StageRunner" in _cmdline(p) for p in pids) and target.exists()
                and target.read_text().count("\n") >= 1):
            break
        time.sleep(0.2)
    assert driver.poll() is None, "the job ended before the kill"
    assert any("_StageRunner" in _cmdline(p) for p in pids), "no stage actor to kill"
    done_before = target.read_text().count("\n")
    assert done_before < n, "the kill must land mid-run"
    _kill(pids)
    _, err = driver.communicate(timeout=300)
    if driver.returncode != 0:  # it gave up with a clear message: resume completes it
        assert driver.returncode == 3 and "--resume" in err, err[-3000:]
        again = subprocess.run([sys.executable, str(DRIVER), str(inp), str(out), "resume", "0",
                                *extra], env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr[-3000:]
    ids = [json.loads(x)["id"] for x in target.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == n
    assert sorted_lines(target) == sorted_lines(ref)
    print(f"killed after {done_before}/{n} rows; the job "
          + ("finished by itself" if driver.returncode == 0 else "failed; --resume completed it"))


def test_worker_node_killed_mid_run(tmp_path, loopback_cluster):
    """One stage actor per 1-CPU node (2/3 CPU each); the whole worker node (raylet, agents,
    actors) is killed while its actor holds a batch."""
    c = loopback_cluster
    assert _listening_addresses(_children(_owned(c.temp_dir))) <= LOOPBACK, "Ray left loopback"
    _kill_mid_run(tmp_path, c.env, [c.address], lambda _driver: _children(c.worker_pids))


def test_actor_killed_mid_run(tmp_path):
    """A local instance (a child of the driver); its stage actors are killed."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "PYTHONPATH": str(Path.cwd())}
    _kill_mid_run(tmp_path, env, [], lambda driver: {
        p for p in _children({driver}) if _cmdline(p).startswith("ray::") and "_StageRunner" in _cmdline(p)})
