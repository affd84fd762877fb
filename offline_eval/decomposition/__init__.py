"""Claim decomposition: sentence splitting, deflection and non-claim filters, and the
decomposers (``syntactic`` on the spaCy parse, ``generative`` on a seq2seq model).

The pipeline stages are :class:`offline_eval.stages.split.Split` and
:class:`offline_eval.stages.decompose.Decompose`; :mod:`offline_eval.decomposition.api`
runs both for a Python user and for ``offline-eval decompose``.
"""
from __future__ import annotations
