"""Comprehensiveness: which facts in the sources does the answer leave out?

Three methods, none using an LLM (the paper's ``direct`` method uses one; ours does not):
``nli`` (decompose sources into facts, check entailment by the response), ``qa`` (cloze
questions from answer spans, answered from the response by span alignment plus NLI) and
``direct`` (each source sentence against the response, no decomposition).
"""
from __future__ import annotations
