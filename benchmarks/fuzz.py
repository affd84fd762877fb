"""The fuzz harness at scale (writes the ``fuzz`` section of RESULTS.md): every reader on
N generated input files (``tests/fuzz.py``: rows built from the reader's fields with values
of every JSON shape, lines that are not JSON, not objects, empty or not UTF-8). Counted:
files read, files refused with an InputError (file:line and field), and tracebacks (any
other exception), the first of which is shown. Target: 0 tracebacks in 10,000 per reader.

Run: ``python benchmarks/fuzz.py [-n 10000] [--no-write]`` (needs hypothesis, the test extra).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from _results import write_section  # noqa: E402


def run(name: str, n: int, tmp: Path) -> dict:
    from hypothesis import HealthCheck, given, settings

    from tests.fuzz import files, outcome

    counts = {"read": 0, "refused": 0, "traceback": 0}
    first: list[str] = []
    path = tmp / f"{name}.jsonl"

    @settings(max_examples=n, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=files(name))
    def check(data: bytes) -> None:
        try:
            counts[outcome(name, data, path)] += 1
        except Exception:  # noqa: BLE001 - what the harness counts
            counts["traceback"] += 1
            if not first:
                first.append(f"{data[:200]!r}: {traceback.format_exc(limit=3)}")

    t = time.perf_counter()
    check()
    return {**counts, "seconds": time.perf_counter() - t, "first": first[0] if first else ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=10_000, help="generated files per reader")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from tests.fuzz import FIELDS

    lines = ["## Fuzzed inputs (`benchmarks/fuzz.py`)", "",
             f"{args.n:,} generated files per reader (hypothesis, derandomized: the same files "
             "every run), one to three lines each. `read`: the reader returned; `refused`: an "
             "InputError naming file:line and field; `traceback`: any other exception.", "",
             "| reader | read | refused | traceback | seconds |", "|---|---|---|---|---|"]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(FIELDS):
            r = run(name, args.n, Path(tmp))
            bad += r["traceback"]
            lines.append(f"| {name} | {r['read']:,} | {r['refused']:,} | {r['traceback']} | "
                         f"{r['seconds']:.0f} |")
            print(lines[-1], flush=True)
            if r["first"]:
                print(r["first"], file=sys.stderr)
    lines += ["", f"Target: 0 tracebacks in {args.n:,} per reader: "
              f"{'met' if not bad else f'not met ({bad})'}. `make test` runs 1,000 per reader "
              "(`tests/test_fuzz.py`)."]
    print("\n".join(lines))
    if not args.no_write:
        write_section("\n".join(lines), "fuzz")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
