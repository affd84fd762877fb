"""Evidence features for the combiner: how much of the claim the best window covers.

The windows the features read are small and chosen per claim (:func:`best_windows`): the
``n`` non-overlapping runs of ``size`` consecutive evidence sentences that hold the most of
the claim's content words (``coverage_sentences`` / ``coverage_windows`` in
:class:`~offline_eval.nli.config.VerifyConfig`)."""
from __future__ import annotations

from typing import Sequence

from offline_eval.text import content_words, entities, numbers_dates

FEATURES = ("cov_content", "cov_entity", "cov_number")
ALL_FEATURES = FEATURES + ("cov_all", "claim_len")


def _cov(need: set[str], have: set[str]) -> float:
    return 1.0 if not need else len(need & have) / len(need)


def best_windows(claim: str, sentences: Sequence[str], n: int, size: int) -> list[str]:
    """The ``n`` non-overlapping windows of ``size`` consecutive ``sentences`` holding the
    largest share of ``claim``'s content words (ties: reading order), best first.

    A text of fewer than ``size`` sentences is one window.

    >>> best_windows("Rome has a river.", ["A.", "Rome is old.", "B.", "It has a river."], 2, 2)
    ['A. Rome is old.', 'B. It has a river.']
    """
    sents = [str(s) for s in sentences]
    if not sents or n <= 0:
        return []
    size = max(1, int(size))
    need = content_words(claim)
    wins = [" ".join(sents[i:i + size]) for i in range(max(1, len(sents) - size + 1))]
    covs = [_cov(need, content_words(w)) for w in wins]
    picked: list[int] = []
    for i in sorted(range(len(wins)), key=lambda i: (-covs[i], i)):
        if all(abs(i - j) >= size for j in picked):
            picked.append(i)
        if len(picked) == n:
            break
    return [wins[i] for i in picked]


def pooled_windows(claim: str, pools: Sequence[Sequence[str]], n: int, size: int) -> list[str]:
    """:func:`best_windows` over several documents' sentences (a window never spans two):
    the ``n`` windows with the largest share of the claim's content words among every
    document's best ``n`` (ties: the earlier document, then reading order).

    >>> pooled_windows("Rome has a river.", [["Rome is old."], ["A.", "Rome has a river."]], 1, 2)
    ['A. Rome has a river.']
    """
    need = content_words(claim)
    cands = [(-_cov(need, content_words(w)), d, r, w)
             for d, pool in enumerate(pools) for r, w in enumerate(best_windows(claim, pool, n, size))]
    return [w for *_, w in sorted(cands)[:max(0, n)]]


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
