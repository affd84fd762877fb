"""The tokeniser shared by index and query.

Steps, in order, identical for passages and queries:

1. Unicode NFKC normalisation and lower-casing (``str.lower``).
2. Tokens are maximal runs of word characters (regex ``\\w+``: letters, digits,
   underscore, in any script); everything else (punctuation, spaces) separates tokens.
   Apostrophes split, so ``"Einstein's"`` gives ``einstein`` and ``s``.
3. Stopwords (:data:`~offline_eval.index.stopwords.STOPWORDS`) are dropped when
   ``stopwords=True``.
4. Optional stemming: ``stem="s"`` applies Harman's S-stemmer (plural endings only);
   ``stem=None`` keeps tokens as they are.

The configuration is saved in the index header and restored on load, so a query is
always tokenised like the passages it is matched against.

>>> Tokenizer()("The Eiffel Tower isn't in Berlin!")
['eiffel', 'tower', 'berlin']
>>> Tokenizer(stem="s")("Cities and bridges")
['city', 'bridge']
>>> Tokenizer(stopwords=False)("A cat.")
['a', 'cat']
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass
from itertools import filterfalse
from typing import Any, Mapping

from offline_eval.errors import InputError
from offline_eval.index.stopwords import STOPWORDS

_WORD = re.compile(r"\w+")
# ASCII characters outside \w, mapped to a space: for ASCII text, split() then gives
# exactly the \w+ runs.
_ASCII_NON_WORD = str.maketrans({i: " " for i in range(128)
                                 if not (chr(i).isalnum() or chr(i) == "_")})
STEMMERS: tuple[str, ...] = ("s",)


def s_stem(token: str) -> str:
    """Harman's S-stemmer: strip English plural endings.

    >>> [s_stem(w) for w in ("cities", "horses", "cats", "glass", "bus")]
    ['city', 'horse', 'cat', 'glass', 'bus']
    """
    n = len(token)
    if n > 3 and token.endswith("ies") and not token.endswith(("eies", "aies")):
        return token[:-3] + "y"
    if n > 3 and token.endswith("es") and not token.endswith(("aes", "ees", "oes")):
        return token[:-1]
    if n > 3 and token.endswith("s") and not token.endswith(("us", "ss")):
        return token[:-1]
    return token


@dataclass(frozen=True)
class Tokenizer:
    """Lower-casing, punctuation-splitting, stopword-dropping tokeniser.

    Args:
        stopwords: drop the English stopwords.
        stem: ``None`` (no stemming) or ``"s"`` (Harman's plural stripping).
    """

    stopwords: bool = True
    stem: str | None = None

    def __post_init__(self) -> None:
        if self.stem is not None and self.stem not in STEMMERS:
            raise ValueError(f"unknown stem {self.stem!r}; valid: None, "
                             + ", ".join(repr(s) for s in STEMMERS))

    def __call__(self, text: str) -> list[str]:
        """Tokens of ``text``, in order, duplicates kept."""
        if text.isascii():  # same tokens as below, faster: NFKC is the identity here
            tokens = text.lower().translate(_ASCII_NON_WORD).split()
        else:
            tokens = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
        if self.stopwords:
            tokens = list(filterfalse(STOPWORDS.__contains__, tokens))
        if self.stem == "s":
            tokens = [s_stem(t) for t in tokens]
        return tokens

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-able dict (stored in the index header)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Tokenizer":
        """Rebuild from :meth:`to_json` output; unknown keys are an InputError."""
        unknown = set(data) - {"stopwords", "stem"}
        if unknown:
            raise InputError(f"unknown tokenizer settings {sorted(unknown)}")
        return cls(**dict(data))
