"""A bounded, thread-safe memory of recent results, keyed by a digest of their inputs.

Several parts remember work that recurs within a run: the facts of a reference (the nuggets
and comprehensiveness stages read the same references), the facts of one query's sources
(several systems' answers to one query), an NLI pair (asked by more than one stage), a text's
sentence vector (the nuggets stage and the ranker embed the same facts). Each keeps the most
recently used entries up to a count; keys of long texts are digests, so a text is not held a
second time.

>>> m = Memo(2)
>>> m.put(digest("a"), 1); m.put(digest("b"), 2); m.get(digest("a"))
1
>>> m.put(digest("c"), 3); m.get(digest("b")) is None    # the least recently used goes
True
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Generic, Hashable, Iterator, TypeVar

__all__ = ["Memo", "digest"]

V = TypeVar("V")


def digest(*parts: Any) -> bytes:
    """The sha256 of ``parts`` as JSON (strings, numbers and lists of them)."""
    return hashlib.sha256(json.dumps(parts).encode()).digest()


class Memo(Generic[V]):
    """At most ``size`` entries, the least recently used dropped first; safe across threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Hashable]:
        with self._lock:
            return iter(list(self._items))
