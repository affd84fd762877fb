"""The report's first screen and the data its script sorts, filters and exports.

The first screen answers the audit question: how many answers are correct, partially
correct, incorrect, inconclusive, unverifiable or deflections (each a link that filters
the cards), which answers are worst (:func:`offline_eval.audit.tally.worst_responses`, the
same list the run summary carries), and the few metrics that matter, with their CIs.

>>> rows = [{"id": "a", "status": "ok", "audit": {"verdict": "incorrect"},
...          "claims": [{"id": "c1", "text": "X", "verdict": "contradicted",
...                      "audit": {"verdict": "incorrect", "magnitude": "major"}}]},
...         {"id": "b", "status": "error"}]
>>> html = headline(rows)
>>> 'id="count-incorrect"' in html and 'id="count-error"' in html and "50%" in html
True
>>> 'href="#open=r0-c0"' in worst_list(rows)
True
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from offline_eval.audit.tally import (RESPONSE_VERDICTS, WORST_LISTED, ranked_worst,
                                      response_verdict, severity, severity_key, verdict_counts)
from offline_eval.measures.report import METRIC_MEANINGS
from offline_eval.report._fmt import (RULES, as_dict, as_float, as_list, claim_status, css_token,
                                      esc, fmt_ci, fmt_num, json_safe, label, nli_status)
from offline_eval.report.plots import row_group

# The metrics the first screen shows, the first four that the run defines.
KEY_METRICS: tuple[str, ...] = ("factscore_precision", "vital_precision", "vital_recall",
                                "weighted_f1", "weighted_precision", "linear_decay_precision")


def _ok(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r for r in rows if r.get("status") != "error"]


def row_verdict(row: Mapping[str, Any]) -> str:
    """The card's verdict token: ``error`` for a failed row, else the answer's verdict."""
    return "error" if row.get("status") == "error" else css_token(response_verdict(row))


def headline(rows: Sequence[Mapping[str, Any]]) -> str:
    """One tile per answer verdict (and one for failed rows): count and share of the run,
    each a link that filters the cards to that verdict."""
    counts: dict[str, int] = dict(verdict_counts(_ok(rows))["responses"])
    counts["error"] = len(rows) - len(_ok(rows))
    total = max(1, len(rows))
    tiles = []
    for v in (*RESPONSE_VERDICTS, "error"):
        n = counts[v]
        if not n and v not in ("correct", "partially_correct", "incorrect"):
            continue
        tok = css_token(v)
        tiles.append(f'<a class="tile av-{tok}" id="count-{tok}" href="#verdict={tok}" '
                     f'data-count="{n}"><span class="v">{n}</span><span class="k">'
                     f'{esc(label("failed" if v == "error" else v))}</span><span class="share">'
                     f"{100 * n / total:.0f}%</span></a>")
    return (f'<div class="headline" aria-label="answers by verdict"><div class="total">'
            f'<span class="v">{len(rows)}</span><span class="k">answers</span></div>'
            f'{"".join(tiles)}</div>')


def worst_list(rows: Sequence[Mapping[str, Any]], n: int = WORST_LISTED) -> str:
    """The worst answers, most severe first, each linking to the claim it is listed for
    (its first major non-correct claim, else its first non-correct one)."""
    items = []
    for i, w in ranked_worst(rows, n):
        claim = next(iter(w["claims"]), None)
        target = f"r{i}" if claim is None else f"r{i}-c{claim['index']}"
        what = (f'<span class="wclaim">{esc(claim["text"])}</span>'
                f'<span class="wwhy">{esc("; ".join(claim["reasons"]) or label(claim["audit"]))}'
                "</span>") if claim else f'<span class="wwhy">{esc("; ".join(w["reasons"]))}</span>'
        sev = (f'<span class="chip mag-{css_token(w["severity"])}">{esc(w["severity"])}</span>'
               if w["severity"] else "")
        items.append(f'<li><a class="wl" href="#open={target}" data-open="{target}">'
                     f'<span class="rid">{esc(w["id"])}</span></a>'
                     f'<span class="chip av-{css_token(w["verdict"])}">{esc(label(w["verdict"]))}'
                     f"</span>{sev}{what}</li>")
    body = (f'<ol class="worst" id="worst">{"".join(items)}</ol>' if items else
            '<p class="muted" id="worst">No answer is incorrect, partially correct or '
            "inconclusive.</p>")
    return f'<div class="worst-box"><h2>Worst answers</h2>{body}</div>'


def key_metrics(summary: Mapping[str, Any]) -> str:
    """The first four of :data:`KEY_METRICS` that the run defines: mean, 95% CI, n and
    what the metric means."""
    metrics = as_dict(summary.get("metrics"))
    keys = [k for k in KEY_METRICS if as_float(as_dict(metrics.get(k)).get("mean")) is not None]
    cards = []
    for k in keys[:4]:
        m = as_dict(metrics[k])
        cards.append(f'<div class="kcard" id="key-{css_token(k)}"><div class="name">'
                     f'{esc(label(k))}</div><div class="mean">{fmt_num(m.get("mean"))}</div>'
                     f'<div class="ci">95% CI {fmt_ci(m.get("ci95")) or "–"} · n = '
                     f'{esc(m.get("n", "–"))}</div><div class="means">'
                     f'{esc(METRIC_MEANINGS.get(k, ""))}</div></div>')
    return f'<div class="key-box">{"".join(cards)}</div>' if cards else ""


def claim_record(c: Mapping[str, Any]) -> dict[str, Any]:
    """A claim as the export writes it (packed with its card's body)."""
    a = as_dict(c.get("audit"))
    ev = as_dict(c.get("decisive_evidence"))
    return {"id": c.get("id"), "text": c.get("text"), "sentence": c.get("sentence"),
            "importance": c.get("importance"), "verdict": c.get("verdict"),
            "status": claim_status(c), "rule": c.get("verdict_rule"),
            "reason": c.get("verdict_reason"), "audit_reasons": [str(x) for x in as_list(a.get("reasons"))],
            "magnitude": a.get("magnitude"), "core": a.get("core"),
            "timeliness": a.get("timeliness"), "compared": c.get("compared"),
            "evidence_passage": ev.get("passage_id"), "evidence_doc": ev.get("title")
            or ev.get("doc_id"), "evidence_url": ev.get("url")}


def view_records(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One record per row for the page script: what it sorts and filters on and the
    answer's fields of the export (``sev`` is the card's place worst first); the claims'
    fields are packed with each card's body (:func:`~offline_eval.report.response.card_body`)."""
    keys = [(severity_key(r) if r.get("status") != "error" else (3, -1, 0, 0, str(r.get("id"))),
             i) for i, r in enumerate(rows)]
    rank = {i: n for n, (_, i) in enumerate(sorted(keys))}
    out = []
    for i, r in enumerate(rows):
        claims = [as_dict(c) for c in as_list(r.get("claims"))]
        metrics = {k: v for k, v in as_dict(r.get("metrics")).items() if as_float(v) is not None}
        out.append({"i": i, "id": r.get("id"), "group": r.get("group"), "g": row_group(r),
                    "verdict": row_verdict(r), "severity": severity(r) if r.get("status") !=
                    "error" else None, "sev": rank[i], "query": r.get("query"),
                    "reasons": [str(x) for x in as_list(as_dict(r.get("audit")).get("reasons"))],
                    "error": as_dict(r.get("error")).get("message"),
                    "claim_verdicts": sorted({str(c.get("verdict")) for c in claims
                                              if c.get("verdict")}
                                             | ({"rule"} if any(_overridden(c) for c in claims)
                                                else set())),
                    "n_claims": len(claims), "metrics": metrics})
    return out


def _overridden(c: Mapping[str, Any]) -> bool:
    """A rule, not the model alone, set the claim's verdict or its audit."""
    return (c.get("verdict_rule") in RULES
            or (bool(as_dict(c.get("audit"))) and claim_status(c) != nli_status(c)))


def view_data(records: Sequence[Mapping[str, Any]]) -> str:
    """:func:`view_records` as JSON safe inside ``<script type="application/json">``."""
    text = json.dumps(json_safe(list(records)), ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False, default=str)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
