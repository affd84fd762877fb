"""A pair's probabilities do not depend on what else is in the batch (int8 ONNX runs one
pair at a time for that reason), so resumed runs equal uninterrupted ones."""
from __future__ import annotations

import numpy as np
import pytest

from offline_eval.modelstore import resolve_model
from offline_eval.runners.load import load_runner


def test_shipped_default_runner_is_batch_invariant():
    try:
        runner = load_runner(resolve_model(None), None, "cpu", 32)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"shipped model unavailable: {exc}")
    pair = ("The tower is 42 metres tall and was completed in 1874.", "The tower is 42 metres tall.")
    others = [("A ferry links the island with the mainland port.", "The ferry is fast."),
              ("Puffins nest on the cliffs from April to August every single year without fail "
               "according to the volunteers who count them.", "Puffins nest in winter.")]
    alone = runner.predict([pair])[0]
    mixed = runner.predict(others + [pair])[-1]
    assert np.array_equal(alone, mixed)
