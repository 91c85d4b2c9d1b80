"""Sampled-negative evaluation, knowledge-graph link prediction, and corrected estimators.

Sampled metrics are biased estimates of full-ranking metrics and can reverse which model is
better (Krichene & Rendle, KDD 2020); prefer full ranking (:mod:`receval.topk`) and use the
corrections here when sampling cannot be avoided.
"""

from ._correction import (
    corrected_metric,
    estimate_rank_distribution,
    least_squares_correction,
    metric_by_rank,
    rank_transition_matrix,
)
from ._linkpred import LinkRanks, link_prediction_ranks
from ._ranks import (
    TIES,
    adjusted_rank_metrics,
    hits_at_k,
    mean_rank,
    mrr,
    ndcg_at_k,
    rank_against_negatives,
    rank_metrics,
    ranks_from_counts,
    sampled_ranks,
    score_candidates,
)
from ._samplers import sample_negatives

__all__ = [
    "TIES", "LinkRanks", "adjusted_rank_metrics", "corrected_metric", "estimate_rank_distribution", "hits_at_k",
    "least_squares_correction", "link_prediction_ranks", "mean_rank", "metric_by_rank", "mrr",
    "ndcg_at_k", "rank_against_negatives", "rank_metrics", "rank_transition_matrix",
    "ranks_from_counts", "sample_negatives", "sampled_ranks", "score_candidates",
]
