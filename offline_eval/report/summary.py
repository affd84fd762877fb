"""The run summary: overview numbers, metric cards, plots and paired comparisons.

>>> s = {"n_responses": 2, "abstention_ratio": 0.5,
...      "metrics": {"factscore_precision": {"mean": 0.75, "ci95": [0.5, 1.0], "n": 2},
...                  "vital_recall": {"mean": None, "ci95": [None, None], "n": 0,
...                                   "reason": "no nuggets"}}}
>>> html = metric_cards(s)
>>> "0.750" in html and "[0.500, 1.000]" in html and "no nuggets" in html
True
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from offline_eval.measures.report import METRIC_KEYS, METRIC_MEANINGS
from offline_eval.report._fmt import (VERDICTS, as_dict, as_float, as_list, claim_verdict,
                                      css_token, esc, fmt_ci, fmt_num, label)
from offline_eval.report.plots import comparison_svg, cumulative_svg, distribution_svg


def _card(key: str, agg: Mapping[str, Any], groups: Mapping[str, Any]) -> str:
    """One defined metric: mean, 95% CI, n, and the per-group rows."""
    lines = []
    for g, gs in groups.items():
        ga = as_dict(as_dict(as_dict(gs).get("metrics")).get(key))
        lines.append(f'<tr><td>{esc(g)}</td><td class=num>{fmt_num(ga.get("mean"))}</td>'
                     f'<td class="num ci">{fmt_ci(ga.get("ci95"))}</td></tr>')
    per_group = f'<table class="gtab">{"".join(lines)}</table>' if lines else ""
    return (f'<div class="card"><div class="name">{esc(label(key))}</div>'
            f'<div class="mean">{fmt_num(as_float(agg.get("mean")))}</div><div class="ci">95% CI '
            f'{fmt_ci(agg.get("ci95")) or "–"}</div><div class="n">n = {esc(agg.get("n", "–"))}</div>'
            f'<div class="means">{esc(METRIC_MEANINGS.get(key, ""))}</div>{per_group}</div>')


def metric_cards(summary: Mapping[str, Any]) -> str:
    """A grid of cards: mean, 95% CI and n per metric (and per group when grouped), in
    the metrics library's order; metrics that no response defines are listed once
    below the grid with their reason instead of as empty cards."""
    metrics = as_dict(summary.get("metrics"))
    groups = as_dict(summary.get("groups"))
    rank = {k: i for i, k in enumerate(METRIC_KEYS)}
    keys = sorted(metrics, key=lambda k: (rank.get(k, len(rank)), k))
    defined = [k for k in keys if as_float(as_dict(metrics[k]).get("mean")) is not None]
    undefined = [k for k in keys if k not in defined]
    cards = "".join(_card(k, as_dict(metrics[k]), groups) for k in defined)
    out = f'<div class="cards">{cards}</div>' if cards else ""
    if undefined:
        items = "".join(f'<li><span class="name">{esc(label(k))}</span>: '
                        f'{esc(as_dict(metrics[k]).get("reason") or "no defined values")}</li>'
                        for k in undefined)
        out += (f'<details class="undefined"><summary>Not defined in this run: '
                f'{len(undefined)} metric{"s" if len(undefined) != 1 else ""}</summary>'
                f"<ul>{items}</ul></details>")
    return out


def overview(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> str:
    """Counts: responses, errors, deflections, claims and the verdict mix."""
    ok = [r for r in rows if r.get("status") != "error"]
    claims = [as_dict(c) for r in ok for c in as_list(r.get("claims"))]
    n = summary.get("n_responses", len(ok))
    stats = [("responses", esc(n)), ("errors", str(len(rows) - len(ok))),
             ("abstention ratio", fmt_num(summary.get("abstention_ratio"))),
             ("claims", str(len(claims)))]
    cells = "".join(f'<div class="stat"><div class="v">{v}</div><div class="k">{k}</div></div>'
                    for k, v in stats)
    verdicts = [claim_verdict(c) for c in claims]
    counts = {v: verdicts.count(v) for v in VERDICTS}
    counts["none"] = len(claims) - sum(counts.values())
    bar = "".join(f'<span class="seg v-{css_token(v)}" style="flex:{c}" '
                  f'title="{esc(label(v))}: {c}"></span>' for v, c in counts.items() if c)
    legend = "".join(f'<span class="lg"><span class="sw v-{css_token(v)}"></span>'
                     f"{esc(label(v if v != 'none' else 'no verdict'))} {c}</span>"
                     for v, c in counts.items() if c)
    mix = f'<div class="mix">{bar}</div><div class="legend">{legend}</div>' if claims else ""
    return f'<div class="stats">{cells}</div>{mix}'


def _figure(svg: str | None, caption: str) -> str:
    if svg is None:
        return ""
    return f'<figure class="plot">{svg}<figcaption>{esc(caption)}</figcaption></figure>'


def plots(rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any],
          groups: Sequence[str]) -> str:
    """The three plots (those that have data), each with a caption."""
    ok = [r for r in rows if r.get("status") != "error"]
    return (_figure(cumulative_svg(ok, groups),
                    "Cumulative precision by claim position: mean over responses of the "
                    "precision of the first k claims in importance order, with a ±1.96·SE band"
                    " (positions reached by at least 10% of the responses).")
            + _figure(distribution_svg(ok, groups), "Score distributions over responses.")
            + _figure(comparison_svg(summary),
                      "Group means with 95% bootstrap confidence intervals."))


def comparisons_table(summary: Mapping[str, Any]) -> str:
    """Paired tests between groups (Holm-adjusted p-values), in a collapsible table."""
    comps = [as_dict(c) for c in as_list(summary.get("comparisons"))]
    if not comps:
        return ""
    body = "".join(
        f"<tr><td>{esc(c.get('metric'))}</td><td>{esc(c.get('a'))} vs {esc(c.get('b'))}</td>"
        f"<td class=num>{esc(c.get('n'))}</td>"
        f"<td class=num>{fmt_num(c.get('mean_a', c.get('rate_a')))}</td>"
        f"<td class=num>{fmt_num(c.get('mean_b', c.get('rate_b')))}</td>"
        f"<td class=num>{fmt_num(c.get('mean_diff'))}</td>"
        f"<td class=num>{fmt_num(c.get('t_p_holm', c.get('p_holm')), 4)}</td>"
        f"<td class=num>{fmt_num(c.get('wilcoxon_p_holm'), 4)}</td></tr>" for c in comps)
    return ("<details class=more><summary>Paired comparisons between groups "
            f"({len(comps)})</summary><table class=metric-table><thead><tr><th>metric</th>"
            "<th>pair</th><th>n</th><th>a</th><th>b</th><th>diff</th><th>p (t / McNemar, "
            f"Holm)</th><th>p (Wilcoxon, Holm)</th></tr></thead><tbody>{body}</tbody></table>"
            "</details>")


def run_details(summary: Mapping[str, Any]) -> str:
    """What the run used (``summary["run"]``, :mod:`offline_eval.provenance`): the models
    with their runtime and files sha256, the stage options, the corpus and the library
    versions, in a collapsible block.

    >>> html = run_details({"run": {"models": {"nli": {"name": "m", "backend": "onnx",
    ...     "files_sha256": "ab" * 32}}, "libraries": {"numpy": "2.0"}}})
    >>> "m" in html and "onnx" in html and "abababababab" in html and "numpy 2.0" in html
    True
    >>> run_details({})
    ''
    """
    run = as_dict(summary.get("run"))
    if not run:
        return ""
    rows = []
    for role, m in as_dict(run.get("models")).items():
        m = as_dict(m)
        runtime = ", ".join(str(m[k]) for k in ("backend", "precision", "device") if m.get(k))
        digest = m.get("files_sha256")
        title = f"one sha256 over the sha256 of each model file (manifest.json): {digest}"
        ident = (f'<code title="{esc(title)}">{esc(str(digest)[:12])}</code>'
                 if digest else esc(m.get("package") or m.get("version") or "-"))
        rows.append(f"<tr><td>{esc(role)}</td><td>{esc(m.get('name'))}</td><td>{esc(runtime)}</td>"
                    f"<td>{ident}</td></tr>")
    corpus = as_dict(run.get("corpus"))
    if corpus:
        rows.append(f"<tr><td>corpus</td><td>{esc(corpus.get('name'))}</td>"
                    f"<td>{esc(corpus.get('passages'))} passages</td>"
                    f"<td>{esc(str(corpus.get('source_sha256') or '-')[:12])}</td></tr>")
    options = "; ".join(
        f"{esc(str(s.get('name', '')).rsplit('.', 2)[-2])}: "
        + ", ".join(f"{esc(k)}={esc(v)}" for k, v in as_dict(s.get("options")).items())
        for s in map(as_dict, as_list(run.get("stages"))) if s.get("options"))
    libs = ", ".join(f"{esc(k)} {esc(v)}" for k, v in as_dict(run.get("libraries")).items() if v)
    return ("<details class=more><summary>Models, options and versions of this run</summary>"
            "<table class=metric-table><thead><tr><th>role</th><th>model</th><th>runtime</th>"
            f"<th>files sha256 / version</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            + (f"<p class=sub>Options: {options}</p>" if options else "")
            + (f"<p class=sub>Libraries: {libs}</p>" if libs else "") + "</details>")
