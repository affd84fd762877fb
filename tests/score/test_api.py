"""`offline_eval.score(...)`: the same rows as `offline-eval score`, without the files."""
from __future__ import annotations

import json

import pytest

import offline_eval
from tests.score.test_score_cli import ITEMS, home, scored  # noqa: F401 (fixtures)


def test_the_api_gives_the_cli_rows(scored, home):
    _, inp, out, _ = scored
    run = offline_eval.score(inp, corpus="tiny", home=str(home))
    assert [json.dumps(r, sort_keys=True) for r in run.rows] == [
        json.dumps(json.loads(line), sort_keys=True) for line in out.read_text().splitlines()]
    # dict rows are validated like a file, and give the same rows
    again = offline_eval.score(ITEMS, corpus="tiny", home=str(home))
    assert again.rows == run.rows and again.summary["verdicts"] == run.summary["verdicts"]
    assert [r.item.id for r in run.results] == [r["id"] for r in ITEMS]


def test_bad_rows_and_options_are_named():
    with pytest.raises(offline_eval.InputError, match=r"<items>:2: field 'query'"):
        offline_eval.score([{"id": "a", "query": "q?", "response": "r"}, {"id": "b", "response": "r"}])
    with pytest.raises(TypeError, match=r"unknown option 'kk'; valid: corpus, "):
        offline_eval.score([], kk=3)
    with pytest.raises(offline_eval.InputError, match=r"<items>:2.*duplicate"):
        offline_eval.score([{"id": "a", "query": "q?", "response": "r"}] * 2)
