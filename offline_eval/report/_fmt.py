"""Small, defensive formatting helpers shared by the report modules.

Rows come from JSON and any field may be missing, null or of an odd type; these helpers
never raise on such input.

>>> esc("<b>&'")
'&lt;b&gt;&amp;&#x27;'
>>> fmt_num(0.123456), fmt_num(None), fmt_num("x")
('0.123', '–', '–')
>>> as_list(None), as_dict([1]), as_list((1, 2))
([], {}, [1, 2])
>>> css_token("partially_correct"), css_token("less-important"), css_token(None)
('partially-correct', 'less-important', 'none')
"""
from __future__ import annotations

import html
import math
import re
from typing import Any

# "unsupported" stands in when a claim has a judgment (False) but no verdict label.
VERDICTS: tuple[str, ...] = ("supported", "contradicted", "unverifiable", "inconclusive",
                             "unsupported")
AUDIT_VERDICTS: tuple[str, ...] = ("correct", "incorrect", "partially_correct", "inconclusive")
IMPORTANCES: tuple[str, ...] = ("vital", "okay", "less-important")
# The one colour language of the page: a claim's final status (its audit verdict, else its
# NLI verdict in the audit's words), worst first; answers use the same words and colours.
STATUSES: tuple[str, ...] = ("incorrect", "partially_correct", "inconclusive", "unverifiable",
                             "correct")
#: the verifier's rules that overrule the model (a claim's ``verdict_rule``), as the report names them
RULES = {"numbers": "number", "names": "name", "negation": "negation"}
_FROM_NLI = {"supported": "correct", "contradicted": "incorrect", "unsupported": "incorrect",
             "inconclusive": "inconclusive", "unverifiable": "unverifiable"}


def esc(value: Any) -> str:
    """``html.escape`` of ``str(value)``; ``None`` becomes the empty string."""
    return "" if value is None else html.escape(str(value), quote=True)


def as_list(value: Any) -> list[Any]:
    """``value`` as a list when it is a list or tuple, else ``[]``."""
    return list(value) if isinstance(value, (list, tuple)) else []


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict (any mapping, as a dict), else ``{}``."""
    from collections.abc import Mapping

    return value if isinstance(value, dict) else dict(value) if isinstance(value, Mapping) else {}


def as_float(value: Any) -> float | None:
    """A finite float, or ``None`` for null, bools, strings, NaN and infinities."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def fmt_num(value: Any, digits: int = 3) -> str:
    """A number rounded to ``digits`` places; an en dash when it is not a number."""
    f = as_float(value)
    return "–" if f is None else f"{f:.{digits}f}"


def fmt_ci(ci: Any, digits: int = 3) -> str:
    """``[lo, hi]`` formatted, or the empty string when either end is missing.

    >>> fmt_ci([0.1, 0.25]), fmt_ci(None)
    ('[0.100, 0.250]', '')
    """
    pair = as_list(ci)
    if len(pair) != 2 or as_float(pair[0]) is None or as_float(pair[1]) is None:
        return ""
    return f"[{fmt_num(pair[0], digits)}, {fmt_num(pair[1], digits)}]"


def claim_verdict(claim: Any) -> str | None:
    """The claim's verdict label, else one derived from its judgment, else None.

    >>> claim_verdict({"verdict": "inconclusive"}), claim_verdict({"judgment": False})
    ('inconclusive', 'unsupported')
    >>> claim_verdict({"verdict": {"label": "contradicted"}})
    'contradicted'
    """
    c = as_dict(claim)
    v = c.get("verdict")
    v = v.get("label") if isinstance(v, dict) else v
    if v:
        return str(v)
    j = c.get("judgment")
    return "supported" if j is True else "unsupported" if j is False else None


def css_token(value: Any) -> str:
    """A safe CSS class fragment: lower-case letters, digits and dashes only."""
    if value is None:
        return "none"
    token = re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-")
    return token or "none"


def label(value: Any) -> str:
    """A human label: ``partially_correct`` -> ``partially correct``."""
    return "–" if value is None or value == "" else str(value).replace("_", " ")


def json_safe(value: Any) -> Any:
    """``value`` with NaN and infinities (which JSON cannot hold) as None.

    >>> json_safe({"a": [1.0, float("nan")]})
    {'a': [1.0, None]}
    """
    if isinstance(value, float):
        return as_float(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def nli_status(claim: Any) -> str | None:
    """The claim's NLI verdict in the audit's words (supported -> correct, contradicted ->
    incorrect), or None.

    >>> nli_status({"verdict": "supported"}), nli_status({"judgment": False}), nli_status({})
    ('correct', 'incorrect', None)
    """
    return _FROM_NLI.get(str(claim_verdict(claim)))


def claim_status(claim: Any) -> str | None:
    """The claim's final status: its audit verdict when it has one, else :func:`nli_status`.

    >>> claim_status({"verdict": "supported", "audit": {"verdict": "partially_correct"}})
    'partially_correct'
    """
    v = as_dict(as_dict(claim).get("audit")).get("verdict")
    return str(v) if v in STATUSES else nli_status(claim)


def worst_status(statuses: Any) -> str | None:
    """The worst of several statuses in :data:`STATUSES` order (None when there is none).

    >>> worst_status(["correct", "unverifiable", None]), worst_status([])
    ('unverifiable', None)
    """
    given = set(statuses)
    present = [s for s in STATUSES if s in given]
    return present[0] if present else None
