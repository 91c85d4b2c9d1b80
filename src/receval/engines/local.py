"""The local engine: run the compiled kernel (and plugin metrics) over one packed block of users.

:func:`evaluate_packed` is the per-block step every executor shares: kernel requests from the
:class:`~receval.engines.plan.Plan`, the empty-truth policy, and each user's status for the
aggregator (:mod:`receval.engines.aggregate`). It names no metric: what differs between metric
families comes from their :class:`~receval.metrics.spec.Kernel` binding; and it reads no
policy: the lists come laid out by :mod:`receval.pack.positions`, the kernel's flags from the
plan's :class:`~receval.pack.options.KernelOptions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import PolicyError, plain
from ..kernels import column_states, compute_metrics, kernel_columns
from ..metrics.catalogue import check_catalogue
from ..pack import Packed
from ..pack.positions import kernel_lists, metric_lists, slot_ranks, top_rows
from .aggregate import IN, NO_VALUE, SKIPPED, MetricState
from .plan import Plan, threshold
from .plugins import Context, MetricValues


@dataclass
class BlockValues:
    """Per-user values of one block and its mergeable summary states (one per spec)."""

    values: np.ndarray                      # users x specs
    states: list[MetricState]
    overrides: dict[int, float] = field(default_factory=dict)  # spec column -> global value
    global_only: set[int] = field(default_factory=set)  # columns with no per-user values
    info: dict[str, Any] = field(default_factory=dict)
    pooled: dict[int, Any] = field(default_factory=dict)  # spec column -> mergeable pooled state
    kernel_out: np.ndarray | None = None    # the kernel's (users x requests) output
    status: np.ndarray | None = None        # int8 users x specs: each value's aggregator status


def run_kernel(packed: Packed, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The kernel's (users x requests) output for one packed block."""
    return compute_metrics(packed.indptr, packed.rel, packed.judged, packed.grp_end,
                           packed.list_len, packed.t_indptr, packed.t_rel_desc,
                           slot_rank=slot_ranks(packed), **arrays)


def evaluate_packed(packed: Packed, plan: Plan, context: Context,
                    out: np.ndarray | None = None) -> BlockValues:
    """Per-user values and summary states of every spec of ``plan`` for one packed block.

    ``out``: a C-contiguous (users x specs) float64 array to hold the per-user values (the
    block's rows of a table the executor fills block by block), else a new one."""
    packed = metric_lists(packed)
    n_users = len(packed.user_ids)
    requests = plan.requests(packed.max_rel)
    if packed.kernel_out is not None:  # measured as the lists were joined
        kernel_out = packed.kernel_out
    elif requests.items and n_users:
        kernel_out = run_kernel(kernel_lists(packed, plan.strict_order, plan.rank_depth),
                                requests.arrays())
    else:
        kernel_out = np.zeros((n_users, len(requests.items)))
    values = np.empty((n_users, len(plan.specs)), dtype=np.float64) if out is None else out
    states: list[MetricState | None] = [None] * len(plan.specs)
    block = BlockValues(values, [], {}, set(), {}, kernel_out=kernel_out,
                        status=np.empty((n_users, len(plan.specs)), dtype=np.int8))
    kernel = [j for j, s in enumerate(plan.specs) if s.definition.kernel is not None]
    if kernel:
        _kernel_columns(kernel_out, requests, plan, packed, kernel, block, states)
    plugins = [j for j, s in enumerate(plan.specs) if s.definition.kernel is None]
    if plugins:
        _plugin_columns(plugins, plan, packed, context, block, states)
    block.states = [st for st in states if st is not None]
    return block


def _kernel_columns(out: np.ndarray, requests: Any, plan: Plan, packed: Packed,
                    cols: list[int], block: BlockValues,
                    states: list[MetricState | None]) -> None:
    """The kernel's specs (``cols`` of ``plan.specs``), all at once: the empty-truth policy,
    each user's status, and the summary states (one compiled pass over the block)."""
    specs = [plan.specs[j] for j in cols]
    for s, c in requests.catalogue_column.items():  # a catalogue size holds every user's list
        n_items = requests.items[requests.column[s]].par
        listed, unlisted, what = s.definition.kernel.catalogue(
            s, out[:, c], out[:, c + 1], out[:, requests.nrel_column[threshold(s)]])
        size = int(n_items) if float(n_items).is_integer() else n_items
        check_catalogue(s.key, f"n_items={plain(size)}", n_items, listed, unlisted,
                        packed.user_ids, what)
    # a range of the table's columns (every spec, or the kernel's specs listed together, the
    # usual case) is filled in place, through a view; other columns through a copy
    n_users = out.shape[0]
    span = cols == list(range(cols[0], cols[0] + len(cols)))
    vals = block.values[:, cols[0]:cols[0] + len(cols)] if span else \
        np.empty((n_users, len(specs)), dtype=np.float64)
    status = block.status[:, cols[0]:cols[0] + len(cols)] \
        if span and block.status is not None else np.empty(vals.shape, dtype=np.int8)
    opts = plan.options
    # one compiled pass: each spec's column, its users without a relevant item (per its
    # threshold) under the empty-truth policy, and each user's status
    no_rel = kernel_columns(
        out, np.array([requests.column[s] for s in specs], dtype=np.int64),
        np.array([requests.nrel_column[threshold(s)] for s in specs], dtype=np.int64),
        np.array([s.definition.kernel.undefined_without_hit for s in specs], dtype=np.int8),
        np.array([s.definition.kernel.count for s in specs], dtype=np.int8),
        opts.empty_zero, opts.empty_skip, SKIPPED, NO_VALUE, vals, status)
    if opts.empty_error and no_rel.any():
        k = int(np.flatnonzero(no_rel)[0])
        first = np.flatnonzero(out[:, requests.nrel_column[threshold(specs[k])]] <= 0)[0]
        raise PolicyError(
            f"{int(no_rel[k])} user(s) have no relevant truth item for {specs[k].key} "
            f"(e.g. user {plain(packed.user_ids[first])}); empty_truth='error' forbids that. "
            "Use empty_truth='skip' (default), 'zero' or 'nan'."
        )
    if not span:
        block.values[:, cols] = vals
        if block.status is not None:
            block.status[:, cols] = status
    kept = column_metric_states(vals, status)
    for k, (j, s) in enumerate(zip(cols, specs, strict=True)):
        states[j] = kept[k]
        if s in requests.micro_column:
            c = requests.micro_column[s]
            states[j] = MetricState.of(vals[:, k], status[:, k], out[:, c], out[:, c + 1])


def column_metric_states(vals: np.ndarray, status: np.ndarray) -> list[MetricState]:
    """The summary state of each column of a (users x metrics) block of values and their
    aggregator statuses, any strides (one compiled pass: :func:`receval.kernels.column_states`)."""
    n, skipped, nan, nonfinite, totals, squares = column_states(vals, status)
    return [MetricState(n=int(n[k]), skipped=int(skipped[k]), nan=int(nan[k]),
                        total=totals[k], squares=squares[k], nonfinite=float(nonfinite[k]))
            for k in range(vals.shape[1])]


#: rows of the table written at a time when the plugin columns are filled together (their
#: rows, a few MB, stay in cache while each column is written into them)
FILL_ROWS = 1 << 14


def _statuses(values: np.ndarray) -> np.ndarray:
    """The aggregator status of each user's value of a plugin metric: no value where NaN."""
    return np.where(np.isnan(values), NO_VALUE, IN).astype(np.int8)


def _plugin_columns(cols: list[int], plan: Plan, packed: Packed, context: Context,
                    block: BlockValues, states: list[MetricState | None]) -> None:
    """The metrics computed on the recommended items (no kernel binding; ``cols`` of
    ``plan.specs``): their columns of the table, each user's status and the summary states.

    Under absolute ranks each sees the rows with rank <= k, never a placeholder or an
    appended unretrieved item. Columns that form a range of the table are written together,
    a few thousand rows at a time (a column written alone into a wide table touches every
    row's cache line once per column), and summarised together by one compiled pass over
    that range (:func:`column_metric_states`); a micro-averaged metric's state also adds its
    numerators and denominators, and a global value's takes every user with 0.0
    (:meth:`MetricState.of`)."""
    n_users = len(packed.user_ids)
    columns, skipped, micro = [], {}, {}
    for j in cols:
        s = plan.specs[j]
        mv: MetricValues = s.definition.compute(s, top_rows(packed, s.k), context)
        if mv.per_user is None:  # a global value only: no value per user in the table; in
            col = np.full(n_users, np.nan)  # the state, every user enters with 0.0
            block.overrides[j] = float(mv.value)
            block.global_only.add(j)
        else:
            col = np.asarray(mv.per_user, dtype=np.float64)
            if mv.pooled is not None:  # a pooled value that blocks merge: no override
                block.pooled[j] = mv.pooled
            elif mv.value is not None:
                block.overrides[j] = float(mv.value)
            if mv.skipped is not None:
                skipped[j] = mv.skipped
        if mv.info:
            block.info[s.key] = mv.info
        if mv.num is not None and mv.den is not None:
            micro[j] = (mv.num, mv.den)
        columns.append((j, col, mv.per_user is not None))
    span = cols == list(range(cols[0], cols[0] + len(cols))) and block.status is not None
    for lo in range(0, n_users, FILL_ROWS) if span else ():
        hi = min(lo + FILL_ROWS, n_users)
        vals = block.values[lo:hi]
        status = block.status[lo:hi]  # type: ignore[index]
        for j, col, valued in columns:
            vals[:, j] = col[lo:hi]
            status[:, j] = _statuses(col[lo:hi]) if valued else IN
    for j, col, valued in columns:
        status_j = block.status[:, j] if span else _statuses(col) if valued \
            else np.full(n_users, IN, dtype=np.int8)
        if j in skipped:
            status_j[skipped[j]] = SKIPPED  # left out by the metric's rule: counted
        if not span:
            block.values[:, j] = col
            if block.status is not None:
                block.status[:, j] = status_j
        if not span or j in micro or not valued:
            states[j] = MetricState.of(col if valued else np.zeros(n_users), status_j,
                                       *micro.get(j, (None, None)))
    if span:
        a, b = cols[0], cols[-1] + 1
        for k, state in enumerate(column_metric_states(block.values[:, a:b],
                                                       block.status[:, a:b])):  # type: ignore[index]
            if states[a + k] is None:
                states[a + k] = state
