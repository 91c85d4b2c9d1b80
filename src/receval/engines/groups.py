"""Results per user group (``groups=``): each group's summaries as if evaluated alone.

Each packed block is narrowed to the users of each group (:func:`receval.pack.subsets.take_users`)
and measured again from the kernel's output of the whole block (the kernel is not run twice;
metrics on the recommended items, such as coverage, are computed on the group's lists alone).
One :class:`~receval.engines.totals.Totals` per group merges its blocks with the same exact
aggregator as the whole evaluation, so a group's summary is the same bits whatever the blocks,
and the same as evaluating that group's users alone (same truth, catalogue and training data).

A group's row (:data:`GROUP_FIELDS`): the summary (``mean, std, se, n, skipped``) and the
group's ``users`` (evaluated rows) and ``missing_from_run`` (truth users of the group scored
without a list). Evaluated users without a group are in no group; they are counted
(``info["groups"]["ungrouped"]``), never dropped from the whole result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..io.groups import Membership
from ..kernels import column_states
from ..pack import Packed
from ..pack.subsets import take_users
from ..pack.vocab import lookup
from .aggregate import MetricState
from .local import BlockValues, evaluate_packed
from .plan import Plan
from .plugins import Context
from .totals import Totals, summary_rows

#: the fields of one row of ``EvalResult.group_stats``
GROUP_FIELDS = ("group", "metric", "mean", "std", "se", "n", "skipped", "users",
                "missing_from_run")


class GroupTotals:
    """One :class:`Totals` per group of a :class:`Membership`, fed block by block."""

    def __init__(self, membership: Membership, truth_users: np.ndarray | None = None) -> None:
        self.membership = membership
        #: the group code of each truth user (looked up once: a block reads its users' codes
        #: by their truth rows)
        self.truth_codes = self._lookup(truth_users) if truth_users is not None else None
        self.totals = [Totals() for _ in membership.labels]
        self.missing = [0] * membership.n_groups
        self.seen = [False] * membership.n_groups

    def _lookup(self, user_ids: np.ndarray) -> np.ndarray:
        m = self.membership
        found = lookup(np.asarray(user_ids), m.users) if len(user_ids) else \
            np.zeros(0, dtype=np.int64)
        return np.where(found >= 0, m.codes[np.maximum(found, 0)], -1).astype(np.int64)

    def codes_of(self, user_ids: np.ndarray, truth_index: np.ndarray | None = None
                 ) -> np.ndarray:
        """The group code of each user (-1: no group); ``truth_index``: each user's truth row
        (-1: a run-only user), when known."""
        if self.truth_codes is None or truth_index is None \
                or len(truth_index) != len(user_ids):
            return self._lookup(user_ids)
        codes = self.truth_codes[np.maximum(truth_index, 0)] if len(truth_index) else \
            np.zeros(0, dtype=np.int64)
        extra = truth_index < 0
        if extra.any():
            codes = codes.copy()
            codes[extra] = self._lookup(np.asarray(user_ids)[extra])
        return codes

    def add(self, packed: Packed, block: BlockValues, plan: Plan, context: Context,
            whole: bool) -> None:
        """Add one packed block measured as ``block``: each group's users, measured alone."""
        codes = self.codes_of(packed.user_ids, packed.truth_index)
        n_groups = self.membership.n_groups
        if not plan.plugin_specs and block.status is not None and \
                not plan.requests(packed.max_rel).micro_column:
            self._add_direct(packed, block, codes)
            return
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
        for g in range(n_groups):
            rows = np.sort(order[bounds[g]:bounds[g + 1]])
            if not len(rows) and self.seen[g]:
                continue
            # a group's first block is measured even without its users: a group with no
            # evaluated user has the values of an evaluation without users (coverage 0)
            self.seen[g] = True
            sub = take_users(packed, rows, block.kernel_out)
            values = evaluate_packed(sub, plan, context)
            self.totals[g].add(sub, values, missing_from_run=whole)
            self.missing[g] += int(sub.counts["missing_from_run"])

    def _add_direct(self, packed: Packed, block: BlockValues, codes: np.ndarray) -> None:
        """Every metric a kernel metric averaged over users: each group's states from the
        block's values and statuses, in one compiled pass (no list is measured again)."""
        n_groups = self.membership.n_groups
        assert block.status is not None
        n, skipped, nan, nonfinite, totals, squares = column_states(
            block.values, block.status, codes, n_groups)
        inside = codes >= 0
        count = np.bincount(codes[inside], minlength=n_groups)
        both = np.bincount(codes[inside & packed.in_run & packed.in_truth], minlength=n_groups)
        truth = np.bincount(codes[inside & packed.in_truth], minlength=n_groups)
        listless = np.bincount(codes[inside & packed.in_truth & ~packed.in_run],
                               minlength=n_groups)
        for g in range(n_groups):
            states = [MetricState(n=int(n[g, j]), skipped=int(skipped[g, j]),
                                  nan=int(nan[g, j]), total=totals[g][j], squares=squares[g][j],
                                  nonfinite=float(nonfinite[g, j]))
                      for j in range(block.values.shape[1])]
            self.totals[g].add_values(BlockValues(block.values[:0], states), users=count[g],
                                      run_users_in_truth=both[g], truth_users_evaluated=truth[g])
            self.missing[g] += int(listless[g])
            self.seen[g] = True

    def copy(self) -> GroupTotals:
        out = GroupTotals(self.membership)
        out.truth_codes = self.truth_codes
        out.totals = [Totals().merge(t) for t in self.totals]
        out.missing = list(self.missing)
        out.seen = list(self.seen)
        return out

    def merge(self, other: GroupTotals) -> None:
        """Add the groups of ``other`` (the same membership, other users)."""
        self.totals = [a.merge(b) for a, b in zip(self.totals, other.totals, strict=True)]
        self.missing = [a + b for a, b in zip(self.missing, other.missing, strict=True)]
        self.seen = [a or b for a, b in zip(self.seen, other.seen, strict=True)]

    def rows(self, plan: Plan) -> list[dict[str, Any]]:
        """One row per group and metric (:data:`GROUP_FIELDS`), groups in label order."""
        out = []
        for g, label in enumerate(self.membership.labels):
            totals = self.totals[g]
            for row in summary_rows(plan, totals):
                out.append({"group": label, **row, "users": int(totals.n_users),
                            "missing_from_run": int(self.missing[g])})
        return out

    def info(self, user_ids: np.ndarray) -> dict[str, Any]:
        """``info["groups"]``: the columns and labels read, the users of each group, the
        evaluated users without a group and the listed users not evaluated."""
        codes = self.codes_of(user_ids)
        listed = len(self.membership.users)
        return {**self.membership.describe(),
                "sizes": {label: int(t.n_users)
                          for label, t in zip(self.membership.labels, self.totals, strict=True)},
                "ungrouped": int(np.count_nonzero(codes < 0)),
                "listed_not_evaluated": int(listed - np.count_nonzero(codes >= 0))}


def group_labels(group_totals: GroupTotals, user_ids: np.ndarray) -> np.ndarray:
    """Each evaluated user's group label (None: no group), row order of ``user_ids``."""
    codes = group_totals.codes_of(user_ids)
    labels = np.empty(len(codes), dtype=object)
    names = np.asarray(group_totals.membership.labels + (None,), dtype=object)
    labels[:] = names[codes]  # code -1 reads the trailing None
    return labels
