"""Driver for the fault tests: score the toy pipeline on Ray.

``ray_driver.py IN OUT fresh|resume DELAY [ADDRESS]``: a local instance without ADDRESS,
else the cluster at ADDRESS. Exit 3 with the engine's message when the job fails.
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only

from offline_eval.engines.ray_engine import run_ray  # noqa: E402
from offline_eval.errors import OfflineEvalError  # noqa: E402
from offline_eval.io.rows import score_row  # noqa: E402
from tests.engines.toy_run import toy_specs  # noqa: E402

if __name__ == "__main__":
    inp, out, resume, delay, *address = sys.argv[1:]
    try:
        run_ray(inp, toy_specs(float(delay)), out, score_row, batch_size=1, actors=2,
                resume=resume == "resume", address=address[0] if address else None)
    except OfflineEvalError as exc:
        print(exc, file=sys.stderr)
        sys.exit(3)
