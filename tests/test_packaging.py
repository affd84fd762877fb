"""Packaging: the version is written once, and the wheel carries every shipped model file
its manifest lists (the ranker's manifest lists its training scripts, so they ride along
as data), so an install scores anywhere."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import offline_eval
from offline_eval.modelstore import shipped_dir

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in text and "\nversion =" not in text.split("[tool.setuptools.dynamic]")[0]
    assert metadata.version("offline-eval") == offline_eval.__version__
    assert f"## {offline_eval.__version__} - " in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_the_checkout_reads_its_own_models_folder():
    assert shipped_dir() == ROOT / "models"


def test_the_wheel_carries_the_models_of_the_manifests(tmp_path):
    pytest.importorskip("setuptools")
    src = tmp_path / "src"  # the tracked files only, so no build/ leftover reaches the wheel
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for rel in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, src / rel)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                    "--no-build-isolation", "-w", str(tmp_path), str(src)], check=True,
                   cwd=tmp_path, capture_output=True)
    [wheel] = tmp_path.glob("offline_eval-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for manifest in sorted((ROOT / "models").glob("*/manifest.json")):
            files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
            for rel, sha in files.items():
                name = f"offline_eval/_models/{manifest.parent.name}/{rel}"
                assert hashlib.sha256(z.read(name)).hexdigest() == sha, name
            assert f"offline_eval/_models/{manifest.parent.name}/manifest.json" in names
        # nothing of the checkout but the package: no recipes, no benchmarks, no tests
        assert not [n for n in names if n.split("/")[0] in ("models", "benchmarks", "tests")
                    or "recipes" in n]
        assert "offline_eval/py.typed" in names
