"""The audit added up over written rows: verdict counts and the worst answers.

The terminal summary, ``--summary`` and the HTML report's first screen all read these two
functions, so the three agree by construction.

Severity of an answer (:func:`severity`): ``major`` when a non-correct claim is major (a
core claim, or a number off beyond twice its tolerance), else ``minor`` when one is minor,
else None. The worst answers (:func:`worst_responses`) are those the audit
calls incorrect, partially correct or inconclusive, most severe first: by verdict, then
severity, then how many claims are major and how many are not correct, then id (so the
order of the rows does not matter).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

RESPONSE_VERDICTS: tuple[str, ...] = ("correct", "partially_correct", "incorrect", "inconclusive",
                                      "unverifiable", "deflection", "no_claims")
CLAIM_VERDICTS: tuple[str, ...] = ("supported", "contradicted", "inconclusive", "unverifiable")
# The answers an auditor must read, worst first.
WORST_VERDICTS: tuple[str, ...] = ("incorrect", "partially_correct", "inconclusive")
SEVERITIES: tuple[str, ...] = ("major", "minor")
# How many answers the run summary and the report list.
WORST_LISTED = 10


def _d(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (rows may come from anywhere)."""
    return value if isinstance(value, Mapping) else {}


def _claims(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    claims = row.get("claims")
    return [_d(c) for c in claims] if isinstance(claims, (list, tuple)) else []


def response_verdict(row: Mapping[str, Any]) -> str:
    """The answer's place in :data:`RESPONSE_VERDICTS`: a deflection, an answer with no
    claim, or the guideline audit's verdict.

    >>> response_verdict({"deflection": True}), response_verdict({"audit": {"verdict": None}})
    ('deflection', 'no_claims')
    """
    v = _d(row.get("audit")).get("verdict")
    if row.get("deflection"):
        return "deflection"
    return v if isinstance(v, str) and v in RESPONSE_VERDICTS else "no_claims"


def verdict_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """How many answers the guideline audit found correct, partially correct, incorrect,
    inconclusive or unverifiable (a deflection, or an answer with no claim, counted apart),
    and how many claims got each verdict.

    >>> verdict_counts([{"deflection": False, "audit": {"verdict": "incorrect"},
    ...                  "claims": [{"verdict": "contradicted"}, {"verdict": "supported"}]},
    ...                 {"deflection": True, "audit": {"verdict": None}, "claims": []}])["responses"]
    {'correct': 0, 'partially_correct': 0, 'incorrect': 1, 'inconclusive': 0, 'unverifiable': 0, 'deflection': 1, 'no_claims': 0}
    """
    responses = dict.fromkeys(RESPONSE_VERDICTS, 0)
    claims = dict.fromkeys(CLAIM_VERDICTS, 0)
    for r in rows:
        responses[response_verdict(r)] += 1
        for c in _claims(r):
            v = c.get("verdict")
            if isinstance(v, str) and v in claims:
                claims[v] += 1
    return {"responses": responses, "claims": claims}


def _strs(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def bad_claims(row: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    """``(index, claim)`` of the claims whose audit is not correct, the major ones first,
    each kind in the row's order: the first is the claim the answer is listed for."""
    bad = [(k, c) for k, c in enumerate(_claims(row))
           if _d(c.get("audit")).get("verdict") not in (None, "correct")]
    return sorted(bad, key=lambda kc: _d(kc[1].get("audit")).get("magnitude") != "major")


def severity(row: Mapping[str, Any]) -> str | None:
    """``major``, ``minor`` or None (see the module docstring).

    >>> severity({"claims": [{"audit": {"verdict": "incorrect", "magnitude": "minor"}},
    ...                      {"audit": {"verdict": "correct"}}]})
    'minor'
    >>> severity({"claims": [{"audit": {"verdict": "correct"}}]}) is None
    True
    """
    mags = [_d(c.get("audit")).get("magnitude") for _, c in bad_claims(row)]
    return next((s for s in SEVERITIES if s in mags), None)


def severity_key(row: Mapping[str, Any]) -> tuple[int, int, int, int, str]:
    """The sort key of an answer, most severe first; answers outside
    :data:`WORST_VERDICTS` sort after every one inside."""
    v = response_verdict(row)
    bad = [c for _, c in bad_claims(row)]
    s = severity(row)
    return (WORST_VERDICTS.index(v) if v in WORST_VERDICTS else len(WORST_VERDICTS),
            SEVERITIES.index(s) if s in SEVERITIES else len(SEVERITIES),
            -sum(_d(c.get("audit")).get("magnitude") == "major" for c in bad), -len(bad),
            str(row.get("id")))


def ranked_worst(rows: Sequence[Mapping[str, Any]], n: int = WORST_LISTED
                 ) -> list[tuple[int, dict[str, Any]]]:
    """:func:`worst_responses` with each answer's index in ``rows``."""
    ranked = sorted(((severity_key(r), i) for i, r in enumerate(rows)
                     if r.get("status", "ok") == "ok" and response_verdict(r) in WORST_VERDICTS))
    out = []
    for _key, i in ranked[:n]:
        r = rows[i]
        claims = [{"index": k, "id": c.get("id"), "text": c.get("text"),
                   "verdict": c.get("verdict"), "audit": _d(c.get("audit")).get("verdict"),
                   "magnitude": _d(c.get("audit")).get("magnitude"),
                   "core": bool(_d(c.get("audit")).get("core")),
                   "reasons": _strs(_d(c.get("audit")).get("reasons"))}
                  for k, c in bad_claims(r)[:3]]
        out.append((i, {"id": str(r.get("id")), "verdict": response_verdict(r),
                        "severity": severity(r),
                        **({"group": r["group"]} if r.get("group") is not None else {}),
                        "reasons": _strs(_d(r.get("audit")).get("reasons")),
                        "claims": claims}))
    return out


def worst_responses(rows: Sequence[Mapping[str, Any]], n: int = WORST_LISTED
                    ) -> list[dict[str, Any]]:
    """Up to ``n`` answers an auditor should read first (see the module docstring), each
    with its id, verdict, severity, reasons and its first three non-correct claims (major
    first; ``index`` is the claim's place in the row). Rows that failed are left out.

    >>> rows = [{"id": "a", "audit": {"verdict": "partially_correct", "reasons": ["x"]},
    ...          "claims": [{"id": "c1", "text": "T", "verdict": "supported",
    ...                      "audit": {"verdict": "incorrect", "magnitude": "minor"}}]},
    ...         {"id": "b", "audit": {"verdict": "incorrect"}, "claims": [{"id": "c1",
    ...          "audit": {"verdict": "incorrect", "magnitude": "major", "core": True}}]},
    ...         {"id": "c", "audit": {"verdict": "correct"}, "claims": []}]
    >>> [(w["id"], w["verdict"], w["severity"]) for w in worst_responses(rows)]
    [('b', 'incorrect', 'major'), ('a', 'partially_correct', 'minor')]
    """
    return [w for _, w in ranked_worst(rows, n)]
