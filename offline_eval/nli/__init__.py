"""Claim verification on top of any NLI runner: chunking, claim splitting, evidence
features, the calibrated combiner and the verdict rules. Imports no model runtime."""
from __future__ import annotations
