"""Assemble the self-contained HTML report and write it.

The page holds its rows twice: as HTML cards, and as compact JSON
(:func:`~offline_eval.report.triage.view_records`) that its script sorts, filters and exports
from, with the view kept in the URL fragment (``#verdict=incorrect&sort=severity``).

>>> import os, tempfile
>>> rows = [{"id": "a", "status": "ok", "response": "Paris is in France.",
...          "claims": [{"id": "c1", "text": "Paris is in France.", "verdict": "supported"}],
...          "metrics": {"factscore_precision": 1.0}, "cumulative_precision": [1.0]}]
>>> with tempfile.TemporaryDirectory() as d:
...     p = os.path.join(d, "r.html")
...     render_report(rows, {"n_responses": 1}, p, title="Demo")
...     text = open(p, encoding="utf-8").read()
>>> text.startswith("<!DOCTYPE html>") and "<title>Demo</title>" in text
True
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from offline_eval.report._fmt import as_dict, as_float, esc, label
from offline_eval.report.assets import CSS
from offline_eval.report.plots import row_group
from offline_eval.report.response import normalize_row, packs_html, response_section
from offline_eval.report.script import JS
from offline_eval.report.summary import (comparisons_table, metric_cards, overview, plots,
                                         run_details)
from offline_eval.report.triage import (KEY_METRICS, headline, key_metrics, view_data,
                                        view_records, worst_list)

# The page may load nothing: inline style and script only, images only as data: URIs.
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'")
_FILTERS = (("all", "every verdict"), ("incorrect", "incorrect"),
            ("partially-correct", "partially correct"), ("inconclusive", "inconclusive"),
            ("unverifiable", "unverifiable"), ("correct", "correct"),
            ("deflection", "deflections"), ("no-claims", "no claims"), ("error", "failed"))
_CLAIM_FILTERS = (("any", "any claim"), ("contradicted", "a contradicted claim"),
                  ("inconclusive", "an inconclusive claim"),
                  ("unverifiable", "an unverifiable claim"), ("supported", "a supported claim"),
                  ("rule", "a claim a rule decided"))
_SORTS = (("severity", "worst first"), ("input", "input order"), ("id", "id"),
          ("metric-asc", "metric, low first"), ("metric-desc", "metric, high first"))
_LEGEND = ("<div class=legend><span class=lg><span class='sw s-correct'></span>correct"
           "</span><span class=lg><span class='sw s-incorrect'></span>incorrect</span>"
           "<span class=lg><span class='sw s-partially-correct'></span>partially correct</span>"
           "<span class=lg><span class='sw s-inconclusive'></span>inconclusive (evidence "
           "conflicts)</span><span class=lg><span class='sw s-unverifiable'></span>unverifiable"
           "</span><span class=lg><span class='sw k-deflection'></span>deflection</span>"
           "<span class=lg>Cards, sentences and badges share these colours: a claim's audit "
           "verdict, else its NLI verdict (supported = correct). Where a rule and the model "
           "disagree the claim says so. <b>Bold</b>: vital claim; dashed: less important; "
           "<span class='sw not-timely'></span>not timely. In evidence, "
           "<mark class=win>the window the model read</mark> and <mark class=cmp>the values a "
           "rule compared</mark>.</span></div>")


def group_order(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> list[str]:
    """Groups in summary order, then any others in order of first appearance.

    >>> group_order([{"group": "b"}, {"group": "a"}, {}], {"groups": {"a": {}}})
    ['a', 'b', 'all']
    """
    order = [str(g) for g in as_dict(summary.get("groups"))]
    for row in rows:
        if row_group(row) not in order:
            order.append(row_group(row))
    return order


def _select(ident: str, label_: str, options: Sequence[tuple[str, str]]) -> str:
    opts = "".join(f'<option value="{esc(v)}">{esc(t)}</option>' for v, t in options)
    return f'<label class="ctl">{label_}<select id="{ident}">{opts}</select></label>'


def _toolbar(groups: Sequence[str], metrics: Sequence[str]) -> str:
    """Sort and filter controls (their state lives in the URL fragment) and the export."""
    parts = [_select("filter", "answer", _FILTERS), _select("claim", "with", _CLAIM_FILTERS)]
    if len(groups) > 1 or groups[:1] != ["all"]:   # "all" is the rows without a group
        parts.append(_select("group", "group", [("", "every group")]
                             + [(g, "(no group)" if g == "all" else g) for g in groups]))
    parts.append(_select("sort", "sort", _SORTS))
    if metrics:
        parts.append(_select("metric", "metric", [(m, label(m)) for m in metrics]))
        parts.append('<label class="ctl">≤<input id="max" type="number" min="0" max="1" '
                     'step="0.05" placeholder="any" aria-label="metric at most"></label>')
    parts.append('<input id="search" type="search" placeholder="search text or id" '
                 'aria-label="search">')
    parts.append('<button id="expand" type="button">expand all</button>'
                 '<button id="collapse" type="button">collapse all</button>'
                 '<button id="export-csv" type="button">export CSV</button>'
                 '<button id="export-json" type="button">export JSON</button>'
                 '<span class="count" id="shown"></span>')
    return f'<div class="toolbar">{"".join(parts)}</div>'


def _row_metric_keys(summary: Mapping[str, Any]) -> list[str]:
    """The metrics a card can be sorted or filtered on: the defined ones, key ones first."""
    metrics = as_dict(summary.get("metrics"))
    defined = [k for k in metrics if as_float(as_dict(metrics[k]).get("mean")) is not None]
    return [k for k in KEY_METRICS if k in defined] + sorted(k for k in defined
                                                             if k not in KEY_METRICS)


def report_html(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                title: str = "offline-eval report") -> str:
    """The whole page as a string (deterministic for the same input).

    First screen: answers by verdict, the worst answers, the key metrics. Then every metric,
    the claim mix and run details, the plots, and the cards with their toolbar."""
    rows = [normalize_row(r) for r in rows]
    summary = as_dict(summary)
    body = [f"<h1>{esc(title)}</h1>"]
    if not rows:
        body.append('<p class="sub">No responses to report.</p>')
    body.append(headline(rows) + '<div class="triage">' + worst_list(rows)
                + key_metrics(summary) + "</div>")
    cards = metric_cards(summary)
    if cards:
        body.append('<details class="all-metrics" id="all-metrics"><summary>Every metric, '
                    f"per group, with what it means</summary>{cards}</details>")
    body.append("<h2>Run summary</h2>" + overview(rows, summary) + run_details(summary))
    groups = group_order(rows, summary)
    figures = plots(rows, summary, groups) if rows else ""
    if figures or summary.get("comparisons"):
        body.append("<h2>Plots</h2>" + figures + comparisons_table(summary))
    records = view_records(rows)
    if rows:
        worst_first = sorted(range(len(rows)), key=lambda n: records[n]["sev"])  # the default
        bodies: list[dict[str, Any]] = []  # packed together, in page order
        body.append('<h2 id="answers">Answers</h2>' + _LEGEND
                    + _toolbar(groups, _row_metric_keys(summary)) + '<div id="cards">'
                    + "".join(response_section(rows[n], n, bodies) for n in worst_first)
                    + "</div>" + packs_html(bodies))
    data = f'<script type="application/json" id="view-data">{view_data(records)}</script>'
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
            f'<body><main>{"".join(body)}</main>{data}<script>{JS}</script></body></html>\n')


def render_report(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                  path: str | os.PathLike[str], *, title: str = "offline-eval report") -> None:
    """Write the self-contained HTML report of ``rows`` (``offline-eval score`` output)
    and their ``summary`` (:func:`offline_eval.api.summarize`, optionally with ``groups``
    and ``comparisons``) to ``path``. No external assets; same input, same bytes."""
    text = report_html(rows, summary, title)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(text.encode("utf-8"))
