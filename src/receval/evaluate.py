"""``evaluate`` and ``Evaluator``: the public entry points of an evaluation."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._version import __version__
from .engines.local import evaluate_packed, needed_depth
from .engines.plugins import OPTION_NAMES, Context
from .errors import InputError, PolicyError, suggest
from .io.frames import read_columns
from .metrics import MetricSpec, parse_metrics
from .pack import (
    Packed,
    RunCodes,
    TruthPack,
    pack_run,
    pack_truth,
    run_codes,
    run_from_matrix,
    truth_from_sparse,
)
from .policies import POLICY_CHOICES, Policies
from .results import EvalResult


class Evaluator:
    """Check and pack the truth once, then evaluate many runs against it.

    Parameters
    ----------
    truth : held-out (user, item[, relevance]) rows: pandas / polars / pyarrow table, dict-of-dicts
        ``{user: {item: relevance}}``, dict of columns; or a scipy.sparse (users x items)
        relevance matrix / list of item arrays (with a numpy top-k matrix as run).
    metrics : metric keys or specs, e.g. ``["ndcg@10", "map@100", "mrr"]``.
    user_col, item_col, rel_col : truth column names (default: common names are detected).
    ties, users, empty_truth, duplicates, nan_scores, negative_rel : policies, see
        :mod:`receval.policies` (defaults: ``"id"``, ``"truth"``, ``"skip"``, ``"error"``,
        ``"error"``, ``"error"``).
    train, item_features, catalog : optional inputs for beyond-accuracy metrics.

    Example
    -------
    >>> ev = Evaluator(truth, ["ndcg@10", "mrr"])
    >>> res_a, res_b = ev.evaluate(run_a, name="a"), ev.evaluate(run_b, name="b")
    """

    def __init__(self, truth: Any, metrics: Any, *, user_col: str | None = None,
                 item_col: str | None = None, rel_col: str | None = None,
                 ties: str = "id", users: str = "truth", empty_truth: str = "skip",
                 duplicates: str = "error", nan_scores: str = "error",
                 negative_rel: str = "error", train: Any = None, item_features: Any = None,
                 catalog: Any = None, **options: Any) -> None:
        self.metrics: list[MetricSpec] = parse_metrics(metrics)
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            valid = sorted(POLICY_CHOICES) + sorted(OPTION_NAMES) + [
                "train", "item_features", "catalog", "user_col", "item_col", "rel_col"]
            raise PolicyError(
                f"unknown keyword {unknown[0]!r}; valid keywords are {valid}."
                + suggest(unknown[0], valid)
            )
        self.policies = Policies(ties=ties, users=users, empty_truth=empty_truth,
                                 duplicates=duplicates, nan_scores=nan_scores,
                                 negative_rel=negative_rel)
        self.context = Context(train=train, item_features=item_features, catalog=catalog,
                               options=options)
        for spec in self.metrics:
            for need in spec.definition.needs:
                if hasattr(self.context, need):
                    self.context.require(need, spec.key)
        self.sparse_truth = _is_sparse(truth) or isinstance(truth, list)
        if self.sparse_truth:
            self.truth: TruthPack = truth_from_sparse(truth)
        else:
            cols = read_columns(truth, role="truth", user_col=user_col, item_col=item_col,
                                rel_col=rel_col)
            self.truth = pack_truth(cols, self.policies)
        self.depth = needed_depth(self.metrics, self.policies)

    def pack(self, run: Any, *, user_col: str | None = None, item_col: str | None = None,
             score_col: str | None = None, rank_col: str | None = None,
             lists: bool = True) -> Packed:
        """The packed arrays of one run (what the kernels see).

        ``lists=False`` leaves out the item and score at each position, which only metrics
        outside the ranking kernel need (it saves memory on large runs).
        """
        codes = self._codes(run, user_col, item_col, score_col, rank_col)
        cutoffs = tuple({s.k for s in self.metrics if s.k})
        return pack_run(codes, self.truth, self.policies, depth=self.depth,
                        keep_items=lists, keep_scores=lists, cutoffs=cutoffs)

    def _codes(self, run: Any, user_col: str | None, item_col: str | None,
               score_col: str | None, rank_col: str | None) -> RunCodes:
        if isinstance(run, np.ndarray) and run.dtype.names is None:
            if not self.sparse_truth:
                raise InputError(
                    "run: a numpy top-k matrix needs the truth as a scipy.sparse (users x items) "
                    "matrix or a list of item arrays, with the same user rows."
                )
            if run.shape[0] != self.truth.n_users:
                raise InputError(
                    f"run: the top-k matrix has {run.shape[0]} user rows but the truth has "
                    f"{self.truth.n_users}; both must list the same users in the same order."
                )
            return run_from_matrix(run)
        cols = read_columns(run, role="run", user_col=user_col, item_col=item_col,
                            score_col=score_col, rank_col=rank_col)
        return run_codes(cols)

    def evaluate(self, run: Any, *, name: str | None = None, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rank_col: str | None = None) -> EvalResult:
        """Evaluate one run; see :func:`receval.evaluate` for the accepted containers."""
        t0 = time.perf_counter()
        plugins = any(s.definition.compute is not None for s in self.metrics)
        packed = self.pack(run, user_col=user_col, item_col=item_col, score_col=score_col,
                           rank_col=rank_col, lists=plugins)
        out = evaluate_packed(packed, self.metrics, self.policies, self.context)
        counts = dict(packed.counts)
        counts["truth_duplicates"] = self.truth.counts.get("truth_duplicates", 0)
        skipped = max((row["skipped"] for row in out["stats"]), default=0)
        counts["skipped_no_relevant"] = int(skipped)
        counts["evaluated"] = int(len(packed.user_ids) - skipped)
        return EvalResult(
            metrics=[s.key for s in self.metrics], user_ids=packed.user_ids,
            values=out["values"], stats=out["stats"], counts=counts,
            policies=self.policies.to_dict(), info=out["info"], name=name,
            provenance={"receval": __version__, "seconds": time.perf_counter() - t0,
                        "depth": self.depth},
        )


def _is_sparse(obj: Any) -> bool:
    """scipy.sparse matrix or array, without importing scipy (keeps start-up fast)."""
    return type(obj).__module__.startswith("scipy.sparse")


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
    **kwargs : policies (``ties``, ``users``, ``empty_truth``, ``duplicates``, ``nan_scores``,
        ``negative_rel``) and optional inputs (``train``, ``item_features``, ``catalog``).

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
    ev = Evaluator(truth, metrics, user_col=user_col, item_col=item_col, rel_col=rel_col,
                   **kwargs)
    return ev.evaluate(run, name=name, user_col=user_col, item_col=item_col,
                       score_col=score_col, rank_col=rank_col)
