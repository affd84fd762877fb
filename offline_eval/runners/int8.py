"""int8 graphs that compute the same on every x86 CPU.

ONNX Runtime multiplies a dynamically quantised graph's uint8 activations by its int8
weights. With VNNI (``avx512_vnni`` or ``avx_vnni``) that product is exact; without it (AVX2
and AVX-512 CPUs before VNNI) the kernel adds pairs of products in 16 bits, which saturate,
so the same model gives other probabilities there. Measured on the shipped NLI model
(``benchmarks/RESULTS.md``, ``int8`` section): on an AVX2-only CPU it moved the
``real_answers.py`` WiCE balanced accuracy from 0.720 (the VNNI CPU's) to 0.676.

:func:`unsigned_weights` rewrites the graph's int8 matrix weights as uint8 (every value and
zero point plus 128: the same real numbers), whose kernel widens before it adds and so
does not saturate. ONNX Runtime then computes the VNNI product on any x86 CPU (the same
0.715, 0.700 and 0.702 on the AVX2 CPU, within 0.6 points of the VNNI run, instead of
0.676, 0.689 and 0.708), at some speed. :func:`needs_unsigned` says whether this CPU needs
it: x86 without a VNNI flag the operating system reports.
"""
from __future__ import annotations

import platform
from functools import lru_cache
from pathlib import Path

_X86 = ("x86_64", "amd64", "i386", "i686", "x86")
_VNNI = ("avx512_vnni", "avx_vnni", "avx512vnni", "avxvnni")


@lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as the operating system reports them, lower case (empty when
    it cannot tell)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    if platform.system() == "Darwin":
        import subprocess

        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.features",
                                  "machdep.cpu.leaf7_features"], capture_output=True, text=True,
                                 timeout=5).stdout
            return frozenset(out.lower().replace(".", "_").split())
        except (OSError, subprocess.SubprocessError):
            pass
    return frozenset()


#: ``auto`` (default), ``uint8`` (always rewrite) or ``int8`` (never: the CPU's own kernel,
#: faster without VNNI, saturating)
ENV_VAR = "OFFLINE_EVAL_INT8_WEIGHTS"


def needs_unsigned() -> bool:
    """True on an x86 CPU not known to have VNNI (an unknown one is read the safe way:
    the unsigned product is exact everywhere, only slower), unless :data:`ENV_VAR` says
    otherwise."""
    import os

    from offline_eval.errors import ModelError

    asked = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if asked not in ("auto", "uint8", "int8"):
        raise ModelError(f"{ENV_VAR}={asked!r}; valid: auto, uint8, int8")
    return asked == "uint8" if asked != "auto" else not has_vnni()


def has_vnni() -> bool:
    """True on a CPU whose int8 product is exact (VNNI) or that is not x86."""
    return platform.machine().lower() not in _X86 or any(f in cpu_flags() for f in _VNNI)


def record() -> str | None:
    """How int8 weights are read here, for a run record: None where the CPU's own kernel is
    exact (VNNI, or not x86), else ``uint8`` (rewritten) or ``int8, saturating``."""
    if has_vnni() and not needs_unsigned():
        return None
    return "uint8" if needs_unsigned() else "int8, saturating"


#: int8 ops of ONNX Runtime's fused graphs that are not rewritten (they keep the CPU's kernel)
FUSED_INT8 = ("QAttention", "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "QGemm")


@lru_cache(maxsize=4)
def unsigned_weights(onnx_file: str, mtime_ns: int) -> bytes:
    """The serialized graph of ``onnx_file`` with the int8 weights (and zero points) of its
    ``MatMulInteger`` nodes stored as uint8, value + 128: the same real numbers.

    A node is rewritten only when its weight is an int8 initializer that nothing but
    ``MatMulInteger`` weights read, and its zero point is one too (or absent: a uint8 zero
    point of 128 is added). Other nodes, and the fused int8 ops of :data:`FUSED_INT8`, are
    left as they are, with a warning that they keep the CPU's kernel.
    """
    import warnings

    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = onnx.load(onnx_file)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    readers: dict[str, list[tuple[str, int]]] = {}
    for node in graph.node:
        for k, name in enumerate(node.input):
            readers.setdefault(name, []).append((node.op_type, k))

    def only_weights(name: str, slot: int) -> bool:
        t = inits.get(name)
        return (t is not None and t.data_type == onnx.TensorProto.INT8
                and all(r == ("MatMulInteger", slot) for r in readers.get(name, [])))

    done: set[str] = set()
    kept = sum(n.op_type in FUSED_INT8 for n in graph.node)
    for n, node in enumerate(graph.node):
        if node.op_type != "MatMulInteger":
            continue
        w = node.input[1]
        zp = node.input[3] if len(node.input) > 3 and node.input[3] else None
        if not only_weights(w, 1) or (zp is not None and not only_weights(zp, 3)):
            kept += w not in done
            continue
        for name in (w, zp):
            if name is not None and name not in done:
                shifted = numpy_helper.to_array(inits[name]).astype(np.int16) + 128
                inits[name].CopyFrom(numpy_helper.from_array(shifted.astype(np.uint8), name))
                done.add(name)
        if zp is None:
            zp = f"{w}_uint8_zero_point_{n}"
            graph.initializer.append(numpy_helper.from_array(np.array(128, dtype=np.uint8), zp))
            while len(node.input) < 3:
                node.input.append("")
            if len(node.input) == 3:
                node.input.append(zp)
            else:
                node.input[3] = zp
    if kept:
        warnings.warn(f"{onnx_file}: {kept} int8 product(s) could not be read as uint8 and keep "
                      "this CPU's kernel, which saturates without VNNI", UserWarning, stacklevel=3)
    return model.SerializeToString()
