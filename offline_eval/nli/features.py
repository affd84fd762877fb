"""Evidence features for the combiner: how much of the claim the best window covers."""
from __future__ import annotations

from typing import Sequence

from offline_eval.nli.text import content_words, entities, numbers_dates

FEATURES = ("cov_content", "cov_entity", "cov_number")
ALL_FEATURES = FEATURES + ("cov_all", "claim_len")


def _cov(need: set[str], have: set[str]) -> float:
    return 1.0 if not need else len(need & have) / len(need)


def coverage(claim: str, windows: Sequence[str]) -> dict[str, float]:
    """Best-window coverage of the claim's content words, entities and numbers/dates.

    Each ``cov_*`` feature is the maximum over windows (a claim with no entities or
    numbers scores 1.0 on that feature); ``cov_all`` is the content-word coverage by all
    windows together (multi-passage support); ``claim_len`` is the number of content
    words / 20 (long claims are more often only partly supported).

    >>> coverage("Paris hosted 3 games in 1990.", ["In 1990 Paris hosted games.", "x"])
    {'cov_content': 1.0, 'cov_entity': 1.0, 'cov_number': 0.5, 'cov_all': 1.0, 'claim_len': 0.2}
    """
    cw, ce, cn = content_words(claim), entities(claim), numbers_dates(claim)
    best = {k: 0.0 for k in FEATURES}
    union: set[str] = set()
    for w in windows or [""]:
        have_w = content_words(w)
        union |= have_w
        vals = (_cov(cw, have_w), _cov(ce, have_w | entities(w)), _cov(cn, numbers_dates(w)))
        for k, v in zip(FEATURES, vals):
            best[k] = max(best[k], round(v, 6))
    best["cov_all"] = round(_cov(cw, union), 6)
    best["claim_len"] = round(len(cw) / 20, 6)
    return best
