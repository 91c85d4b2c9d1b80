"""Result objects: per-user tables, summaries, counts."""

from .result import EvalResult

__all__ = ["EvalResult"]
