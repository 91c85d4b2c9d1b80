"""Result objects: per-user tables, summaries, counts, comparisons; their JSON."""

from .comparison import PAIR_COLUMNS, Comparison
from .result import EvalResult

__all__ = ["PAIR_COLUMNS", "Comparison", "EvalResult"]
