"""The recipe's model soup (models/recipes/nli_minilm/soup.py) on tiny checkpoints."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.verify.conftest import make_checkpoint

SOUP = Path(__file__).resolve().parents[2] / "models" / "recipes" / "nli_minilm" / "soup.py"
LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def run(*args: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SOUP), *map(str, args)], capture_output=True, text=True)


def test_soup_is_the_mean_of_the_checkpoints_and_loads(tmp_path):
    pytest.importorskip("transformers")
    from safetensors.torch import load_file
    from transformers import AutoModelForSequenceClassification

    a = make_checkpoint(tmp_path / "a", LABELS, seed=1)
    b = make_checkpoint(tmp_path / "b", LABELS, seed=2)
    res = run(tmp_path / "soup", a, b)
    assert res.returncode == 0, res.stderr
    sa, sb = load_file(str(a / "model.safetensors")), load_file(str(b / "model.safetensors"))
    soup = load_file(str(tmp_path / "soup" / "model.safetensors"))
    assert soup.keys() == sa.keys()
    for k in sa:
        assert (soup[k] - (sa[k].float() + sb[k].float()) / 2).abs().max() < 1e-6, k
    assert any((sa[k] != sb[k]).any() for k in sa)  # the seeds differ, so the mean is new
    model = AutoModelForSequenceClassification.from_pretrained(tmp_path / "soup", local_files_only=True,
                                                               use_safetensors=True)
    assert model.config.id2label == LABELS


def test_soup_refuses_checkpoints_with_other_labels(tmp_path):
    pytest.importorskip("transformers")
    a = make_checkpoint(tmp_path / "a", LABELS, seed=1)
    b = make_checkpoint(tmp_path / "b", {0: "contradiction", 1: "neutral", 2: "entailment"}, seed=2)
    res = run(tmp_path / "soup", a, b)
    assert res.returncode != 0
    assert "id2label" in res.stderr
    assert not (tmp_path / "soup").exists()
