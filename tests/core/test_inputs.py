"""Every input container gives the oracle's values: numpy top-k matrix + scipy.sparse truth,
dict-of-dicts, dict of columns, pandas, polars and pyarrow tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from oracle import evaluate

import receval as rv

METRICS = ["ndcg@5", "ndcg", "map", "map@3", "precision@4", "recall@5", "mrr", "hit_rate@2",
           "hit_rate@3(level=truth)", "dcg@4(gain=exp)", "r_precision", "bpref", "rbp",
           "ndcg@3(ideal=list)", "num_ret", "err@4"]


@pytest.mark.parametrize("seed", range(5))
def test_topk_matrix_and_sparse_truth(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items, k = 30, 25, 8
    matrix = np.full((n_users, k), -1, dtype=np.int64)
    for u in range(n_users):
        m = int(rng.integers(0, k + 1))
        matrix[u, :m] = rng.choice(n_items + 5, size=m, replace=False)  # some unknown items
    dense = np.zeros((n_users, n_items))
    for u in range(n_users):
        chosen = rng.choice(n_items, size=int(rng.integers(1, 6)), replace=False)
        dense[u, chosen] = rng.integers(1, 4, size=len(chosen))
    truth = sp.csr_matrix(dense)
    res = rv.evaluate(matrix, truth, METRICS)
    run_rows = [(u, int(i), float(k - pos)) for u in range(n_users)
                for pos, i in enumerate(matrix[u]) if i >= 0]
    truth_rows = [(u, i, dense[u, i]) for u in range(n_users) for i in np.flatnonzero(dense[u])]
    exp_users, exp_summary = evaluate(run_rows, truth_rows, METRICS)
    assert list(res.user_ids) == list(range(n_users))
    for key in METRICS:
        exp = [exp_users[u][key] for u in range(n_users)]
        np.testing.assert_allclose(res.user_values(key), exp, rtol=1e-12, err_msg=key)
        assert res[key] == pytest.approx(exp_summary[key], rel=1e-12)


def test_topk_matrix_with_list_of_arrays_truth():
    matrix = np.array([[3, 1, 2], [0, -1, -1]])
    truth = [np.array([1, 2]), np.array([5])]
    res = rv.evaluate(matrix, truth, ["precision@3", "mrr"])
    assert list(res.user_values("precision@3")) == [2 / 3, 0.0]
    assert list(res.user_values("mrr")) == [1 / 2, 0.0]


def _rows(seed: int):
    rng = np.random.default_rng(seed)
    run = [(f"u{u}", f"i{i}", float(rng.integers(0, 4)))
           for u in range(8) for i in rng.choice(20, size=6, replace=False)]
    truth = [(f"u{u}", f"i{i}", float(rng.integers(0, 3)))
             for u in range(9) for i in rng.choice(20, size=4, replace=False)]
    return run, truth


@pytest.mark.parametrize("container", ["dict_of_dicts", "columns", "pandas", "polars",
                                       "polars_lazy", "arrow"])
def test_every_table_container(container):
    run, truth = _rows(1)
    exp_users, _ = evaluate(run, truth, METRICS)
    run_cols = {"user": [r[0] for r in run], "item": [r[1] for r in run],
                "score": [r[2] for r in run]}
    truth_cols = {"user": [r[0] for r in truth], "item": [r[1] for r in truth],
                  "rel": [r[2] for r in truth]}
    if container == "dict_of_dicts":
        r_in, t_in = {}, {}
        for u, i, s in run:
            r_in.setdefault(u, {})[i] = s
        for u, i, s in truth:
            t_in.setdefault(u, {})[i] = s
    elif container == "columns":
        r_in, t_in = run_cols, truth_cols
    elif container == "pandas":
        r_in, t_in = pd.DataFrame(run_cols), pd.DataFrame(truth_cols)
    elif container.startswith("polars"):
        pl = pytest.importorskip("polars")
        r_in, t_in = pl.DataFrame(run_cols), pl.DataFrame(truth_cols)
        if container == "polars_lazy":
            r_in, t_in = r_in.lazy(), t_in.lazy()
    else:
        pa = pytest.importorskip("pyarrow")
        r_in, t_in = pa.table(run_cols), pa.table(truth_cols)
    res = rv.evaluate(r_in, t_in, METRICS)
    for key in METRICS:
        exp = [exp_users[u][key] for u in res.user_ids]
        np.testing.assert_allclose(res.user_values(key), exp, rtol=1e-12, err_msg=key)


def test_custom_column_names():
    run = pd.DataFrame({"cust": ["a", "a"], "sku": ["x", "y"], "pred": [0.2, 0.9]})
    truth = pd.DataFrame({"cust": ["a"], "sku": ["x"], "stars": [3]})
    res = rv.evaluate(run, truth, ["mrr", "dcg@2"], user_col="cust", item_col="sku",
                      score_col="pred", rel_col="stars")
    assert res["mrr"] == 1 / 2
    assert res["dcg@2"] == pytest.approx(3 / np.log2(3), rel=1e-15)
