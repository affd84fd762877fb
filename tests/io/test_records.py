from __future__ import annotations

from offline_eval.io.records import decode, encode
from offline_eval.measures import compute_response_metrics
from offline_eval.audit.rules import audit_response
from offline_eval.types import (Claim, Evidence, Item, Nugget, Reference, ResponseResult, Sentence,
                                Verdict)


def test_full_record_round_trips():
    ev = Evidence("p1", "Paris is the capital of France.", 3.5, "d1", "Paris", "http://x", 0, 31)
    c = Claim("c1", "Paris is the capital.", 0, "Paris is the capital.", "vital", 0.9, 1,
              evidence=(ev,)).with_verdict(Verdict("supported", {"entailment": 0.9}, ev, "ok"))
    r = ResponseResult(
        item=Item("1", "q", "Paris is the capital.", "2025-01-01",
                  (Reference("r1", "text", "http://u", "T"),), {"group": "normal"}),
        sentences=(Sentence("Paris is the capital.", 0, 21),), claims=(c,),
        nuggets=(Nugget("n1", "Paris", "vital", "support", ("r1",)),), order=("c1",),
        n2s={"n1": ("c1",)}, notes={"split": {"warnings": ["w"]}})
    r = ResponseResult(**{**r.__dict__, "metrics": compute_response_metrics(r),
                          "audit": audit_response("q", "Paris", (c,), deflection=False)})
    assert decode(encode(r)) == r
    assert encode(decode(encode(r))) == encode(r)
