"""The self-contained HTML report (``offline-eval score --html``): summary, plots, responses.

Matplotlib (the ``report`` extra) is imported only when a plot is drawn.
"""
from __future__ import annotations

from offline_eval.report.page import render_report, report_html

__all__ = ["render_report", "report_html"]
