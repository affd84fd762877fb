"""Claim importance against a query: classical signals, a small JSON combiner, the ranker.

Importance is judged against the query only, never against truth: a false claim
that answers the query is still vital.
"""
from __future__ import annotations
