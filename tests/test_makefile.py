"""The Makefile's offline install: with WHEELHOUSE set, every pip call of `make setup` reads
that folder alone, and `make wheelhouse` downloads what `make setup` installs."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def dry_run(*args: str) -> list[str]:
    out = subprocess.run(["make", "-n", "-B", *args], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return [line for line in out.splitlines() if " -m pip " in line]


def packages(line: str) -> list[str]:
    """The requirement arguments of a pip command line (options and their values dropped)."""
    words = re.findall(r'"[^"]*"|\S+', line.split(" -m pip ", 1)[1])[1:]
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in ("-d", "--find-links"):
            skip = True
        elif not w.startswith("-"):
            out.append(w.strip('"'))
    return out


def test_setup_with_a_wheelhouse_never_reads_an_index(tmp_path):
    installs = dry_run("setup", f"WHEELHOUSE={tmp_path}")
    assert len(installs) >= 4
    for line in installs:
        assert f"--no-index --find-links {tmp_path}" in line, line
    plain = dry_run("setup")
    assert not any("--no-index" in line for line in plain)


def test_the_wheelhouse_holds_what_setup_installs():
    wanted = {p for line in dry_run("setup") for p in packages(line)} - {"install"}
    fetched = {p for line in dry_run("wheelhouse") for p in packages(line)} - {"download"}
    assert wanted <= fetched, wanted - fetched
    # the build tools of the editable install come along, since pip cannot fetch them offline
    assert {"setuptools>=70.1", "wheel"} <= fetched
