"""The metrics library: pure functions plus mergeable streaming aggregators.

numpy/scipy only; never a model runtime.
"""
from __future__ import annotations

from offline_eval.measures.aggregate import MeanAggregator, MetricsAggregator, RatioAggregator
from offline_eval.measures.decay import linear_decay_score, linear_decay_weights
from offline_eval.measures.flags import vital_rlp, vital_rlr
from offline_eval.measures.precision import (DEFAULT_WEIGHTS, cumulative_precision,
                                            factscore_precision, label_precision,
                                            length_penalty, weighted_precision)
from offline_eval.measures.recall import (NUGGET_RECALL_VARIANTS, nugget_recall,
                                         supports_from_n2s, vital_recall, weighted_recall)
from offline_eval.measures.report import (METRIC_KEYS, MetricConfig, claim_counts,
                                         compute_response_metrics, cumulative_curve)
from offline_eval.measures.stats import bootstrap_mean, holm, mcnemar, paired_test
from offline_eval.measures.vital_compat import VITAL_SCORE_KEYS, VitalScores, vital_scores

__all__ = [
    "DEFAULT_WEIGHTS", "METRIC_KEYS", "NUGGET_RECALL_VARIANTS", "VITAL_SCORE_KEYS",
    "MeanAggregator", "MetricConfig", "MetricsAggregator", "RatioAggregator", "VitalScores",
    "bootstrap_mean", "claim_counts", "compute_response_metrics", "cumulative_curve",
    "cumulative_precision", "factscore_precision", "holm", "label_precision",
    "length_penalty", "linear_decay_score", "linear_decay_weights", "mcnemar",
    "nugget_recall", "paired_test", "supports_from_n2s", "vital_recall", "vital_rlp",
    "vital_rlr", "vital_scores", "weighted_precision", "weighted_recall",
]
