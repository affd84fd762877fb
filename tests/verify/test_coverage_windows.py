"""The coverage features' own windows (``coverage_sentences`` x ``coverage_windows``)."""
from __future__ import annotations

import json

from offline_eval.nli.config import DEFAULTS, VerifyConfig, dump_config, load_config
from offline_eval.nli.features import best_windows, pooled_windows
from offline_eval.nli.verifier import Verifier
from offline_eval.types import Evidence

FILLER = ["The weather was mild.", "Nobody noticed the bells.", "A cart went by.",
          "The mill kept turning.", "Snow fell later."]
# the claim's two facts, five sentences apart in one passage
PAGE = ["Ada was born in London."] + FILLER + ["Ada died in 1852."]
CLAIM = "Ada was born in London and died in 1852."


def test_best_windows_are_the_most_covering_non_overlapping_runs():
    wins = best_windows(CLAIM, PAGE, 2, 2)
    assert wins == ["Ada was born in London. The weather was mild.", "Snow fell later. Ada died in 1852."]
    assert best_windows(CLAIM, PAGE, 1, 2) == [wins[0]]  # 3 of 5 words each: reading order
    assert best_windows("Ada died in 1852.", PAGE, 1, 2) == [wins[1]]
    assert best_windows(CLAIM, PAGE[:2], 3, 5) == [" ".join(PAGE[:2])]  # shorter than a window: one
    assert best_windows(CLAIM, PAGE, 0, 2) == [] and best_windows(CLAIM, [], 2, 2) == []


def test_pooled_windows_never_span_two_documents():
    docs = [["Ada was born in London."], ["Ada died in 1852.", "The weather was mild."]]
    wins = pooled_windows(CLAIM, docs, 3, 2)
    assert sorted(wins) == sorted(["Ada was born in London.", "Ada died in 1852. The weather was mild."])
    assert "Ada was born in London. Ada died in 1852." not in wins
    assert pooled_windows(CLAIM, docs, 1, 2) == ["Ada was born in London."]  # a tie: the earlier document
    assert pooled_windows("Ada died in 1852.", docs, 1, 2) == ["Ada died in 1852. The weather was mild."]


def test_small_coverage_windows_tell_close_facts_from_scattered_words(fake_runner):
    def features(**kw):
        v = Verifier(fake_runner, VerifyConfig(split_claims=False, assemble_sentences=0, **kw))
        return v.score_claims([(CLAIM, [" ".join(PAGE)])])[0].features

    whole = features(coverage_sentences=0)  # the window the model reads holds the whole page
    one = features(coverage_sentences=2, coverage_windows=1)
    two = features(coverage_sentences=2, coverage_windows=2)
    assert whole["cov_content"] == whole["cov_all"] == 1.0
    assert one["cov_content"] == one["cov_all"] < 1.0
    assert two["cov_content"] == one["cov_content"] and two["cov_all"] == 1.0
    assert one["ent_full"] == whole["ent_full"]  # what the model reads does not change


def test_coverage_windows_come_from_each_document_of_the_passages(fake_runner):
    v = Verifier(fake_runner, VerifyConfig(split_claims=False, coverage_sentences=3, coverage_windows=2))
    same = [Evidence("a#0", PAGE[0], doc_id="a"), Evidence("a#1", PAGE[-1], doc_id="a")]
    apart = [Evidence("a#0", PAGE[0], doc_id="a"), Evidence("b#0", PAGE[-1], doc_id="b")]
    f_same = v.score_claims([(CLAIM, same)])[0].features
    f_apart = v.score_claims([(CLAIM, apart)])[0].features
    assert f_same["cov_content"] == 1.0  # one document: its two sentences fit one window
    assert f_apart["cov_content"] < 1.0 and f_apart["cov_all"] == 1.0


def test_a_config_fitted_before_the_setting_keeps_the_old_features(tmp_path):
    from offline_eval.nli.combiner import Combiner

    comb = Combiner(("cov_content",), (1.0,), 0.0, (0.0,), (1.0,))
    data = dump_config(VerifyConfig(combiner=comb))
    assert load_config(_write(tmp_path / "new", data)).coverage_sentences == DEFAULTS.coverage_sentences
    del data["thresholds"]["coverage_sentences"]
    assert load_config(_write(tmp_path / "old", data)).coverage_sentences == 0
    data["combiner"] = None  # nothing fitted: the defaults apply
    assert load_config(_write(tmp_path / "bare", data)).coverage_sentences == DEFAULTS.coverage_sentences


def test_the_shipped_model_reads_small_coverage_windows():
    from offline_eval.modelstore import shipped_dir

    cfg = load_config(shipped_dir() / "nli-minilm")
    assert cfg.combiner is not None and cfg.coverage_sentences > 0 and cfg.coverage_windows > 0


def _write(folder, data):
    folder.mkdir()
    (folder / "verifier.json").write_text(json.dumps(data))
    return folder
