"""The compiled fast path against the plain-Python oracle, on random data.

Random cases carry tied scores, empty and short lists, users missing from the run or from the
truth, graded relevance, and int / str / non-ascii ids; every policy is exercised.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from cases import exact_under_average, metric_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import ID_KINDS, evaluate, random_case, to_frame

import receval as rv

# random truths often have no item at rel=2: receval then warns (RelevanceThresholdWarning,
# tested in tests/inputs/test_values_relevance.py); here only the values are checked
pytestmark = pytest.mark.filterwarnings("ignore::receval.errors.RelevanceThresholdWarning")

# every kernel family at several cutoffs and with every choice of every parameter (from the
# registry), plus combinations of parameters
ALL = metric_cases(cutoffs=(2, 3, 5)) + [
    "ndcg(gain=exp,ideal=list)", "ndcg@3(gain=exp,discount=log2_max2)", "rbp(rel=2,p=0.9)",
    "map@4(denominator=hits,rel=2)", "hit_rate@2(level=truth,rel=2)",
]
# only cutoffs: the lists are cut at the deepest k before the kernel runs
CUT = [k for k in metric_cases(cutoffs=(2, 4)) if "@" in k or k.startswith("num_rel")]
AVERAGE = [m for m in ALL if exact_under_average(m)]


def check(run, truth, metrics, **policies) -> None:
    """rv.evaluate equals the oracle on every user and every summary value."""
    exp_users, exp_summary = evaluate(run, truth, metrics, **policies)
    res = rv.evaluate(to_frame(run, "score"), to_frame(truth, "relevance"), metrics, **policies)
    got_users = [u.item() if isinstance(u, np.generic) else u for u in res.user_ids]
    # same values of the same kind (integer ids come back as int64, strings as str)
    assert sorted(map(repr, got_users)) == sorted(map(repr, exp_users))
    for key_in in metrics:
        key = rv.metrics.parse_metric(key_in).key
        col = res.user_values(key)
        exp = np.array([exp_users[u][key] for u in got_users], dtype=np.float64)
        np.testing.assert_allclose(col, exp, rtol=1e-10, atol=1e-12, err_msg=key)
        got_mean, exp_mean = res.summary[key], exp_summary[key]
        assert (math.isnan(got_mean) and math.isnan(exp_mean)) or math.isclose(
            got_mean, exp_mean, rel_tol=1e-10, abs_tol=1e-12), (key, got_mean, exp_mean)


@pytest.mark.parametrize(("id_kind", "ties"), [
    (kind, ties) for kind in ID_KINDS for ties in ("id", "trec_eval")
])
def test_all_metrics_random(id_kind, ties):
    rng = np.random.default_rng(zlib.crc32(f"{id_kind}-{ties}".encode()))
    for _ in range(7):
        run, truth = random_case(rng, id_kind=id_kind, tie_levels=int(rng.integers(2, 6)))
        check(run, truth, ALL, ties=ties)
        check(run, truth, CUT, ties=ties)


@pytest.mark.parametrize("users", ["truth", "run", "union", "intersection"])
@pytest.mark.parametrize("empty_truth", ["skip", "zero", "nan"])
def test_user_and_empty_truth_policies(users, empty_truth):
    rng = np.random.default_rng(zlib.crc32(f"{users}-{empty_truth}".encode()))
    for _ in range(3):
        run, truth = random_case(rng, n_users=5, tie_levels=None)
        check(run, truth, ALL, users=users, empty_truth=empty_truth)
        check(run, truth, CUT, users=users, empty_truth=empty_truth)


def test_binary_truth_and_continuous_scores():
    rng = np.random.default_rng(3)
    for _ in range(8):
        run, truth = random_case(rng, graded=False, tie_levels=None, id_kind="int")
        check(run, truth, ALL)


def test_long_lists_short_truth():
    rng = np.random.default_rng(4)
    for _ in range(5):
        run, truth = random_case(rng, n_users=4, max_list=30, n_items=40, max_truth=12,
                                 tie_levels=8)
        check(run, truth, ALL + ["ndcg@20", "map@25", "precision@30", "recall@15"])


@pytest.mark.parametrize("id_kind", ID_KINDS)
def test_ties_average_enumerates_orders(id_kind):
    rng = np.random.default_rng(11)
    for _ in range(10):
        run, truth = random_case(rng, n_users=4, max_list=5, n_items=8, max_truth=4,
                                 tie_levels=2, id_kind=id_kind)
        check(run, truth, AVERAGE, ties="average")


def test_ties_average_one_big_group():
    # every item tied: the expectation is over all 6! orders
    items = ["a", "b", "c", "d", "e", "f"]
    run = [("u", i, 1.0) for i in items]
    truth = [("u", "b", 1.0), ("u", "e", 2.0), ("u", "z", 3.0)]
    check(run, truth, AVERAGE, ties="average")


@pytest.mark.parametrize("duplicates", ["first", "max"])
def test_duplicates_policies(duplicates):
    rng = np.random.default_rng(5)
    for _ in range(8):
        run, truth = random_case(rng, tie_levels=3)
        run = run + [(u, i, s + float(rng.integers(-1, 2))) for u, i, s in run[::3]]
        truth = truth + [(u, i, float(rng.integers(0, 4))) for u, i, _ in truth[::2]]
        check(run, truth, ALL, duplicates=duplicates)


@pytest.mark.parametrize("nan_scores", ["drop", "last"])
def test_nan_score_policies(nan_scores):
    rng = np.random.default_rng(6)
    for _ in range(8):
        run, truth = random_case(rng, tie_levels=3)
        run = [(u, i, (math.nan, math.inf, -math.inf)[j % 3] if j % 4 == 0 else s)
               for j, (u, i, s) in enumerate(run)]
        check(run, truth, ALL, nan_scores=nan_scores)
        short = [(u, i, s) for u, i, s in run if str(u) < "d05"]  # small groups to enumerate
        check(short, truth, AVERAGE, nan_scores=nan_scores, ties="average")


def test_negative_relevance_zero():
    rng = np.random.default_rng(7)
    for _ in range(8):
        run, truth = random_case(rng, negative=True)
        check(run, truth, ALL, negative_rel="zero")


ID = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "é", "字"])


# generated runs and truths may share no user: the values are still checked, the warning is not
@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=st.lists(st.tuples(st.sampled_from(["u1", "u2", "ü3"]), ID,
                           st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, -1.5, 1e-300])),
                 max_size=14, unique_by=lambda r: (r[0], r[1])),
    truth=st.lists(st.tuples(st.sampled_from(["u1", "u2", "u4"]), ID,
                             st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5, 3.0])),
                   min_size=1, max_size=10, unique_by=lambda r: (r[0], r[1])),
    users=st.sampled_from(["truth", "run", "union", "intersection"]),
    empty_truth=st.sampled_from(["skip", "zero", "nan"]),
    ties=st.sampled_from(["id", "trec_eval"]),
)
def test_hypothesis_against_oracle(run, truth, users, empty_truth, ties):
    check(run, truth, ALL, users=users, empty_truth=empty_truth, ties=ties)


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=st.lists(st.tuples(st.sampled_from(["u1", "u2"]), ID, st.sampled_from([0.0, 1.0])),
                 max_size=10, unique_by=lambda r: (r[0], r[1])),
    truth=st.lists(st.tuples(st.sampled_from(["u1", "u2", "u3"]), ID,
                             st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])),
                   min_size=1, max_size=8, unique_by=lambda r: (r[0], r[1])),
    users=st.sampled_from(["truth", "run", "union", "intersection"]),
    empty_truth=st.sampled_from(["skip", "zero", "nan"]),
)
def test_hypothesis_ties_average(run, truth, users, empty_truth):
    check(run, truth, AVERAGE, ties="average", users=users, empty_truth=empty_truth)


def test_large_input_takes_the_parallel_path():
    # more than 32768 rows: ordering, lookup and metrics run on every thread
    rng = np.random.default_rng(8)
    n_users, per_user = 1500, 25
    users = np.repeat(np.arange(n_users), per_user)
    items = rng.integers(0, 400, size=users.size)
    scores = rng.integers(0, 6, size=users.size).astype(float)
    run = list(zip(users.tolist(), items.tolist(), scores.tolist(), strict=True))
    t_users = np.repeat(np.arange(n_users + 10), 6)
    truth = list(zip(t_users.tolist(), rng.integers(0, 400, size=t_users.size).tolist(),
                     rng.integers(0, 4, size=t_users.size).astype(float).tolist(), strict=True))
    check(run, truth, ["ndcg@10", "map", "precision@5", "mrr", "bpref", "recall@20(rel=2)"],
          duplicates="first")
    check(run, truth, ["ndcg@10", "hit_rate@3(level=recommended)"], duplicates="max",
          users="union")


@pytest.mark.parametrize("ties", ["id", "trec_eval", "average"])
def test_unjudged_remove_condenses_the_lists(ties):
    """unjudged='remove' scores each list without its items that have no truth row."""
    rng = np.random.default_rng(zlib.crc32(f"unjudged-{ties}".encode()))
    metrics = AVERAGE if ties == "average" else ALL
    for _ in range(4):
        run, truth = random_case(rng, tie_levels=int(rng.integers(2, 4)))
        check(run, truth, metrics, ties=ties, unjudged="remove")
