"""One response as an HTML ``<section>``: header, query, highlighted text, claims on expand.

>>> ok = response_section({"id": "q<1>", "status": "ok", "response": "Hi.", "claims": []}, 0)
>>> 'id="r0"' in ok and "q&lt;1&gt;" in ok
True
>>> err = response_section({"id": "e1", "status": "error",
...                         "error": {"stage": "verify", "message": "boom"}}, 1)
>>> "verify" in err and "boom" in err and 'data-status="error"' in err
True
"""
from __future__ import annotations

from typing import Any, Mapping

import base64
import json
import zlib

from offline_eval.audit.tally import severity
from offline_eval.report._fmt import as_dict, as_list, claim_status, esc, fmt_num, json_safe, label
from offline_eval.report.claims import chip, claim_item, normalize_claim
from offline_eval.report.highlight import highlight_response
from offline_eval.report.triage import claim_record, row_verdict

ROW_METRICS: tuple[str, ...] = ("factscore_precision", "vital_precision", "weighted_precision",
                                "weighted_recall", "weighted_f1")


def _header(row: Mapping[str, Any], audit: Mapping[str, Any]) -> str:
    tags = []
    if row.get("group") not in (None, ""):
        tags.append(f'<span class="chip group">{esc(row.get("group"))}</span>')
    if row.get("status") == "error":
        tags.append('<span class="chip av-incorrect">error</span>')
    if row.get("deflection") or audit.get("deflection"):
        tags.append('<span class="chip deflection">deflection</span>')
    if audit.get("verdict"):
        tags.append(chip("av", audit.get("verdict")))
    sev = severity(row)
    if sev:
        tags.append(chip("mag", sev, "severity: "))
    if _empty(row) and row.get("status") != "error":
        tags.append('<span class="chip empty">empty answer</span>')
    elif audit.get("relevance"):
        tags.append(chip("rel", audit.get("relevance")))
    if audit.get("timeliness") not in (None, "", "undated"):
        tags.append(chip("tim", audit.get("timeliness")))
    date = f'<span class="date">{esc(row.get("date"))}</span>' if row.get("date") else ""
    return (f'<header><h3><span class="rid">{esc(row.get("id"))}</span>{date}</h3>'
            f'<div class="tags">{"".join(tags)}</div></header>')


def _empty(row: Mapping[str, Any]) -> bool:
    """The answer is empty or whitespace (its relevance is then moot, not "not relevant")."""
    r = row.get("response")
    return isinstance(r, str) and not r.strip()


def _row_metrics(row: Mapping[str, Any]) -> str:
    metrics, reasons = as_dict(row.get("metrics")), as_dict(row.get("metric_reasons"))
    counts = as_dict(row.get("counts"))
    cells = []
    for key in ROW_METRICS:
        if key in metrics:
            tip = f' title="{esc(reasons[key])}"' if reasons.get(key) else ""
            cells.append(f'<span class="rm"{tip}><span class="k">{esc(label(key))}</span> '
                         f'{fmt_num(metrics.get(key))}</span>')
    if counts:
        cells.append(f'<span class="rm"><span class="k">claims</span> '
                     f'{esc(counts.get("claims", "–"))} ({esc(counts.get("supported", "–"))} '
                     f'supported of {esc(counts.get("decided", "–"))} decided)</span>')
    return f'<div class="row-metrics">{"".join(cells)}</div>' if cells else ""


def _all_metrics(row: Mapping[str, Any]) -> str:
    metrics, reasons = as_dict(row.get("metrics")), as_dict(row.get("metric_reasons"))
    if not metrics:
        return ""
    body = "".join(f"<tr><td>{esc(k)}</td><td class=num>{fmt_num(v)}</td>"
                   f"<td class=muted>{esc(reasons.get(k))}</td></tr>" for k, v in metrics.items())
    return (f"<details class=more><summary>All metrics</summary><table class=metric-table>"
            f"<thead><tr><th>metric</th><th>value</th><th>note</th></tr></thead>"
            f"<tbody>{body}</tbody></table></details>")


def _nuggets(row: Mapping[str, Any]) -> str:
    nuggets = [as_dict(n) for n in as_list(row.get("nuggets"))]
    if not nuggets:
        return ""
    body = "".join(f"<tr><td>{esc(n.get('text'))}</td><td>{chip('imp', n.get('importance'))}"
                   f"</td><td>{chip('sup', n.get('support'))}</td></tr>" for n in nuggets)
    return (f"<details class=more><summary>{len(nuggets)} nuggets</summary><table class=nuggets>"
            f"<thead><tr><th>nugget</th><th>importance</th><th>support</th></tr></thead>"
            f"<tbody>{body}</tbody></table></details>")


def _error(row: Mapping[str, Any]) -> str:
    err = as_dict(row.get("error"))
    return (f'<div class="error-box"><b>Failed in stage {esc(err.get("stage") or "unknown")}'
            f'</b><pre>{esc(err.get("message") or "no message")}</pre></div>')


CLAIMS_OPEN = 12   # past this many claims, the correct ones fold away behind the rest


def _sentence_groups(claims: list[dict[str, Any]], anchor: str, keep: list[int],
                     seen: dict[str, int]) -> str:
    """The claims numbered in ``keep``, grouped under the sentence they came from."""
    groups: dict[Any, list[int]] = {}
    for k in keep:
        groups.setdefault(claims[k].get("sentence"), []).append(k)
    out = []
    for sentence, ks in groups.items():
        head = f'<p class="stext">“{esc(sentence)}”</p>' if sentence else ""
        out.append(f'<li class="sgroup">{head}<ol class="claim-list">'
                   + "".join(claim_item(claims[k], k, anchor, seen) for k in ks) + "</ol></li>")
    return f'<ul class="sgroups">{"".join(out)}</ul>'


def claims_block(claims: list[dict[str, Any]], anchor: str) -> str:
    """Claims grouped under their sentence; past :data:`CLAIMS_OPEN` claims the non-correct
    ones come first and the correct ones fold into a ``<details>`` of their own."""
    n = len(claims)
    ks = list(range(n))
    seen: dict[str, int] = {}   # a passage's text is shown once per answer
    if n > CLAIMS_OPEN:
        bad = [k for k in ks if claim_status(claims[k]) != "correct"]
        good = [k for k in ks if claim_status(claims[k]) == "correct"]
        body = (_sentence_groups(claims, anchor, bad, seen) if bad else "") + (
            f'<details class="more-claims"><summary>{len(good)} correct claim'
            f'{"s" if len(good) != 1 else ""}</summary>{_sentence_groups(claims, anchor, good, seen)}'
            "</details>" if good else "")
    else:
        body = _sentence_groups(claims, anchor, ks, seen)
    return body


def _body_summary(claims: list[dict[str, Any]]) -> str:
    n = len(claims)
    if not n:
        return "nuggets and metrics"
    bad_n = sum(claim_status(c) != "correct" for c in claims)
    return (f'{n} claim{"s" if n != 1 else ""}{f", {bad_n} not correct" if bad_n else ""}: '
            "verdicts, evidence, audit")


#: cards packed together: one deflate stream of ten bodies is about 9% smaller than ten
#: (measured on 50 scored wiki-vital answers), and opening a card inflates its neighbours too
PACK_CARDS = 10


def card_body(html: str, claims: list[dict[str, Any]]) -> dict[str, Any]:
    """A card's body (its claims with their evidence, nuggets and metrics) and its claims'
    export records, as they are packed."""
    return json_safe({"html": html, "claims": [claim_record(c) for c in claims]})


#: base85 (Python's ``b85encode`` alphabet) with ``<`` written as ``.``, which base85 never
#: uses: 5 characters for 4 bytes (base64 takes 4 for 3), and no ``<`` to open a tag or ``<!--``
B85_LT = str.maketrans("<", ".")


def packed(bodies: list[dict[str, Any]]) -> str:
    """Card bodies (:func:`card_body`) as base85 (:data:`B85_LT`) of zlib-compressed JSON (a
    list): the page inflates a pack when one of its cards is opened, which keeps a report of
    many long answers small and quick to open.

    >>> text = packed([card_body("<p>x</p>", [])])
    >>> "<" in text, unpacked(text)[0]["html"]
    (False, '<p>x</p>')
    """
    data = json.dumps(bodies, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      default=str)
    return base64.b85encode(zlib.compress(data.encode("utf-8"), 9)).decode("ascii").translate(B85_LT)


def unpacked(text: str) -> list[dict[str, Any]]:
    """The card bodies of a :func:`packed` text (what the page's script does), for tools and
    tests that read a report."""
    return json.loads(zlib.decompress(base64.b85decode(text.strip().replace(".", "<"))))


def packs_html(bodies: list[dict[str, Any]]) -> str:
    """The packs of a page's card bodies, :data:`PACK_CARDS` a pack in page order, each an
    inert ``<script type="application/octet-stream" id="zp-K">`` (:func:`packed` holds no ``<``)."""
    return "".join(f'<script type="application/octet-stream" id="zp-{k // PACK_CARDS}">'
                   f"{packed(bodies[k:k + PACK_CARDS])}</script>"
                   for k in range(0, len(bodies), PACK_CARDS))


def normalize_row(row: Any) -> dict[str, Any]:
    """The row with its claims in the row schema (:func:`normalize_claim`), claim audits
    given at the row level moved onto their claims."""
    row = as_dict(row)
    audits = {as_dict(a).get("claim_id"): as_dict(a)
              for a in as_list(as_dict(row.get("audit")).get("claims"))}
    return {**row, "claims": [normalize_claim(c, audits) for c in as_list(row.get("claims"))]}


def response_section(row: Mapping[str, Any], n: int,
                     bodies: list[dict[str, Any]] | None = None) -> str:
    """The section of the ``n``-th row (``n`` makes the anchors unique). Its body (claims,
    evidence, nuggets, metrics) is appended to ``bodies`` and named by its pack and place in
    it (``data-zp``, ``data-zj``), for :func:`packs_html`; without ``bodies`` it is packed
    alone in the section (``data-z``)."""
    anchor = f"r{n}"
    audit = as_dict(row.get("audit"))
    row = normalize_row(row)
    claims = row["claims"]
    status = "error" if row.get("status") == "error" else "ok"
    verdict = row_verdict(row)
    parts = [_header(row, audit)]
    if row.get("query"):
        parts.append(f'<p class="query"><span class="lbl">Query</span>{esc(row.get("query"))}</p>')
    if status == "error":
        parts.append(_error(row))
    if isinstance(row.get("response"), str):
        parts.append(f'<div class="response">{highlight_response(row, anchor)}</div>')
    reasons = "".join(f"<li>{esc(r)}</li>" for r in as_list(audit.get("reasons")))
    if reasons:
        parts.append(f'<ul class="reasons">{reasons}</ul>')
    if status == "ok":
        parts.append(_row_metrics(row))
        if not claims:
            parts.append('<p class="muted">' + (
                "The response deflects; no claims were checked." if row.get("deflection")
                or audit.get("deflection") else "The answer is empty." if _empty(row)
                else "No checkable claims.") + "</p>")
        body = (claims_block(claims, anchor) if claims else "") + _nuggets(row) + _all_metrics(row)
        if body:
            if bodies is None:
                where = f'data-z="{esc(packed([card_body(body, claims)]))}"'
            else:
                k = len(bodies)
                where = f'data-zp="{k // PACK_CARDS}" data-zj="{k % PACK_CARDS}"'
                bodies.append(card_body(body, claims))
            parts.append(f'<details class="body" {where}><summary>'
                         f"{esc(_body_summary(claims))}</summary></details>")
    return (f'<section class="resp" id="{anchor}" data-i="{n}" data-status="{status}" '
            f'data-verdict="{verdict}">'
            f'{"".join(parts)}</section>')
