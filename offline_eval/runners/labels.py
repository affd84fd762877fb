"""Map a checkpoint's ``config.id2label`` to canonical NLI labels, once, at load time.

Never a magic index: the column order of every NLI runner's output is
:data:`THREE_WAY` or :data:`TWO_WAY`, built from the names in the checkpoint.
"""
from __future__ import annotations

from typing import Mapping

from offline_eval.errors import ModelError

THREE_WAY: tuple[str, ...] = ("entailment", "neutral", "contradiction")
TWO_WAY: tuple[str, ...] = ("entailment", "not_entailment")

_ALIASES = {
    "entailment": "entailment", "entail": "entailment", "entails": "entailment", "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction", "contradict": "contradiction", "contradicts": "contradiction",
    "contradictory": "contradiction",
    "not_entailment": "not_entailment", "not-entailment": "not_entailment",
    "non_entailment": "not_entailment", "non-entailment": "not_entailment",
    "not entailment": "not_entailment", "notentailment": "not_entailment",
}


def nli_columns(id2label: Mapping[int | str, str], where: str = "model") -> tuple[tuple[str, ...], list[int]]:
    """Return ``(labels, column_index)`` so that ``logits[:, column_index]`` is in ``labels`` order.

    Args:
        id2label: the checkpoint's mapping (keys may be strings, as in config.json).
        where: the model path, named in errors.

    Raises:
        ModelError: when the names are not an entailment/neutral/contradiction or an
            entailment/not_entailment set (case-insensitive).

    >>> nli_columns({0: "CONTRADICTION", 1: "neutral", 2: "Entailment"})
    (('entailment', 'neutral', 'contradiction'), [2, 1, 0])
    >>> nli_columns({"0": "entailment", "1": "not_entailment"})
    (('entailment', 'not_entailment'), [0, 1])
    >>> nli_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, "m/")
    Traceback (most recent call last):
    ...
    offline_eval.errors.ModelError: m/: config.id2label {0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2'} \
is not an NLI label set; expected entailment/neutral/contradiction or entailment/not_entailment \
(case-insensitive)
    """
    canon: dict[str, int] = {}
    for key, name in id2label.items():
        c = _ALIASES.get(str(name).strip().lower())
        if c is None or c in canon:
            canon = {}
            break
        canon[c] = int(key)
    for labels in (THREE_WAY, TWO_WAY):
        if set(canon) == set(labels):
            return labels, [canon[l] for l in labels]
    shown = {int(k): v for k, v in id2label.items()}
    raise ModelError(f"{where}: config.id2label {shown} is not an NLI label set; expected "
                     "entailment/neutral/contradiction or entailment/not_entailment (case-insensitive)")
