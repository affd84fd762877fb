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

from offline_eval.report._fmt import as_dict, as_list, css_token, esc, fmt_num, label
from offline_eval.report.claims import chip, claim_item, normalize_claim
from offline_eval.report.highlight import highlight_response

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
    for key in ("relevance", "timeliness"):
        if audit.get(key):
            tags.append(chip(key[:3], audit.get(key)))
    date = f'<span class="date">{esc(row.get("date"))}</span>' if row.get("date") else ""
    return (f'<header><h3><span class="rid">{esc(row.get("id"))}</span>{date}</h3>'
            f'<div class="tags">{"".join(tags)}</div></header>')


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


def response_section(row: Mapping[str, Any], n: int) -> str:
    """The section of the ``n``-th row (``n`` makes the anchors unique)."""
    anchor = f"r{n}"
    audit = as_dict(row.get("audit"))
    audits = {as_dict(a).get("claim_id"): as_dict(a) for a in as_list(audit.get("claims"))}
    claims = [normalize_claim(c, audits) for c in as_list(row.get("claims"))]
    row = {**row, "claims": claims}
    status = "error" if row.get("status") == "error" else "ok"
    verdict = css_token(audit.get("verdict")) if status == "ok" else "error"
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
        if claims:
            items = "".join(claim_item(c, k, anchor) for k, c in enumerate(claims))
            parts.append(f'<details class="claims"><summary>{len(claims)} claim'
                         f'{"s" if len(claims) != 1 else ""}: verdicts, evidence, audit'
                         f'</summary><ol class="claim-list">{items}</ol></details>')
        elif row.get("deflection") or audit.get("deflection"):
            parts.append('<p class="muted">The response deflects; no claims were checked.</p>')
        else:
            parts.append('<p class="muted">No checkable claims.</p>')
        parts.append(_nuggets(row) + _all_metrics(row))
    return (f'<section class="resp" id="{anchor}" data-status="{status}" '
            f'data-verdict="{verdict}" data-group="{esc(row.get("group") or "")}">'
            f'{"".join(parts)}</section>')
