"""Structure of the HTML report: content, escaping, no external assets, stable bytes."""
from __future__ import annotations

import copy
import html
import re
import socket

import pytest

from offline_eval.measures.report import METRIC_KEYS
from offline_eval.report import render_report, report_html
from offline_eval.report._fmt import label
from tests.report.sample import inflated, sample_rows, sample_summary


def page_of(*args):
    """The page as the browser shows it once every card is opened."""
    return inflated(report_html(*args))

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def grouped() -> tuple[list, dict, str]:
    rows = sample_rows()
    summary = sample_summary(rows)
    return rows, summary, page_of(rows, summary, "Grouped <run>")


def test_every_claim_and_response_appears(grouped):
    rows, _, page = grouped
    for n, row in enumerate(rows):
        assert f'id="r{n}"' in page
        assert html.escape(row["id"]) in page
        for k, claim in enumerate(row.get("claims", [])):
            assert f'id="r{n}-c{k}"' in page
            assert html.escape(claim["text"], quote=True) in page


def test_text_is_escaped(grouped):
    _, _, page = grouped
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "&lt;b&gt;more&lt;/b&gt;" in page
    assert "<title>Grouped &lt;run&gt;</title>" in page
    # the report's own script and its data, which holds no "<" to close the tag early, and
    # the packed card bodies: inert, base85 with no "<" (so no "</script" or "<!--")
    packs = re.findall(r'<script type="application/octet-stream" id="zp-\d+">([^<]*)</script>', page)
    assert packs and all(re.fullmatch(r"[0-9A-Za-z!#$%&()*+\-;.=>?@^_`{|}~]+", p) for p in packs)
    assert page.count("<script") == 2 + len(packs)
    data = page.split('<script type="application/json" id="view-data">')[1].split("</script>")[0]
    assert "<" not in data and "alert(" in data


def test_no_external_assets(grouped):
    _, _, page = grouped
    for tag in re.findall(r"<[a-zA-Z][^>]*>", page):
        name = tag[1:].split()[0].rstrip(">").lower()
        refs = re.findall(r'\b(src|href|xlink:href|action|poster|data)\s*=\s*"([^"]*)"', tag)
        for attr, value in refs:
            if re.match(r"https?:", value):
                assert name == "a" and attr == "href", tag   # evidence links only
            elif attr != "href" or name != "a":
                assert value.startswith("#") or value == "", tag
    assert not re.search(r"<link\b|@import|url\(\s*['\"]?(https?:|//)", page)
    assert not re.search(r"<script[^>]+src", page)
    assert 'href="javascript:' not in page


def test_error_row_and_deflection(grouped):
    _, _, page = grouped
    assert 'data-status="error"' in page
    assert "Failed in stage verify" in page
    assert "ModelError: &lt;bad&gt; &amp; worse" in page
    assert "The response deflects; no claims were checked." in page
    assert 'class="sent k-deflection"' in page


def test_summary_cards_plots_and_comparisons(grouped):
    _, summary, page = grouped
    defined = [k for k, v in summary["metrics"].items() if v["mean"] is not None]
    cards = re.findall(r'<div class="card"><div class="name">([^<]+)</div>', page)
    assert len(cards) == len(defined)
    assert cards == [label(k) for k in METRIC_KEYS if k in defined]  # the library's order
    undefined = re.findall(r'<li><span class="name">([^<]+)</span>: ([^<]+)</li>', page)
    assert len(cards) + len(undefined) == len(summary["metrics"])
    assert undefined and all("no nuggets (" in reason for _, reason in undefined)
    assert page.count('<figure class="plot"><svg') == 3
    assert "Paired comparisons between groups" in page
    for g in ("normal", "missing", "wrong"):
        assert f"<td>{g}</td>" in page


def test_svg_ids_are_unique(grouped):
    _, _, page = grouped
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', page):
        if ref.startswith("open="):
            assert ref[len("open="):] in ids      # a worst answer's link opens its claim
        elif "=" not in ref:                      # the others set the view (verdict=...)
            assert ref in ids


def test_byte_identical_across_renders(tmp_path, grouped):
    rows, summary, _ = grouped
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    render_report(rows, summary, a, title="t")
    render_report(copy.deepcopy(rows), copy.deepcopy(summary), b, title="t")
    assert a.read_bytes() == b.read_bytes()


def test_empty_input(tmp_path):
    path = tmp_path / "empty.html"
    render_report([], {}, path)
    page = path.read_text(encoding="utf-8")
    assert "No responses to report." in page and "<svg" not in page


def test_ungrouped_and_defensive_rows():
    rows = sample_rows(grouped=False) + [
        {"id": 7, "status": "ok", "response": None, "claims": None, "metrics": None},
        {"id": "odd", "response": "Short text.", "sentences": [
            {"text": "Short text.", "start": 50, "end": 3}],   # bad offsets: found by text
         "claims": [{"text": "Short.", "sentence_index": 0, "verdict": "weird",
                     "probs": {"x": "nan"}, "evidence": "oops", "audit": []}],
         "cumulative_precision": [None, "x", float("nan")]},
        "not a dict",
    ]
    page = page_of(rows, {"metrics": {"factscore_precision": {"mean": float("nan")}}})
    assert page.count('<figure class="plot"><svg') == 2     # no comparison without groups
    assert '<span class="sent s-none imp-none">Short text.</span>' in page   # no known verdict


def test_offsets_place_highlights():
    row = {"id": "x", "response": "Alpha beta. Alpha beta.",
           "sentences": [{"text": "Alpha beta.", "start": 0, "end": 11},
                         {"text": "Alpha beta.", "start": 12, "end": 23}],
           "claims": [{"text": "c", "sentence_index": 1, "verdict": "contradicted",
                       "importance": "vital"}]}
    page = page_of([row], {})
    assert ('<span class="sent k-non-claim">Alpha beta.</span> <span class="sent '
            's-incorrect imp-vital">Alpha beta.</span><sup class="badges">') in page


def test_rendering_opens_no_socket():
    with pytest.raises(RuntimeError):
        socket.create_connection(("127.0.0.1", 9))
    page_of(sample_rows(), sample_summary(sample_rows()))


def test_judgment_stands_in_for_a_missing_verdict():
    row = {"id": "j", "response": "One. Two.",
           "sentences": [{"text": "One.", "start": 0, "end": 4, "kind": "claim"},
                         {"text": "Two.", "start": 5, "end": 9, "kind": "claim"}],
           "claims": [{"text": "one", "sentence_index": 0, "judgment": True},
                      {"text": "two", "sentence_index": 1, "judgment": False}]}
    page = page_of([row], {})
    assert '<span class="sent s-correct imp-none">One.</span>' in page
    assert '<span class="sent s-incorrect imp-none">Two.</span>' in page


def test_same_bytes_in_another_process(tmp_path, grouped):
    """Matplotlib's SVG ids and everything else do not depend on the process or hash seed."""
    import json
    import os
    import subprocess
    import sys

    rows, summary, _ = grouped
    data = tmp_path / "in.json"
    data.write_text(json.dumps([rows, summary]), encoding="utf-8")
    script = ("import json, sys; from offline_eval.report import render_report; "
              "rows, summary = json.load(open(sys.argv[1])); "
              "render_report(rows, summary, sys.argv[2], title='t')")
    here, there = tmp_path / "here.html", tmp_path / "there.html"
    render_report(rows, summary, here, title="t")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", script, str(data), str(there)], env=env, check=True)
    assert here.read_bytes() == there.read_bytes()


def test_nested_verdict_and_row_level_claim_audits():
    row = {"id": "n", "response": "One.", "status": "ok",
           "sentences": [{"text": "One.", "start": 0, "end": 4, "kind": "claim"}],
           "claims": [{"id": "c1", "text": "one", "sentence_index": 0,
                       "verdict": {"label": "contradicted", "probs": {"contradicted": 0.8},
                                   "evidence": {"passage_id": "p9", "title": "Doc",
                                                "text": "Decisive text."}}}],
           "audit": {"verdict": "incorrect", "claims": [
               {"claim_id": "c1", "verdict": "incorrect", "magnitude": "major", "core": True,
                "reasons": ["core fact incorrect"]}]}}
    page = page_of([row], {})
    assert 'class="sent s-incorrect imp-none"' in page
    assert "contradicted 0.80" in page and "Decisive text." in page
    assert 'chip s-incorrect">incorrect' in page and "core fact incorrect" in page


def test_comparison_bars_leave_out_a_group_with_no_values():
    # a group of deflections has no defined precision: no bars, and no legend entry that
    # would show matplotlib's default colour (the first palette colour's look-alike)
    from offline_eval.report.plots import comparison_svg

    m = {"factscore_precision": {"mean": 0.8, "ci95": [0.7, 0.9], "n": 3}}
    svg = comparison_svg({"groups": {"normal": {"metrics": m}, "wrong": {"metrics": m},
                                     "deflection": {"metrics": {"factscore_precision": {"mean": None}}}}})
    assert svg is not None and "normal" in svg and "wrong" in svg
    assert "deflection" not in svg


def test_a_negation_rule_verdict_is_named_and_its_sentence_marked():
    """The report says the negation rule overruled the model, marks the denying sentence in
    the evidence, and does not mark the whole claim as a compared value."""
    from offline_eval.report.claims import claim_item, evidence_list

    twin = "The bridge was not finished in 1932."
    claim = {"text": "The bridge was finished in 1932.", "verdict": "contradicted",
             "verdict_rule": "negation",
             "verdict_reason": f"the evidence states the claim with its polarity flipped: {twin!r}",
             "compared": {"kind": "negation", "claim": "The bridge was finished in 1932.", "evidence": [twin]},
             "decisive_evidence": {"passage_id": "p", "text": f"It is tall. {twin}"},
             "evidence": [{"passage_id": "p", "text": f"It is tall. {twin}"}]}
    item = claim_item(claim, 0, "r0")
    assert "the negation rule overrules the model" in item
    assert '<span class="ctext">The bridge was finished in 1932.</span>' in item  # not marked
    assert f'<mark class="cmp">{html.escape(twin, quote=False)}</mark>' in evidence_list(claim)
