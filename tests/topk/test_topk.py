from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import InputError, PolicyError
from receval.topk import topk_from_scores


def oracle(scores: np.ndarray, k: int, exclude: np.ndarray | None = None, stored=None):
    """Slow reference: sort each row's candidates by (score desc, column asc)."""
    n_users, n_items = scores.shape
    k = min(k, n_items)  # k is clamped to the number of items
    items = np.full((n_users, k), -1)
    vals = np.full((n_users, k), np.nan)
    for u in range(n_users):
        cand = [
            (-scores[u, i], i)
            for i in range(n_items)
            if (exclude is None or not exclude[u, i])
            and (stored is None or stored[u, i])
            and scores[u, i] != -np.inf
        ]
        cand.sort()
        for j, (neg, i) in enumerate(cand[:k]):
            items[u, j] = i
            vals[u, j] = -neg
    return items, vals


def test_exact_small_example_with_ties_and_mask():
    s = np.array([[0.1, 0.9, 0.5, 0.9], [0.3, 0.2, 0.1, 0.0]])
    train = sp.csr_matrix(([1, 1], ([0, 1], [1, 0])), shape=(2, 4))
    out = topk_from_scores(s, 3, exclude=train)
    # user 0: item 1 masked; 0.9 (item 3), 0.5 (item 2), 0.1 (item 0)
    # user 1: item 0 masked; 0.2 (1), 0.1 (2), 0.0 (3)
    assert out.items.tolist() == [[3, 2, 0], [1, 2, 3]]
    np.testing.assert_array_equal(out.scores, [[0.9, 0.5, 0.1], [0.2, 0.1, 0.0]])
    # ties: equal scores are ordered by item index ascending
    t = topk_from_scores(np.array([[1.0, 2.0, 2.0, 2.0, 0.0]]), 2)
    assert t.items.tolist() == [[1, 2]]


def test_padding_when_fewer_items_than_k():
    s = np.array([[3.0, 1.0, 2.0]])
    out = topk_from_scores(s, 5, exclude=sp.csr_matrix([[0, 1, 0]]))
    # k is clamped to the 3 items; the masked item leaves one padding column
    assert out.items.tolist() == [[0, 2, -1]]
    assert np.isnan(out.scores[0, 2:]).all()
    assert out.items.dtype == np.int64


def test_scores_dtype_and_optional():
    s = np.array([[0.25, 0.5, 0.125]], dtype=np.float32)
    out = topk_from_scores(s, 2)
    assert out.scores.dtype == np.float32 and out.scores.tolist() == [[0.5, 0.25]]
    assert topk_from_scores(s.astype(np.float64), 2).scores.dtype == np.float64
    lean = topk_from_scores(s, 2, return_scores=False)
    assert lean.scores is None and lean.items.tolist() == [[1, 0]]


def test_neg_inf_never_returned():
    s = np.array([[-np.inf, 1.0, -np.inf]])
    assert topk_from_scores(s, 3).items.tolist() == [[1, -1, -1]]


score_matrices = st.integers(1, 7).flatmap(
    lambda n_users: st.integers(1, 9).flatmap(
        lambda n_items: st.tuples(
            st.lists(
                st.lists(st.integers(-2, 2), min_size=n_items, max_size=n_items),
                min_size=n_users,
                max_size=n_users,
            ),
            st.lists(
                st.lists(st.booleans(), min_size=n_items, max_size=n_items),
                min_size=n_users,
                max_size=n_users,
            ),
        )
    )
)


@settings(max_examples=150, deadline=None)
@given(score_matrices, st.integers(1, 10), st.integers(1, 4))
def test_matches_oracle_dense_sparse_callable(data, k, block):
    s = np.array(data[0], dtype=float)
    mask = np.array(data[1])
    excl = sp.csr_matrix(mask.astype(int))
    exp_items, exp_vals = oracle(s, k, mask)
    for got in (
        topk_from_scores(s, k, exclude=excl, block_users=block),
        topk_from_scores(s.astype(np.float32), k, exclude=excl, block_users=block),
        topk_from_scores(lambda r: s[r], k, exclude=excl, n_users=s.shape[0], block_users=block),
        topk_from_scores(sp.csr_matrix(s), k, exclude=excl, missing="zero", block_users=block),
    ):
        np.testing.assert_array_equal(got.items, exp_items)
        np.testing.assert_array_equal(got.scores, exp_vals)
    # sparse, skip: only stored (nonzero) entries are candidates
    stored = s != 0
    exp_items, exp_vals = oracle(s, k, mask, stored)
    got = topk_from_scores(sp.csr_matrix(s), k, exclude=excl, block_users=block)
    np.testing.assert_array_equal(got.items, exp_items)
    np.testing.assert_array_equal(got.scores, exp_vals)


def test_block_size_invariance_and_users_subset():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 20, size=(50, 300)).astype(float)  # many ties
    excl = sp.random(50, 300, density=0.1, random_state=4, format="csr")
    full = topk_from_scores(s, 17, exclude=excl, block_users=50)
    for b in (1, 7, 13):
        part = topk_from_scores(s, 17, exclude=excl, block_users=b)
        np.testing.assert_array_equal(part.items, full.items)
    for src in (s, sp.csr_matrix(s), lambda r: s[r]):
        threaded = topk_from_scores(src, 17, exclude=excl, n_users=50, block_users=6, n_threads=3)
        exp = full if not sp.issparse(src) else topk_from_scores(src, 17, exclude=excl)
        np.testing.assert_array_equal(threaded.items, exp.items)
        np.testing.assert_array_equal(threaded.scores, exp.scores)
    rows = np.array([40, 3, 3, 0])
    sub = topk_from_scores(s, 17, exclude=excl, users=rows)
    np.testing.assert_array_equal(sub.items, full.items[rows])
    sub_fn = topk_from_scores(lambda r: s[r], 17, exclude=excl, users=rows, block_users=3)
    np.testing.assert_array_equal(sub_fn.items, full.items[rows])


def test_copy_flag():
    base = np.array([[3.0, 1.0, 2.0], [0.5, 0.25, 1.0]])
    excl = sp.csr_matrix(([1, 1], ([0, 1], [0, 2])), shape=(2, 3))
    held = base.copy()
    a = topk_from_scores(lambda r: held[r.min() : r.max() + 1], 2, exclude=excl, n_users=2)
    np.testing.assert_array_equal(held, base)  # copy=True: the callable's array is untouched
    b = topk_from_scores(lambda r: held[r.min() : r.max() + 1], 2, exclude=excl, n_users=2,
                         copy=False)
    np.testing.assert_array_equal(a.items, b.items)
    assert a.items.tolist() == [[2, 1], [0, 1]]
    assert np.isneginf(held[0, 0]) and np.isneginf(held[1, 2])  # copy=False: masked in place


def test_bad_inputs():
    s = np.zeros((2, 3))
    with pytest.raises(InputError, match="k must be"):
        topk_from_scores(s, 0)
    for bad in (np.nan, np.inf):
        for k in (1, 5):  # partition path and full-sort path
            with pytest.raises(InputError, match="user row 1, item column 2"):
                topk_from_scores(np.array([[0.0, 1.0, 2.0], [0.0, 1.0, bad]]), k)
    with pytest.raises(InputError, match="exclude has 4 item columns"):
        topk_from_scores(s, 1, exclude=sp.csr_matrix((2, 4)))
    with pytest.raises(InputError, match="n_users"):
        topk_from_scores(lambda r: s[r], 1)
    with pytest.raises(InputError, match="score_fn returned shape"):
        topk_from_scores(lambda r: np.zeros((1, 3)), 1, n_users=2, block_users=2)
    with pytest.raises(PolicyError, match="numpy"):
        topk_from_scores(s, 1, backend="nump")
    with pytest.raises(InputError, match="n_threads"):
        topk_from_scores(s, 1, n_threads=0)
    with pytest.raises(InputError, match="outside"):
        topk_from_scores(s, 1, users=np.array([5]))


def test_output_feeds_evaluate():
    receval = pytest.importorskip("receval")
    evaluate = getattr(receval, "evaluate", None)
    if evaluate is None:
        pytest.skip("receval.evaluate is not available")
    scores = np.array([[0.9, 0.1, 0.8, 0.3], [0.2, 0.7, 0.6, 0.5]])
    train = sp.csr_matrix(([1], ([0], [0])), shape=(2, 4))
    truth = sp.csr_matrix(([1.0, 1.0], ([0, 1], [2, 3])), shape=(2, 4))
    top = topk_from_scores(scores, 2, exclude=train)
    assert top.items.tolist() == [[2, 3], [1, 2]]
    res = evaluate(top.items, truth, ["recall@2"])
    # user 0 finds its only relevant item, user 1 does not: mean recall@2 = (1 + 0) / 2
    assert res.summary["recall@2"] == pytest.approx((1 + 0) / 2)


# --- resource abuse and bad scores (issue 11) -----------------------------------------------


def test_huge_k_is_clamped_to_the_number_of_items():
    import time

    t0 = time.perf_counter()
    for src in (np.ones((2, 4)), sp.csr_matrix(np.ones((2, 4))), lambda r: np.ones((len(r), 4))):
        out = topk_from_scores(src, 10**9, n_users=2)
        assert out.items.shape == (2, 4) and out.scores.shape == (2, 4)
        assert out.items.tolist() == [[0, 1, 2, 3], [0, 1, 2, 3]]
    assert time.perf_counter() - t0 < 5
    assert topk_from_scores(np.ones((0, 4)), 10**9).items.shape == (0, 4)


@pytest.mark.parametrize("scores", [
    np.array([["a", "b"], ["c", "d"]]),
    [["a", "b"], ["c", "d"]],
    np.array([[None, 1.0], [2.0, 3.0]], dtype=object),
    lambda rows: [["x", "y"]] * len(rows),
    lambda rows: np.array([["x", "y"]] * len(rows)),
    lambda rows: [1.0, 2.0],
])
def test_non_numeric_scores_give_a_receval_error(scores):
    with pytest.raises(InputError):
        topk_from_scores(scores, 2, n_users=2)


def test_callable_returning_a_list_of_numbers_works():
    s = np.array([[0.1, 0.9, 0.5], [0.3, 0.2, 0.7]])
    out = topk_from_scores(lambda r: s[r].tolist(), 2, n_users=2)
    assert out.items.tolist() == [[1, 2], [2, 0]]
