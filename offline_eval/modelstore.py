"""The model store: shipped models (the checkout's ``models/``, or inside the installed wheel),
imported ones in the data home.

A model folder holds a Hugging Face checkpoint (config, tokenizer, safetensors) and/or
its ONNX export, plus ``manifest.json`` with the sha256 of every file. The data home is
``$OFFLINE_EVAL_HOME`` (default: ``$XDG_DATA_HOME/offline-eval`` or
``~/.local/share/offline-eval``); imported models live in ``<home>/models/<name>/``.
Importing and exporting are explicit commands; loading never writes.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from offline_eval.errors import ModelError
from offline_eval.runners.base import TOKENIZER_FILES

DEFAULT_NLI = "nli-minilm"
MANIFEST = "manifest.json"
#: every key a manifest may hold (write_manifest's callers); another is a ModelError
MANIFEST_KEYS = frozenset({
    "format", "name", "files", "source", "source_sha256", "labels", "architecture", "kind",
    "max_length", "default_backend", "default_precision", "tokenizer_json", "pooling", "base",
    "base_sha256"})
_UNSAFE = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".h5", ".msgpack", ".py")


def data_home() -> Path:
    """The user data directory (``OFFLINE_EVAL_HOME`` wins); the same one corpora use."""
    from offline_eval.home import data_home as _home

    return _home()


def shipped_dir() -> Path:
    """The shipped models: ``offline_eval/_models`` in an installed wheel (setup.py copies
    them in), else the checkout's ``models/`` (an editable install, or the source tree)."""
    inside = Path(__file__).resolve().parent / "_models"
    if (inside / DEFAULT_NLI / MANIFEST).is_file():
        return inside
    return Path(__file__).resolve().parent.parent / "models"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(path: str | Path, required: bool = True) -> dict[str, Any]:
    """Read ``path/manifest.json``; {} when absent and not required."""
    f = Path(path) / MANIFEST
    if not f.is_file():
        if required:
            raise ModelError(f"{path}: no {MANIFEST}; import the model with `offline-eval models import DIR`")
        return {}
    try:
        manifest = json.loads(f.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{f}: corrupt manifest ({exc})") from exc
    if not isinstance(manifest, dict):
        raise ModelError(f"{f}: corrupt manifest (expected a JSON object)")
    unknown = sorted(set(manifest) - MANIFEST_KEYS)
    if unknown:
        raise ModelError(f"{f}: unknown key {unknown[0]!r} (known: {', '.join(sorted(MANIFEST_KEYS))})")
    return manifest


def write_manifest(path: str | Path, **fields: Any) -> dict[str, Any]:
    """Hash every file under ``path`` (except the manifest) and write the manifest."""
    path = Path(path)
    files = {p.relative_to(path).as_posix(): sha256_file(p) for p in sorted(path.rglob("*"))
             if p.is_file() and p.name != MANIFEST}
    unknown = sorted(set(fields) - MANIFEST_KEYS)
    if unknown:
        raise ValueError(f"unknown manifest key {unknown[0]!r}")
    manifest = {"format": 1, **fields, "files": files}
    (path / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def verify_model(path: str | Path) -> dict[str, Any]:
    """Check every file against the manifest; raise ModelError naming what differs."""
    path = Path(path)
    if not path.is_dir():
        raise ModelError(f"{path}: model folder not found")
    manifest = read_manifest(path)
    files = manifest.get("files") or {}
    missing = [f for f in files if not (path / f).is_file()]
    changed = [f for f in files if f not in missing and sha256_file(path / f) != files[f]]
    if missing or changed:
        parts = ([f"missing: {', '.join(missing)}"] if missing else []) + \
                ([f"sha256 mismatch (tampered or corrupt): {', '.join(changed)}"] if changed else [])
        raise ModelError(f"{path}: refusing model; {'; '.join(parts)}. Expected files: "
                         f"{', '.join(sorted(files))}")
    return manifest


def resolve_model(name_or_dir: str | Path | None = None) -> Path:
    """A folder path, or a model name looked up in the data home, then the shipped models."""
    target = str(name_or_dir or DEFAULT_NLI)
    p = Path(target).expanduser()
    if p.is_dir():
        return p
    for root in (data_home() / "models", shipped_dir()):
        if (root / target).is_dir():
            return root / target
    raise ModelError(f"model {target!r} not found: not a folder, and not in {data_home() / 'models'} "
                     f"or {shipped_dir()}; known: {', '.join(m.name for m in list_models()) or 'none'}")


@dataclass(frozen=True)
class ModelInfo:
    """One entry of :func:`list_models`."""

    name: str
    path: Path
    origin: str
    labels: tuple[str, ...]
    files: int


def list_models() -> list[ModelInfo]:
    """Shipped and imported models that carry a manifest."""
    out = []
    for origin, root in (("shipped", shipped_dir()), ("imported", data_home() / "models")):
        for d in sorted(root.glob("*/")) if root.is_dir() else []:
            try:
                m = read_manifest(d, required=False)
            except ModelError as exc:  # one broken folder does not hide the others
                import warnings

                warnings.warn(str(exc), UserWarning, stacklevel=2)
                continue
            if m:
                out.append(ModelInfo(d.name, d, origin, tuple(m.get("labels", ())), len(m.get("files", {}))))
    return out


def check_checkpoint(src: Path) -> dict[str, Any]:
    """Validate a Hugging Face checkpoint folder; return its config."""
    from offline_eval.runners.labels import nli_columns

    expected = "config.json, *.safetensors and a tokenizer (tokenizer.json, vocab.txt or spm.model)"
    if not (src / "config.json").is_file():
        raise ModelError(f"{src}: no config.json; expected {expected}")
    if not any(src.glob("*.safetensors")):
        unsafe = [p.name for p in src.iterdir() if p.suffix in _UNSAFE]
        why = (f" (found {', '.join(unsafe)}: pickle-based weights are refused; convert them "
               f"where the file is trusted, e.g. `save_pretrained(DIR, safe_serialization=True)` "
               f"in transformers)") if unsafe else ""
        raise ModelError(f"{src}: no *.safetensors weights{why}; expected {expected}")
    if not any((src / f).is_file() for f in TOKENIZER_FILES):
        raise ModelError(f"{src}: no tokenizer files; expected {expected}")
    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    if config.get("auto_map"):
        raise ModelError(f"{src}: config.json needs custom code (auto_map); trust_remote_code is never used")
    nli_columns(config.get("id2label") or {}, str(src))
    return config


def import_model(src: str | Path, name: str | None = None, home: Path | None = None,
                 quantize: bool = True, max_length: int = 512, force: bool = False) -> Path:
    """Validate ``src``, copy it into the store, export ONNX (fp32 + int8), write the manifest."""
    from offline_eval.runners.base import load_tokenizer
    from offline_eval.runners.export import export_onnx
    from offline_eval.runners.labels import nli_columns

    src = Path(src)
    config = check_checkpoint(src)
    tokenizer = load_tokenizer(src)  # a clear error before anything is copied
    dest = (home or data_home()) / "models" / (name or src.name)
    if dest.exists():
        if not force:
            raise ModelError(f"{dest}: already exists; pass a new name or --force")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    try:  # a failed import leaves nothing behind (no half-written model in the store)
        for f in src.iterdir():
            if f.is_file() and f.suffix not in _UNSAFE and f.name != MANIFEST:
                shutil.copy2(f, dest / f.name)
        pinned = _pin_tokenizer(tokenizer, dest)
        export_onnx(dest, quantize=quantize)
        labels, _ = nli_columns(config["id2label"], str(src))
        write_manifest(dest, name=dest.name, labels=list(labels), architecture=config.get("model_type"),
                       max_length=max_length, default_backend="onnx",
                       default_precision="int8" if quantize else "fp32", source=str(src),
                       **({"tokenizer_json": pinned} if pinned else {}))
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest


def _pin_tokenizer(tokenizer: Any, dest: Path) -> str | None:
    """Write ``tokenizer.json`` into an imported model that came without one (a DeBERTa-v3
    checkpoint ships only ``spm.model``): the converted tokenizer is then fixed at import
    and covered by the manifest's sha256, and loading needs no conversion (nor
    ``sentencepiece``). Returns why it was written, or None when nothing was written."""
    if (dest / "tokenizer.json").is_file() or not getattr(tokenizer, "is_fast", False):
        return None
    tokenizer.backend_tokenizer.save(str(dest / "tokenizer.json"))
    return "converted at import from the checkpoint's tokenizer files"


def export_embedding(src: str | Path | None = None, home: str | Path | None = None,
                     quantize: bool = True, force: bool = False) -> Path:
    """Export the sentence embedder (default: the packaged all-MiniLM-L6-v2) to ONNX in
    ``<home>/models/all-minilm-l6-v2`` with a manifest; the importance ranker then runs
    it on ONNX Runtime. Returns the folder.

    Raises:
        ModelError: the folder exists (without ``force``) or the export fails.
    """
    from offline_eval.runners.embedding import default_embedding_path, exported_embedding_path
    from offline_eval.runners.export import export_embedding_onnx

    source = Path(src) if src is not None else default_embedding_path()
    dest = exported_embedding_path(home)
    if dest.exists():
        if not force:
            raise ModelError(f"{dest}: already exists; pass --force to export again")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    try:
        export_embedding_onnx(source, dest, quantize=quantize)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    write_manifest(dest, name=dest.name, labels=["embedding"], kind="sentence-embedding",
                   pooling="mean, L2-normalised", default_backend="onnx",
                   default_precision="fp32", source=str(source),
                   source_sha256=sha256_file(source / "model.safetensors"))
    return dest
