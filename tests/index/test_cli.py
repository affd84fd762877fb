"""`offline-eval corpus build|list` and `offline-eval search`."""
from __future__ import annotations

import json

from offline_eval.cli import main


def test_build_list_search(tmp_path, capsys, monkeypatch):
    src = tmp_path / "docs.jsonl"
    src.write_text(json.dumps({"id": "moon", "title": "Moon", "url": "https://e.org/moon",
                               "text": "The Moon orbits the Earth."}) + "\n"
                   + json.dumps({"id": "sun", "title": "Sun", "text": "The Sun is a star."}) + "\n")
    home = tmp_path / "home"
    assert main(["corpus", "build", "sky", "--from", str(src), "--home", str(home)]) == 0
    assert "built sky: 2 documents, 2 passages" in capsys.readouterr().out
    monkeypatch.setenv("OFFLINE_EVAL_HOME", str(home))
    assert main(["corpus", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert (listed["name"], listed["n_passages"], listed["error"]) == ("sky", 2, None)
    assert main(["search", "sky", "what orbits the earth", "-k", "5", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [h["doc_id"] for h in hits] == ["moon"]
    assert set(hits[0]) == {"id", "doc_id", "title", "url", "score", "found_by", "why", "text"}
    assert main(["search", "sky", "star"]) == 0
    assert "1. [" in capsys.readouterr().out
    # no hit: said on stderr, stdout stays empty for scripts (with or without --json)
    for extra in ([], ["--json"]):
        assert main(["search", "sky", "zebra", *extra]) == 0
        got = capsys.readouterr()
        assert got.out == "" and "no passage of sky shares a word with 'zebra'" in got.err


def test_errors_are_messages_not_tracebacks(tmp_path, capsys):
    home = ["--home", str(tmp_path)]
    assert main(["search", "missing", "q", *home]) == 2
    assert "no corpus named 'missing'" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["corpus", "build", "e", "--from", str(tmp_path / "empty"), *home]) == 2
    assert "corpus is empty" in capsys.readouterr().err
    assert main(["corpus", "build", "../x", "--from", str(tmp_path), *home]) == 2
    assert main(["corpus", "list", *home]) == 0
    assert "no corpora" in capsys.readouterr().out


def test_build_warns_about_skipped_files(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("Readable text.")
    (src / "b.txt").write_bytes(b"\xff\xfe bad")
    assert main(["corpus", "build", "c", "--from", str(src), "--home", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "b.txt (not valid UTF-8" in captured.err and "skipped 1 input(s)" in captured.out


def test_fixture_corpus_and_if_missing(tmp_path, capsys):
    from pathlib import Path
    fixture = Path(__file__).resolve().parents[2] / "corpora" / "fixtures" / "tiny.jsonl"
    home = ["--home", str(tmp_path)]
    assert main(["corpus", "build", "tiny", "--from", str(fixture), *home]) == 0
    assert "4 documents" in capsys.readouterr().out
    assert main(["corpus", "build", "tiny", "--from", str(fixture), "--if-missing", *home]) == 0
    assert "already built" in capsys.readouterr().out
    # an existing corpus is replaced only on request
    assert main(["corpus", "build", "tiny", "--from", str(fixture), *home]) == 2
    assert "already exists; pass --overwrite to replace it" in capsys.readouterr().err
    assert main(["corpus", "build", "tiny", "--from", str(fixture), "--overwrite", *home]) == 0
    assert "4 documents" in capsys.readouterr().out
    assert main(["search", "tiny", "When was the lighthouse completed?", "-k", "1", "--json",
                 *home]) == 0
    hit = json.loads(capsys.readouterr().out)
    assert hit["doc_id"] == "lighthouse-of-varn" and "1874" in hit["text"]
