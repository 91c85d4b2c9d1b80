"""``unretrieved="bottom"``: truth items missing from a list appended below it, tied.

The definition: every truth item the user's list does not hold is appended after the whole
list, below every retrieved item, all tied with each other and ordered by the ``ties`` rule.
Checked against the same run with those items added as rows scored below the list (the
oracle), scikit-learn's ``ndcg_score`` on arrays over the union of recommended and truth items,
worked examples, and blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv

METRICS = ["ndcg@3", "ndcg", "ndcg@4(ideal=list)", "recall@4", "recall", "precision@5",
           "map@4", "map", "mrr", "mrr@3", "hit_rate@6", "num_ret@5", "num_ret", "r_precision",
           "dcg@5", "precision@6(denominator=list)"]


def _case(rng: np.random.Generator, n_users: int = 6):
    """A score run with tied integer scores and a graded truth that the run partly misses."""
    run, truth = [], []
    for u in range(n_users):
        m = int(rng.integers(0, 6))
        items = rng.choice(12, size=m, replace=False)
        run += [(u, int(i), float(rng.integers(1, 4))) for i in items]
        t = rng.choice(12, size=int(rng.integers(0, 6)), replace=False)
        truth += [(u, int(i), float(rng.integers(0, 4))) for i in t]
    if not truth:
        truth = [(0, 0, 1.0)]
    return (pd.DataFrame(run, columns=["user", "item", "score"]),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


def _with_missing_rows(run: pd.DataFrame, truth: pd.DataFrame, users: str) -> pd.DataFrame:
    """The definition: each truth item missing from a user's list becomes a row scored below
    every row of that list, all of them with one score (tied). A user without a list has
    nothing to append to: the ``users`` policy scores it 0 or leaves it out."""
    rows = [run]
    for u, t in truth.groupby("user"):
        mine = run[run["user"] == u]
        if not len(mine):
            continue
        missing = sorted(set(t["item"]) - set(mine["item"]))
        low = (mine["score"].min() if len(mine) else 0.0) - 1.0
        rows.append(pd.DataFrame({"user": u, "item": missing, "score": low}))
    return pd.concat(rows, ignore_index=True)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(["id", "average", "trec_eval"]),
       users=st.sampled_from(["truth", "union", "run"]))
def test_bottom_equals_the_run_with_the_missing_items_scored_last(seed, ties, users):
    run, truth = _case(np.random.default_rng(seed))
    fast = rv.evaluate(run, truth, METRICS, unretrieved="bottom", ties=ties, users=users)
    slow = rv.evaluate(_with_missing_rows(run, truth, users), truth, METRICS, ties=ties, users=users)
    pd.testing.assert_frame_equal(fast.per_user, slow.per_user, check_exact=True)


def test_sklearn_ndcg_score_on_union_arrays():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(40):
        run, truth = _case(rng)
        for k in (None, 1, 3, 5):
            key = "ndcg_score" if k is None else f"ndcg_score@{k}"
            res = rv.evaluate(run, truth, [key], compat="sklearn")
            assert res.policies["unretrieved"] == "bottom"
            got = res.per_user.iloc[:, 0]
            for u, t in truth.groupby("user"):
                mine = run[run["user"] == u]
                union = list(dict.fromkeys(list(mine["item"]) + list(t["item"])))
                if not len(mine):  # no list: the users policy scores it 0
                    assert got.loc[u] == 0.0, (u, k)
                    continue
                if len(union) < 2:  # ndcg_score needs two candidates
                    continue
                score = dict(zip(mine["item"], mine["score"], strict=True))
                rel = dict(zip(t["item"], t["relevance"], strict=True))
                y_true = np.array([[rel.get(i, 0.0) for i in union]])
                y_score = np.array([[score.get(i, 0.0) for i in union]])  # missed: 0, below
                want = sk.ndcg_score(y_true, y_score, k=k)
                assert got.loc[u] == pytest.approx(want, rel=1e-12, abs=1e-15), (u, k)
                checked += 1
    assert checked > 300


def test_worked_example():
    # list: a (score 2, relevance 1), q (score 1, not judged); missed: b (3), c (0)
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "q"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"],
                          "relevance": [1.0, 3.0, 0.0]})
    keys = ["ndcg@4", "recall", "recall@2", "mrr", "num_ret"]
    idcg = 3 + 1 / math.log2(3)
    by_id = rv.evaluate(run, truth, keys, unretrieved="bottom").per_user.loc[1]
    # ties="id": b then c at ranks 3 and 4
    assert by_id["ndcg@4"] == pytest.approx((1 + 3 / math.log2(4)) / idcg, abs=1e-15)
    assert by_id["recall"] == 1.0 and by_id["recall@2"] == 0.5 and by_id["num_ret"] == 4
    avg = rv.evaluate(run, truth, keys, unretrieved="bottom", ties="average").per_user.loc[1]
    # b and c share ranks 3 and 4: expected gain 1.5 at each
    want = (1 + 1.5 / math.log2(4) + 1.5 / math.log2(5)) / idcg
    assert avg["ndcg@4"] == pytest.approx(want, abs=1e-15)
    trec = rv.evaluate(run, truth, keys, unretrieved="bottom",
                       ties="trec_eval").per_user.loc[1]
    # ties="trec_eval": item id descending, c then b
    assert trec["ndcg@4"] == pytest.approx((1 + 3 / math.log2(5)) / idcg, abs=1e-15)
    absent = rv.evaluate(run, truth, keys).per_user.loc[1]
    assert absent["ndcg@4"] == pytest.approx(1 / idcg, abs=1e-15)
    assert absent["recall"] == pytest.approx(0.5) and absent["num_ret"] == 2


def test_a_list_longer_than_the_cutoff_is_unchanged():
    run = pd.DataFrame({"user": [1] * 4, "item": [1, 2, 3, 4], "score": [4.0, 3, 2, 1]})
    truth = pd.DataFrame({"user": [1, 1], "item": [2, 9]})
    keys = ["ndcg@3", "recall@4", "precision@2", "mrr@4"]
    a = rv.evaluate(run, truth, keys, unretrieved="bottom")
    b = rv.evaluate(run, truth, keys)
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)
    assert rv.evaluate(run, truth, ["recall@5"], unretrieved="bottom")["recall@5"] == 1.0


def test_user_without_a_list_scores_0_under_every_users_policy():
    # run user 1 holds items 1, 2; truth user 2 (item 3) has no list: nothing is appended to
    # it, so it scores 0 where evaluated ("missing from the run (scored 0)")
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 3]})
    keys = ["recall@10", "hit_rate@10", "mrr", "ndcg@10"]
    for users in ("truth", "union"):
        for ranks in ("order", "position"):
            res = rv.evaluate(run, truth, keys, unretrieved="bottom", users=users, ranks=ranks)
            assert res.per_user.loc[2].tolist() == [0.0] * 4, (users, ranks)
            assert res.per_user.loc[1].tolist() == [1.0] * 4
            assert res.counts["missing_from_run"] == 1
    blocks = rv.Evaluator(truth, keys, unretrieved="bottom").evaluate_blocks([run])
    assert blocks.per_user.loc[2].tolist() == [0.0] * 4


def test_user_with_a_list_of_nothing_judged_gets_every_truth_item_tied():
    run = pd.DataFrame({"user": [1, 2], "item": [7, 1], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1],
                          "relevance": [2.0, 0, 0, 1]})
    res = rv.evaluate(run, truth, ["ndcg@3"], unretrieved="bottom", ties="average")
    # item 7 at rank 1, then three tied positions (2, 3, 4) of mean gain 2/3: ranks 2, 3 count
    disc = 1 / math.log2(3) + 1 / math.log2(4)
    assert res.per_user.loc[1, "ndcg@3"] == pytest.approx((2 / 3) * disc / 2, abs=1e-15)


def test_beyond_accuracy_metrics_never_see_the_appended_items():
    run = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [4, 5, 6]})
    train = pd.DataFrame({"user": [9, 9, 8, 7], "item": [1, 4, 5, 6]})
    keys = ["arp@5", "coverage@5", "ndcg@5"]
    a = rv.evaluate(run, truth, keys, unretrieved="bottom", train=train)
    b = rv.evaluate(run, truth, keys, train=train)
    assert a["arp@5"] == b["arp@5"] and a["coverage@5"] == b["coverage@5"]
    assert a["ndcg@5"] > 0 == b["ndcg@5"]


@pytest.mark.parametrize("ties", ["id", "average"])
def test_blocks_change_no_bit(ties):
    run, truth = _case(np.random.default_rng(3), n_users=60)
    whole = rv.evaluate(run, truth, METRICS, unretrieved="bottom", ties=ties)
    ev = rv.Evaluator(truth, METRICS, unretrieved="bottom", ties=ties)
    parts = ev.evaluate_blocks([g for _, g in run.groupby("user", sort=True)])
    pd.testing.assert_frame_equal(whole.per_user, parts.per_user, check_exact=True)
    assert whole.counts == parts.counts and str(whole.stats) == str(parts.stats)


def test_with_absolute_ranks():
    # ranks 1 and 4 (positions 2, 3 are placeholders), missed truth items after rank 4
    run = pd.DataFrame({"user": [1, 1], "item": [5, 1], "rank": [1, 4]})
    truth = pd.DataFrame({"user": [1, 1, 1], "item": [1, 3, 2]})
    res = rv.evaluate(run, truth, ["mrr", "map", "num_ret"], ranks="position",
                      unretrieved="bottom").per_user.loc[1]
    assert res["mrr"] == 0.25 and res["num_ret"] == 6  # 4 ranks + items 2, 3
    assert res["map"] == pytest.approx((1 / 4 + 2 / 5 + 3 / 6) / 3, abs=1e-15)


def test_diff_attributes_the_difference_to_unretrieved():
    run = pd.DataFrame({"user": [1], "item": [1], "score": [1.0]})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2]})
    d = rv.diff(run, truth, ["recall"], None, {"unretrieved": "bottom"})
    m = d["recall"]
    assert (m.value_a, m.value_b) == (0.5, 1.0) and m.factors == ["unretrieved"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_bottom_after_absolute_ranks_equals_the_written_out_list(seed):
    # the definition of both: ranks 1..r_max with fillers at the gaps, then the missed truth
    # items at r_max + 1, ... in item id order (ties="id"); a user without a list gets none
    rng = np.random.default_rng(seed)
    run, truth = [], []
    for u in range(5):
        m = int(rng.integers(0, 5))
        ranks = np.sort(rng.choice(np.arange(1, 10), size=m, replace=False))
        items = rng.choice(12, size=m, replace=False)
        run += [(u, int(i), int(r)) for i, r in zip(items, ranks, strict=True)]
        t = rng.choice(12, size=int(rng.integers(1, 5)), replace=False)
        truth += [(u, int(i), float(rng.integers(0, 3))) for i in t]
    run = pd.DataFrame(run, columns=["user", "item", "rank"]).astype({"rank": "int64"})
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    rows = []
    for u, t in truth.groupby("user"):
        mine = run[run["user"] == u]
        if not len(mine):
            continue
        have = dict(zip(mine["rank"], mine["item"], strict=True))
        top = int(mine["rank"].max()) if len(mine) else 0
        rows += [(u, have.get(r, 1000 + r), r) for r in range(1, top + 1)]
        missing = sorted(set(t["item"]) - set(mine["item"]))
        rows += [(u, i, top + 1 + j) for j, i in enumerate(missing)]
    written = pd.DataFrame(rows, columns=["user", "item", "rank"]).astype({"rank": "int64"})
    fast = rv.evaluate(run, truth, METRICS, ranks="position", unretrieved="bottom")
    slow = rv.evaluate(written, truth, METRICS)
    pd.testing.assert_frame_equal(fast.per_user, slow.per_user, check_exact=True)
