"""The generative decomposer: guards, fallback, and a tiny random T5 checkpoint."""
from __future__ import annotations

import json

import numpy as np
import pytest

from offline_eval.decomposition.base import get_decomposer
from offline_eval.decomposition.generative import FALLBACK_WARNING, GenerativeDecomposer, prompt
from offline_eval.decomposition.guards import anchored, guard, parse_output
from offline_eval.decomposition.syntactic import SyntacticDecomposer
from offline_eval.errors import ModelError


class StubRunner:
    labels: tuple[str, ...] = ()

    def __init__(self, outputs):
        self.outputs, self.seen = outputs, []

    def predict(self, inputs):
        self.seen.extend(inputs)
        return np.array([self.outputs(x) for x in inputs], dtype=object)


@pytest.fixture(scope="module")
def syntactic():
    return SyntacticDecomposer()


def test_parse_and_guards():
    assert parse_output("A is B. | C is D.\n- E is F") == ["A is B.", "C is D.", "E is F"]
    kept, rejected = guard(["Oslo is in Norway.", "oslo is in norway", "Oslo is in Norway in Norway in Norway.",
                            "Oslo has a volcano."], anchors="Oslo is the capital of Norway.")
    assert kept == ["Oslo is in Norway."] and rejected == 3
    assert anchored("Niels Bohr founded it.", "He founded it. Niels Bohr was Danish.")
    kept, _ = guard([f"Oslo is in Norway {i}." for i in range(20)], "Oslo Norway "
                    + " ".join(map(str, range(20))), max_claims=5)
    assert len(kept) == 5


def test_good_output_is_kept_and_prompt_has_context(syntactic):
    runner = StubRunner(lambda x: "Niels Bohr was born in Copenhagen. | Niels Bohr won a Nobel Prize.")
    dec = GenerativeDecomposer(runner, syntactic)
    out = dec.decompose("Who was Niels Bohr?", ["Niels Bohr was a physicist.",
                                                "He was born in Copenhagen and won a Nobel Prize."],
                        targets=[1])
    assert out[1].claims == ("Niels Bohr was born in Copenhagen.", "Niels Bohr won a Nobel Prize.")
    assert out[1].warnings == () and out[0].claims == ()
    assert runner.seen == [prompt("Who was Niels Bohr?", "He was born in Copenhagen and won a "
                                  "Nobel Prize.", ["Niels Bohr was a physicist."])]


def test_invented_or_repeated_output_falls_back_to_syntactic(syntactic):
    bad = StubRunner(lambda x: "The sentence talks about a famous scientist. | Bohr liked cats.")
    out = GenerativeDecomposer(bad, syntactic).decompose("", ["Niels Bohr was born in Copenhagen "
                                                              "and studied in Cambridge."])
    assert out[0].claims == ("Niels Bohr was born in Copenhagen.", "Niels Bohr studied in Cambridge.")
    assert out[0].warnings == (FALLBACK_WARNING,)


def test_missing_checkpoint_is_a_model_error(tmp_path, monkeypatch):
    import offline_eval.modelstore as modelstore

    monkeypatch.setattr(modelstore, "shipped_dir", lambda: tmp_path / "none")
    with pytest.raises(ModelError, match="--decomposer-model"):
        get_decomposer("generative")
    with pytest.raises(ModelError, match="config.json"):
        get_decomposer("generative", model_dir=str(tmp_path))


def test_pickled_weights_are_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "t5"}))
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04")
    with pytest.raises(ModelError, match="safetensors"):
        get_decomposer("generative", model_dir=str(tmp_path))


def test_tiny_random_t5_runs_batched_and_deterministic(tiny_t5):
    from offline_eval.runners.seq2seq import Seq2SeqRunner

    runner = Seq2SeqRunner(tiny_t5, batch_size=2, max_new_tokens=8)
    inputs = ["decompose: paris is the capital of france", "paris", "decompose: it has museums"]
    a, b = runner.predict(inputs), runner.predict(list(reversed(inputs)))
    assert a.shape == (3,) and all(isinstance(x, str) for x in a)
    assert list(a) == list(reversed(list(b)))


def test_tiny_t5_through_the_decomposer_falls_back_cleanly(tiny_t5):
    dec = get_decomposer("generative", model_dir=str(tiny_t5), batch_size=4)
    out = dec.decompose("What is Paris?", ["Paris is the capital of France and lies on the Seine."])
    assert out[0].claims == ("Paris is the capital of France.", "Paris lies on the Seine.")
    assert out[0].warnings == (FALLBACK_WARNING,)


def test_non_seq2seq_config_is_refused(tmp_path, tiny_t5):
    import shutil

    shutil.copytree(tiny_t5, tmp_path / "m")
    cfg = json.loads((tmp_path / "m" / "config.json").read_text())
    cfg.update({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "is_encoder_decoder": False})
    (tmp_path / "m" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match="encoder-decoder"):
        get_decomposer("generative", model_dir=str(tmp_path / "m"))
