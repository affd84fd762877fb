"""The response text with each claim's source sentence highlighted.

A sentence is coloured by the worst final status among its claims (incorrect > partially
correct > inconclusive > unverifiable > correct: the audit's verdict, else the NLI
verdict in those words), the colour its claims and its answer's card use, and weighted by
its most important claim; small numbered badges after it link to the claims. A sentence
of many claims shows badges for its non-correct claims and one for the rest. Sentences are placed by their ``start``/``end``
offsets; when those are missing or inconsistent the sentence text is searched for instead.

>>> row = {"response": "Paris is in France. <b>Hi</b>",
...        "sentences": [{"text": "Paris is in France.", "start": 0, "end": 19, "kind": "claim"},
...                      {"text": "<b>Hi</b>", "start": 20, "end": 29, "kind": "non_claim"}],
...        "claims": [{"id": "c1", "sentence_index": 0, "verdict": "supported",
...                    "importance": "vital"}]}
>>> html = highlight_response(row, "r0")
>>> 'class="sent s-correct imp-vital"' in html, "&lt;b&gt;Hi" in html, 'href="#r0-c0"' in html
(True, True, True)
"""
from __future__ import annotations

from typing import Any, Mapping

from offline_eval.report._fmt import (as_dict, as_list, claim_status, css_token, esc, label,
                                      worst_status)

_IMPORTANCE_RANK = {"vital": 3, "okay": 2, "less-important": 1}


def _spans(response: str, sentences: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """``(start, end, sentence index)`` for the sentences that can be placed, in order."""
    out: list[tuple[int, int, int]] = []
    cursor = 0
    for i, s in enumerate(sentences):
        start, end, text = s.get("start"), s.get("end"), s.get("text")
        ok = (isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool)
              and cursor <= start <= end <= len(response))
        if not ok and isinstance(text, str) and text:
            found = response.find(text, cursor)
            start, end, ok = found, found + len(text), found >= 0
        if ok and end > start:
            out.append((start, end, i))
            cursor = end
    return out


def sentences_of(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The row's sentences, or ones rebuilt from the claims' ``sentence`` texts."""
    sentences = [as_dict(s) for s in as_list(row.get("sentences"))]
    if sentences:
        return sentences
    seen: dict[str, int] = {}
    for c in as_list(row.get("claims")):
        text = as_dict(c).get("sentence")
        if isinstance(text, str) and text and text not in seen:
            seen[text] = len(seen)
    return [{"text": t, "kind": "claim"} for t in seen]


def claims_by_sentence(row: Mapping[str, Any], sentences: list[dict[str, Any]]
                       ) -> dict[int, list[tuple[int, dict[str, Any]]]]:
    """Sentence index -> ``[(claim position, claim)]``; unplaceable claims are left out."""
    by_text = {s.get("text"): i for i, s in enumerate(sentences)}
    out: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for k, c in enumerate(as_list(row.get("claims"))):
        c = as_dict(c)
        i = c.get("sentence_index")
        if as_list(row.get("sentences")) and isinstance(i, int) and 0 <= i < len(sentences):
            out.setdefault(i, []).append((k, c))
        elif c.get("sentence") in by_text:
            out.setdefault(by_text[c.get("sentence")], []).append((k, c))
    return out


def _sentence_class(sentence: Mapping[str, Any], claims: list[tuple[int, dict[str, Any]]]
                    ) -> str:
    kind = css_token(sentence.get("kind") or ("claim" if claims else "non_claim"))
    if not claims:
        return f"sent k-{kind}"
    worst = worst_status(claim_status(c) for _, c in claims)
    top = max((c.get("importance") for _, c in claims),
              key=lambda v: _IMPORTANCE_RANK.get(str(v), 0))
    extra = "" if kind == "claim" else f" k-{kind}"
    if any(as_dict(c.get("audit")).get("timeliness") == "not_timely" for _, c in claims):
        extra += " not-timely"
    return f"sent s-{css_token(worst)} imp-{css_token(top)}{extra}"


BADGES_PER_SENTENCE = 6


def _badges(claims: list[tuple[int, dict[str, Any]]], anchor: str) -> str:
    shown = claims
    rest: list[tuple[int, dict[str, Any]]] = []
    if len(claims) > BADGES_PER_SENTENCE:
        shown = [(k, c) for k, c in claims if claim_status(c) != "correct"]
        rest = [(k, c) for k, c in claims if claim_status(c) == "correct"]
    parts = []
    for k, c in shown:  # the page's script titles a badge from its classes when pointed at
        v, imp = claim_status(c), c.get("importance")
        parts.append(f'<a class="cb s-{css_token(v)} imp-{css_token(imp)}" '
                     f'href="#{anchor}-c{k}">{k + 1}</a>')
    if rest:
        parts.append(f'<a class="cb s-correct more" href="#{anchor}-c{rest[0][0]}" '
                     f'title="{len(rest)} correct claims">+{len(rest)}</a>')
    return f'<sup class="badges">{"".join(parts)}</sup>'


def highlight_response(row: Mapping[str, Any], anchor: str) -> str:
    """The escaped response text with highlighted sentences and claim badges."""
    response = row.get("response")
    response = response if isinstance(response, str) else ""
    sentences = sentences_of(row)
    claims = claims_by_sentence(row, sentences)
    out, cursor = [], 0
    for start, end, i in _spans(response, sentences):
        s, cs = sentences[i], claims.get(i, [])
        out.append(esc(response[cursor:start]))
        reason = s.get("reason")
        title = f' title="{esc(label(s.get("kind")) + ": " + str(reason))}"' if reason else ""
        out.append(f'<span class="{_sentence_class(s, cs)}"{title}>'
                   f"{esc(response[start:end])}</span>")
        if cs:
            out.append(_badges(cs, anchor))
        cursor = end
    out.append(esc(response[cursor:]))
    return "".join(out)
