"""Calibrating a verifier on labelled claims: the library function and
`offline-eval models calibrate` on the tiny imported DeBERTa."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

from offline_eval.cli import main
from offline_eval.errors import InputError
from offline_eval.nli.calibrate import MIN_CLASS, calibrate, cv_combiner, read_dev
from offline_eval.nli.config import VerifyConfig, load_config
from offline_eval.nli.verifier import Verifier

PEOPLE = ("the cat", "the dog", "he", "she")
PLACES = ("paris", "rome", "france")
YEARS = ("1990", "2001")


def dev_rows(n: int = 24, contradicted: int = 0, seed: int = 0) -> list[dict]:
    """Supported claims restate their evidence; the others move the subject somewhere the
    evidence does not say; ``contradicted`` more negate it."""
    rng = random.Random(seed)
    rows = []
    for i in range(n + contradicted):
        who, where, when = rng.choice(PEOPLE), rng.choice(PLACES), rng.choice(YEARS)
        evidence = [f"{who} moved to {where} in {when} . the river is blue .", "the mat is red ."]
        if i >= n:
            claim, label = f"{who} is not in {where}", "contradicted"
            evidence = [f"{who} is in {where} . the river is blue ."]
        elif i % 2 == 0:
            claim, label = f"{who} moved to {where} in {when}", "supported"
        else:
            other = rng.choice([p for p in PLACES if p != where])
            claim, label = f"{who} moved to {other} in {when} and sat on a big mat", "not_supported"
        rows.append({"id": f"r{i}", "claim": claim, "evidence": evidence, "label": label})
    return rows


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("row,field", [
    ({"id": "x", "claim": "c", "evidence": ["e"], "label": "maybe"}, "label"),
    ({"id": "x", "claim": "c", "evidence": "e", "label": "supported"}, "evidence"),
    ({"id": "x", "claim": "c", "evidence": ["e", 3], "label": "supported"}, "evidence"),
    ({"id": "x", "claim": "c", "evidence": ["e"]}, "label"),
    ({"id": "r0", "claim": "c", "evidence": ["e"], "label": True}, "id"),  # duplicate of line 1
])
def test_read_dev_names_file_line_and_field(tmp_path, row, field):
    p = write(tmp_path / "dev.jsonl", [dev_rows(2)[0], row])
    with pytest.raises(InputError) as e:
        read_dev(p)
    assert e.value.line == 2 and e.value.field == field and "dev.jsonl:2" in str(e.value)


def test_read_dev_maps_labels(tmp_path):
    rows = [{"id": i, "claim": "c", "evidence": ["e"], "label": lab}
            for i, lab in enumerate(["supported", "Entailment", True, "partially_supported", False,
                                     "refuted", "contradicted"])]
    got = read_dev(write(tmp_path / "dev.jsonl", rows))
    assert [d.supported for d in got] == [True, True, True, False, False, False, False]
    assert [d.contradicted for d in got] == [False, False, False, False, False, True, True]


def test_calibrate_fits_a_combiner_that_separates_the_classes(fake_runner, tmp_path):
    dev_path = write(tmp_path / "dev.jsonl", dev_rows(24, contradicted=12))
    v = Verifier(fake_runner, VerifyConfig())
    cal = calibrate(v, read_dev(dev_path), source=str(dev_path), backend="fake")
    r = cal.report
    assert (r["claims"], r["supported"], r["other"], r["left_out"]) == (36, 12, 24, 0)
    assert r["cv_balanced_accuracy"] >= 0.95  # the claims that add words are never supported
    assert set(r["baselines"]) == {"word_overlap", "coverage_only", "nli_only"}
    comb = cal.config.combiner
    assert comb is not None and comb.meta["fitted_on"].startswith("dev.jsonl (36 claims, sha256 ")
    assert comb.meta["fitted_on"].endswith("backend fake")
    # 12 contradicted claims: the contradict threshold is fitted from their P(contradiction)
    assert "contradict" in r and cal.config.contradict == r["contradict"]
    # the calibrated verifier: fresh claims get the verdicts their evidence warrants
    cv = Verifier(fake_runner, cal.config)
    ev = ["he moved to rome in 1990 . the river is blue ."]
    for claim, want in [("he moved to rome in 1990", "supported"),
                        ("he moved to paris in 1990 and sat on a big mat", "unverifiable"),
                        ("he is not in rome", "contradicted")]:
        s = cv.score_claims([(claim, ev)])[0]
        assert cv.decide(s, ev).label == want, claim


def test_calibrate_needs_both_classes(fake_runner, tmp_path):
    rows = [r for r in dev_rows(40) if r["label"] == "supported"][:MIN_CLASS] + \
           [r for r in dev_rows(40) if r["label"] != "supported"][:MIN_CLASS - 1]
    dev = read_dev(write(tmp_path / "dev.jsonl", rows))
    with pytest.raises(InputError, match=f"at least {MIN_CLASS} supported"):
        calibrate(Verifier(fake_runner, VerifyConfig()), dev, source=str(tmp_path / "dev.jsonl"))


def test_claims_without_evidence_are_left_out(fake_runner, tmp_path):
    rows = dev_rows(24) + [{"id": "empty", "claim": "", "evidence": ["x"], "label": "supported"},
                           {"id": "noev", "claim": "he sat", "evidence": [], "label": "not_supported"}]
    cal = calibrate(Verifier(fake_runner, VerifyConfig()), read_dev(write(tmp_path / "d.jsonl", rows)))
    assert (cal.report["claims"], cal.report["left_out"]) == (26, 2)
    assert "contradict" not in cal.report  # no contradicted claims: the threshold is kept


def test_cv_combiner_never_scores_a_fold_it_fitted_on():
    # labels that are noise: a combiner that saw its test folds would score far above 0.5
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(120, 8)), np.array([0, 1] * 60)
    assert abs(cv_combiner(x, y) - 0.5) < 0.15


def test_models_calibrate_cli_writes_config_and_manifest(tiny_ckpt, tmp_path, monkeypatch, capsys):
    from offline_eval.modelstore import import_model, verify_model

    path = import_model(tiny_ckpt, name="cal", home=tmp_path / "home", max_length=64)
    dev = write(tmp_path / "dev.jsonl", dev_rows(24))
    rows = write(tmp_path / "in.jsonl", [{"id": "a", "claim": "he moved to rome in 1990",
                                          "evidence": ["he moved to rome in 1990 . the river is blue ."]}])
    assert main(["verify", str(rows), "-o", str(tmp_path / "raw.jsonl"), "--nli-model", str(path)]) == 0
    assert "no calibrated combiner" in capsys.readouterr().err  # the import alone: a nudge
    assert main(["models", "calibrate", str(path), str(dev), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "word overlap" in out and "combiner" in out and not (path / "verifier.json").exists()
    assert main(["models", "calibrate", str(path), str(dev), "--min-overlap", "0.2",
                 "--coverage-sentences", "2"]) == 0
    cfg = load_config(path)
    assert cfg.combiner is not None and cfg.min_overlap == 0.2 and cfg.coverage_sentences == 2
    assert cfg.combiner.meta["fitted_on"].startswith("dev.jsonl (24 claims")
    assert "verifier.json" in verify_model(path)["files"]  # the manifest covers the new file
    first = (path / "verifier.json").read_bytes()
    assert main(["models", "calibrate", str(path), str(dev), "--min-overlap", "0.2",
                 "--coverage-sentences", "2"]) == 0
    assert (path / "verifier.json").read_bytes() == first  # deterministic
    # the calibrated model scores claims through `verify`, without the warning
    capsys.readouterr()
    assert main(["verify", str(rows), "-o", str(tmp_path / "out.jsonl"), "--nli-model", str(path)]) == 0
    assert json.loads((tmp_path / "out.jsonl").read_text())["verdict"] == "supported"
    assert "no calibrated combiner" not in capsys.readouterr().err


def test_models_calibrate_refuses_shipped_models_and_bad_input(tmp_path, capsys):
    from offline_eval.modelstore import shipped_dir

    dev = write(tmp_path / "dev.jsonl", dev_rows(24))
    assert main(["models", "calibrate", str(shipped_dir() / "nli-minilm"), str(dev)]) == 2
    assert "read-only" in capsys.readouterr().err
    bad = write(tmp_path / "bad.jsonl", [{"id": 1, "claim": "c", "evidence": ["e"], "label": "?"}])
    assert main(["models", "calibrate", "nli-minilm", str(bad), "--dry-run"]) == 2
    assert "bad.jsonl:1: field 'label'" in capsys.readouterr().err
    assert main(["models", "calibrate", "nli-minilm", str(dev), "--dry-run", "--coverage-windows", "0"]) == 2
    assert "coverage_windows (--coverage-windows) must be >= 1" in capsys.readouterr().err


def test_unknown_keys_in_a_model_folder_are_errors_naming_file_and_key(tmp_path):
    """A typo in verifier.json or manifest.json is refused, never silently dropped."""
    import json

    from offline_eval.errors import ModelError
    from offline_eval.modelstore import read_manifest
    from offline_eval.nli.config import load_config

    (tmp_path / "verifier.json").write_text(json.dumps({"thresholds": {"suport": 0.5}}))
    with pytest.raises(ModelError, match=r"verifier.json: unknown key 'thresholds.suport' \(known: .*support"):
        load_config(tmp_path)
    (tmp_path / "verifier.json").write_text(json.dumps({"thresholds": {}, "nuggets": {"combinr": None}}))
    for purpose in ("claims", "nuggets"):  # the whole file is checked, whichever block is read
        with pytest.raises(ModelError, match=r"unknown key 'nuggets.combinr'"):
            load_config(tmp_path, purpose)
    (tmp_path / "verifier.json").write_text(json.dumps({"thresholds": {"support": 0.6}, "calibrated": 1}))
    with pytest.raises(ModelError, match=r"unknown key 'calibrated'"):
        load_config(tmp_path)
    (tmp_path / "manifest.json").write_text(json.dumps({"format": 1, "files": {}, "lables": []}))
    with pytest.raises(ModelError, match=r"manifest.json: unknown key 'lables'"):
        read_manifest(tmp_path)
