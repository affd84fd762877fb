"""`offline-eval verify` and `offline-eval models` on the tiny imported DeBERTa."""
from __future__ import annotations

import json
import shutil

import pytest

from offline_eval.cli import main
from offline_eval.pipeline import Pipeline
from offline_eval.stages.verify import Verify
from offline_eval.types import Claim, Evidence, Item, ResponseResult

ROWS = [{"id": "p1", "premise": "the cat sat on the mat", "hypothesis": "a cat sat"},
        {"id": "c1", "claim": "paris is the capital of france",
         "evidence": ["paris is a big city . " * 30, "the river is blue"]},
        {"id": "c2", "claim": "", "evidence": ["the dog"]}]


def write(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return p


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_verify_both_row_formats(tiny_model, tmp_path, backend):
    out = tmp_path / f"out-{backend}.jsonl"
    assert main(["verify", str(write(tmp_path, ROWS)), "-o", str(out), "--nli-model", str(tiny_model),
                 "--backend", backend, "--device", "cpu", "--batch-size", "2"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["p1", "c1", "c2"]
    assert rows[0]["label"] in ("entailment", "neutral", "contradiction")
    assert set(rows[0]["probs"]) == {"entailment", "neutral", "contradiction"}
    assert abs(sum(rows[0]["probs"].values()) - 1) < 1e-6
    assert rows[1]["verdict"] in ("supported", "contradicted", "unverifiable", "inconclusive")
    # plain evidence strings are one document; the decisive evidence is the window that decided
    assert rows[1]["decisive_evidence"] in " ".join(e.strip() for e in ROWS[1]["evidence"])
    assert rows[1]["evidence_source"]["doc_id"] == "evidence"
    assert rows[2]["verdict"] == "unverifiable" and rows[2]["reason"] == "empty claim"


def test_verify_bad_input_names_line_and_field(tiny_model, tmp_path, capsys):
    p = write(tmp_path, [ROWS[0], {"id": "x", "claim": "c", "evidence": 3}])  # (one string is one reference)
    assert main(["verify", str(p), "--nli-model", str(tiny_model)]) == 2
    err = capsys.readouterr().err
    assert "in.jsonl:2" in err and "evidence" in err


def test_verify_missing_model_is_a_clear_error(tmp_path, capsys):
    assert main(["verify", str(write(tmp_path, ROWS)), "--nli-model", str(tmp_path / "nope")]) == 2
    assert "not found" in capsys.readouterr().err


def test_models_import_list_verify(tiny_ckpt, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(tmp_path / "home"))
    assert main(["models", "import", str(tiny_ckpt), "--name", "mine", "--max-length", "64"]) == 0
    assert main(["models", "list"]) == 0
    assert "mine\timported" in capsys.readouterr().out
    assert main(["models", "verify", "mine"]) == 0
    onnx = tmp_path / "home" / "models" / "mine" / "onnx" / "model.int8.onnx"
    onnx.write_bytes(onnx.read_bytes()[:-10])
    capsys.readouterr()
    assert main(["models", "verify", "mine"]) == 2
    err = capsys.readouterr().err
    assert "refusing model" in err and "onnx/model.int8.onnx" in err
    assert main(["models", "import", str(tiny_ckpt), "--name", "mine"]) == 2  # exists, no --force


def test_verify_stage_in_a_pipeline(tiny_model):
    stage = Verify(model=str(tiny_model), backend="onnx", device="cpu")
    Pipeline([stage], provided=("claims",))
    claims = (Claim("c1", "the cat sat", evidence=(Evidence("e1", "the cat sat on the mat"),)),
              Claim("c2", "the dog", evidence=()))
    rec = ResponseResult(Item("q", "", ""), claims=claims)
    out = stage([rec])[0]
    assert all(c.verdict is not None for c in out.claims)
    assert out.claims[1].verdict.label == "unverifiable" and out.claims[1].judgment is False
