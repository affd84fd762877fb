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

from offline_eval.report._fmt import (RULES, as_dict, as_float, as_list, claim_status,
                                      claim_verdict, css_token, esc, fmt_num, label, nli_status)


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


def source_of(ev: Mapping[str, Any], evidence: list[dict[str, Any]]) -> str:
    """The document a passage comes from; for an assembled window, each passage it was
    assembled from with its document.

    >>> evs = [{"passage_id": "p1", "title": "Nile"}, {"passage_id": "p2", "doc_id": "ref-2"}]
    >>> source_of({"passage_id": "assembled:p1+p2", "title": "Nile"}, evs)
    'assembled from Nile (passage p1), ref-2 (passage p2)'
    >>> source_of({"passage_id": "p1", "title": "Nile"}, evs)
    'Nile'
    """
    pid = str(ev.get("passage_id") or "")
    if not pid.startswith("assembled:"):
        return str(ev.get("title") or ev.get("doc_id") or pid or "passage")
    by_id = {e.get("passage_id"): e for e in evidence}
    parts = []
    for p in pid[len("assembled:"):].split("+"):
        src = by_id.get(p, {})
        parts.append(f"{src.get('title') or src.get('doc_id') or p} (passage {p})")
    return "assembled from " + ", ".join(parts)


def _mark_values(text: str, values: list[str]) -> str:
    """``text`` escaped, each occurrence of a compared value in ``<mark class=cmp>``."""
    spans: list[tuple[int, int]] = []
    for v in sorted({v for v in values if v}, key=lambda v: (-len(v), v)):  # longest first
        start = text.find(v)
        while start >= 0:
            if not any(a < start + len(v) and start < b for a, b in spans):
                spans.append((start, start + len(v)))
            start = text.find(v, start + 1)
    out, cursor = [], 0
    for a, b in sorted(spans):
        out.append(esc(text[cursor:a]) + f'<mark class="cmp">{esc(text[a:b])}</mark>')
        cursor = b
    return "".join(out) + esc(text[cursor:])


def window_html(window: str, passage: str | None, values: list[str]) -> str:
    """The passage with the window the model read marked (``<mark class=win>``), or the
    window alone when the passage does not hold it; compared values marked in both.

    >>> window_html("B.", "A. B. C.", [])
    'A. <mark class="win">B.</mark> C.'
    >>> window_html("It is 8,849 m.", None, ["8,849 m"])
    '<mark class="win">It is <mark class="cmp">8,849 m</mark>.</mark>'
    """
    if passage and window and window != passage and window in passage:
        a = passage.index(window)
        return (_mark_values(passage[:a], values) + '<mark class="win">'
                + _mark_values(window, values) + "</mark>"
                + _mark_values(passage[a + len(window):], values))
    return f'<mark class="win">{_mark_values(window, values)}</mark>'


def evidence_item(ev: Mapping[str, Any], decisive: bool, source: str = "",
                  body: str | None = None) -> str:
    """One evidence passage: its document, url (a link when it is http(s)), ids, score,
    how retrieval found it, and its text (``body``: pre-rendered, highlighted text)."""
    title = esc(source or ev.get("title") or ev.get("doc_id") or ev.get("passage_id")
                or "passage")
    url = safe_url(ev.get("url"))
    meta = [f"passage {esc(ev.get('passage_id'))}" if ev.get("passage_id") else "",
            f"score {fmt_num(ev.get('score'), 2)}" if as_float(ev.get("score")) else "",
            f"found by {esc(ev.get('found_by'))}" if ev.get("found_by") else "",
            "" if url or not ev.get("url") else f"url {esc(ev.get('url'))}"]
    # the document's name links to it (http(s) only; the page's referrer policy is
    # no-referrer, and no link opens a new window, so no ``rel`` is needed)
    name = (f'<a class="doc" href="{esc(url)}">{title}</a>' if url
            else f"<b>{title}</b>")
    tag = '<span class="chip decisive">deciding window</span>' if decisive else ""
    why = f' title="{esc(ev.get("why"))}"' if ev.get("why") else ""
    text = esc(ev.get("text")) if body is None else body
    return (f'<li class="ev{" decisive" if decisive else ""}">{tag}{name} '
            f'<span class="meta"{why}>{" · ".join(m for m in meta if m)}</span>'
            f"<blockquote>{text}</blockquote></li>")


def evidence_list(claim: Mapping[str, Any], seen: dict[str, int] | None = None,
                  k: int = 0) -> str:
    """The claim's evidence, the deciding window first: shown inside its passage, with
    the window and the values a rule compared marked, and its source document named.

    ``seen`` (shared by one answer's claims) maps a passage's text to the claim it was shown
    under; another claim's passage of the same text names that claim instead of repeating
    it. ``k`` is this claim's 0-based number."""
    evidence = [as_dict(e) for e in as_list(claim.get("evidence"))]
    decisive = as_dict(claim.get("decisive_evidence"))
    values = [str(v) for v in as_list(as_dict(claim.get("compared")).get("evidence"))]
    key = decisive.get("passage_id")
    items = []
    if decisive:
        holder = next((e for e in evidence if e.get("passage_id") == key), None)
        if holder is None and str(key or "").startswith("assembled:"):
            first = str(key)[len("assembled:"):].split("+")[0]
            holder = next((e for e in evidence if e.get("passage_id") == first), None)
        window = str(decisive.get("text") or "")
        passage = str(holder.get("text") or "") if holder else None
        seen = {} if seen is None else seen
        if passage and passage != window and seen.get(passage, k) != k:
            body = (window_html(window, None, values) + '<span class="muted"> (in the passage '
                    f"shown in full under claim {seen[passage] + 1})</span>")
        else:
            body = window_html(window, passage, values)
            if passage and window and window in passage:   # the passage was shown in full
                seen.setdefault(passage, k)
        items.append(evidence_item(decisive, True, source_of(decisive, evidence), body))
    seen = {} if seen is None else seen
    for e in evidence:
        if decisive and e.get("passage_id") == key:
            continue
        text = str(e.get("text") or "")
        body = (f'<span class="muted">the same text as under claim {seen[text] + 1}</span>'
                if text in seen and seen[text] != k else None)
        seen.setdefault(text, k)
        items.append(evidence_item(e, False, source_of(e, evidence), body))
    if not items:
        return '<p class="muted">No evidence retrieved.</p>'
    return f'<ol class="evidence">{"".join(items)}</ol>'


def _audit(audit: Mapping[str, Any], with_reasons: bool = True) -> str:
    if not audit:
        return ""
    parts = []
    if audit.get("magnitude"):
        parts.append(chip("mag", audit.get("magnitude")))
    if audit.get("core") is True:
        parts.append('<span class="chip core">core</span>')
    if audit.get("timeliness") not in (None, "", "undated"):
        parts.append(chip("time", audit.get("timeliness")))
    reasons = "".join(f"<li>{esc(r)}</li>" for r in as_list(audit.get("reasons"))
                      if with_reasons)
    return (f'<div class="claim-audit">{"".join(parts)}</div>'
            + (f'<ul class="reasons">{reasons}</ul>' if reasons else ""))


def override_note(claim: Mapping[str, Any]) -> str:
    """What a rule changed, said as such: the verifier's number or name rule overruling the
    model, or the audit's verdict differing from the NLI verdict.

    >>> override_note({"verdict": "supported", "audit": {"verdict": "incorrect",
    ...                "reasons": ["a number is off"]}})
    '<p class="override">NLI: supported; the audit: incorrect (a number is off)</p>'
    """
    rule = claim.get("verdict_rule")
    notes = []
    if rule in RULES:
        notes.append(f"the {RULES[rule]} rule overrules the "
                     f"model: {claim.get('verdict_reason') or 'values differ'}")
    audit = as_dict(claim.get("audit"))
    if audit and claim_status(claim) != nli_status(claim):
        why = "; ".join(str(r) for r in as_list(audit.get("reasons")))
        notes.append(f"NLI: {label(claim_verdict(claim))}; the audit: "
                     f"{label(audit.get('verdict'))}" + (f" ({why})" if why else ""))
    return "".join(f'<p class="override">{esc(n)}</p>' for n in notes)


def claim_item(claim: Mapping[str, Any], k: int, anchor: str,
               seen: dict[str, int] | None = None) -> str:
    """The ``<li>`` of claim number ``k`` (0-based) of the response anchored at ``anchor``,
    coloured by its final status (:func:`~offline_eval.report._fmt.claim_status`);
    ``seen`` as in :func:`evidence_list`."""
    v = claim_verdict(claim)
    status = claim_status(claim)
    facts = [f"rank {esc(claim.get('rank'))}" if claim.get("rank") is not None else "",
             f"importance score {fmt_num(claim.get('importance_score'), 2)}"
             if as_float(claim.get("importance_score")) is not None else "",
             f"judgment {esc(str(claim.get('judgment')).lower())}"
             if claim.get("judgment") is not None else "",
             f"id {esc(claim.get('id'))}" if claim.get("id") is not None else ""]
    compared = as_dict(claim.get("compared"))  # a value to mark (the negation rule's is the claim)
    values = [str(compared["claim"])] if compared.get("claim") and compared.get("kind") != "negation" else []
    late = " not-timely" if as_dict(claim.get("audit")).get("timeliness") == "not_timely" else ""
    reason = (f'<p class="vreason">{esc(claim.get("verdict_reason"))}</p>'
              if claim.get("verdict_reason") and claim.get("verdict_rule") not in
              RULES else "")
    return (f'<li class="claim s-{css_token(status)}{late}" id="{anchor}-c{k}" '
            f'data-status="{css_token(status)}">'
            f'<div class="claim-head"><span class="cnum">{k + 1}</span>'
            f'<span class="ctext">{_mark_values(str(claim.get("text") or ""), values)}</span>'
            f'</div><div class="claim-tags">{chip("s", status)}{chip("v", v, "NLI: ")}'
            f'{chip("imp", claim.get("importance"))}'
            f'<span class="meta">{" · ".join(f for f in facts if f)}</span></div>'
            f"{override_note(claim)}{reason}"
            f'{_audit(as_dict(claim.get("audit")), status == nli_status(claim))}'
            f'{_probs(as_dict(claim.get("probs")))}'
            f"{evidence_list(claim, seen, k)}</li>")
