"""One name for a row's evidence: ``references`` in every reader; ``evidence`` (verify,
calibrate) and ``sources`` (comprehensiveness), the names those commands read before, are
still read there, with one note per file. ``score`` never read them: there they stay
ordinary fields of the row."""
from __future__ import annotations

import json

import pytest

from offline_eval.commands.verify import read as verify_rows
from offline_eval.coverage.api import read_rows as coverage_rows
from offline_eval.errors import InputError, RenamedFieldWarning
from offline_eval.io.items import read_items
from offline_eval.nli.calibrate import read_dev

EV = ["Marie Curie was born in Warsaw."]


def _file(tmp_path, rows):
    p = tmp_path / "in.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize("old", ["evidence", "sources"])
def test_every_reader_takes_references_and_the_old_names_with_a_note(tmp_path, old):
    claim = {"id": 1, "claim": "Curie was born in Warsaw.", "label": "supported"}
    cov = {"id": 1, "query": "Where was Curie born?", "response": "In Warsaw."}
    for read, row in ((lambda p: verify_rows(str(p)), claim), (read_dev, claim),
                      (coverage_rows, cov)):
        new = read(_file(tmp_path, [{**row, "references": EV}]))
        with pytest.warns(RenamedFieldWarning, match=f"field '{old}' is read as 'references'") as w:
            assert read(_file(tmp_path, [{**row, old: EV}, {**row, "id": 2, old: EV}]))[:1] == new
        assert len(w) == 1  # once per file, not per row
    [item] = read_items(_file(tmp_path, [{**cov, old: "web"}]))
    assert not item.references and item.meta == {old: "web"}  # score: just a field


def test_references_given_twice_and_wrong_items_name_the_field_used(tmp_path):
    row = {"id": 1, "claim": "c", "references": EV, "evidence": EV}
    with pytest.raises(InputError, match=r"in.jsonl:1: field 'evidence': give the references once"):
        verify_rows(str(_file(tmp_path, [row])))
    with pytest.raises(InputError, match=r"field 'evidence\[0\]': expected str or an object"):
        verify_rows(str(_file(tmp_path, [{"id": 1, "claim": "c", "evidence": [3]}])))
    with pytest.raises(InputError, match=r"field 'sources\[1\]': expected str"):
        coverage_rows(_file(tmp_path, [{"id": 1, "query": "q", "response": "a", "sources": ["x", 2]}]))
