"""Self-written sample rows in the shape `offline-eval score` writes, for the report tests."""
from __future__ import annotations

from typing import Any

# (id, query, [(sentence, kind, [(claim, verdict, importance)])]) per response.
_RESPONSES = [
    ("lisbon", "What is the capital of Portugal and what is it known for?", [
        ("Lisbon is the capital of Portugal.", "claim",
         [("Lisbon is the capital of Portugal.", "supported", "vital")]),
        ("It lies on the Tagus estuary and was largely rebuilt after the 1755 earthquake.",
         "claim", [("Lisbon lies on the Tagus estuary.", "supported", "okay"),
                   ("Lisbon was largely rebuilt after the 1755 earthquake.", "supported",
                    "okay")]),
        ("Its tram line 28 is popular with visitors.", "claim",
         [("Lisbon's tram line 28 is popular with visitors.", "unverifiable",
           "less-important")]),
    ]),
    ("everest", "How tall is Mount Everest?", [
        ("Mount Everest is about 7,200 metres tall.", "claim",
         [("Mount Everest is about 7,200 metres tall.", "contradicted", "vital",
           {"verdict_rule": "numbers", "evidence_text": "Everest is 8,849 m high.",
            "verdict_reason": "the claim says '7,200 metres' where the evidence says "
                              "'8,849 m' (beyond tolerance)",
            "compared": {"kind": "number", "claim": "7,200 metres", "evidence": ["8,849 m"]}})]),
        ("It sits on the border between Nepal and China.", "claim",
         [("Mount Everest sits on the border between Nepal and China.", "supported", "okay")]),
        ("I hope this helps!", "non_claim", []),
    ]),
    ("curie", "Who was Marie Curie? <script>alert('x')</script>", [
        ("I'm not able to answer questions about people.", "deflection", []),
    ]),
    ("nile", "Which river is the longest in Africa?", [
        ("The Nile is the longest river in Africa.", "claim",
         [("The Nile is the longest river in Africa.", "supported", "vital")]),
        ("Some sources say it is 6,650 km long, others give a different figure & <b>more</b>.",
         "claim", [("The Nile is 6,650 km long.", "inconclusive", "okay")]),
    ]),
    ("danube", "How long is the Danube?", [
        ("The Danube is Europe's second-longest river.", "claim",
         [("The Danube is Europe's second-longest river.", "supported", "vital")]),
        ("It is about 3,100 km long.", "claim",
         [("The Danube is about 3,100 km long.", "supported", "okay",
           {"evidence_text": "The Danube is 2,850 km long.",
            "audit": {"verdict": "partially_correct", "magnitude": "minor", "core": False,
                      "reasons": ["a number is off beyond tolerance: the claim says "
                                  "'3,100 km', the evidence '2,850 km'"]},
            "compared": {"kind": "number", "claim": "3,100 km", "evidence": ["2,850 km"]}})]),
    ]),
    ("rivers", "Name some facts about rivers.\x07", [
        (f"River fact {n} holds.", "claim",
         [(f"River fact {n} holds.", "unverifiable" if n in (4, 11) else "supported",
           "vital" if n == 0 else "okay")]) for n in range(14)]),
]


def _response_audit(claims: list[dict[str, Any]], deflection: bool) -> dict[str, Any]:
    """The guideline's response verdict over the sample claims' audits."""
    core = [c["audit"]["verdict"] for c in claims if c["audit"]["core"]]
    other = [c["audit"]["verdict"] for c in claims if not c["audit"]["core"]]
    bad = ("incorrect", "partially_correct")
    verdict = (None if deflection or not claims else "incorrect" if "incorrect" in core
               else "inconclusive" if "inconclusive" in core
               else "unverifiable" if core and set(core) == {"unverifiable"}
               else "partially_correct" if any(v in bad for v in other) else "correct")
    reasons = (["core fact incorrect"] if verdict == "incorrect" else
               ["additional facts incorrect"] if verdict == "partially_correct" else [])
    return {"deflection": deflection, "relevance": "relevant", "timeliness": "undated",
            "verdict": verdict, "reasons": reasons}


def _row(rid: str, query: str, parts: list, group: str | None) -> dict[str, Any]:
    response, sentences, claims = "", [], []
    for text, kind, cls in parts:
        cls = [c if len(c) == 4 else (*c, {}) for c in cls]
        start = len(response) + (1 if response else 0)
        response = (response + " " if response else "") + text
        sentences.append({"text": text, "start": start, "end": start + len(text),
                          "kind": kind, "reason": "deflection cue" if kind == "deflection"
                          else None})
        for ctext, verdict, imp, extra in cls:
            extra = dict(extra)
            k = len(claims)
            p = {"supported": 0.9, "contradicted": 0.05, "unverifiable": 0.3,
                 "inconclusive": 0.5}[verdict]
            ev = {"passage_id": f"{rid}-p{k}", "doc_id": f"doc-{rid}", "title": rid.title(),
                  "url": f"https://en.wikipedia.org/wiki/{rid.title()}", "score": 12.5 - k,
                  "text": f"Passage about {rid} for claim {k + 1}: {ctext} "
                          + extra.pop("evidence_text", "")}
            claims.append({
                "id": f"c{k + 1}", "text": ctext, "sentence_index": len(sentences) - 1,
                "sentence": text, "importance": imp, "importance_score": 0.9 - 0.1 * k,
                "rank": k + 1, "verdict": verdict,
                "probs": {"supported": p, "contradicted": round(1 - p, 2) / 2,
                          "unverifiable": round(1 - p, 2) / 2},
                "judgment": {"supported": True, "contradicted": False}.get(verdict),
                "evidence": [ev, {**ev, "passage_id": f"{rid}-q{k}", "score": 3.0,
                                  "url": "javascript:alert(1)"}],
                "decisive_evidence": ev if verdict != "unverifiable" else None,
                "audit": {"verdict": {"supported": "correct", "contradicted": "incorrect"}
                          .get(verdict, verdict),
                          "magnitude": None if verdict == "supported" else
                          "major" if imp == "vital" else "minor",
                          "core": imp == "vital"}, **extra})
    js = [c["judgment"] for c in claims]
    decided = [j for j in js if j is not None]
    prec = sum(decided) / len(decided) if decided else None
    if group == "wrong" and prec is not None:
        prec = prec / 2
    cum, sup, dec = [], 0, 0
    for j in js:
        if j is not None:
            dec, sup = dec + 1, sup + j
        cum.append(sup / dec if dec else None)
    deflection = any(k == "deflection" for _, k, _ in parts)
    metrics = {"factscore_precision": prec, "vital_precision": prec,
               "weighted_precision": prec, "weighted_recall": None if prec is None
               else prec * 0.8, "weighted_f1": None}
    row = {"id": rid, "query": query, "response": response, "date": "2025-03-01",
           "status": "ok", "deflection": deflection, "sentences": sentences, "claims": claims,
           "nuggets": [{"id": "n1", "text": f"Key fact about {rid}", "importance": "vital",
                        "support": "support" if prec else "not_support"}],
           "order": [c["id"] for c in claims], "metrics": metrics,
           "metric_reasons": {"weighted_f1": "no nuggets"} if True else {},
           "counts": {"claims": len(claims), "decided": len(decided),
                      "supported": sum(decided)},
           "cumulative_precision": cum,
           "audit": _response_audit(claims, deflection)}
    if group is not None:
        row["group"] = group
    return row


def sample_rows(grouped: bool = True) -> list[dict[str, Any]]:
    """Responses (per group when grouped), plus one error row."""
    groups = ("normal", "missing", "wrong") if grouped else (None,)
    rows = [_row(rid, q, parts, g) for g in groups for rid, q, parts in _RESPONSES]
    rows.append({"id": "broken-1", "query": "Where is Timbuktu?", "status": "error",
                 "group": groups[0], "error": {"stage": "verify",
                                               "message": "ModelError: <bad> & worse"}})
    return rows


def sample_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary the CLI writes, built with the package API."""
    from offline_eval.api import compare, summarize

    ok = [r for r in rows if r.get("status") == "ok"]
    summary = summarize(ok)
    groups: dict[str, list] = {}
    for r in ok:
        if "group" in r:
            groups.setdefault(r["group"], []).append(r)
    if groups:
        summary["groups"] = {g: summarize(rs) for g, rs in groups.items()}
        summary["comparisons"] = compare(groups)
    return summary


def inflated(page: str) -> str:
    """The page with every packed card body inflated in place, as the page script does."""
    import re

    from offline_eval.report.response import unpacked as unpack

    packs = {k: unpack(b) for k, b in re.findall(
        r'<script type="application/octet-stream" id="zp-(\d+)">([^<]*)</script>', page)}

    def card(m: "re.Match[str]") -> str:
        data = unpack(m.group(1))[0] if m.group(1) else packs[m.group(2)][int(m.group(3))]
        return f'<details class="body">{m.group(4)}<div class="zbody">{data["html"]}</div>'

    return re.sub(r'<details class="body" (?:data-z="([^"]*)"|data-zp="(\d+)" data-zj="(\d+)")>'
                  r'(<summary>.*?</summary>)', card, page)
