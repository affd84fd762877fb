"""Shared batching for text-pair classifiers: tokenize, sort by token count, dynamic padding.

Both NLI runners (torch, ONNX Runtime) subclass :class:`PairClassifier` and only
implement ``_logits``; tokenization, batching and label reordering live here once.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.memo import Memo, digest
from offline_eval.runners.base import batches_by_length, pad_like
from offline_eval.runners.labels import nli_columns


def softmax(x: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64.

    >>> softmax(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    z = np.asarray(x, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


#: pairs a one-pair-at-a-time runner remembers (about 150 bytes each)
PAIR_MEMO = 65_536


class PairClassifier:
    """Base of the NLI runners: ``predict([(premise, hypothesis), ...]) -> probs``.

    Rows come back in input order; columns follow :attr:`labels` (canonical names read
    from ``config.id2label``). Inputs are sorted by token count and padded per batch.
    Truncation (``longest_first``, so the longer premise is cut first) is a last resort
    that is counted in :attr:`truncated`: the verifier chunks long evidence with
    :meth:`token_lengths` and :attr:`max_length` so that nothing is cut silently.
    """

    labels: tuple[str, ...]
    input_names: tuple[str, ...] = ("input_ids", "attention_mask")

    def __init__(self, path: str | Path, tokenizer: Any, id2label: dict, batch_size: int = 32,
                 max_length: int | None = None) -> None:
        self.path = Path(path)
        self.tokenizer = tokenizer
        self.labels, self._cols = nli_columns(id2label, str(path))
        self.batch_size = max(1, int(batch_size))
        limit = getattr(tokenizer, "model_max_length", 512) or 512
        self.max_length = int(min(max_length or 512, limit if limit < 100_000 else 512))
        self.truncated = 0  # pairs whose premise had to be cut (should stay 0)
        self._memo: Memo[np.ndarray] = Memo(PAIR_MEMO)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Number of tokens of each text without special tokens."""
        if not texts:
            return []
        # counting only (long evidence is chunked before the model sees it): no warning
        # that a text is longer than the model window
        enc = self.tokenizer(list(texts), add_special_tokens=False, verbose=False)["input_ids"]
        return [len(x) for x in enc]

    def pair_overhead(self) -> int:
        """Special tokens added around a pair (e.g. 3 for [CLS] a [SEP] b [SEP])."""
        return int(self.tokenizer.num_special_tokens_to_add(pair=True))

    def predict(self, inputs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Class probabilities, shape ``(len(inputs), len(self.labels))``.

        A pair that occurs more than once is run once. A runner that runs one pair at a time
        (``batch_size`` 1: the int8 runner on CPU), whose probabilities of a pair are a function
        of that pair alone, also remembers the last :data:`PAIR_MEMO` pairs it ran (by a
        digest): the nuggets and comprehensiveness stages ask for some of the same (response
        window, reference fact) pairs, and the answers of several systems to one query
        share theirs. A batched runner does not, since a pair's probabilities there depend
        in the last bits on its batch mates."""
        pairs = [(str(p), str(h)) for p, h in inputs]
        out = np.zeros((len(pairs), len(self.labels)), dtype=np.float64)
        if not pairs:
            return out
        first: dict[tuple[str, str], int] = {}
        row = [first.setdefault(pr, len(first)) for pr in pairs]
        distinct = list(first)
        keys = [digest(p, h) for p, h in distinct] if self.batch_size == 1 else None
        found = [self._memo.get(k) for k in keys] if keys is not None else [None] * len(distinct)
        todo = [i for i, f in enumerate(found) if f is None]
        fresh = self._run([distinct[i] for i in todo]) if todo else np.zeros((0, len(self.labels)))
        for i, probs in zip(todo, fresh):
            found[i] = probs
            if keys is not None:   # a copy: a view would keep the call's whole array alive
                self._memo.put(keys[i], probs.copy())
        out[:] = np.stack([found[i] for i in row])   # type: ignore[misc]
        return out

    def _run(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        """Probabilities of distinct pairs: tokenized, sorted by length, padded per batch."""
        out = np.zeros((len(pairs), len(self.labels)), dtype=np.float64)
        enc = self.tokenizer([p for p, _ in pairs], [h for _, h in pairs],
                             truncation="longest_first", max_length=self.max_length)
        enc = {k: list(v) for k, v in enc.items()}
        lengths = [len(x) for x in enc["input_ids"]]
        self.truncated += sum(n >= self.max_length for n in lengths)
        batches = batches_by_length(lengths, self.batch_size)
        feeds = (self._feeds(enc, idx) for idx in batches)
        for idx, logits in zip(batches, self._logits_many(feeds)):
            out[idx] = softmax(logits[:, self._cols])
        return out

    def _feeds(self, enc: dict[str, list[list[int]]], idx: list[int]) -> dict[str, np.ndarray]:
        """Model inputs for the pairs ``idx`` of the tokenized ``enc``, padded to the longest."""
        if "attention_mask" not in self.input_names and len({len(enc["input_ids"][i])
                                                             for i in idx}) > 1:
            raise ModelError(f"{self.path}: the graph has no attention_mask input, so it runs "
                             f"unpadded pairs only (batch_size 1), not a padded batch of "
                             f"{len(idx)}")
        feeds = pad_like(self.tokenizer, enc, idx)
        return {k: feeds[k] for k in self.input_names if k in feeds}

    def _logits_many(self, feeds: Iterable[dict[str, np.ndarray]]) -> Iterator[np.ndarray]:
        """Logits of each batch, in order (one at a time; a runner may run them in parallel)."""
        return map(self._logits, feeds)

    def _logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError
