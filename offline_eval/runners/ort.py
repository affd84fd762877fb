"""The ONNX Runtime runner: CPU and CUDA execution providers, best available by default."""
from __future__ import annotations

import json
import os
from itertools import islice
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import load_tokenizer
from offline_eval.runners.pairs import PairClassifier

ONNX_FILES = {"fp32": "onnx/model.onnx", "int8": "onnx/model.int8.onnx"}


def providers_for(device: str | None, available: list[str]) -> list[str]:
    """Execution providers in preference order; ``None`` picks the best available.

    >>> providers_for(None, ["CUDAExecutionProvider", "CPUExecutionProvider"])
    ['CUDAExecutionProvider', 'CPUExecutionProvider']
    >>> providers_for("cpu", ["CUDAExecutionProvider", "CPUExecutionProvider"])
    ['CPUExecutionProvider']
    """
    if device == "cpu":
        return ["CPUExecutionProvider"]
    if device == "cuda" or (device is None and "CUDAExecutionProvider" in available):
        if "CUDAExecutionProvider" not in available:
            raise ModelError("device 'cuda' requested but onnxruntime has no CUDAExecutionProvider "
                             "(install onnxruntime-gpu)")
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


#: Graph fusions left off for int8 graphs on the CPU provider. Behind the int8 matrix
#: products, ONNX Runtime's fused SkipLayerNormalization kernel ran several times slower per
#: call than the LayerNormalization it replaces (an ad-hoc profile of the NLI model, one
#: thread); unfused, whole int8 pairs ran about a tenth faster (``benchmarks/quantization.py``
#: measures both, on the NLI model). fp32 graphs keep every fusion (there the fused kernel
#: was not slower).
CPU_INT8_UNFUSED = ("SkipLayerNormFusion",)


def make_session(onnx_file: str | Path, providers: list[str], threads: int | None = None,
                 precision: str = "fp32", fuse_skip_layernorm: bool | None = None,
                 optimized_model_path: str | Path | None = None,
                 unsigned: bool | None = None):
    """An ONNX Runtime session for ``onnx_file`` on ``providers``.

    ``fuse_skip_layernorm`` None fuses except for int8 on the CPU provider
    (:data:`CPU_INT8_UNFUSED`); True or False forces it (the benchmarks compare both).
    ``optimized_model_path`` saves the graph as ONNX Runtime will run it, for inspection.
    ``unsigned``: an int8 graph on the CPU provider reads its weights as uint8
    (:mod:`offline_eval.runners.int8`), so it computes as on a VNNI CPU; None does so on a
    CPU that needs it (:func:`~offline_eval.runners.int8.needs_unsigned`).
    """
    import onnxruntime as ort

    from offline_eval.runners import int8

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = int(threads)
    if optimized_model_path:
        opts.optimized_model_filepath = str(optimized_model_path)
    if fuse_skip_layernorm is None:
        fuse_skip_layernorm = not (precision == "int8" and providers[0] == "CPUExecutionProvider")
    disabled = [] if fuse_skip_layernorm else list(CPU_INT8_UNFUSED)
    on_cpu_int8 = precision == "int8" and providers[0] == "CPUExecutionProvider"
    model: str | bytes = str(onnx_file)
    if on_cpu_int8 and (int8.needs_unsigned() if unsigned is None else unsigned):
        model = int8.unsigned_weights(str(Path(onnx_file).resolve()),
                                      Path(onnx_file).stat().st_mtime_ns)
    return ort.InferenceSession(model, sess_options=opts, providers=providers,
                                disabled_optimizers=disabled)


class OnnxNLIRunner(PairClassifier):
    """A sequence-pair classifier exported to ONNX (``onnx/model.onnx`` or ``model.int8.onnx``).

    Args:
        path: the model folder (config.json for labels, tokenizer files, onnx/).
        device: "cpu", "cuda" or None for the best available provider.
        precision: "fp32" or "int8"; None picks fp32 on CUDA and int8 on CPU when present.
        threads: ONNX Runtime intra-op threads; for int8 on CPU, the number of pairs run at
            once instead, each on one thread (None: ``OMP_NUM_THREADS`` when set, else the
            CPUs this process may use).
        fuse_skip_layernorm: see :func:`make_session` (None: the measured default).
        parallel_pairs: for int8 on CPU, run ``threads`` pairs at once (the default); False
            runs one pair at a time on ``threads`` intra-op threads (the benchmarks compare both).

    int8 on CPU runs one pair per call (see below), and a single pair gives ONNX Runtime's
    intra-op threads little to share: running ``threads`` pairs at once, each on one
    thread, scaled better on two cores (``benchmarks/verifier.py`` times both ways). A
    pair's logits do not depend on which thread ran it, so the output is the same.
    """

    def __init__(self, path: str | Path, device: str | None = None, batch_size: int = 32,
                 max_length: int | None = None, precision: str | None = None,
                 threads: int | None = None, fuse_skip_layernorm: bool | None = None,
                 parallel_pairs: bool = True) -> None:
        import onnxruntime as ort

        path = Path(path)
        providers = providers_for(device, ort.get_available_providers())
        if precision is None:
            on_cpu = providers[0] == "CPUExecutionProvider"
            precision = "int8" if on_cpu and (path / ONNX_FILES["int8"]).is_file() else "fp32"
            if not (path / ONNX_FILES[precision]).is_file():
                precision = "int8"
        if precision not in ONNX_FILES:
            raise ValueError(f"unknown precision {precision!r}; valid: {', '.join(ONNX_FILES)}")
        onnx_file = path / ONNX_FILES[precision]
        if not onnx_file.is_file() or not (path / "config.json").is_file():
            raise ModelError(f"{path}: missing {ONNX_FILES[precision]} or config.json for the onnx "
                             f"backend (expected files: config.json, tokenizer files, "
                             f"{', '.join(ONNX_FILES.values())}); run `offline-eval models import`")
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        on_cpu = providers[0] == "CPUExecutionProvider"
        self.workers = cpu_workers(threads) if precision == "int8" and on_cpu and parallel_pairs else 1
        self._pool: Any = None
        self.session = make_session(onnx_file, providers, 1 if self.workers > 1 else threads,
                                    precision, fuse_skip_layernorm)
        tok = load_tokenizer(path)
        super().__init__(path, tok, config.get("id2label", {}), batch_size, max_length)
        self.precision, self.providers = precision, providers
        self.input_names = tuple(i.name for i in self.session.get_inputs())
        if precision == "int8" or "attention_mask" not in self.input_names:
            # Dynamic quantisation computes activation ranges over the whole batch tensor
            # (padding included), so a pair's probabilities would depend on its batch mates
            # and a resumed run could differ from an uninterrupted one. One pair per run
            # keeps every output a function of its own pair only (determinism over speed);
            # it also lets the exported int8 graph drop the attention mask (every token of
            # an unpadded pair is real), which a graph without that input requires.
            self.batch_size = 1

    def _logits_many(self, feeds: Iterable[dict[str, np.ndarray]]) -> Iterator[np.ndarray]:
        if self.workers <= 1:
            yield from map(self._logits, feeds)
            return
        if self._pool is None:  # created on first use: a runner stays picklable until then
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="onnx-int8")
        it = iter(feeds)
        while chunk := list(islice(it, 64 * self.workers)):  # bounded: encodings held per chunk
            yield from self._pool.map(self._logits, chunk)  # session.run releases the GIL

    def _logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        feeds = {k: feeds[k] if k in feeds else np.zeros_like(feeds["input_ids"]) for k in self.input_names}
        return np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)


def cpu_workers(threads: int | None = None) -> int:
    """``threads`` if given, else ``OMP_NUM_THREADS`` when set (Ray sets it per worker), else
    the CPUs this process may use."""
    if threads:
        return max(1, int(threads))
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
