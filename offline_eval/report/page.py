"""Assemble the self-contained HTML report and write it.

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

from offline_eval.report._fmt import as_dict, esc
from offline_eval.report.assets import CSS, JS
from offline_eval.report.plots import row_group
from offline_eval.report.response import response_section
from offline_eval.report.summary import (comparisons_table, metric_cards, overview, plots,
                                         run_details)

# The page may load nothing: inline style and script only, images only as data: URIs.
_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'")
_FILTERS = (("all", "all responses"), ("incorrect", "incorrect"),
            ("partially-correct", "partially correct"), ("inconclusive", "inconclusive"),
            ("correct", "correct"), ("deflection", "deflections"), ("error", "errors"))
_LEGEND = ("<div class=legend><span class=lg><span class='sw v-supported'></span>supported"
           "</span><span class=lg><span class='sw v-contradicted'></span>contradicted</span>"
           "<span class=lg><span class='sw v-unverifiable'></span>unverifiable</span>"
           "<span class=lg><span class='sw v-inconclusive'></span>inconclusive (evidence "
           "conflicts)</span><span class=lg><span class='sw k-deflection'></span>deflection"
           "</span><span class=lg><b>bold, thick underline</b>: vital claim; dashed: less "
           "important. Numbered badges open the claim.</span></div>")


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


def _toolbar() -> str:
    options = "".join(f'<option value="{v}">{t}</option>' for v, t in _FILTERS)
    return ('<div class="toolbar"><select id="filter" aria-label="filter">' + options +
            '</select><input id="search" type="search" placeholder="search text or id" '
            'aria-label="search"><button id="expand" type="button">expand all</button>'
            '<button id="collapse" type="button">collapse all</button>'
            '<span class="count" id="shown"></span></div>')


def report_html(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                title: str = "offline-eval report") -> str:
    """The whole page as a string (deterministic for the same input)."""
    rows = [as_dict(r) for r in rows]
    summary = as_dict(summary)
    body = [f"<h1>{esc(title)}</h1>"]
    if not rows:
        body.append('<p class="sub">No responses to report.</p>')
    body.append("<h2>Run summary</h2>" + overview(rows, summary) + run_details(summary))
    cards = metric_cards(summary)
    if cards:
        body.append("<h2>Metrics</h2>" + cards)
    figures = plots(rows, summary, group_order(rows, summary)) if rows else ""
    if figures or summary.get("comparisons"):
        body.append("<h2>Plots</h2>" + figures + comparisons_table(summary))
    if rows:
        body.append("<h2>Responses</h2>" + _LEGEND + _toolbar()
                    + "".join(response_section(r, n) for n, r in enumerate(rows)))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
            f'<body><main>{"".join(body)}</main><script>{JS}</script></body></html>\n')


def render_report(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
                  path: str | os.PathLike[str], *, title: str = "offline-eval report") -> None:
    """Write the self-contained HTML report of ``rows`` (``offline-eval score`` output)
    and their ``summary`` (:func:`offline_eval.api.summarize`, optionally with ``groups``
    and ``comparisons``) to ``path``. No external assets; same input, same bytes."""
    text = report_html(rows, summary, title)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(text.encode("utf-8"))
