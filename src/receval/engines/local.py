"""The local engine: run the compiled kernel (and plugin metrics) over one packed block of users.

:func:`evaluate_packed` is the per-block step every executor shares: kernel requests from the
:class:`~receval.engines.plan.Plan`, the empty-truth policy, and each user's status for the
aggregator (:mod:`receval.engines.aggregate`). It names no metric: what differs between metric
families comes from their :class:`~receval.metrics.spec.Kernel` binding.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import PolicyError, plain
from ..kernels import compute_metrics
from ..pack import Packed
from ..pack.positions import kernel_lists, rank_view
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


def run_kernel(packed: Packed, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The kernel's (users x requests) output for one packed block."""
    return compute_metrics(packed.indptr, packed.rel, packed.judged, packed.grp_end,
                           packed.list_len, packed.t_indptr, packed.t_rel_desc, **arrays)


def condense(packed: Packed) -> Packed:
    """The packed lists without their unjudged items (the ``unjudged="remove"`` policy).

    Sakai's condensed lists (SIGIR 2007; ir_measures ``judged_only``, trec_eval ``-J``): every
    recommended item without a truth row is removed, and the judged items move up. Packing
    keeps whole lists under this policy (the plan's depth is 0), so nothing judged is lost to a
    cutoff; tie groups are recomputed on the condensed lists.
    """
    keep = packed.judged == 1
    if keep.all():
        return packed
    seg = np.repeat(np.arange(len(packed.user_ids)), np.diff(packed.indptr))
    lens = np.bincount(seg[keep], minlength=len(packed.user_ids)).astype(np.int64)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    scores = packed.scores[keep] if len(packed.scores) else packed.scores
    grp_end = packed.grp_end
    if len(grp_end):
        from ..pack.packed import _group_ends

        grp_end = _group_ends(indptr, scores)
    return dataclasses.replace(
        packed, indptr=indptr, rel=packed.rel[keep], judged=packed.judged[keep],
        items=packed.items[keep] if len(packed.items) else packed.items, scores=scores,
        list_len=lens, grp_end=grp_end)


def evaluate_packed(packed: Packed, plan: Plan, context: Context) -> BlockValues:
    """Per-user values and summary states of every spec of ``plan`` for one packed block."""
    if plan.policies.unjudged == "remove":
        packed = condense(packed)
    n_users = len(packed.user_ids)
    requests = plan.requests(packed.max_rel)
    lists = kernel_lists(packed, plan.depth, plan.policies.ties)
    out = run_kernel(lists, requests.arrays()) if requests.items and n_users \
        else np.zeros((n_users, len(requests.items)))
    empty_truth = plan.policies.empty_truth
    values = np.empty((n_users, len(plan.specs)), dtype=np.float64)
    states: list[MetricState] = []
    overrides: dict[int, float] = {}
    global_only: set[int] = set()
    info: dict[str, Any] = {}
    for j, s in enumerate(plan.specs):
        binding = s.definition.kernel
        if binding is None:
            # metrics on the recommended items: the rows with rank <= k under absolute
            # ranks, never a placeholder or an appended unretrieved item
            mv: MetricValues = s.definition.compute(
                s, rank_view(packed, s.k) if packed.absolute_ranks else packed, context)
            col = mv.per_user if mv.per_user is not None else np.full(n_users, np.nan)
            status = np.where(np.isnan(col), NO_VALUE, IN).astype(np.int8)
            if mv.skipped is not None:
                status[mv.skipped] = SKIPPED  # left out by the metric's rule: counted
            if mv.per_user is None:
                status[:] = IN
                overrides[j] = float(mv.value)
                global_only.add(j)
            elif mv.value is not None:
                overrides[j] = float(mv.value)
            if mv.info:
                info[s.key] = mv.info
            values[:, j] = col
            states.append(MetricState.of(col if mv.per_user is not None
                                         else np.zeros(n_users), status, mv.num, mv.den))
            continue
        col = out[:, requests.column[s]].copy()
        no_rel = out[:, requests.nrel_column[threshold(s)]] <= 0
        n_empty = int(no_rel.sum())
        if n_empty and empty_truth == "error":
            uid = packed.user_ids[np.flatnonzero(no_rel)[0]]
            raise PolicyError(
                f"{n_empty} user(s) have no relevant truth item for {s.key} (e.g. user "
                f"{plain(uid)}); empty_truth='error' forbids that. Use empty_truth='skip' "
                "(default), 'zero' or 'nan'."
            )
        status = np.full(n_users, IN, dtype=np.int8)
        if empty_truth == "zero":
            if binding.undefined_without_hit:
                col[no_rel] = np.nan
            elif not binding.count:
                col[no_rel] = 0.0  # counts keep their true value (trec_eval num_ret)
        else:
            col[no_rel] = np.nan
            if empty_truth == "skip":
                status[no_rel] = SKIPPED
        if binding.undefined_without_hit:
            status[np.isnan(col) & (status == IN)] = NO_VALUE
        values[:, j] = col
        num = den = None
        if s in requests.micro_column:
            c = requests.micro_column[s]
            num, den = out[:, c], out[:, c + 1]
        states.append(MetricState.of(col, status, num, den))
    return BlockValues(values, states, overrides, global_only, info)
