"""Test helper: run the CLI in a child process and SIGKILL it once its output has rows."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence


def kill_cli_after(argv: Sequence[str], watched: Path, rows: int, timeout: float = 240) -> int:
    """Run ``offline-eval ARGV`` in a child process, SIGKILL it as soon as ``watched`` holds
    ``rows`` lines (or when it ends or ``timeout`` passes), and return the lines it holds."""
    cmd = [sys.executable, "-c",
           "import sys; from offline_eval.cli import main; sys.exit(main(sys.argv[1:]))", *argv]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if watched.exists() and len(watched.read_text().splitlines()) >= rows:
            break
        time.sleep(0.01)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return len(watched.read_text().splitlines()) if watched.exists() else 0
