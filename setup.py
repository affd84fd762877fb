"""The wheel carries the shipped models: each ``models/<name>/`` folder's manifest and the
files it lists are copied into ``offline_eval/_models/<name>/`` when the wheel is built, so
``pip install offline-eval-*.whl`` scores anywhere with the embedded models. An editable
install reads ``models/`` in the checkout instead (``offline_eval.modelstore.shipped_dir``).
Everything else is declared in pyproject.toml."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithModels(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        dest = Path(self.build_lib) / "offline_eval" / "_models"
        for manifest in sorted((ROOT / "models").glob("*/manifest.json")):
            files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
            for rel in sorted([*files, manifest.name]):
                target = dest / manifest.parent.name / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(manifest.parent / rel, target)


setup(cmdclass={"build_py": BuildWithModels})
