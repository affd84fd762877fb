"""The report's three plots as inline SVG strings (``None`` when there is nothing to plot).

* :func:`cumulative_svg`: mean cumulative precision by claim position (importance order),
  one line per group, with a ±1.96·SE band.
* :func:`distribution_svg`: histograms of per-response scores, one panel per metric.
* :func:`comparison_svg`: group means with 95% bootstrap CIs from the summary.

>>> rows = [{"id": "a", "group": "normal", "cumulative_precision": [1.0, 0.5],
...          "metrics": {"factscore_precision": 0.5}},
...         {"id": "b", "group": "wrong", "cumulative_precision": [0.0, None],
...          "metrics": {"factscore_precision": 0.0}}]
>>> series = cumulative_series(rows, ["normal", "wrong"])
>>> series["normal"][1], series["wrong"][1]
([1.0, 0.5], [0.0])
>>> cumulative_svg(rows, ["normal", "wrong"]).startswith("<svg")
True
>>> distribution_svg([], ["all"]) is None
True
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from offline_eval.report._fmt import as_dict, as_float, as_list
from offline_eval.report.svg import render_svg

PALETTE: tuple[str, ...] = ("#2f6db5", "#d9822b", "#c0392b", "#3f9b57", "#8e6bbf",
                            "#7a7f87", "#1aa3a3", "#b5487f")
DISTRIBUTION_METRICS: tuple[str, ...] = (
    "factscore_precision", "vital_precision", "weighted_precision",
    "weighted_recall", "weighted_f1", "linear_decay_f1")
COMPARISON_METRICS: tuple[str, ...] = (
    "factscore_precision", "vital_precision", "weighted_precision",
    "weighted_recall", "weighted_f1", "vital_recall")
MIN_SHARE = 0.1   # a curve position is drawn when ≥10% of the group's responses reach it


def plot_label(text: Any) -> str:
    """Text safe for a matplotlib label: no mathtext, no leading underscore."""
    s = str(text).replace("$", r"\$")
    return " " + s if s.startswith("_") else s


def row_group(row: Mapping[str, Any]) -> str:
    """The row's group as a string (``"all"`` when it has none)."""
    g = row.get("group")
    return "all" if g is None or g == "" else str(g)


def _by_group(rows: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> dict[str, list]:
    out: dict[str, list] = {g: [] for g in groups}
    for row in rows:
        out.setdefault(row_group(row), []).append(row)
    return out


def cumulative_series(rows: Sequence[Mapping[str, Any]], groups: Sequence[str]
                      ) -> dict[str, tuple[list[int], list[float], list[float]]]:
    """Per group: positions (1-based), mean precision and standard error at each."""
    out = {}
    for g, members in _by_group(rows, groups).items():
        columns: list[list[float]] = []
        for row in members:
            for k, v in enumerate(as_list(row.get("cumulative_precision"))):
                if (f := as_float(v)) is not None:
                    columns.extend([] for _ in range(k + 1 - len(columns)))
                    columns[k].append(f)
        need = max(1, round(MIN_SHARE * len(members)))
        pos, mean, se = [], [], []
        for k, vals in enumerate(columns):
            if len(vals) >= need:
                m = sum(vals) / len(vals)
                var = sum((v - m) ** 2 for v in vals) / (len(vals) - 1) if len(vals) > 1 else 0.0
                pos.append(k + 1)
                mean.append(m)
                se.append(math.sqrt(var / len(vals)))
        if pos:
            out[g] = (pos, mean, se)
    return out


def cumulative_svg(rows: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> str | None:
    """Mean cumulative precision by claim position, one line per group."""
    series = cumulative_series(rows, groups)
    if not series:
        return None

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        for i, (g, (pos, mean, se)) in enumerate(series.items()):
            colour = PALETTE[i % len(PALETTE)]
            ax.plot(pos, mean, marker="o", markersize=3, color=colour, label=plot_label(g))
            lo = [max(0.0, m - 1.96 * s) for m, s in zip(mean, se)]
            hi = [min(1.0, m + 1.96 * s) for m, s in zip(mean, se)]
            ax.fill_between(pos, lo, hi, color=colour, alpha=0.12, linewidth=0)
        ax.set_xlabel("claim position (importance order)")
        ax.set_ylabel("mean precision of the first k claims")
        ax.set_ylim(-0.02, 1.02)
        ax.xaxis.get_major_locator().set_params(integer=True)
        if len(series) > 1:
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8,
                      ncols=min(4, len(series)))

    return render_svg(draw, 7.2, 2.6, "cumulative")


def metric_values(rows: Sequence[Mapping[str, Any]], key: str) -> list[float]:
    """The finite values of ``metrics[key]`` over rows."""
    vals = (as_float(as_dict(r.get("metrics")).get(key)) for r in rows)
    return [v for v in vals if v is not None]


def distribution_svg(rows: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> str | None:
    """Histograms (10 bins on [0, 1]) of the per-response scores, per group."""
    keys = [k for k in DISTRIBUTION_METRICS if metric_values(rows, k)]
    if not keys:
        return None
    members = _by_group(rows, groups)
    ncols = min(3, len(keys))
    nrows = math.ceil(len(keys) / ncols)
    bins = [i / 10 for i in range(11)]

    def draw(fig: Any) -> None:
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax, key in zip(axes.flat, keys):
            for i, (g, rs) in enumerate(members.items()):
                vals = [min(1.0, max(0.0, v)) for v in metric_values(rs, key)]
                if vals:
                    ax.hist(vals, bins=bins, histtype="stepfilled" if len(members) == 1
                            else "step", color=PALETTE[i % len(PALETTE)], alpha=0.8,
                            linewidth=1.4, label=plot_label(g))
            ax.set_title(plot_label(key), fontsize=9)
            ax.set_xlim(0, 1)
            ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "", "0.5", "", "1"])
            ax.yaxis.get_major_locator().set_params(integer=True)
        for ax in list(axes.flat)[len(keys):]:
            ax.set_visible(False)
        axes.flat[0].set_ylabel("responses")
        if len(members) > 1:
            handles, labels = axes.flat[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside upper center", fontsize=8,
                       ncols=min(4, len(labels)))

    return render_svg(draw, 7.2, 2.1 * nrows + (0.5 if len(members) > 1 else 0.2),
                      "distribution")


def comparison_svg(summary: Mapping[str, Any]) -> str | None:
    """Grouped bars: each group's mean per metric with its 95% CI as error bars."""
    groups = as_dict(summary.get("groups"))
    if len(groups) < 2:
        return None
    stats = {g: as_dict(as_dict(s).get("metrics")) for g, s in groups.items()}
    keys = [k for k in COMPARISON_METRICS
            if any(as_float(as_dict(m.get(k)).get("mean")) is not None for m in stats.values())]
    if not keys:
        return None
    width = 0.8 / len(stats)

    def draw(fig: Any) -> None:
        ax = fig.add_subplot()
        for i, (g, m) in enumerate(stats.items()):
            xs, ys, err_lo, err_hi = [], [], [], []
            for j, key in enumerate(keys):
                agg = as_dict(m.get(key))
                mean = as_float(agg.get("mean"))
                if mean is None:
                    continue
                ci = as_list(agg.get("ci95"))
                lo = as_float(ci[0]) if len(ci) == 2 else None
                hi = as_float(ci[1]) if len(ci) == 2 else None
                xs.append(j + (i - (len(stats) - 1) / 2) * width)
                ys.append(mean)
                err_lo.append(max(0.0, mean - lo) if lo is not None else 0.0)
                err_hi.append(max(0.0, hi - mean) if hi is not None else 0.0)
            if not xs:  # a group with no defined value (e.g. deflections): no bar, no legend
                continue  # entry (an empty bar set would get matplotlib's default colour)
            ax.bar(xs, ys, width=width * 0.92, color=PALETTE[i % len(PALETTE)],
                   label=plot_label(g), yerr=[err_lo, err_hi], capsize=2,
                   error_kw={"elinewidth": 0.9, "ecolor": "#30343a"})
        ax.set_xticks(range(len(keys)), [plot_label(k) for k in keys], rotation=20,
                      ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("mean (95% CI)")
        ax.grid(axis="x", visible=False)
        ax.legend(fontsize=8, ncols=min(4, len(stats)), loc="lower center",
                  bbox_to_anchor=(0.5, 1.0))

    return render_svg(draw, 7.2, 3.4, "comparison")
