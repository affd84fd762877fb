"""``load_runner``: the one place where an NLI model's backend and device are resolved."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from offline_eval.runners.base import check_backend
from offline_eval.runners.pairs import PairClassifier


def load_runner(path: str | Path, backend: str | None = None, device: str | None = None,
                batch_size: int = 32, max_length: int | None = None,
                precision: str | None = None, threads: int | None = None,
                fuse_skip_layernorm: bool | None = None,
                parallel_pairs: bool = True) -> PairClassifier:
    """Load the NLI model folder ``path`` on ``backend`` ("onnx" | "torch").

    A folder with ``manifest.json`` is verified first (sha256 of every file).
    ``backend=None`` uses the folder's manifest ``default_backend`` (else onnx when an
    ONNX file is present, else torch), except on CUDA (:func:`resolve_backend`).
    ``device=None`` picks the best available. ``fuse_skip_layernorm`` is passed to the ONNX
    runner (:func:`offline_eval.runners.ort.make_session`; None: the measured default), and
    so is ``parallel_pairs`` (int8 on CPU: False runs one pair at a time on ``threads``).

    Raises:
        ValueError: an unknown backend or device, listing the valid values.
        ModelError: missing files, with the path and the files expected.
    """
    from offline_eval.modelstore import MANIFEST, verify_model

    path = Path(path)
    check_backend(backend, device)
    # a folder with a manifest is checked file by file before anything is loaded
    manifest = verify_model(path) if (path / MANIFEST).is_file() else {}
    backend, precision = resolve_backend(path, manifest, backend, device, precision)
    if max_length is None and manifest:
        max_length = manifest.get("max_length")
    if backend == "onnx":
        from offline_eval.runners.ort import OnnxNLIRunner

        return OnnxNLIRunner(path, device=device, batch_size=batch_size, max_length=max_length,
                             precision=precision, threads=threads,
                             fuse_skip_layernorm=fuse_skip_layernorm,
                             parallel_pairs=parallel_pairs)
    from offline_eval.runners.hf import TorchNLIRunner

    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    return TorchNLIRunner(path, device=device, batch_size=batch_size, max_length=max_length)


def resolved_device(asked: str | None, backend: str) -> str:
    """The device a runner on ``backend`` uses when ``asked`` (None: the best available).

    >>> resolved_device("cpu", "torch")
    'cpu'
    """
    if asked:
        return asked
    if backend == "onnx":
        return "cuda" if _ort_has_cuda() else "cpu"
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def _ort_has_cuda() -> bool:
    """Whether ONNX Runtime's best available provider (``providers_for(None, ...)``) is CUDA."""
    try:
        import onnxruntime as ort
    except ImportError:
        return False
    from offline_eval.runners.ort import providers_for
    return providers_for(None, ort.get_available_providers())[0] == "CUDAExecutionProvider"


def resolve_backend(path: Path, manifest: dict, backend: str | None, device: str | None,
                    precision: str | None, ort_has_cuda=_ort_has_cuda) -> tuple[str, str | None]:
    """The backend and ONNX precision a folder runs with, given what was asked.

    Unset, the backend is the manifest's ``default_backend`` (else ``onnx`` when the folder
    has ``onnx/``, else ``torch``) and the ONNX precision its ``default_precision``. On CUDA
    (``device="cuda"``, or ``None`` with ONNX Runtime's CUDA provider present) the manifest's
    precision is not applied: int8 dynamic quantisation is a CPU format, so the runner takes
    the fp32 file when there is one. With ``device="cuda"`` and no backend asked, a folder
    without an fp32 ONNX file (the embedded model ships int8 only) runs on ``torch`` with its
    safetensors instead of sending int8 to the GPU. An explicit backend or precision is kept.
    """
    from offline_eval.runners.ort import ONNX_FILES

    asked = backend
    if backend is None:
        backend = manifest.get("default_backend") if manifest else None
        backend = backend or ("onnx" if (path / "onnx").is_dir() else "torch")
    check_backend(backend, None)
    if backend != "onnx":
        return backend, precision
    cuda = device == "cuda" or (device is None and ort_has_cuda())
    if precision is None and not cuda and manifest:
        precision = manifest.get("default_precision")
    if (device == "cuda" and asked is None and precision is None
            and not (path / ONNX_FILES["fp32"]).is_file() and (path / "model.safetensors").is_file()):
        return "torch", None
    return backend, precision


def shared_runner(path: str | Path, backend: str | None = None, device: str | None = None,
                  batch_size: int = 32) -> PairClassifier:
    """:func:`load_runner`, loaded once per process for the same arguments.

    The verify, nuggets and comprehensiveness stages of one pipeline use the same NLI
    model; this keeps one copy of it in memory (runners hold no per-call state).
    """
    return _shared(str(Path(path).resolve()), backend, device, int(batch_size))


@lru_cache(maxsize=8)
def _shared(path: str, backend: str | None, device: str | None, batch_size: int) -> PairClassifier:
    from offline_eval.progress import loading

    runtime = ", ".join(x for x in (backend, device) if x) or "its default runtime"
    with loading(f"NLI model {Path(path).name} ({runtime})"):
        return load_runner(path, backend, device, batch_size)
