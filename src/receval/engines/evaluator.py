"""The local executor: ``Evaluator`` checks and packs the truth once and evaluates runs.

``Evaluator.evaluate(run)`` is ``Evaluator.evaluate_blocks([run])`` with the whole run as one
block: each block is packed (:mod:`receval.pack`), measured (:mod:`receval.engines.local`) and
added to :class:`~receval.engines.totals.Totals`; rows come out in one canonical order and
:func:`~receval.engines.totals.build_result` assembles the result. The engine choice
(``engine="spark"``) and file streaming sit above, in :mod:`receval.evaluate`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..compat import Preset
from ..compat import annotate as annotate_preset
from ..errors import IN_MEMORY, InputError, NoCommonUsersWarning, plain, user_stacklevel
from ..io.containers import is_records
from ..io.frames import read_columns
from ..io.groups import read_groups
from ..io.weights import read_weights
from ..kernels import NotStrIds
from ..metrics import MetricSpec
from ..pack import (
    BLOCK_POSITIONS,
    Packed,
    RunCodes,
    TruthPack,
    pack_run,
    pack_run_blocks,
    pack_truth,
    run_codes,
    run_from_matrix,
    truth_from_sparse,
)
from ..pack.vocab import unique as unique_ids
from ..policies import OPTIONAL_POLICY_PARAMS, Policies
from ..results import EvalResult
from ..validation import Boolean, InstanceOf, validate_params
from .groups import GroupTotals, group_labels
from .items import ItemTotals, by_item_group, item_cutoff
from .local import BlockValues, evaluate_packed
from .memory import reusing_memory
from .setup import COMMON_KEYWORDS, evaluation_setup
from .slices import slice_names, sliced_truths
from .totals import Totals, build_result, relevance_info
from .weights import user_weights, weighted_stats

#: ``Evaluator`` takes ``None`` for a policy not given (receval's default, or the preset's).
#: the keywords of the local engine beyond the policies and plugin options (named in the
#: message that refuses an unknown one)
LOCAL_KEYWORDS = (*COMMON_KEYWORDS, "groups", "group_col", "per_item", "item_groups",
                  "weights", "weight_col", "slices")

EVALUATOR_PARAMS: dict[str, list[Any]] = {
    **OPTIONAL_POLICY_PARAMS,
    "compat": [None, InstanceOf(str, Preset, name="a library preset name")],
    "strict": [Boolean()],
    "group_col": [None, InstanceOf(str, list, tuple, name="a column name or a list of them")],
    "per_item": [Boolean(), InstanceOf(int, name="a cutoff k >= 1")],
    "weight_col": [None, InstanceOf(str, name="a column name")]}

class Evaluator:
    """Check and pack the truth once, then evaluate many runs against it.

    Parameters
    ----------
    truth : held-out (user, item[, relevance]) rows: pandas / polars / pyarrow table, dict-of-dicts
        ``{user: {item: relevance}}``, dict of columns; or a scipy.sparse (users x items)
        relevance matrix / list of item arrays (with a numpy top-k matrix as run).
    metrics : metric keys or specs, e.g. ``["ndcg@10", "map@100", "mrr"]``.
    user_col, item_col, rel_col : truth column names (default: common names are detected).
    ties, users, empty_truth, duplicates, nan_scores, negative_rel, nan_rel, unjudged, ranks, unretrieved :
        policies, see :mod:`receval.policies` (``None``: the default, ``"id"``, ``"truth"``,
        ``"skip"``, ``"error"``, ``"error"``, ``"error"``, ``"error"``, ``"keep"``,
        ``"order"``, ``"absent"``, or the ``compat`` preset's).
    train, item_features, catalog : optional inputs for beyond-accuracy metrics.
    groups, group_col : user groups (:mod:`receval.io.groups`: ``{user: group}``, a Series, or
        a table with a user column and the ``group_col`` column(s)): every result then holds
        each group's summaries as if its users were evaluated alone
        (:attr:`receval.EvalResult.by_group`, :mod:`receval.engines.groups`).
    per_item, item_groups : ``per_item=True`` (the metrics' deepest cutoff) or a cutoff ``k``:
        every result then holds one row per item (:attr:`receval.EvalResult.per_item`:
        recommended, exposure, hits, holders, recall, truth_share;
        :mod:`receval.engines.items`), summed per item group with ``item_groups=``
        (:attr:`receval.EvalResult.by_item_group`). ``item_groups=`` alone is the input of
        the metrics per item group (exposure, provider fairness) and adds no table, as on
        the Spark engine.
    compat, strict : a library preset and its bug check, as for :func:`receval.evaluate`:
        metric names mean what they mean in that library, its policies apply where none is
        given, and every result carries ``info["compat"]`` (:func:`receval.compat.resolve`).

    Example
    -------
    >>> import receval as rv
    >>> truth = {"u1": {"b": 1}, "u2": {"c": 1}}
    >>> ev = rv.Evaluator(truth, ["ndcg@10", "mrr"])             # checks and packs the truth once
    >>> res_a = ev.evaluate({"u1": {"a": 2, "b": 1}, "u2": {"c": 2, "a": 1}}, name="a")
    >>> res_b = ev.evaluate({"u1": {"b": 2, "a": 1}, "u2": {"c": 2, "a": 1}}, name="b")
    >>> res_a.summary["mrr"], res_b.summary["mrr"]              # (1/2 + 1/1) / 2, (1/1 + 1/1) / 2
    (0.75, 1.0)
    """

    @validate_params(EVALUATOR_PARAMS, name="Evaluator")
    @reusing_memory
    def __init__(self, truth: Any, metrics: Any, *, user_col: str | None = None,
                 item_col: str | None = None, rel_col: str | None = None,
                 ties: str | None = None, users: str | None = None,
                 empty_truth: str | None = None, duplicates: str | None = None,
                 nan_scores: str | None = None, negative_rel: str | None = None,
                 nan_rel: str | None = None, unjudged: str | None = None,
                 ranks: str | None = None, unretrieved: str | None = None, train: Any = None,
                 item_features: Any = None, catalog: Any = None,
                 compat: str | Preset | None = None, strict: bool = False,
                 groups: Any = None, group_col: str | list[str] | tuple[str, ...] | None = None,
                 per_item: bool | int = False, item_groups: Any = None,
                 weights: Any = None, weight_col: str | None = None, slices: Any = None,
                 **options: Any) -> None:
        given = {k: v for k, v in locals().items()
                 if k not in ("self", "truth", "metrics", "options", "slices", "given",
                              "__class__")}
        setup = evaluation_setup(
            metrics, policies={"ties": ties, "users": users, "empty_truth": empty_truth,
                               "duplicates": duplicates, "nan_scores": nan_scores,
                               "negative_rel": negative_rel, "nan_rel": nan_rel,
                               "unjudged": unjudged, "ranks": ranks,
                               "unretrieved": unretrieved},
            compat=compat, strict=strict, train=train, item_features=item_features,
            catalog=catalog, options=options, keywords=LOCAL_KEYWORDS)
        #: ``(preset, {name as written: key})`` under ``compat=``, else None
        self.compat: tuple[Preset, dict[str, str]] | None = setup.compat
        self.metrics: list[MetricSpec] = setup.specs
        self.policies = setup.policies
        self.context = setup.context
        self.sparse_truth = _is_sparse(truth) or (isinstance(truth, list)
                                                  and not is_records(truth))
        if self.sparse_truth:
            self.truth: TruthPack = truth_from_sparse(truth, self.policies)
            self.truth_columns: dict[str, str | None] = {
                "relevance": "list of item arrays (every item relevance 1)"
                if isinstance(truth, list) else "the sparse matrix's values"}
        else:
            cols = read_columns(truth, role="truth", user_col=user_col, item_col=item_col,
                                rel_col=rel_col)
            self.truth = pack_truth(cols, self.policies)
            truth_cols = cols
            self.truth_columns = {"user": cols.names.get("user"), "item": cols.names.get("item"),
                                  "relevance": cols.names.get("relevance")}
        self.plan = setup.plan
        self.depth = self.plan.depth
        #: the evaluators of the truth's slices (``slices=``), by name
        self.slices: dict[str, Evaluator] = {}
        if slices is not None and slices is not False:
            names = slice_names(slices)
            if self.sparse_truth:
                raise InputError("slices= needs the truth as (user, item[, relevance]) rows, "
                                 "not a sparse matrix or a list of item arrays.")
            for name, part in sliced_truths(truth_cols, train, names).items():
                self.slices[name] = Evaluator(part, metrics, **{
                    **given, **options, "user_col": None, "item_col": None, "rel_col": None})
        if group_col is not None and groups is None:
            raise InputError("group_col= names the group column(s) of groups=; give groups= "
                             "too.")
        self.groups = None if groups is None else read_groups(groups, group_col=group_col)
        self.item_k: int | None = None
        self.per_item = per_item is not False
        if self.per_item:
            self.item_k = item_cutoff(per_item, self.plan.depth)
            self.plan.keep_lists = True  # the item at each position
            self.plan.keep_rel = True  # and its relevance (the item's hits)
            self.plan.keep_item_rows = False  # by the run's item codes
        self.item_groups = None if item_groups is None else \
            read_groups(item_groups, what="item")
        if self.item_groups is not None:  # metrics per item group read it from the context
            self.context.options["item_groups"] = self.item_groups
        if weight_col is not None and weights is None:
            raise InputError("weight_col= names the weight column of weights=; give weights= "
                             "too.")
        self.weights = None if weights is None else read_weights(weights, weight_col=weight_col)
        if self.weights is not None and self.groups is not None:
            raise InputError("weights= and groups= together: the per-group summaries are not "
                             "weighted yet; evaluate with one of them.")
        self._warn_unreachable()

    def relevance_info(self) -> dict[str, Any]:
        """``result.info["relevance"]``: the truth columns read (``relevance`` None: no
        relevance column, every truth row has relevance 1), the truth's largest relevance, and
        per metric its binary threshold (``rel=``: relevance >= rel is relevant) or
        ``"graded"``."""
        return relevance_info(self.truth_columns, self.truth.max_rel, self.plan)

    def _warn_unreachable(self) -> None:
        """Warn once (per Evaluator) when no truth row reaches a metric's ``rel=`` threshold:
        that metric is then undefined for every user, which would otherwise only show as NaN
        with 0 users evaluated."""
        import warnings

        from ..errors import RelevanceThresholdWarning
        from ..metrics import metric

        bad = self.plan.unreachable(self.truth.max_rel)
        if not bad:
            return
        top = float(self.truth.max_rel)
        col = self.truth_columns.get("relevance") or "relevance (none given: 1 per row)"
        spec, thr = bad[0]
        if top > 0:
            example = 0.5 if top >= 0.5 else top
            fixed = metric(spec.name, spec.k, **{**dict(spec.params), "rel": example}).key
            fix = (f"pass the threshold in the metric key, e.g. {fixed!r} (rel=<threshold>: "
                   "truth items with relevance >= threshold are relevant)")
        else:
            fix = "the truth has no positive relevance; check the relevance column"
        keys = [s.key for s, _ in bad]
        warnings.warn(
            f"no truth row reaches the relevance threshold of {keys} (rel={_num(thr)}): the "
            f"largest relevance in {col!r} is {_num(top)}, so for these metrics no user has a "
            f"relevant item (every user falls under empty_truth={self.policies.empty_truth!r}: "
            f"NaN with 0 users evaluated under 'skip'). To use them, {fix}.",
            RelevanceThresholdWarning, stacklevel=_caller_level(),
        )

    @reusing_memory
    def pack(self, run: Any, *, user_col: str | None = None, item_col: str | None = None,
             score_col: str | None = None, rank_col: str | None = None,
             lists: bool = True) -> Packed:
        """The packed arrays of one run (what the kernels see), users chosen by the policy.

        ``lists=False`` leaves out the item and score at each position, which only metrics
        outside the ranking kernel need (it saves memory on large runs). Under
        ``ranks="position"`` / ``unretrieved="bottom"`` these are the rows as packed; the
        ranking kernel reads them laid out by :func:`receval.pack.positions.kernel_lists`.
        """
        codes = self._codes(run, user_col, item_col, score_col, rank_col)
        return self._pack(codes, self.policies, lists=lists)

    def _pack(self, codes: RunCodes, policies: Policies, *, lists: bool,
              only_truth: np.ndarray | None = None, scores: bool | None = None) -> Packed:
        """``scores``: keep the score at each position (default: with the lists)."""
        return pack_run(codes, self.truth, policies, depth=self.plan.depth,
                        keep_items=lists, keep_scores=lists if scores is None else scores,
                        cutoffs=self.plan.cutoffs, only_truth=only_truth)

    def _codes(self, run: Any, user_col: str | None, item_col: str | None,
               score_col: str | None, rank_col: str | None, defer: bool = False) -> RunCodes:
        if isinstance(run, RunCodes):
            return run
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
                            score_col=score_col, rank_col=rank_col, defer=defer)
        return run_codes(cols, self.truth)

    @reusing_memory
    def evaluate(self, run: Any, *, name: str | None = None, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rank_col: str | None = None) -> EvalResult:
        """Evaluate one run; see :func:`receval.evaluate` for the accepted containers.

        An object item column is checked to hold only ``str`` by the join that reads it (each
        object looked at once); where it does not, the run is read again with the check
        made first, as :meth:`evaluate_blocks` always reads its blocks."""
        try:
            return self._execute([run], True, name=name, user_col=user_col, item_col=item_col,
                                 score_col=score_col, rank_col=rank_col, defer=True)
        except NotStrIds:
            return self._execute([run], True, name=name, user_col=user_col, item_col=item_col,
                                 score_col=score_col, rank_col=rank_col)

    @reusing_memory
    def evaluate_blocks(self, blocks: Iterable[Any], *, name: str | None = None,
                        user_col: str | None = None, item_col: str | None = None,
                        score_col: str | None = None, rank_col: str | None = None,
                        progress: Callable[[int], None] | None = None) -> EvalResult:
        """Evaluate a run given as blocks of whole users (any container :meth:`evaluate` takes).

        Each user's rows must all be in one block. The result equals :meth:`evaluate` on the
        concatenated blocks, bit for bit: the same per-user values in the same row order, the
        same counts, and summaries from the same exact aggregator
        (:mod:`receval.engines.aggregate`). Truth users that no block holds are evaluated at
        the end with an empty list (``users="truth"`` / ``"union"``). Metrics with a global,
        non-mergeable value (catalogue metrics) need the whole run at once and raise here.
        ``progress(rows_done)`` is called after each block.
        """
        return self._execute(blocks, False, name=name, user_col=user_col, item_col=item_col,
                             score_col=score_col, rank_col=rank_col, progress=progress)

    def _execute(self, blocks: Iterable[Any], whole: bool, *, name: str | None,
                 user_col: str | None, item_col: str | None, score_col: str | None,
                 rank_col: str | None,
                 progress: Callable[[int], None] | None = None,
                 defer: bool = False) -> EvalResult:
        """The block executor: pack + kernel per block, merge states, order rows canonically.

        ``whole``: the only block is the whole run; it is packed with the ``users`` policy
        itself (plugin metrics then see every evaluated user at once). ``defer``: an object
        item column's check is left to the join (:class:`receval.io.frames.UncheckedIds`),
        which raises :class:`receval.kernels.NotStrIds` where it fails, and categorical
        columns' codes to their readers (:attr:`receval.io.frames.Columns.unchecked`: the
        grouping of the users, the join of the items, which raises the same).
        """
        t0 = time.perf_counter()
        acc = _Accumulator(self, whole)
        parts = {n: _Accumulator(ev, whole) for n, ev in self.slices.items()}
        for block in blocks:
            codes = self._codes(block, user_col, item_col, score_col, rank_col, defer)
            acc.feed(codes)
            for part in parts.values():
                part.feed(codes)
            if progress is not None:
                progress(acc.totals.counts["run_rows"])
        res = acc.result(name, t0)
        res.slices = {n: part.result(name, t0) for n, part in parts.items()}
        for n, ev in self.slices.items():
            if ev.compat is not None:
                annotate_preset(res.slices[n], *ev.compat)
        return annotate_preset(res, *self.compat) if self.compat is not None else res


class _Accumulator:
    """Per-block outputs collected into one result: rows in canonical order and the
    blocks' :class:`~receval.engines.totals.Totals`.

    ``whole``: the only block is the whole run, packed with the ``users`` policy itself;
    otherwise blocks are narrowed to their own users and the truth users no block holds are
    evaluated by :meth:`result` (with an empty list, ``users="truth"`` / ``"union"``). Two
    accumulators of one :class:`Evaluator` over disjoint users combine with :meth:`merge`;
    :meth:`result` leaves the accumulator as it was, so that it can be fed further.
    """

    def __init__(self, ev: Evaluator, whole: bool = False) -> None:
        self.ev = ev
        self.whole = whole
        self.seen_truth = np.zeros(ev.truth.n_users, dtype=bool)
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.run_only: list[np.ndarray] = []
        self.totals = Totals()
        self.n_blocks = 0
        self.n_extra = 0
        self.n_rows = 0  # the rows of the parts so far
        # the per-user values of the first packed run, filled block by block in place (no
        # copy at the end when that run is the whole result)
        self.table: np.ndarray | None = None
        self.block_policies = ev.policies if whole else dataclasses.replace(
            ev.policies, users="run" if ev.policies.users in ("run", "union")
            else "intersection")
        self.groups = GroupTotals(ev.groups, ev.truth.users) if ev.groups is not None \
            else None
        self.items = ItemTotals(ev.item_k) if ev.per_item else None
        requests = ev.plan.requests(ev.truth.max_rel)
        # lists measured as they are joined (also when they are kept for other metrics)
        self.kernel = requests.arrays() if requests.items else None

    #: what the accumulator has measured: its state without the evaluator (the truth)
    STATE = ("seen_truth", "parts", "run_only", "totals", "n_blocks", "n_extra", "n_rows",
             "groups", "items")

    def state(self) -> dict[str, Any]:
        """The measured blocks (picklable; :meth:`restored` takes it back)."""
        return {key: getattr(self, key) for key in self.STATE}

    @classmethod
    def restored(cls, ev: Evaluator, state: dict[str, Any]) -> _Accumulator:
        """An accumulator of ``ev`` holding a :meth:`state` (copied: the two never share a
        list or an array they change)."""
        acc = cls(ev)
        acc.seen_truth = np.asarray(state["seen_truth"], dtype=bool).copy()
        acc.parts, acc.run_only = list(state["parts"]), list(state["run_only"])
        acc.totals = Totals().merge(state["totals"])
        acc.n_blocks, acc.n_extra, acc.n_rows = \
            state["n_blocks"], state["n_extra"], state["n_rows"]
        groups = state.get("groups")
        acc.groups = groups.copy() if groups is not None else None
        items = state.get("items")
        if items is not None:
            acc.items = ItemTotals(items.k, items.rel)
            acc.items.merge(items)
        return acc

    def feed(self, codes: RunCodes) -> None:
        """Pack one block of the run (its users' rows, all of them) and add its values."""
        ev = self.ev
        for packed in pack_run_blocks(
                codes, ev.truth, self.block_policies, depth=ev.plan.depth,
                keep_items=ev.plan.keep_lists, keep_scores=ev.plan.keep_scores,
                keep_rel=ev.plan.keep_rel, item_rows=ev.plan.keep_item_rows,
                item_vocab=ev.plan.item_vocab(ev.context), cutoffs=ev.plan.cutoffs,
                block_positions=BLOCK_POSITIONS, kernel=self.kernel):
            self.add(packed, evaluate_packed(packed, ev.plan, ev.context,
                                             out=self.rows_for(packed)), self.whole)

    def merge(self, other: _Accumulator) -> None:
        """Add the blocks of ``other`` (the same evaluator, other users) after this one's."""
        if other.ev is not self.ev:
            raise InputError("only accumulators of one evaluator (one truth, metrics and "
                             "policies) merge.")
        both = self.seen_truth & other.seen_truth
        if both.any():
            uid = self.ev.truth.users[int(np.flatnonzero(both)[0])]
            raise InputError(
                f"user {plain(uid)} is in both accumulators; each user's rows must be in one "
                "batch: merge accumulators of disjoint users."
            )
        self.seen_truth |= other.seen_truth
        n_truth = self.ev.truth.n_users
        for key, user_ids, values in other.parts:
            if self.n_extra and (key >= n_truth).any():
                key = np.where(key >= n_truth, key + self.n_extra, key)
            self.parts.append((key, user_ids, values))
        self.run_only += other.run_only
        self.totals = self.totals.merge(other.totals)
        if self.groups is not None and other.groups is not None:
            self.groups.merge(other.groups)
        if self.items is not None and other.items is not None:
            self.items.merge(other.items)
        self.n_blocks += other.n_blocks
        self.n_extra += other.n_extra
        self.n_rows += other.n_rows
        self.table = None  # rows from two tables: the result concatenates them

    def rows_for(self, packed: Packed) -> np.ndarray | None:
        """Where the block's per-user values go: its rows of the table of the first packed
        run (the blocks so far all came from that run and fill its rows up to this block's),
        or ``None`` (a new array) for any later run."""
        lo, total = packed.block_rows
        if lo == 0 and not self.parts and total:
            self.table = np.empty((total, len(self.ev.plan.specs)), dtype=np.float64)
        hi = lo + len(packed.user_ids)
        if self.table is None or self.n_rows != lo or hi > len(self.table):
            return None
        return self.table[lo:hi]

    def _check_whole_run_values(self, block: BlockValues) -> None:
        if block.overrides:
            keys = [self.ev.plan.specs[j].key for j in block.overrides]
            raise InputError(
                f"{keys}: these metrics have a value of the whole run (catalogue-wide, or pooled "
                "over every user's pairs) that needs the whole run at once; evaluate them "
                f"without blocks: {IN_MEMORY}."
            )

    def add(self, packed: Packed, block: BlockValues, whole: bool) -> None:
        self.n_blocks += 1
        if not whole:
            self._check_whole_run_values(block)
        t_idx = packed.truth_index
        extra = t_idx < 0
        n_extra = int(extra.sum())
        if not whole:  # (the blocks of one packed run never share a user)
            truth_rows = t_idx[~extra] if n_extra else t_idx
            if self.seen_truth[truth_rows].any():
                uid = self.ev.truth.users[truth_rows[self.seen_truth[truth_rows]][0]]
                raise InputError(
                    f"the rows of user {plain(uid)} are not contiguous (they are in two "
                    "blocks); each user's rows must be in one block: sort the run by user, or "
                    "evaluate it in memory."
                )
            self.seen_truth[truth_rows] = True
        # canonical row order: truth users in truth order, then run-only users as first seen
        key = t_idx
        if n_extra:
            key = t_idx.copy()
            key[extra] = self.ev.truth.n_users + self.n_extra + np.arange(n_extra)
            self.n_extra += n_extra
        self.parts.append((key, packed.user_ids, block.values))
        self.n_rows += len(block.values)
        self.run_only.append(packed.run_only)
        self.totals.add(packed, block, missing_from_run=whole)
        if self.groups is not None:
            self.groups.add(packed, block, self.ev.plan, self.ev.context, whole)
        if self.items is not None:
            self.items.add(packed)

    def result(self, name: str | None, t0: float) -> EvalResult:
        """The rows in canonical order, then :func:`build_result` (``t0``: start time). The
        truth users no block held are evaluated here (blocks narrowed to their users), into
        a copy: the accumulator itself is unchanged."""
        ev = self.ev
        parts, totals = list(self.parts), Totals().merge(self.totals)
        groups = self.groups.copy() if self.groups is not None else None
        items = None
        if self.items is not None:
            items = ItemTotals(self.items.k, self.items.rel)
            items.merge(self.items)
        n_blocks = self.n_blocks
        if not self.whole and ev.policies.users in ("truth", "union"):
            missing = np.flatnonzero(~self.seen_truth)
            if len(missing):
                packed = ev._pack(RunCodes.empty(ev.truth), ev.policies,
                                  lists=ev.plan.keep_lists, only_truth=missing,
                                  scores=ev.plan.keep_scores)
                block = evaluate_packed(packed, ev.plan, ev.context)
                self._check_whole_run_values(block)
                parts.append((packed.truth_index, packed.user_ids, block.values))
                totals.add(packed, block, missing_from_run=False)
                totals.counts["missing_from_run"] = int(len(missing))
                if groups is not None:
                    groups.add(packed, block, ev.plan, ev.context, False)
                if items is not None:
                    items.add(packed)
                n_blocks += 1
        totals.add_truth(ev.truth)
        if len(parts) == 1:
            key, user_ids, values = parts[0]
        else:
            key = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
            user_ids = np.concatenate([p[1] for p in parts]) if parts else ev.truth.users[:0]
            whole_table = self.table is not None and \
                sum(len(p[2]) for p in parts) == len(self.table) and \
                all(p[2].base is self.table for p in parts)
            values = self.table if whole_table else np.concatenate([p[2] for p in parts]) \
                if parts else np.zeros((0, len(ev.plan.specs)))
        if len(key) > 1 and not bool(np.all(key[1:] > key[:-1])):
            order = np.argsort(key, kind="stable")
            user_ids, values = user_ids[order], values[order]
        if len(parts) > 1 and ev.policies.users in ("run", "union"):
            extra_ids = user_ids[key >= ev.truth.n_users] if len(key) else user_ids
            if len(extra_ids) != len(unique_ids(extra_ids)):
                raise InputError(
                    "the rows of a run-only user are not contiguous (they are in two blocks); each "
                    "user's rows must be in one block: sort the run by user, or evaluate it in "
                    "memory."
                )
        run_only = unique_ids(np.concatenate(self.run_only)) if self.run_only else []
        if len(run_only) and ev.truth.n_users and not totals.counts["run_users_in_truth"]:
            _warn_no_common_users(ev.truth.users, run_only)
        totals.run_only = len(run_only)
        res = build_result(ev.plan, ev.policies, totals, user_ids, values,
                           relevance=ev.relevance_info(), name=name, t0=t0,
                           provenance={"blocks": n_blocks})
        if ev.weights is not None:
            w = user_weights(ev.weights, user_ids)
            res.stats = weighted_stats(ev.plan, totals, res.stats, values, w)
            res.info["weights"] = {"column": ev.weights.column, "users": int(len(w)),
                                   "total": float(np.sum(w)),
                                   "zero": int(np.count_nonzero(w == 0))}
        if groups is not None:
            res.group_stats = groups.rows(ev.plan)
            res.group_of = group_labels(groups, user_ids)
            res.info["groups"] = groups.info(user_ids)
        if items is not None:
            res.item_table = items.frame()
            res.info["per_item"] = {"k": items.k, "rel": items.rel}
            if ev.item_groups is not None:
                res.item_group_table = by_item_group(res.item_table, ev.item_groups)
        return res


def _warn_no_common_users(truth_users: np.ndarray, run_users: Any) -> None:
    import warnings

    def sample(ids: Any) -> str:
        return ", ".join(f"{plain(u)} ({type(_plain(u)).__name__})" for u in list(ids[:3]))

    warnings.warn(
        f"the run and the truth have no user in common (run: {sample(run_users)}, ...; truth: "
        f"{sample(truth_users)}, ...): every truth user is scored without a list. Check that "
        "the user ids have the same type and spelling in both.", NoCommonUsersWarning,
        stacklevel=user_stacklevel())


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _caller_level() -> int:
    """``stacklevel`` that points a warning at the first frame outside receval (the caller of
    ``rv.evaluate`` or ``rv.Evaluator``, however deep inside receval it was raised)."""
    import os
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # receval/
    frame, level = sys._getframe(2), 2  # level 1: the function that calls warnings.warn
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(pkg):
        frame, level = frame.f_back, level + 1
    return level


def _num(x: float) -> str:
    """A number as a user writes it: 1, 0.5 (not 1.0, np.float64(0.5))."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def _is_sparse(obj: Any) -> bool:
    """scipy.sparse matrix or array, without importing scipy (keeps start-up fast)."""
    return type(obj).__module__.startswith("scipy.sparse")


@reusing_memory
def evaluate_local(run: Any, truth: Any, metrics: Any, *, name: str | None = None,
                   user_col: str | None = None, item_col: str | None = None,
                   score_col: str | None = None, rank_col: str | None = None,
                   rel_col: str | None = None, **kwargs: Any) -> EvalResult:
    """:func:`receval.evaluate` on the local engine (the modules beneath the entry layer
    that evaluate in process call this)."""
    ev = Evaluator(truth, metrics, user_col=user_col, item_col=item_col, rel_col=rel_col,
                   **kwargs)
    return ev.evaluate(run, name=name, user_col=user_col, item_col=item_col,
                       score_col=score_col, rank_col=rank_col)
