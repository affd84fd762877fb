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


def _children() -> list[int]:
    """Pids of this process's live child processes (Linux; [] elsewhere)."""
    import os

    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                out.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


def children_cpu_seconds() -> float:
    """CPU seconds used so far by this process's live child processes (the importance
    ranker's spaCy parse workers), which ``time.process_time()`` leaves out."""
    from offline_eval.spacy_workers import process_cpu_seconds

    return sum(process_cpu_seconds(pid) for pid in _children())


def children_peak_rss_mb() -> float:
    """Sum of the peak resident set sizes (``VmHWM``) of this process's live children."""
    total = 0.0
    for pid in _children():
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def cpu_description() -> str:
    """The CPU's model name and its int8 / bf16 matrix extensions, from ``/proc/cpuinfo``
    (sessions run on different boxes, and int8 speed depends on them); "" elsewhere."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                 if line.startswith("model name")), "unknown CPU")
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines()
                  if line.startswith("flags")), [])
    ext = [f for f in ("avx512f", "avx512_vnni", "avx_vnni", "amx_int8", "amx_bf16") if f in flags]
    return f"{name} ({', '.join(ext) or 'no AVX-512 / VNNI / AMX'})"
