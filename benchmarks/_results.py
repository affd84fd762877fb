"""Shared by the benchmark scripts: replace one script's section of RESULTS.md, and
measure a process's own peak memory."""
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


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB.

    Linux's ``VmHWM`` (``/proc/self/status``) counts this program's memory only. Its
    ``ru_maxrss`` is not enough for a benchmark child: it keeps the peak of the parent
    that forked it across ``exec``, so a child of a large parent reports the parent's size
    (checked: a child of a 600 MB parent reported 614 MB there, 13 MB in VmHWM).
    ``ru_maxrss`` is the fallback where ``/proc`` is missing.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    import sys

    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # bytes on macOS, KB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale
