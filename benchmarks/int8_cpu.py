"""The shipped NLI model's verdicts by how this CPU computes int8: the ``real_answers.py
verify`` protocol (WiCE dev as lines and as one document, Factcheck-GPT dev claims) run three
ways in one run on the same claims.

- ``int8, the CPU's kernel``: the int8 weights as shipped (``OFFLINE_EVAL_INT8_WEIGHTS=int8``).
  Exact on a VNNI CPU; without VNNI the kernel adds pairs of products in 16 bits, which
  saturate.
- ``int8 read as uint8``: the same real weights stored as uint8 (``=uint8``), whose kernel
  does not saturate: what ``auto`` (the default) reads on an x86 CPU without VNNI.
- ``torch fp32``: the safetensors weights unquantised (``--backend torch``).

    python benchmarks/int8_cpu.py [--no-write]

Needs ``../shared/eval/real_answers.py`` and its data; writes the ``int8`` section of
RESULTS.md. The verdict thresholds were fitted on the int8 model's outputs on a VNNI CPU
(``benchmarks/verdicts.py``), so the first row there is the reference the others are read
against.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
CLI = ROOT / ".venv" / "bin" / "offline-eval"
VARIANTS = (("int8, the CPU's kernel", {"OFFLINE_EVAL_INT8_WEIGHTS": "int8"}, ()),
            ("int8 read as uint8", {"OFFLINE_EVAL_INT8_WEIGHTS": "uint8"}, ()),
            ("torch fp32", {}, ("--backend", "torch")))
LINE = re.compile(r"verify (\S+): balanced accuracy ([0-9.]+) on (\d+) claims")


def run(env: dict[str, str], flags: tuple[str, ...], tmp: Path) -> tuple[dict[str, float], float]:
    """``{set: balanced accuracy}`` and the wall seconds of one real_answers verify run."""
    wrapper = tmp / "oe"
    wrapper.write_text(f'#!/bin/sh\nexec {CLI} "$@" {" ".join(flags)}\n', encoding="utf-8")
    wrapper.chmod(0o755)
    code = (f"import sys; sys.path.insert(0, {str(EVAL)!r}); import real_answers as r; "
            f"r.CLI = {str(wrapper)!r}; r.verify_sets()")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env},
                         capture_output=True, text=True, check=True).stdout
    return {m[1]: float(m[2]) for m in LINE.finditer(out)}, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if not (EVAL / "real_answers.py").is_file():
        print(f"skipped: no {EVAL / 'real_answers.py'}", file=sys.stderr)
        return 0
    from offline_eval.runners.int8 import cpu_flags, has_vnni

    flags = sorted(f for f in cpu_flags() if f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni"))
    rows, sets = [], ["wice", "wice-doc", "factcheck"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, env, extra in VARIANTS:
            got, wall = run(env, extra, Path(tmp))
            rows.append(f"| {name} | " + " | ".join(f"{got.get(s, float('nan')):.3f}" for s in sets)
                        + f" | {wall:.0f} |")
            print(rows[-1], flush=True)
    lines = ["## int8 on this CPU (`benchmarks/int8_cpu.py`)", "",
             f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()} "
             f"({', '.join(flags) or 'no flags reported'}; VNNI: {'yes' if has_vnni() else 'no'}), "
             f"load average {os.getloadavg()[0]:.1f}. Balanced accuracy of `supported` on the "
             "`real_answers.py verify` sets (dev data, not held out; the decision was fitted on "
             "them, see `verdicts`), and the wall seconds of the three sets (1,115 claims).", "",
             "| int8 read as | wice | wice-doc | factcheck | seconds |", "|---|---|---|---|---|",
             *rows, "",
             "The verdict thresholds were fitted on the int8 model's outputs on a VNNI CPU, where "
             "its figures were 0.720 / 0.706 / 0.702 (`real_answers` section). `auto`, the "
             "default, reads the weights as uint8 on an x86 CPU without VNNI and as shipped "
             "elsewhere."]
    print("\n".join(lines))
    if not args.no_write:
        write_section("\n".join(lines), "int8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
