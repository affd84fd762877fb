"""The ``Rank`` stage: importance of each claim against the item's query.

Requires ``claims``; assigns ``claims`` (with ``importance``, ``importance_score``
and ``rank``, 1 = most important) and ``order`` (claim ids, most important first).
"""
from __future__ import annotations

from dataclasses import replace
from offline_eval.importance.ranker import ImportanceRanker, RankRequest
from offline_eval.types import ResponseResult


class Rank:
    """Labels claims vital / okay / less-important with :class:`ImportanceRanker`.

    Args:
        ranker: a ranker to use; by default one is built (lazily) from ``model_dir``.
        model_dir: folder of the shipped ranker (``models/importance-ranker``).
        backend, device, precision: the embedder's runtime (see :class:`ImportanceRanker`).
    """

    name = "offline_eval.stages.rank.v1"
    requires: tuple[str, ...] = ("claims",)
    assigns: tuple[str, ...] = ("claims", "order")

    def __init__(self, ranker: ImportanceRanker | None = None, model_dir: str | None = None,
                 backend: str | None = None, device: str | None = None,
                 precision: str | None = None) -> None:
        self._ranker, self._model_dir = ranker, model_dir
        self._runtime = {"backend": backend, "device": device, "precision": precision}

    @property
    def ranker(self) -> ImportanceRanker:
        if self._ranker is None:
            from offline_eval.progress import loading

            with loading("importance ranker"):
                self._ranker = ImportanceRanker(self._model_dir, **self._runtime)
        return self._ranker

    def __call__(self, batch: list[ResponseResult]) -> list[ResponseResult]:
        todo = [i for i, rec in enumerate(batch) if rec.claims and rec.error is None]
        if not todo:
            return list(batch)
        requests = [RankRequest(batch[i].item.query, tuple(c.text for c in batch[i].claims),
                                tuple(c.sentence_index for c in batch[i].claims)) for i in todo]
        out = list(batch)
        for i, ranking in zip(todo, self.ranker.rank_many(requests)):
            rec = batch[i]
            position = {idx: r for r, idx in enumerate(ranking.order, start=1)}
            claims = tuple(
                replace(c, importance=label, importance_score=score,  # type: ignore[arg-type]
                        rank=position[k])
                for k, (c, label, score) in enumerate(zip(rec.claims, ranking.labels,
                                                          ranking.scores)))
            out[i] = replace(rec, claims=claims,
                             order=tuple(rec.claims[k].id for k in ranking.order))
        return out
