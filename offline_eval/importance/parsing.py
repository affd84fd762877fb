"""Claim parses for the importance ranker, in this process and, optionally, in spaCy
worker processes beside it (:mod:`offline_eval.spacy_workers`, task ``views``).

The rank stage's parse is its longest part: on the project's 2-core box spaCy parses about
1,000 texts/s while the int8 embedder beside it needs well under half a core. Each worker
answers chunks of texts with their :class:`~offline_eval.importance.signals.ClaimView`\\ s,
all the features read from a parse, as JSON.

The texts are cut into fixed chunks of :data:`CHUNK`, each parsed as one spaCy batch,
whoever parses it, so the views are the same with any number of workers (a text's parse
does not depend on its batch mates either: views matched with batches of 1 to 256 on
3,037 claims and queries, ad hoc).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from offline_eval.importance.signals import ClaimView
from offline_eval.spacy_workers import SpacyPool

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = ["CHUNK", "ParsePool", "claim_views", "parse_views", "views_task"]

#: Texts per chunk, and per spaCy batch.
CHUNK = 128


def parse_views(nlp: Language, texts: Sequence[str]) -> list[ClaimView]:
    """Views of ``texts`` parsed here, in batches of :data:`CHUNK`."""
    return [ClaimView.from_doc(doc) for doc in nlp.pipe(texts, batch_size=CHUNK)]


def views_task(model: str, options: dict[str, Any], items: list[Any]) -> list[Any]:
    """The worker's side of :func:`claim_views`: the JSON views of ``items``."""
    from offline_eval.decomposition.nlp import load_spacy
    return [v.to_json() for v in parse_views(load_spacy(model, "parse"), [str(t) for t in items])]


def claim_views(pool: SpacyPool | None, nlp: Language, texts: Sequence[str]) -> list[ClaimView]:
    """Views of ``texts``, in order; this thread parses with ``nlp`` (the pipeline the
    workers load) while the pool's ready workers parse other chunks."""
    if pool is None:
        return parse_views(nlp, texts)
    chunks = [texts[i:i + CHUNK] for i in range(0, len(texts), CHUNK)]
    return pool.map("views", {}, chunks, lambda c: parse_views(nlp, c), ClaimView.from_json)


class ParsePool(SpacyPool):
    """A private pool of ``workers`` worker processes for one ranker (``parse_workers``)."""

    def views(self, nlp: Language, texts: Sequence[str]) -> list[ClaimView]:
        """:func:`claim_views` on this pool."""
        return claim_views(self, nlp, texts)
