"""One claim as an HTML list item: verdict, importance, rank, probabilities, evidence, audit.

>>> c = {"id": "c1", "text": "A <claim>", "verdict": "contradicted", "importance": "vital",
...      "rank": 1, "probs": {"supported": 0.1, "contradicted": 0.9},
...      "evidence": [{"passage_id": "p1", "title": "T", "url": "javascript:alert(1)",
...                    "text": "x"}],
...      "audit": {"verdict": "incorrect", "magnitude": "major", "core": True}}
>>> html = claim_item(c, 0, "r0")
>>> "A &lt;claim&gt;" in html, 'href="javascript' in html, 'id="r0-c0"' in html
(True, False, True)
>>> safe_url("https://en.wikipedia.org/wiki/Paris"), safe_url("javascript:x"), safe_url(None)
('https://en.wikipedia.org/wiki/Paris', None, None)
"""
from __future__ import annotations

from typing import Any, Mapping

from offline_eval.report._fmt import (as_dict, as_float, as_list, claim_verdict, css_token, esc,
                                      fmt_num, label)


def normalize_claim(claim: Any, audits: Mapping[Any, Any] | None = None) -> dict[str, Any]:
    """A claim dict in the row schema, also accepting a nested verdict object
    (``{"label", "probs", "evidence"}``) and an audit found by claim id in ``audits``.

    >>> c = normalize_claim({"id": "c1", "verdict": {"label": "supported", "probs": {"s": 1}}},
    ...                     {"c1": {"verdict": "correct"}})
    >>> c["verdict"], c["probs"], c["audit"]
    ('supported', {'s': 1}, {'verdict': 'correct'})
    """
    c = dict(as_dict(claim))
    v = c.get("verdict")
    if isinstance(v, dict):
        c["verdict"] = v.get("label")
        c.setdefault("probs", v.get("probs"))
        c.setdefault("decisive_evidence", v.get("evidence"))
    if not c.get("audit") and audits and c.get("id") in audits:
        c["audit"] = audits[c.get("id")]
    return c


def safe_url(url: Any) -> str | None:
    """``url`` when it is an http(s) URL (the only kind the report links to), else None."""
    if isinstance(url, str) and url.strip().lower().startswith(("http://", "https://")):
        return url.strip()
    return None


def chip(kind: str, value: Any, prefix: str = "") -> str:
    """A coloured label, e.g. ``chip("v", "supported")``."""
    return f'<span class="chip {kind}-{css_token(value)}">{esc(prefix + label(value))}</span>'


def _probs(probs: Mapping[str, Any]) -> str:
    cells = []
    for name, p in probs.items():
        f = as_float(p)
        if f is None:
            continue
        pct = max(0.0, min(1.0, f)) * 100
        cells.append(f'<span class="prob v-{css_token(name)}" title="{esc(name)}: {f:.3f}">'
                     f'<span class="bar" style="width:{pct:.1f}%"></span>'
                     f'<span class="pl">{esc(name)} {f:.2f}</span></span>')
    return f'<div class="probs">{"".join(cells)}</div>' if cells else ""


def evidence_item(ev: Mapping[str, Any], decisive: bool) -> str:
    """One evidence passage: title, url (a link when it is http(s)), ids, score, text."""
    title = esc(ev.get("title") or ev.get("doc_id") or ev.get("passage_id") or "passage")
    url = safe_url(ev.get("url"))
    meta = [f"passage {esc(ev.get('passage_id'))}" if ev.get("passage_id") else "",
            f"score {fmt_num(ev.get('score'), 2)}" if as_float(ev.get("score")) is not None
            else ""]
    url_text = (f'<a class="url" href="{esc(url)}" rel="noopener noreferrer">{esc(url)}</a>'
                if url else f'<span class="url">{esc(ev.get("url"))}</span>' if ev.get("url")
                else "")
    tag = '<span class="chip decisive">decisive</span>' if decisive else ""
    return (f'<li class="ev{" decisive" if decisive else ""}">{tag}<b>{title}</b> '
            f'<span class="meta">{" · ".join(m for m in meta if m)}</span>{url_text}'
            f'<blockquote>{esc(ev.get("text"))}</blockquote></li>')


def evidence_list(claim: Mapping[str, Any]) -> str:
    """The claim's evidence, the decisive passage first and marked."""
    evidence = [as_dict(e) for e in as_list(claim.get("evidence"))]
    decisive = as_dict(claim.get("decisive_evidence"))
    key = decisive.get("passage_id")
    rest = [e for e in evidence if not (decisive and e.get("passage_id") == key)]
    items = ([evidence_item(decisive, True)] if decisive else []) + \
        [evidence_item(e, False) for e in rest]
    if not items:
        return '<p class="muted">No evidence retrieved.</p>'
    return f'<ol class="evidence">{"".join(items)}</ol>'


def _audit(audit: Mapping[str, Any]) -> str:
    if not audit:
        return ""
    parts = [chip("av", audit.get("verdict"), "audit: ")]
    if audit.get("magnitude"):
        parts.append(chip("mag", audit.get("magnitude")))
    if audit.get("core") is True:
        parts.append('<span class="chip core">core</span>')
    if audit.get("timeliness"):
        parts.append(chip("time", audit.get("timeliness")))
    reasons = "".join(f"<li>{esc(r)}</li>" for r in as_list(audit.get("reasons")))
    return (f'<div class="claim-audit">{"".join(parts)}</div>'
            + (f'<ul class="reasons">{reasons}</ul>' if reasons else ""))


def claim_item(claim: Mapping[str, Any], k: int, anchor: str) -> str:
    """The ``<li>`` of claim number ``k`` (0-based) of the response anchored at ``anchor``."""
    v = claim_verdict(claim)
    facts = [f"rank {esc(claim.get('rank'))}" if claim.get("rank") is not None else "",
             f"importance score {fmt_num(claim.get('importance_score'), 2)}"
             if as_float(claim.get("importance_score")) is not None else "",
             f"judgment {esc(str(claim.get('judgment')).lower())}"
             if claim.get("judgment") is not None else "",
             f"id {esc(claim.get('id'))}" if claim.get("id") is not None else ""]
    sentence = claim.get("sentence")
    return (f'<li class="claim v-{css_token(v)}" id="{anchor}-c{k}">'
            f'<div class="claim-head"><span class="cnum">{k + 1}</span>'
            f'<span class="ctext">{esc(claim.get("text"))}</span></div>'
            f'<div class="claim-tags">{chip("v", v)}{chip("imp", claim.get("importance"))}'
            f'<span class="meta">{" · ".join(f for f in facts if f)}</span></div>'
            f'{_audit(as_dict(claim.get("audit")))}'
            f'{_probs(as_dict(claim.get("probs")))}'
            + (f'<p class="src">from: “{esc(sentence)}”</p>' if sentence else "")
            + f"{evidence_list(claim)}</li>")
