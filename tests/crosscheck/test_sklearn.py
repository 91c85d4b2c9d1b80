"""receval against scikit-learn's ``ndcg_score`` / ``dcg_score``.

scikit-learn scores every candidate item, averages the gain over tied scores (the expected
value over tie orders, McSherry & Najork) and takes the ideal list from the same candidates;
its ``k`` cuts both the ranking and the ideal list. The matching receval parameters are
``ties="average"`` and ``ideal="list"``; users whose candidates are all irrelevant score 0 in
scikit-learn (``empty_truth="zero"``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv

metrics = pytest.importorskip("sklearn.metrics")


def _inputs(y_true: np.ndarray, y_score: np.ndarray) -> tuple[dict, dict]:
    users = [f"u{i}" for i in range(y_true.shape[0])]
    run = {u: {f"i{j}": float(y_score[i, j]) for j in range(y_true.shape[1])}
           for i, u in enumerate(users)}
    truth = {u: {f"i{j}": float(y_true[i, j]) for j in range(y_true.shape[1])}
             for i, u in enumerate(users)}
    return run, truth


def compare(y_true: np.ndarray, y_score: np.ndarray, ks: tuple) -> None:
    run, truth = _inputs(y_true, y_score)
    keys = []
    for k in ks:
        at = "" if k is None else f"@{k}"
        keys += [f"ndcg{at}(ideal=list)", f"dcg{at}", f"ndcg{at}(gain=exp,ideal=list)"]
    res = rv.evaluate(run, truth, keys, ties="average", empty_truth="zero")
    for i, _ in enumerate(res.user_ids):
        yt, ys = y_true[i:i + 1], y_score[i:i + 1]
        for k in ks:
            at = "" if k is None else f"@{k}"
            exp_gain = 2.0 ** yt - 1
            expected = {
                f"ndcg{at}(ideal=list)": metrics.ndcg_score(yt, ys, k=k),
                f"dcg{at}": metrics.dcg_score(yt, ys, k=k),
                f"ndcg{at}(gain=exp,ideal=list)": metrics.ndcg_score(exp_gain, ys, k=k),
            }
            for key, exp in expected.items():
                got = res.user_values(key)[i]
                assert got == pytest.approx(exp, rel=1e-9, abs=1e-12), (i, key)


@pytest.mark.parametrize("seed", range(4))
def test_random_scores_with_ties(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items = 12, 9
    y_true = rng.integers(0, 4, size=(n_users, n_items)) * (rng.random((n_users, n_items)) < .5)
    y_true[0] = 0  # an all-irrelevant user
    y_score = rng.integers(0, 4, size=(n_users, n_items)) / 2  # many ties
    compare(y_true.astype(float), y_score, (None, 1, 3, 5))


def test_mean_over_users_equals_ndcg_score():
    rng = np.random.default_rng(9)
    y_true = rng.integers(1, 4, size=(20, 6)).astype(float)
    y_score = rng.integers(0, 3, size=(20, 6)).astype(float)
    run, truth = _inputs(y_true, y_score)
    res = rv.evaluate(run, truth, ["ndcg@4(ideal=list)"], ties="average")
    assert res["ndcg@4(ideal=list)"] == pytest.approx(metrics.ndcg_score(y_true, y_score, k=4),
                                                      rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n),
    st.sampled_from([None, 1, 2, 4]),
)))
def test_hypothesis_matches_sklearn(case):
    rels, scores, k = case
    compare(np.array([rels], dtype=float), np.array([scores]), (k,))
