"""A model-free pipeline for engine tests: claims = sentences, judged by a keyword."""
from __future__ import annotations

import sys
import time
from dataclasses import replace

from offline_eval.engines.local import run_local
from offline_eval.io.items import read_items
from offline_eval.io.rows import score_row
from offline_eval.pipeline import Pipeline
from offline_eval.stages.audit import Audit
from offline_eval.stages.metrics import MetricsStage
from offline_eval.types import Claim, Verdict


class ToyClaims:
    name = "test.toy_claims.v1"
    requires = ("item",)
    assigns = ("claims", "deflection")

    def __init__(self, delay: float) -> None:
        self.delay = delay

    def __call__(self, batch):
        time.sleep(self.delay)
        out = []
        for r in batch:
            if "EXPLODE" in r.item.response:
                raise RuntimeError("toy failure")
            sents = [s.strip() for s in r.item.response.split(".") if s.strip()]
            claims = tuple(Claim(f"c{i}", s + ".", importance="vital" if i == 0 else "okay")
                           .with_verdict(Verdict("contradicted" if "wrong" in s else "supported"))
                           for i, s in enumerate(sents))
            out.append(replace(r, claims=claims, deflection=not claims))
        return out


def main(inp: str, out: str, resume: bool, delay: float) -> int:
    pipe = Pipeline([ToyClaims(delay), MetricsStage(), Audit()])
    stats = run_local(read_items(inp), pipe, out, score_row, resume=resume, batch_size=2,
                      progress=False)
    return 1 if stats.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3] == "resume", float(sys.argv[4])))


def toy_specs(delay: float = 0.0):
    """The toy pipeline as stage specs (for the Ray engine)."""
    from offline_eval.engines.spec import StageSpec
    return [StageSpec("tests.engines.toy_run:ToyClaims", {"delay": delay}, uses_model=True),
            StageSpec("offline_eval.stages.metrics:MetricsStage"),
            StageSpec("offline_eval.stages.audit:Audit")]
