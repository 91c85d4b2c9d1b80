"""The Spark engine: receval's own packing and compiled kernel, run where the data lives.

Usage, with Spark DataFrames ``truth_sdf`` and ``run_sdf`` (a local session and Java are
needed, so this is a code block rather than a doctest; ``tests/spark/test_docstring_usage.py``
runs it)::

    import receval.spark as rvs

    ev = rvs.Evaluator(truth_sdf, ["ndcg@10", "map@100", "mrr"])
    res = ev.evaluate(run_sdf)  # the same EvalResult as rv.evaluate on the same rows

Spark moves and groups the data (by default each user's run and truth rows collected into
lists and joined on the user, read by ``mapInArrow``; or users hashed into buckets, one
cogroup of run and truth, or a sorted repartition read by ``mapInArrow``); each task runs the
local engine on whole users; the partial states are merged on
the driver by the local engine's exact aggregator. ``rv.evaluate(run_sdf, truth_sdf, ...)``
dispatches here when given Spark DataFrames. Needs ``pip install 'receval[spark]'``
(pyspark 3.3 or later; Spark 4 needs Java 17+); importing this module does not import pyspark.
"""

from __future__ import annotations

from typing import Any

from ..results import EvalResult
from .engine import Evaluator, is_spark_frame
from .mllib import MLLIB_POLICIES, mllib_key, mllib_keys, mllib_names

__all__ = ["Evaluator", "evaluate", "is_spark_frame", "mllib_key", "mllib_keys",
           "mllib_names", "MLLIB_POLICIES"]


def evaluate(run: Any, truth: Any, metrics: Any, *, name: str | None = None,
             user_col: str | None = None, item_col: str | None = None,
             score_col: str | None = None, rank_col: str | None = None,
             rel_col: str | None = None, per_user: str | None = "pandas",
             **kwargs: Any) -> EvalResult:
    """Evaluate a Spark run against a Spark truth; see :class:`Evaluator`.

    ``truth_user_col`` / ``truth_item_col`` name the truth's columns when they differ from the
    run's. ``per_user``: ``"pandas"`` (collect, default), ``"spark"`` (a Spark DataFrame in
    ``result.per_user_spark``) or ``None`` (summary only).
    """
    truth_user_col = kwargs.pop("truth_user_col", None)
    truth_item_col = kwargs.pop("truth_item_col", None)
    ev = Evaluator(truth, metrics, user_col=truth_user_col or user_col,
                   item_col=truth_item_col or item_col, rel_col=rel_col, **kwargs)
    try:
        return ev.evaluate(run, name=name, user_col=user_col, item_col=item_col,
                           score_col=score_col, rank_col=rank_col, per_user=per_user)
    finally:
        if per_user != "spark":
            ev.close()
