"""Nuggets: the facts an answer to a query should contain, built from its references
(:mod:`~offline_eval.nuggetization.builder`: decompose, deduplicate, rank, cap), then their
support by the answer and the recall metrics. ``offline_eval.nuggets`` is the command's
function; this package is how it works.
"""
from __future__ import annotations
