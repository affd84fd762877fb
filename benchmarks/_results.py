"""Shared by the benchmark scripts: replace one script's section of RESULTS.md."""
from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(text: str, name: str) -> None:
    """Replace the block between ``<!-- BEGIN name -->`` and ``<!-- END name -->``
    (appending it when absent); other scripts' sections are left alone."""
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end):]
    else:
        new = old.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(new, encoding="utf-8")
