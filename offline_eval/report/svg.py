"""Matplotlib figures to inline SVG with stable bytes.

The same figure always gives the same text: ``svg.hashsalt`` is fixed, the metadata
(date, creator) is dropped, and the XML prolog is cut so the SVG can sit inside HTML.
Ids are prefixed per figure so that several SVGs can share one page without clashing.
Matplotlib is imported inside the functions (the ``report`` extra).

>>> def draw(fig):
...     _ = fig.add_subplot().plot([0, 1], [0, 1])
>>> s = render_svg(draw, 2, 1, "f0")
>>> s.startswith("<svg") and 'id="f0-' in s and "<?xml" not in s
True
>>> s == render_svg(draw, 2, 1, "f0")
True
"""
from __future__ import annotations

import io
import re
from typing import Any, Callable

SVG_RC: dict[str, Any] = {
    "svg.hashsalt": "offline-eval-report",
    "svg.fonttype": "none",   # text stays text: smaller, selectable, browser fonts
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e3e6ea",
    "grid.linewidth": 0.6,
    "axes.edgecolor": "#8a9099",
    "axes.labelcolor": "#30343a",
    "xtick.color": "#50555c",
    "ytick.color": "#50555c",
    "legend.frameon": False,
}
_NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the HTML report needs matplotlib: "
                          "pip install 'offline-eval[report]'") from exc
    return matplotlib


def render_svg(draw: Callable[[Any], None], width: float, height: float, prefix: str) -> str:
    """Draw on a fresh pyplot-free figure and return it as an ``<svg>`` element.

    Everything (creation, drawing, saving) runs inside one ``rc_context``, and each
    figure is saved exactly once, so the output depends only on ``draw``. Ids all start
    with ``prefix-``.
    """
    matplotlib = _matplotlib()
    from matplotlib.figure import Figure

    buf = io.StringIO()
    with matplotlib.rc_context(SVG_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        draw(fig)
        fig.savefig(buf, format="svg", metadata=_NO_METADATA)
    return _inline(buf.getvalue(), prefix)


def _inline(text: str, prefix: str) -> str:
    text = text[text.index("<svg"):]
    text = re.sub(r'\s*<style type="text/css">.*?</style>', "", text, flags=re.S)
    text = re.sub(r"\s*<defs>\s*</defs>", "", text)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    return text.replace("<svg ", '<svg role="img" ', 1).rstrip() + "\n"
