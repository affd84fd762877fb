"""The report's first screen, colour language, evidence marks and page data, from HTML."""
from __future__ import annotations

import json
import re

import pytest

from offline_eval.audit.tally import verdict_counts, worst_responses
from offline_eval.report import report_html
from offline_eval.report.response import CLAIMS_OPEN
from tests.report.sample import inflated, sample_rows, sample_summary


def page_of(*args):
    """The page as the browser shows it once every card is opened."""
    return inflated(report_html(*args))


@pytest.fixture(scope="module")
def page_rows() -> tuple[str, list]:
    rows = sample_rows()
    return page_of(rows, sample_summary(rows), "t"), rows


def _section(page: str, rows: list, rid: str) -> tuple[int, str]:
    """The row number of answer ``rid`` and its card's HTML."""
    n = next(i for i, r in enumerate(rows) if r["id"] == rid)
    return n, re.search(rf'<section class="resp" id="r{n}".*?</section>', page, re.S).group(0)


def _data(page: str) -> list[dict]:
    text = page.split('<script type="application/json" id="view-data">')[1].split("</script>")[0]
    return json.loads(text)


def test_headline_counts_are_the_summary_counts(page_rows):
    page, rows = page_rows
    ok = [r for r in rows if r["status"] == "ok"]
    counts = verdict_counts(ok)["responses"]
    for verdict, n in counts.items():
        tile = re.search(rf'id="count-{verdict.replace("_", "-")}" [^>]*data-count="(\d+)"', page)
        if n or verdict in ("correct", "partially_correct", "incorrect"):
            assert tile and int(tile.group(1)) == n, verdict
        else:
            assert tile is None, verdict            # an empty rare verdict takes no room
    failed = re.search(r'id="count-error" [^>]*data-count="(\d+)"', page)
    assert failed and int(failed.group(1)) == len(rows) - len(ok)


def test_worst_answers_in_severity_order_link_to_their_worst_claim(page_rows):
    page, rows = page_rows
    worst = worst_responses([r for r in rows if r["status"] == "ok"], 10)
    # major before minor, incorrect before partially correct
    assert [w["verdict"] for w in worst][:3] == ["incorrect"] * 3
    assert {w["severity"] for w in worst if w["verdict"] == "incorrect"} == {"major"}
    listed = re.findall(r'<a class="wl" href="#open=(r\d+-c\d+)"[^>]*><span class="rid">([^<]+)',
                        re.search(r'<ol class="worst".*?</ol>', page).group(0))
    assert [i for _, i in listed] == [w["id"] for w in worst]
    for target, rid in listed:
        n, k = map(int, re.match(r"r(\d+)-c(\d+)", target).groups())
        assert rows[n]["id"] == rid
        assert rows[n]["claims"][k]["audit"]["verdict"] != "correct"


def test_key_metrics_first_the_rest_behind_one_click():
    from offline_eval.measures.report import METRIC_KEYS, METRIC_MEANINGS

    assert set(METRIC_MEANINGS) == set(METRIC_KEYS)
    rows = sample_rows()
    summary = sample_summary(rows)
    summary["metrics"]["factscore_precision_gamma"] = {"mean": 0.05, "ci95": [0.0, 0.1], "n": 9}
    page = page_of(rows, summary)
    first = page.index('id="all-metrics"')
    keys = re.findall(r'<div class="kcard" id="key-([a-z-]+)">', page)
    assert keys[:2] == ["factscore-precision", "vital-precision"] and len(keys) <= 4
    assert all(page.index(f'id="key-{k}"') < first for k in keys)
    assert "FActScore with its length penalty" in page[first:]   # gamma is one click away
    assert 'id="key-factscore-precision-gamma"' not in page


def test_card_sentence_and_badge_share_one_colour(page_rows):
    page, rows = page_rows
    n, section = _section(page, rows, "danube")
    # NLI supported, but the audit's number rule makes it partially correct: both say so
    assert 'data-verdict="partially-correct"' in section
    assert '<span class="sent s-partially-correct imp-okay">It is about 3,100 km long.' in section
    assert 'class="cb s-partially-correct' in section
    assert 'class="claim s-partially-correct"' in section
    assert "NLI: supported; the audit: partially correct (a number is off" in section


def test_rule_and_compared_values_are_marked(page_rows):
    page, rows = page_rows
    n, section = _section(page, rows, "everest")
    assert "the number rule overrules the model" in section
    assert '<mark class="cmp">7,200 metres</mark>' in section       # in the claim
    assert '<mark class="cmp">8,849 m</mark>' in section            # in the deciding window
    assert '<span class="chip decisive">deciding window</span>' in section


def test_long_answers_fold_their_correct_claims(page_rows):
    page, rows = page_rows
    n, section = _section(page, rows, "rivers")
    assert len(rows[n]["claims"]) > CLAIMS_OPEN
    folded = section.index('<details class="more-claims"><summary>12 correct claims')
    bad = [m.start() for m in re.finditer(r'class="claim s-unverifiable"', section)]
    assert len(bad) == 2 and all(b < folded for b in bad)         # the non-correct first
    assert section.count('<li class="sgroup">') == 14             # grouped by sentence
    assert "14 claims, 2 not correct" in section


def test_badges_of_a_crowded_sentence_collapse():
    claims = [{"id": f"c{k}", "text": f"c{k}", "sentence_index": 0,
               "verdict": "unverifiable" if k == 3 else "supported"} for k in range(9)]
    row = {"id": "x", "status": "ok", "response": "One long sentence.",
           "sentences": [{"text": "One long sentence.", "start": 0, "end": 18}],
           "claims": claims}
    page = page_of([row], {})
    badges = re.search(r'<sup class="badges">.*?</sup>', page).group(0)
    assert badges.count('class="cb ') == 2 and ">+8</a>" in badges and ">4</a>" in badges


def test_empty_answer_is_not_called_irrelevant():
    row = {"id": "e", "status": "ok", "response": "  ", "claims": [],
           "audit": {"relevance": "not_relevant", "verdict": None}}
    page = page_of([row], {})
    assert "empty answer" in page and "not relevant" not in page


def test_assembled_window_names_its_documents():
    ev = [{"passage_id": "Nile#0", "title": "Nile", "text": "The Nile flows north. It is long."},
          {"passage_id": "Nile#1", "title": "Nile", "text": "It ends in a delta."}]
    claim = {"id": "c1", "text": "The Nile is long.", "sentence_index": 0, "verdict": "supported",
             "evidence": ev, "decisive_evidence": {"passage_id": "assembled:Nile#0+Nile#1",
                                                   "text": "It is long. It ends in a delta."}}
    row = {"id": "a", "status": "ok", "response": "The Nile is long.", "claims": [claim]}
    page = page_of([row], {})
    assert "assembled from Nile (passage Nile#0), Nile (passage Nile#1)" in page


def test_page_data_matches_rows_and_escapes_markup(page_rows):
    page, rows = page_rows
    data = _data(page)
    assert [d["id"] for d in data] == [r["id"] for r in rows]
    assert sorted(d["sev"] for d in data) == list(range(len(rows)))
    worst = min(data, key=lambda d: d["sev"])
    assert worst["verdict"] == "incorrect" and worst["severity"] == "major"
    curie = next(d for d in data if d["id"] == "curie")
    assert curie["query"].endswith("<script>alert('x')</script>")   # round-trips intact
    assert "\x07" in next(d for d in data if d["id"] == "rivers")["query"]
    assert any("rule" in d["claim_verdicts"] for d in data)


def test_control_characters_and_markup_are_escaped(page_rows):
    page, _ = page_rows
    body = page.split('<script type="application/json"')[0]
    assert "<script>alert" not in page
    assert "Name some facts about rivers.\x07" in body              # kept as text, inert
    assert re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", page.split("<body>")[0]) is None


def test_summary_lists_the_same_worst_answers():
    from offline_eval.scoring import WORST_LISTED, summarize_run

    rows = sample_rows(grouped=False)                      # ids are unique in a run
    summary = summarize_run(rows, group_by="group")
    ok = [r for r in rows if r["status"] == "ok"]
    assert summary["worst"] == worst_responses(ok, WORST_LISTED)
    assert summary["verdicts"] == verdict_counts(ok)
    # the order of the rows does not change the list
    assert summarize_run(list(reversed(rows)), group_by="group")["worst"] == summary["worst"]


def _claim(cid, verdict, audit=None, **extra):
    return {"id": cid, "text": f"claim {cid}", "sentence_index": 0, "verdict": verdict,
            **({"audit": audit} if audit else {}), **extra}


def test_worst_answer_links_to_the_claim_it_shows():
    row = {"id": "a", "status": "ok", "response": "x", "audit": {"verdict": "incorrect"},
           "claims": [_claim("c0", "supported", {"verdict": "partially_correct",
                                                 "magnitude": "minor"}),
                      _claim("c1", "contradicted", {"verdict": "incorrect",
                                                    "magnitude": "major", "core": True})]}
    dup = {"id": "a", "status": "error", "error": {"stage": "verify", "message": "boom"}}
    page = page_of([dup, row], {})                    # the same id failed once before
    item = re.search(r'<ol class="worst".*?</ol>', page).group(0)
    assert 'href="#open=r1-c1"' in item and "claim c1" in item and "claim c0" not in item


def test_a_passage_not_shown_is_never_referred_to():
    ev = {"passage_id": "p1", "title": "Doc", "text": "Alpha beta gamma."}
    claims = [_claim("c0", "supported", evidence=[ev],
                     decisive_evidence={"passage_id": "p1", "text": "Something else."}),
              _claim("c1", "supported", evidence=[ev],
                     decisive_evidence={"passage_id": "p1", "text": "Alpha beta gamma."})]
    page = page_of([{"id": "a", "status": "ok", "response": "x", "claims": claims}], {})
    assert "shown in full under claim 1" not in page and "the same text as under" not in page
    assert page.count("Alpha beta gamma.") >= 1


def test_packed_body_holds_no_nan():
    import base64
    import zlib

    from offline_eval.report.response import card_body, packed

    claim = _claim("c0", "supported", importance_score=float("nan"),
                   compared={"kind": "number", "claim": "1", "evidence": [float("inf")]})
    raw = base64.b85decode(packed([card_body("<p>x</p>", [claim])]).replace(".", "<"))
    text = zlib.decompress(raw).decode()
    assert "NaN" not in text and "Infinity" not in text and json.loads(text)[0]["claims"]


def test_cards_are_packed_ten_a_pack_in_page_order():
    from offline_eval.report.response import PACK_CARDS

    rows = [dict(sample_rows()[0], id=f"r{i}") for i in range(23)]
    page = report_html(rows, sample_summary(rows))
    packs = re.findall(r'id="zp-(\d+)"', page)
    assert packs == ["0", "1", "2"] and PACK_CARDS == 10
    refs = re.findall(r'data-zp="(\d+)" data-zj="(\d+)"', page)
    assert refs == [(str(k // 10), str(k % 10)) for k in range(23)]
    assert inflated(page).count('<div class="zbody">') == 23


def test_overlapping_marks_do_not_depend_on_the_hash_seed():
    from offline_eval.report.claims import window_html

    a = window_html("It is 1,000 m or 000 m.", None, ["1,000", "000 m"])
    b = window_html("It is 1,000 m or 000 m.", None, ["000 m", "1,000"])
    assert a == b and a.count('<mark class="cmp">') == 2


def test_the_number_rule_names_the_quantity_that_decided():
    from offline_eval.audit.rules import audit_claim
    from offline_eval.types import Claim, Evidence, Verdict

    passage = "The hotel cost 100 million dollars and has 3,000 rooms."
    claim = Claim("c1", "The hotel cost 108 million dollars and has 9,000 rooms.") \
        .with_verdict(Verdict("supported", evidence=Evidence("p", passage)))
    audit = audit_claim(claim, True)
    assert audit.verdict == "incorrect"
    assert (audit.compared.claim, audit.compared.evidence) == ("9,000", ("3,000",))
    assert "'9,000'" in audit.reasons[0] and "'3,000'" in audit.reasons[0]
