"""Push-style evaluation for training loops: ``update`` with each batch, ``compute`` at the end.

The truth is checked and packed once (an :class:`~receval.Evaluator`); each batch of users is
packed and measured as it comes (the block executor of :mod:`receval.engines.evaluator`), and
only its per-user values and exact metric states are kept. :meth:`Accumulator.compute` gives
the :class:`~receval.results.EvalResult` that :func:`receval.evaluate` gives on the batches
concatenated, bit for bit: the same per-user values, counts and summaries (the states are the
exact aggregator's, :mod:`receval.engines.aggregate`, so neither the batch split nor the
batch order changes a bit). Accumulators of disjoint users merge (:meth:`Accumulator.merge`,
:func:`receval.training.all_gather` across ``torch.distributed`` processes); their states
pickle without the truth (:meth:`Accumulator.state`).

Each user's rows must be in one batch (a user in two batches is refused, naming it); truth
users that no batch holds are evaluated at :meth:`~Accumulator.compute` with an empty list
(``users="truth"``). Metrics with a value of the whole run only (catalogue coverage, Gini,
pooled AUC) need the whole run at once: evaluate them with :func:`receval.evaluate`.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engines.evaluator import EVALUATOR_PARAMS, Evaluator, _Accumulator
from ..errors import InputError
from ..results import EvalResult
from ..validation import POSITIVE_INT, validate_params
from .batches import ids_block, scores_block, to_numpy

__all__ = ["ACCUMULATOR_PARAMS", "Accumulator", "AccumulatorState", "PairAccumulator"]

#: the declared parameters of :class:`Accumulator` (the Evaluator's, and its own)
ACCUMULATOR_PARAMS: dict[str, list[Any]] = {**EVALUATOR_PARAMS, "window": [None, *POSITIVE_INT]}


@dataclass
class AccumulatorState:
    """What an accumulator has measured, without the truth: picklable, mergeable.

    ``fingerprint``: the metrics, policies and truth size it was measured against (a state
    merges only into an accumulator with the same one); ``blocks``: one entry per batch
    (the block executor's rows, states and counts)."""

    fingerprint: tuple
    blocks: list[dict[str, Any]]


class Accumulator:
    """Evaluate batches of model output as they come; ``compute()`` equals
    :func:`receval.evaluate` on the whole run.

    Parameters
    ----------
    truth : the held-out interactions (any truth container :func:`receval.evaluate` takes),
        or an :class:`~receval.Evaluator` (its truth, metrics and policies are used).
    metrics : metric keys (``["ndcg@10", "recall@20"]``); not given with an Evaluator.
    item_ids : the item id of each score column / item index (default: the index is the id).
    window : keep only the last ``window`` batches (running values over recent batches);
        ``None`` (default) keeps every batch until :meth:`reset`.
    **kwargs : policies, ``compat=``, ``train=`` ... as for :class:`~receval.Evaluator`.

    Example
    -------
    >>> import numpy as np, receval as rv
    >>> acc = rv.Accumulator({0: {5: 1}, 1: {7: 1}, 2: {1: 1}}, ["ndcg@2", "recall@2"])
    >>> acc.update(np.array([0, 1]), np.array([[5, 3], [2, 7]]))     # top-2 ids per user
    >>> acc.update(np.array([2]), np.array([[4, 6]]))
    >>> acc.compute().summary["recall@2"]                              # (1 + 1 + 0) / 3
    0.6666666666666666
    """

    @validate_params(ACCUMULATOR_PARAMS, name="Accumulator")
    def __init__(self, truth: Any, metrics: Any = None, *, item_ids: Any = None,
                 window: int | None = None, **kwargs: Any) -> None:
        if isinstance(truth, Evaluator):
            if metrics is not None or kwargs:
                raise InputError("Accumulator(evaluator): the evaluator's metrics and policies "
                                 "are used; give metrics= and policies only with a truth.")
            self.evaluator = truth
        else:
            if metrics is None:
                raise InputError("Accumulator(truth, metrics): give the metrics to compute, "
                                 "e.g. ['ndcg@10', 'recall@20'].")
            self.evaluator = Evaluator(truth, metrics, **kwargs)
        self.item_ids = None if item_ids is None else to_numpy(item_ids, "item_ids")
        self.window = window
        self.reset()

    # ---- state ---------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget every batch (the truth stays packed)."""
        self._blocks: deque[_Accumulator] = deque(maxlen=self.window)

    @property
    def n_batches(self) -> int:
        """Batches held (at most ``window``)."""
        return len(self._blocks)

    def _fingerprint(self) -> tuple:
        ev = self.evaluator
        return (tuple(s.key for s in ev.plan.specs), tuple(sorted(vars(ev.policies).items())),
                int(ev.truth.n_users), int(ev.truth.n_rows))

    def state(self) -> AccumulatorState:
        """The batches measured so far, without the truth (pickle it, send it, merge it)."""
        return AccumulatorState(self._fingerprint(), [b.state() for b in self._blocks])

    def merge(self, other: Accumulator | AccumulatorState) -> None:
        """Add the batches of another accumulator (or its :meth:`state`) of the same truth,
        metrics and policies, over other users."""
        state = other.state() if isinstance(other, Accumulator) else other
        if not isinstance(state, AccumulatorState):
            raise InputError(f"merge: expected an Accumulator or an AccumulatorState, got "
                             f"{type(other).__name__}.")
        if state.fingerprint != self._fingerprint():
            raise InputError("merge: the other accumulator was measured against other metrics, "
                             "policies or truth; only accumulators of one evaluation merge.")
        for fields in state.blocks:
            self._blocks.append(_Accumulator.restored(self.evaluator, fields))

    # ---- batches ---------------------------------------------------------------------------
    def update(self, users: Any, items: Any, scores: Any = None) -> None:
        """Add one batch of ranked lists: ``users`` (B ids, as in the truth), ``items`` (B x k
        item ids in rank order, numpy or torch on any device; negative ids are padding),
        ``scores`` (B x k, optional: ranks by score instead of by column)."""
        self._add(ids_block(users, items, scores, item_ids=self.item_ids))

    @validate_params({"k": [None, *POSITIVE_INT]}, name="Accumulator.update_scores")
    def update_scores(self, users: Any, scores: Any, k: int | None = None, *,
                      exclude: Any = None, copy: bool = True) -> None:
        """Add one batch of scores of every item (B x n_items, numpy or a torch tensor on any
        device): each user's top ``k`` (default: the deepest cutoff of the metrics) after
        masking ``exclude`` (a boolean mask of the same shape, or a scipy.sparse matrix: the
        users' training items), ranked on the scores' device (full-sort evaluation). Ties at
        the k-th score keep the lower item column (:func:`receval.topk.topk_from_scores`).
        ``copy=False`` masks ``scores`` in place (``-inf`` at the excluded items, as RecBole's
        full-sort evaluation does) instead of masking a copy: faster, and the values are
        the same; pass it when the batch's scores are not used after this call."""
        if k is None:
            k = int(self.evaluator.plan.depth)
            if k <= 0:
                raise InputError("update_scores: some metric has no cutoff (it reads the whole "
                                 "list); give k=, the length of the lists to rank.")
        if not isinstance(copy, (bool, np.bool_)):
            raise InputError(f"update_scores: copy={copy!r}; give True (mask a copy of the "
                             "scores) or False (mask them in place).")
        self._add(scores_block(users, scores, k, exclude=exclude, item_ids=self.item_ids,
                               copy=bool(copy)))

    def _add(self, codes: Any) -> None:
        block = _Accumulator(self.evaluator)
        block.feed(codes)
        self._blocks.append(block)

    # ---- result ----------------------------------------------------------------------------
    def compute(self, *, name: str | None = None) -> EvalResult:
        """The result of every batch held (the last ``window`` ones), as
        :func:`receval.evaluate` gives it on their run; the accumulator is unchanged."""
        t0 = time.perf_counter()
        total = _Accumulator(self.evaluator)
        for block in self._blocks:
            total.merge(block)
        res = total.result(name, t0)
        if self.evaluator.compat is not None:
            from ..compat import annotate

            res = annotate(res, *self.evaluator.compat)
        return res


class PairAccumulator:
    """torchmetrics' retrieval interface: ``update(preds, target, indexes)`` with one row per
    (query, candidate), batch after batch; ``compute()`` is :func:`receval.evaluate` on every
    row so far.

    Each row is a candidate of its query (``indexes``), scored ``preds`` and labelled
    ``target`` (0: judged non-relevant; graded labels are relevance grades). The rows of one
    query may come in several batches, as torchmetrics allows. Candidates carry no item ids:
    each row is its own item, numbered in arrival order (ties between equal scores are broken
    by that order under ``ties="id"``). Rows are kept on the host until :meth:`compute` (k
    numbers a row; torchmetrics keeps them too). Use :class:`Accumulator` when the truth is
    known up front.

    >>> import numpy as np, receval as rv
    >>> acc = rv.training.PairAccumulator(["retrievalmap"], compat="torchmetrics")
    >>> acc.update(np.array([0.9, 0.2, 0.8]), np.array([0, 1, 1]), np.array([0, 0, 1]))
    >>> acc.update(np.array([0.5]), np.array([0]), np.array([1]))    # query 1 goes on
    >>> acc.compute()["retrievalmap"]                                # (1/2 + 1) / 2
    0.75
    """

    @validate_params(EVALUATOR_PARAMS, name="PairAccumulator")
    def __init__(self, metrics: Any, **kwargs: Any) -> None:
        self.metrics, self.kwargs = metrics, kwargs
        Evaluator({0: {0: 1}}, metrics, **kwargs)  # metrics and policies checked now, not later
        self.reset()

    def reset(self) -> None:
        """Forget every row."""
        self._rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def update(self, preds: Any, target: Any, indexes: Any) -> None:
        """Add rows: ``preds`` (scores), ``target`` (labels >= 0) and ``indexes`` (the query of
        each row), 1-D and of one length (numpy or torch on any device)."""
        p, t, q = (_rows(to_numpy(x, name), name) for x, name in
                   ((preds, "preds"), (target, "target"), (indexes, "indexes")))
        if not len(p) == len(t) == len(q):
            raise InputError(f"preds, target and indexes must have one length; got {len(p)}, "
                             f"{len(t)} and {len(q)}.")
        if len(t) and (not np.all(np.isfinite(t.astype(np.float64))) or t.min() < 0):
            raise InputError("target: labels must be finite and >= 0 (0: not relevant).")
        self._rows.append((q, p, t))

    def state(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The rows so far (picklable)."""
        return list(self._rows)

    def merge(self, other: PairAccumulator | list) -> None:
        """Add the rows of another pair accumulator (or its :meth:`state`) after these."""
        self._rows += other.state() if isinstance(other, PairAccumulator) else list(other)

    def compute(self, *, name: str | None = None) -> EvalResult:
        """:func:`receval.evaluate` of every row so far."""
        if not self._rows:
            raise InputError("PairAccumulator.compute: no rows yet; call update first.")
        q, p, t = (np.concatenate([r[j] for r in self._rows]) for j in range(3))
        item = np.arange(len(q), dtype=np.int64)
        run = {"user": q, "item": item, "score": p}
        truth = {"user": q, "item": item, "relevance": t}
        from ..engines.evaluator import evaluate_local

        return evaluate_local(run, truth, self.metrics, name=name, **self.kwargs)


def _rows(x: np.ndarray, name: str) -> np.ndarray:
    """One value per (query, candidate) row; a 2-D batch is refused (torchmetrics flattens
    it silently, mixing queries)."""
    if x.ndim > 1:
        raise InputError(f"{name}: expected one row per (query, candidate), 1-D; got shape "
                         f"{x.shape}. Give indexes for every row (torchmetrics flattens 2-D "
                         "inputs, mixing queries).")
    return x.reshape(-1)
