"""Full ranking from scores: top-k per user with training items masked, in blocks of users."""

from ._core import BLOCK_ELEMENTS, TopK, topk_from_scores

__all__ = ["BLOCK_ELEMENTS", "TopK", "topk_from_scores"]
