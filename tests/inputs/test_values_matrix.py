"""The numpy top-k matrix run and the list-of-arrays / scipy.sparse truth follow the same rules
as tables (issue 11): the duplicates policy, -1 padding only at the end of a row, integer ids
only, every id in range. Each example below used to give a silently wrong number."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import receval as rv
from receval.errors import InputError

RUN = np.array([[1, 2, 3]])


def _frame_truth(rows):
    return pd.DataFrame(rows, columns=["user", "item", "relevance"])


# --- duplicates -----------------------------------------------------------------------------


def test_repeated_truth_item_follows_the_duplicates_policy():
    truth = [np.array([1, 1, 2])]
    with pytest.raises(InputError, match=r"truth: 1 duplicate \(user, item\) row\(s\), e.g. for "
                                         r"user 0\. Pass duplicates='max'"):
        rv.evaluate(RUN, truth, ["ndcg@3"])
    for policy in ("max", "first"):
        res = rv.evaluate(RUN, truth, ["ndcg@3", "recall@3"], duplicates=policy)
        assert res["ndcg@3"] == 1.0  # was 0.860: item 1 counted twice in the ideal list
        assert res["recall@3"] == 1.0
        assert res.counts["truth_duplicates"] == 1


def test_same_message_as_the_frame_path():
    frame = _frame_truth([(0, 1, 1), (0, 1, 1), (0, 2, 1)])
    with pytest.raises(InputError) as a:
        rv.evaluate(pd.DataFrame({"user": [0], "item": [1], "score": [1.0]}), frame, ["ndcg@3"])
    with pytest.raises(InputError) as b:
        rv.evaluate(RUN, [np.array([1, 1, 2])], ["ndcg@3"])
    assert str(a.value) == str(b.value)


def test_sparse_truth_explicit_duplicates_are_not_summed():
    # CSR with two stored entries for (0, 1): summing them would make relevance 3
    m = sp.csr_matrix((np.array([1.0, 2.0, 1.0]), np.array([1, 1, 2]), np.array([0, 3])),
                      shape=(1, 5))
    assert not m.has_canonical_format
    with pytest.raises(InputError, match="duplicate"):
        rv.evaluate(RUN, m, ["dcg@3"])
    for policy in ("max", "first"):
        res = rv.evaluate(RUN, m, ["dcg@3"], duplicates=policy)
        assert res["dcg@3"] == 2.0 + 1.0 / math.log2(3)  # relevance 2 (the highest), not 3
        assert res.counts["truth_duplicates"] == 1
    coo = sp.coo_matrix((np.array([1.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))),
                        shape=(1, 5))
    assert rv.evaluate(RUN, coo, ["dcg@1"], duplicates="max")["dcg@1"] == 2.0


def test_repeated_run_item_follows_the_duplicates_policy():
    run = np.array([[1, 1, 2]])
    with pytest.raises(InputError, match=r"run: 1 duplicate .* for user 0\. Pass"):
        rv.evaluate(run, [np.array([2])], ["mrr"])
    res = rv.evaluate(run, [np.array([2])], ["mrr"], duplicates="first")
    assert res["mrr"] == 1 / 2 and res.counts["duplicates_removed"] == 1


# --- padding ----------------------------------------------------------------------------------


def test_truth_padding_is_not_an_item():
    res = rv.evaluate(RUN, [np.array([1, 2, -1, -1])], ["recall@3", "num_rel"])
    assert res["recall@3"] == 1.0  # -1 used to count as a relevant item: 2/3
    assert res["num_rel"] == 2


@pytest.mark.parametrize("run, truth, what", [
    (np.array([[1, -1, 2]]), [np.array([2])], "run: row 0 has item id 2 after a -1"),
    (RUN, [np.array([1, -1, 2])], "truth: user row 0 has item id 2 after a -1"),
])
def test_padding_in_the_middle_of_a_row_is_an_error(run, truth, what):
    with pytest.raises(InputError, match=what):
        rv.evaluate(run, truth, ["mrr"])


def test_run_padding_at_the_end():
    res = rv.evaluate(np.array([[1, 2, -1], [-1, -1, -1]]), [np.array([2]), np.array([1])],
                      ["mrr", "num_ret"])
    assert res.user_values("mrr").tolist() == [0.5, 0.0]
    assert res.user_values("num_ret").tolist() == [2, 0]


# --- integer ids --------------------------------------------------------------------------------


@pytest.mark.parametrize("run, truth", [
    (np.array([[1.9, 2.0, 3.0]]), [np.array([1])]),
    (RUN, [np.array([1.9])]),
    (np.array([[np.nan, 2.0, 3.0]]), [np.array([1])]),
])
def test_non_integral_float_ids_are_errors(run, truth):
    with pytest.raises(InputError, match="must be integers"):
        rv.evaluate(run, truth, ["precision@1"])


def test_integral_float_ids_are_accepted():
    res = rv.evaluate(np.array([[1.0, 2.0, -1.0]]), [np.array([2.0])], ["mrr"])
    assert res["mrr"] == 0.5


@pytest.mark.parametrize("run, truth", [
    (np.array([["a", "b"]]), [np.array([1])]),
    (np.array([[True, False]]), [np.array([1])]),
    (RUN, [np.array(["a"])]),
])
def test_non_numeric_ids_are_errors(run, truth):
    with pytest.raises(InputError, match="integers"):
        rv.evaluate(run, truth, ["mrr"])


# --- ranges -------------------------------------------------------------------------------------


@pytest.mark.parametrize("run, truth, what", [
    (np.array([[-2**32 + 1, 2, 3]]), [np.array([1])], "below -1"),  # wrapped to 1 via int32
    (np.array([[-5, 2, 3]]), [np.array([1])], "below -1"),
    (RUN, [np.array([-2**32 + 1])], "below -1"),
    (np.array([[1, 2, 2**31]]), [np.array([1])], "2\\*\\*31 - 1"),
    (np.array([[1, 2, 2**31 - 1]]), [np.array([1])], "2\\*\\*31 - 1"),
    (RUN, [np.array([2**32 + 1])], "2\\*\\*31 - 1"),  # would wrap to item 1
    (np.array([[2**64 - 1]], dtype=np.uint64), [np.array([1])], "2\\*\\*31 - 1"),
])
def test_ids_out_of_range_are_errors(run, truth, what):
    with pytest.raises(InputError, match=what):
        rv.evaluate(run, truth, ["precision@1"])


def test_sparse_truth_values_are_checked():
    bad = sp.csr_matrix(np.array([[0.0, -1.0, 2.0]]))
    with pytest.raises(InputError, match=r"negative or non-finite .* row 0, column 1: -1\.0"):
        rv.evaluate(np.array([[2]]), bad, ["dcg@1"])


# --- agreement with the frame path ---------------------------------------------------------------


@pytest.mark.parametrize("duplicates", ["max", "first"])
def test_matrix_path_equals_frame_path(duplicates):
    rng = np.random.default_rng(4)
    n_users, n_items, k = 20, 15, 6
    run = np.full((n_users, k), -1, dtype=np.int64)
    truth = []
    for u in range(n_users):
        m = int(rng.integers(0, k + 1))
        run[u, :m] = rng.choice(n_items, size=m, replace=False)
        t = rng.integers(0, n_items, size=int(rng.integers(1, 6)))  # may repeat an item
        truth.append(np.concatenate([t, np.full(int(rng.integers(0, 3)), -1)]))
    metrics = ["ndcg@5", "precision@5", "recall@5", "map", "mrr", "num_rel"]
    got = rv.evaluate(run, truth, metrics, duplicates=duplicates)
    run_f = pd.DataFrame([(u, int(i), float(k - p)) for u in range(n_users)
                          for p, i in enumerate(run[u]) if i >= 0],
                         columns=["user", "item", "score"])
    truth_f = _frame_truth([(u, int(i), 1.0) for u in range(n_users) for i in truth[u] if i >= 0])
    exp = rv.evaluate(run_f, truth_f, metrics, duplicates=duplicates)
    assert got.user_ids.tolist() == exp.user_ids.tolist()
    np.testing.assert_array_equal(got.values, exp.values)
    assert got.counts["truth_duplicates"] == exp.counts["truth_duplicates"] > 0
