"""Every policy combination and every library preset: the users of a result add up, and a user
without a list never scores above an empty list.

The identity (:mod:`receval.engines.totals`), checked against the sets of users read off the
frames (``T`` truth users, ``R`` run users)::

    truth_users = |T|,  run_users = |R|,  missing_from_truth = |R - T|
    missing_from_run + truth_users_left_out = |T - R|   (split by the users policy)
    rows = |T & R| + missing_from_run + missing_from_truth - run_users_left_out
         = evaluated + skipped_no_relevant

in memory and in blocks alike. A truth user without a list is scored by the ``users`` policy
whatever the other policies: nothing is appended below its (empty) list, and on every kernel
metric of the registry (every parameter choice) where higher is better it scores no more than
0, or than the same user given a list of items without a truth row (``idcg`` reads the truth
alone; ``mcc`` counts k empty slots as false positives).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from cases import exact_under_average, metric_cases
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import receval as rv
from receval.compat import PRESETS
from receval.engines.plan import Plan
from receval.errors import MetricError, NoCommonUsersWarning, PolicyError, RecevalWarning
from receval.metrics import parse_metric
from receval.policies import POLICY_TABLE, Policies

METRICS = metric_cases(cutoffs=(3,))
AVERAGE = [m for m in METRICS if exact_under_average(m)]
#: items no truth row holds: the lists of the reference run
JUNK = list(range(100, 106))

#: a full policy combination from the table, or a preset (with its own policies)
CONVENTIONS = st.one_of(
    st.fixed_dictionaries({n: st.sampled_from(p.values) for n, p in POLICY_TABLE.items()}),
    st.sampled_from(sorted(PRESETS)).map(lambda name: {"compat": name}))


@st.composite
def frames(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    truth_users = rng.choice(8, size=int(rng.integers(1, 7)), replace=False)
    run_users = rng.choice(8, size=int(rng.integers(0, 7)), replace=False)
    truth = [(int(u), int(i), int(rng.integers(0, 4)))
             for u in truth_users for i in rng.choice(10, int(rng.integers(1, 4)), replace=False)]
    rank_run = draw(st.booleans())
    run = []
    for u in run_users:
        items = rng.choice(10, int(rng.integers(1, 6)), replace=False)
        ranks = np.sort(rng.choice(np.arange(1, 9), len(items), replace=False))
        run += [(int(u), int(i), int(r) if rank_run else float(rng.integers(0, 3)))
                for i, r in zip(items, ranks, strict=True)]
    col = "rank" if rank_run else "score"
    kinds = {"user": "int64", "item": "int64", col: "int64" if rank_run else "float64"}
    return (pd.DataFrame(run, columns=list(kinds)).astype(kinds),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]), col)


def _metrics(conv: dict, pol: Policies) -> list[str]:
    """Every kernel metric case the conventions evaluate: exact under ``ties="average"``,
    and under a preset the names it resolves together (names asking for conflicting policies,
    such as recmetrics' ``precision`` and ``map``, are evaluated separately)."""
    keys = AVERAGE if pol.ties == "average" else METRICS
    if "compat" not in conv:
        return keys
    out = []
    for key in keys:
        try:  # a name the preset refuses, or one whose policy conflicts with those kept
            rv.compat.resolve(conv["compat"], [*out, key])
        except MetricError:
            continue
        out.append(key)
    return out


def _policies(conv: dict) -> Policies:
    if "compat" in conv:
        return Policies(**dict(PRESETS[conv["compat"]].policies))
    return Policies(**conv)


def _evaluate(run, truth, metrics, conv):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", RecevalWarning)
        res = rv.evaluate(run, truth, metrics, **conv)
    return res, [w for w in seen if issubclass(w.category, RecevalWarning)]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=frames(), conv=CONVENTIONS)
def test_counts_add_up_and_no_list_scores_nothing(data, conv):
    run, truth, col = data
    try:
        pol = _policies(conv)
        metrics = _metrics(conv, pol)
        Plan([parse_metric(m) for m in metrics], pol)
    except PolicyError:  # a combination the policies refuse (ranks='position' with
        reject()         # unjudged='remove', ties='average' with duplicates='keep')
    try:
        res, seen = _evaluate(run, truth, metrics, conv)
    except PolicyError as e:  # a user without a relevant item, refused as asked
        assert pol.empty_truth == "error" and "empty_truth='error'" in str(e)
        reject()
    c = res.counts
    t_set, r_set = set(truth["user"]), set(run["user"])
    listless, run_only = t_set - r_set, r_set - t_set
    scored_listless = pol.users in ("truth", "union")
    scored_run_only = pol.users in ("run", "union")
    assert (c["truth_users"], c["run_users"]) == (len(t_set), len(r_set))
    assert c["missing_from_run"] == (len(listless) if scored_listless else 0)
    assert c["truth_users_left_out"] == (0 if scored_listless else len(listless))
    assert c["missing_from_truth"] == len(run_only)
    assert c["run_users_left_out"] == (0 if scored_run_only else len(run_only))
    rows = len(t_set & r_set) + c["missing_from_run"] + c["missing_from_truth"] \
        - c["run_users_left_out"]
    assert len(res.user_ids) == rows == c["evaluated"] + c["skipped_no_relevant"]
    assert set(res.user_ids.tolist()) == (t_set & r_set) | (listless if scored_listless else set()) \
        | (run_only if scored_run_only else set())
    empty = [w for w in seen if "the run has no rows" in str(w.message)]
    assert bool(empty) == (not len(run))
    assert all(issubclass(w.category, NoCommonUsersWarning) for w in empty)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecevalWarning)
        blocks = rv.Evaluator(truth, metrics, **conv).evaluate_blocks(
            [g for _, g in run.groupby("user", sort=True)] or [run])
    assert blocks.counts == c

    if not (listless and scored_listless):
        return
    # the reference: each listless user given a list of items without a truth row, nothing
    # appended below it
    junk = pd.DataFrame([(u, i, r if col == "rank" else float(-r))
                         for u in sorted(listless) for r, i in enumerate(JUNK, start=1)],
                        columns=["user", "item", col])
    ref, _ = _evaluate(pd.concat([run, junk], ignore_index=True), truth, metrics,
                       {**conv, "unretrieved": "absent"})
    # and the same run with nothing appended below any list: a listless user's values
    absent = res if pol.unretrieved == "absent" else _evaluate(
        run, truth, metrics, {**conv, "unretrieved": "absent"})[0]
    assert ref.metrics == res.metrics == absent.metrics
    for key in res.metrics:
        better = parse_metric(key).definition.higher_is_better
        for u in listless:
            v = res.user_values(key)[res.user_ids == u][0]
            w = ref.user_values(key)[ref.user_ids == u][0]
            np.testing.assert_equal(v, absent.user_values(key)[absent.user_ids == u][0])
            if better and not math.isnan(v):
                assert v <= max(0.0, w), (key, u, v, w)
