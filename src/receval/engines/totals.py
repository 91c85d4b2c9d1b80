"""What the blocks of one evaluation add up to, and the one result builder of every executor.

The local block executor, the Spark tasks and the Spark driver all speak :class:`Totals`: a
block (or a bucket of users) becomes a ``Totals`` with :meth:`Totals.add`, totals of disjoint
sets of users combine with :meth:`Totals.merge` (exactly: the metric states are the exact
aggregator's, :mod:`receval.engines.aggregate`), and :func:`build_result` turns the totals
and the per-user rows into an :class:`~receval.results.EvalResult`. The count names of a
result are spelled here once.

The users of a result add up (``EvalResult.counts``, every executor, every policy and preset).
Write ``both`` for the run users with truth rows (``run_users - missing_from_truth``), always
evaluated; ``rows`` for the evaluated users (``len(result.user_ids)``)::

    truth_users = both + missing_from_run + truth_users_left_out
    run_users   = both + missing_from_truth
    rows        = truth_users - truth_users_left_out + missing_from_truth - run_users_left_out
    rows        = evaluated + skipped_no_relevant

``missing_from_run``: truth users without run rows that are evaluated, with an empty list
(``users="truth"`` / ``"union"``: they score 0); ``truth_users_left_out``: those the ``users``
policy leaves out (``"run"`` / ``"intersection"``). ``missing_from_truth``: run users without
truth rows, evaluated or not; ``run_users_left_out``: those of them the ``users`` policy leaves
out (``"truth"`` / ``"intersection"``). The evaluated truth users are counted as the blocks are
added, so the first line checks the executor, not a subtraction.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import EmptyRunWarning, user_stacklevel
from ..metrics import MetricSpec
from ..policies import Policies
from ..results import EvalResult
from .aggregate import MetricState
from .plan import Plan

#: the row counts every packed block reports (``Packed.counts``) and executors add up
SUMMED_COUNTS = ("run_rows", "dropped_nan_scores", "duplicates_removed", "users_tied_at_cutoff")
#: every count a :class:`Totals` carries: the summed row counts, the truth users packed
#: without a list, the run users that have truth, and the evaluated truth users
TOTAL_COUNTS = (*SUMMED_COUNTS, "missing_from_run", "run_users_in_truth",
                "truth_users_evaluated")
#: the counts of a result, in their fixed order (``EvalResult.counts``; how they add up: the
#: module docstring)
RESULT_COUNTS = ("truth_users", "run_users", "missing_from_run", "missing_from_truth",
                 "truth_users_left_out", "run_users_left_out",
                 "truth_rows", *SUMMED_COUNTS, "truth_duplicates", "skipped_no_relevant",
                 "evaluated")


@dataclass
class Totals:
    """Merged outputs of the blocks of one evaluation, whichever executor produced them.

    ``states``: one merged :class:`MetricState` per metric (None: no block yet);
    ``overrides``: global values that replace a metric's mean (catalogue-wide metrics);
    ``pooled``: mergeable pooled states whose ``value()`` replaces a metric's mean (the CTR
    metrics' exact sums over every row);
    ``global_only``: the columns whose value is global (no spread over users); ``info``: the
    metrics' extra facts (:func:`merge_info`); ``counts``: :data:`TOTAL_COUNTS`;
    ``run_only``: distinct run users without truth; ``truth_users`` / ``truth_rows`` /
    ``truth_duplicates``: the truth's sizes; ``n_users``: evaluated users (rows).
    """

    states: list[MetricState] | None = None
    overrides: dict[int, float] = field(default_factory=dict)
    pooled: dict[int, Any] = field(default_factory=dict)
    global_only: set[int] = field(default_factory=set)
    info: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOTAL_COUNTS, 0))
    run_only: int = 0
    truth_users: int = 0
    truth_rows: int = 0
    truth_duplicates: int = 0
    n_users: int = 0

    def add(self, packed: Any, block: Any, *, missing_from_run: bool = True) -> None:
        """Add one packed block (:class:`~receval.pack.Packed`) and its values
        (:class:`~receval.engines.local.BlockValues`). ``missing_from_run``: whether the
        block's count of truth users without a list is final (a block packed with the
        ``users`` policy itself); blocks narrowed to their own users leave it to the
        executor."""
        for name in SUMMED_COUNTS:
            self.counts[name] += int(packed.counts.get(name, 0))
        if missing_from_run:
            self.counts["missing_from_run"] += int(packed.counts.get("missing_from_run", 0))
        self.add_values(block, users=len(packed.user_ids),
                        run_users_in_truth=int(np.sum(packed.in_run & packed.in_truth)),
                        truth_users_evaluated=int(np.count_nonzero(packed.in_truth)))

    def add_values(self, block: Any, *, users: int, run_users_in_truth: int,
                   truth_users_evaluated: int) -> None:
        """Add the values of ``users`` evaluated users (:class:`BlockValues`), of which
        ``run_users_in_truth`` have run and truth rows and ``truth_users_evaluated`` truth
        rows (:meth:`add` without the row counts of a packed block)."""
        self.counts["run_users_in_truth"] += int(run_users_in_truth)
        self.counts["truth_users_evaluated"] += int(truth_users_evaluated)
        self.states = _merge_states(self.states, block.states)
        self.overrides.update(block.overrides)
        self.pooled = _merge_pooled(self.pooled, getattr(block, "pooled", {}))
        self.global_only |= set(block.global_only)
        self.info = merge_info([self.info, block.info])
        self.n_users += int(users)

    def add_truth(self, truth: Any) -> None:
        """Record the sizes of a packed truth (:class:`~receval.pack.TruthPack`)."""
        self.truth_users += int(truth.n_users)
        self.truth_rows += int(truth.n_rows)
        self.truth_duplicates += int(truth.counts.get("truth_duplicates", 0))

    def merge(self, other: Totals) -> Totals:
        """The totals of two disjoint sets of users (associative and exact)."""
        return Totals(
            states=_merge_states(self.states, other.states),
            overrides={**self.overrides, **other.overrides},
            pooled=_merge_pooled(self.pooled, other.pooled),
            global_only=self.global_only | other.global_only,
            info=merge_info([self.info, other.info]),
            counts={k: int(self.counts.get(k, 0)) + int(other.counts.get(k, 0))
                    for k in TOTAL_COUNTS},
            run_only=self.run_only + other.run_only,
            truth_users=self.truth_users + other.truth_users,
            truth_rows=self.truth_rows + other.truth_rows,
            truth_duplicates=self.truth_duplicates + other.truth_duplicates,
            n_users=self.n_users + other.n_users)


def _merge_states(a: list[MetricState] | None,
                  b: list[MetricState] | None) -> list[MetricState] | None:
    if a is None:
        return b
    if b is None:
        return a
    return [x.merge(y) for x, y in zip(a, b, strict=True)]


def merge_info(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-metric facts of disjoint blocks of users, merged: an integer fact is a count of
    users or positions and adds up, except a size of the whole input (a key starting with
    ``n_``, such as ``n_items``), which every block reports alike; any other fact is the
    same in every block and kept as first seen."""
    out: dict[str, Any] = {}
    for info in infos:
        for key, facts in info.items():
            cur = out.setdefault(key, {})
            for k, v in facts.items():
                if k in cur and isinstance(v, (int, np.integer)) and not isinstance(v, bool) \
                        and not k.startswith("n_"):
                    cur[k] = int(cur[k]) + int(v)
                else:
                    cur.setdefault(k, v)
    return out


def relevance_info(truth_columns: dict[str, str | None], max_rel: float,
                   plan: Plan) -> dict[str, Any]:
    """``result.info["relevance"]`` of any executor: the truth columns read, the truth's
    largest relevance and each metric's binary threshold (or ``"graded"``)."""
    return {"truth_columns": dict(truth_columns), "max": float(max_rel),
            "thresholds": plan.relevance()}


def user_counts(specs: list[MetricSpec], stats: list[dict[str, Any]],
                n_users: int) -> dict[str, int]:
    """``skipped_no_relevant`` and ``evaluated`` of a result: the users that the ranking
    metrics skip for having no relevant item (the most any ranking metric skips; plugin
    metrics report their own skips in ``stats``), and the others."""
    skipped = max((row["skipped"] for s, row in zip(specs, stats, strict=True)
                   if s.definition.kernel is not None), default=0)
    return {"skipped_no_relevant": int(skipped), "evaluated": int(n_users - skipped)}


def summary_rows(plan: Plan, totals: Totals) -> list[dict[str, Any]]:
    """``metric, mean, std, se, n, skipped`` of each spec from merged totals: the exact
    aggregator's summary, a pooled or catalogue-wide value where the metric has one (no spread
    over users: std and se NaN, n the evaluated users). A pooled state's facts join
    ``totals.info``."""
    stats = []
    for j, s in enumerate(plan.specs):
        value = totals.pooled[j].value() if j in totals.pooled else totals.overrides.get(j)
        if j in totals.pooled and hasattr(totals.pooled[j], "info"):
            totals.info[s.key] = {**totals.info.get(s.key, {}), **totals.pooled[j].info()}
        row = (totals.states[j] if totals.states else MetricState()).summary(
            s.key, value, s.summary)
        if j in totals.global_only:  # a catalogue-wide value: no spread over users
            row.update(std=float("nan"), se=float("nan"), n=int(totals.n_users))
        stats.append(row)
    return stats


def build_result(plan: Plan, policies: Policies, totals: Totals, user_ids: np.ndarray,
                 values: np.ndarray, *, relevance: dict[str, Any], name: str | None,
                 t0: float, provenance: dict[str, Any] | None = None) -> EvalResult:
    """The one place where an :class:`EvalResult` is assembled from merged block outputs.

    Summaries come from the merged states (a catalogue-wide value has no spread: std and se
    NaN, n the evaluated users), the counts in :data:`RESULT_COUNTS` order, ``info`` with the
    truth's relevance facts, and the provenance (version, seconds since ``t0``, depth, then
    the executor's own ``provenance``).
    """
    specs = plan.specs
    stats = summary_rows(plan, totals)
    c = totals.counts
    run_only_evaluated = int(totals.n_users) - int(c["truth_users_evaluated"])
    counts = {
        "truth_users": int(totals.truth_users),
        "run_users": int(c["run_users_in_truth"] + totals.run_only),
        "missing_from_run": int(c["missing_from_run"]),
        "missing_from_truth": int(totals.run_only),
        "truth_users_left_out": int(totals.truth_users) - int(c["truth_users_evaluated"]),
        "run_users_left_out": int(totals.run_only) - run_only_evaluated,
        "truth_rows": int(totals.truth_rows),
        **{k: int(c[k]) for k in SUMMED_COUNTS},
        "truth_duplicates": int(totals.truth_duplicates),
        **user_counts(specs, stats, int(totals.n_users)),
    }
    assert tuple(counts) == RESULT_COUNTS
    if counts["run_rows"] == 0 and counts["truth_users"]:
        _warn_empty_run(counts)
    info = {**totals.info, "relevance": relevance}
    prov = {"receval": __version__, "seconds": time.perf_counter() - t0, "depth": plan.depth,
            **(provenance or {})}
    return EvalResult(
        metrics=[s.key for s in specs], user_ids=user_ids, values=values, stats=stats,
        counts=counts, policies=policies.to_dict(), info=info, name=name, provenance=prov,
    )


def _warn_empty_run(counts: dict[str, int]) -> None:
    """A run without a row is evaluated, not refused (a system may recommend nothing), but
    never silently: every truth user is without a list. The command line refuses an empty
    run file instead, where an empty file is more likely a wrong path than a result."""
    warnings.warn(
        f"the run has no rows: none of the {counts['truth_users']} truth user(s) has a list "
        f"({counts['missing_from_run']} evaluated with an empty list and scored 0, "
        f"{counts['truth_users_left_out']} left out by the users policy). Check the run (or "
        "its path and filters).", EmptyRunWarning, stacklevel=user_stacklevel())


def _merge_pooled(a: dict[int, Any], b: dict[int, Any]) -> dict[int, Any]:
    """The pooled states of two disjoint sets of users, column by column."""
    if not b:
        return dict(a)
    out = dict(a)
    for j, state in b.items():
        out[j] = out[j].merge(state) if j in out else state
    return out
