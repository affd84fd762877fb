"""A pair's probabilities do not depend on what else is in the batch (int8 ONNX runs one
pair at a time for that reason), so resumed runs equal uninterrupted ones."""
from __future__ import annotations

import numpy as np
import pytest

from offline_eval.modelstore import DEFAULT_NLI, shipped_dir
from offline_eval.runners.load import load_runner


def test_shipped_default_runner_is_batch_invariant():
    path = shipped_dir() / DEFAULT_NLI
    if not (path / "manifest.json").is_file():
        pytest.skip("no shipped model")
    pytest.importorskip("onnxruntime")
    runner = load_runner(path, None, "cpu", 32)  # a model that is there but fails to load fails
    pair = ("The tower is 42 metres tall and was completed in 1874.", "The tower is 42 metres tall.")
    others = [("A ferry links the island with the mainland port.", "The ferry is fast."),
              ("Puffins nest on the cliffs from April to August every single year without fail "
               "according to the volunteers who count them.", "Puffins nest in winter.")]
    alone = runner.predict([pair])[0]
    mixed = runner.predict(others + [pair])[-1]
    assert np.array_equal(alone, mixed)
