"""``granularity="atomic"``: FActScore-style claims (sentences written for these tests)."""
from __future__ import annotations

import argparse
import json

import pytest

from offline_eval.decomposition.base import get_decomposer
from offline_eval.decomposition.syntactic import SyntacticDecomposer
from offline_eval.errors import InputError


@pytest.fixture(scope="module")
def atomic():
    return SyntacticDecomposer(granularity="atomic")


@pytest.fixture(scope="module")
def clause():
    return SyntacticDecomposer()


def claims(dec, sentences, query=""):
    return [list(sc.claims) for sc in dec.decompose(query, sentences)]


def test_two_adjuncts_become_two_claims(atomic, clause):
    s = ["Lena Varga was born in Szeged in 1931."]
    assert claims(atomic, s)[0] == ["Lena Varga was born in Szeged.", "Lena Varga was born in 1931."]
    assert claims(clause, s)[0] == ["Lena Varga was born in Szeged in 1931."]


def test_agent_date_and_purpose_are_pieces(atomic):
    got = claims(atomic, ["The dam was designed by Tomas Berg in 1962."])[0]
    assert got == ["The dam was designed by Tomas Berg.", "The dam was designed in 1962."]
    got = claims(atomic, ["Ilse Brandt moved to Vienna in 1904 to study medicine."])[0]
    assert got == ["Ilse Brandt moved to Vienna.", "Ilse Brandt moved in 1904.",
                   "Ilse Brandt moved to study medicine."]


def test_one_piece_stays_whole(atomic, clause):
    for s in ["The ferry crosses the fjord in twenty minutes.",
              "Tomas Berg designed the old harbour bridge."]:
        assert claims(atomic, [s]) == claims(clause, [s])


def test_stacked_adjectives_split_and_articles_agree(atomic):
    got = claims(atomic, ["The town restored an old, elegant theatre in 1987."])[0]
    assert got == ["The town restored a theatre in 1987.", "The town restored an old theatre.",
                   "The town restored an elegant theatre."]
    got = claims(atomic, ["The family bought a small, old farmhouse."])[0]
    assert got == ["The family bought a small farmhouse.", "The family bought an old farmhouse."]


def test_with_phrase_becomes_possession(atomic):
    got = claims(atomic, ["Tromsø, with a population of about 77,000, is the largest city in "
                          "northern Norway."])[0]
    assert "Tromsø has a population of about 77,000." in got
    assert any(c.startswith("Tromsø is the largest city") for c in got)


def test_title_before_a_name_becomes_an_attribute(atomic):
    got = claims(atomic, ["Norwegian explorer Roald Amundsen reached the South Pole in 1911."])[0]
    assert got == ["Roald Amundsen reached the South Pole in 1911.",
                   "Roald Amundsen was a Norwegian explorer."]


def test_connectives_sources_and_comparisons_are_not_pieces(atomic, clause):
    for s in ["According to the survey, the lake froze in January.",
              "In fact, the tunnel is longer than the bridge."]:
        assert claims(atomic, [s]) == claims(clause, [s])


def test_atomic_claims_are_decontextualised(atomic):
    got = claims(atomic, ["Amelia Earhart was an American aviator.",
                          "She flew across the Atlantic in 1932."])
    assert got[1] == ["Amelia Earhart flew across the Atlantic.", "Amelia Earhart flew in 1932."]


def test_granularity_is_validated():
    with pytest.raises(ValueError, match="valid: clause, atomic"):
        get_decomposer("syntactic", granularity="fine")
    with pytest.raises(ValueError, match="needs the syntactic decomposer"):
        get_decomposer("generative", granularity="atomic")
    assert get_decomposer(granularity="atomic").granularity == "atomic"


def run_cli(argv):
    from offline_eval.cli._shared import add_row_command

    parser = argparse.ArgumentParser()
    add_row_command(parser.add_subparsers(), "decompose", "claims")
    args = parser.parse_args(["decompose", *argv])
    return args.func(args)


def test_cli_granularity(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "response": "Lena Varga was born in Szeged in 1931."}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run_cli([str(src), "-o", str(out), "--granularity", "atomic"]) == 0
    assert json.loads(out.read_text())["claims"] == ["Lena Varga was born in Szeged.",
                                                     "Lena Varga was born in 1931."]
    with pytest.raises(InputError, match="--granularity atomic needs --decomposer syntactic"):
        run_cli([str(src), "--granularity", "atomic", "--decomposer", "generative"])


def test_score_spec_records_granularity():
    from offline_eval.scoring import ScoreOptions, score_specs

    def decompose_spec(opts):
        return next(s for s in score_specs(opts) if s.target == "offline_eval.stages.decompose.v1")

    assert decompose_spec(ScoreOptions()).kwargs["granularity"] == "clause"
    spec = decompose_spec(ScoreOptions(granularity="atomic"))
    assert spec.kwargs["granularity"] == "atomic"
    assert spec.build().decomposer.granularity == "atomic"
