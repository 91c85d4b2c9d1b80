"""The entry layer: ``evaluate``, ``evaluate_blocks`` and ``stream_blocks`` choose an engine.

Local data goes to the local executor (:class:`receval.engines.evaluator.Evaluator`), Spark
DataFrames to :mod:`receval.spark` (imported only when asked, so ``import receval`` does not
load pyspark), a run file to :func:`receval.io.files.iter_blocks` and the block executor.
Every engine builds its setup with :func:`receval.engines.setup.evaluation_setup` and its
result with :func:`receval.engines.totals.build_result`.
"""

from __future__ import annotations

from typing import Any

from .engines.evaluator import Evaluator, evaluate_local
from .errors import InputError, PolicyError
from .policies import POLICY_PARAMS
from .results import EvalResult
from .validation import POSITIVE_INT, validate_params

__all__ = ["Evaluator", "evaluate", "evaluate_blocks", "stream_blocks"]

ENGINES = ("auto", "local", "spark")


@validate_params(POLICY_PARAMS)
def evaluate(run: Any, truth: Any, metrics: Any, *, name: str | None = None,
             user_col: str | None = None, item_col: str | None = None,
             score_col: str | None = None, rank_col: str | None = None,
             rel_col: str | None = None, **kwargs: Any) -> EvalResult:
    """Evaluate a run against held-out truth with every requested metric, in one pass.

    Parameters
    ----------
    run : what the recommender produced: (user, item, score) or (user, item, rank) rows as a
        pandas / polars / pyarrow table or dict of columns, a dict-of-dicts
        ``{user: {item: score}}``, or a numpy (users x k) matrix of item ids in rank order.
    truth : held-out (user, item[, relevance]) rows (relevance defaults to 1), or a
        scipy.sparse (users x items) matrix / list of item arrays with a numpy run.
    metrics : keys such as ``"ndcg@10"``, ``"map@100(denominator=min_k_rel)"``, ``"mrr"``.
    user_col, item_col, score_col, rank_col, rel_col : column names (detected when omitted).
    compat : (keyword) a library preset (``"rectools"``, ``"recbole"``, ``"trec_eval"``, ... see
        :mod:`receval.compat`): metric names mean what they mean in that library and its
        policies apply (explicit policies override them). ``result["map@10"]`` then reads the
        library's value; ``result.info["compat"]`` records the expanded canonical keys.
    strict : (keyword) with ``compat``, refuse names whose preset reproduces a known library bug.
    **kwargs : policies (``ties``, ``users``, ``empty_truth``, ``duplicates``, ``nan_scores``,
        ``negative_rel``, ``nan_rel``, ``unjudged``, ``ranks``, ``unretrieved``) and optional
        inputs (``train``, ``item_features``, ``catalog``).
        ``engine``: ``"auto"`` (default: Spark DataFrames go to :mod:`receval.spark`, which
        also takes ``buckets``, ``per_user``, ``compat``), ``"local"`` or ``"spark"``.

    Returns
    -------
    EvalResult with ``summary``, ``per_user``, ``stats`` and ``counts``.

    Example
    -------
    >>> import receval as rv
    >>> run = {"alice": {"banana": 5, "pear": 4, "cherry": 3, "melon": 2, "grape": 1}}
    >>> truth = {"alice": {"pineapple": 1, "apple": 1, "watermelon": 1, "banana": 1, "cherry": 1}}
    >>> rv.evaluate(run, truth, ["precision@3", "ndcg@3"]).summary["precision@3"]
    0.6666666666666666
    """
    engine = kwargs.pop("engine", "auto")
    if engine not in ENGINES:
        raise PolicyError(f"engine={engine!r}: use 'auto', 'local' or 'spark'.")
    if engine == "spark" or (engine == "auto" and (_is_spark(run) or _is_spark(truth))):
        from .spark import evaluate as evaluate_spark  # pyspark itself loads on first use

        return evaluate_spark(
            run, truth, metrics, name=name, user_col=user_col, item_col=item_col,
            score_col=score_col, rank_col=rank_col, rel_col=rel_col, **kwargs)
    if _is_spark(run) or _is_spark(truth):
        raise InputError("engine='local' does not read Spark DataFrames (receval never calls "
                         "toPandas() for you); use engine='spark', or collect them yourself.")
    return evaluate_local(run, truth, metrics, name=name, user_col=user_col,
                          item_col=item_col, score_col=score_col, rank_col=rank_col,
                          rel_col=rel_col, **kwargs)




def _is_spark(obj: Any) -> bool:
    """A Spark DataFrame, detected without importing pyspark."""
    return type(obj).__module__.startswith("pyspark.sql") and type(obj).__name__ == "DataFrame"


@validate_params({"block_rows": POSITIVE_INT})
def evaluate_blocks(source: Any, truth: Any, metrics: Any, *, format: str | None = None,
                    name: str | None = None, user_col: str | None = None,
                    item_col: str | None = None, score_col: str | None = None,
                    rank_col: str | None = None, rel_col: str | None = None,
                    truth_user_col: str | None = None, truth_item_col: str | None = None,
                    block_rows: int = 1_000_000, progress: Any = None,
                    **kwargs: Any) -> EvalResult:
    """Evaluate a large run in blocks of whole users, with bounded memory.

    ``source``: a run file grouped by user (Parquet, CSV, TSV or a TREC run; read about
    ``block_rows`` rows at a time by :func:`receval.io.files.iter_blocks`, which raises at the
    first user whose rows are not contiguous), or any iterable of run blocks. The truth is
    packed once; the result is bit-identical to ``rv.evaluate`` on the whole run (see
    :meth:`Evaluator.evaluate_blocks`). ``progress(rows_done)`` is called after each block.
    ``compat=`` / ``strict=`` name a library preset as for :func:`receval.evaluate`.
    """
    ev = Evaluator(truth, metrics, user_col=truth_user_col or user_col,
                   item_col=truth_item_col or item_col, rel_col=rel_col, **kwargs)
    return stream_blocks(ev, source, format=format, name=name, user_col=user_col,
                         item_col=item_col, score_col=score_col, rank_col=rank_col,
                         block_rows=block_rows, progress=progress)


def stream_blocks(ev: Evaluator, source: Any, *, format: str | None = None,
                  name: str | None = None, user_col: str | None = None,
                  item_col: str | None = None, score_col: str | None = None,
                  rank_col: str | None = None, block_rows: int = 1_000_000,
                  progress: Any = None) -> EvalResult:
    """:func:`evaluate_blocks` with the truth already packed by ``ev``: the caller can let the
    truth table go before the run is read."""
    import os

    from .io.files import detect_format, guess_user_col, iter_blocks

    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        fmt = detect_format(path, format)
        user_col = user_col or guess_user_col(path, fmt)
        source = iter_blocks(path, format=fmt, user_col=user_col, block_rows=block_rows,
                             item_col=item_col)
    res = ev.evaluate_blocks(source, name=name, user_col=user_col, item_col=item_col,
                             score_col=score_col, rank_col=rank_col, progress=progress)
    res.provenance.update(streamed=True, block_rows=block_rows)
    return res
