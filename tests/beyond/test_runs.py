"""Comparing two runs: overlap@k, rank-biased overlap, Kendall's tau, unexpectedness.

Oracles: RBO as the infinite series of Webber, Moffat & Zobel (2010) with the agreement they
extrapolate (summed to a depth where p^d vanishes), plain-Python sets for the overlaps,
scipy.stats.kendalltau per user, RePlay's documented Unexpectedness example, and the ``rbo``
package (PyPI) where it is importable.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import receval as rv
from receval.beyond import listpairs
from receval.errors import InputError, PolicyError


# ---- oracles ---------------------------------------------------------------------------------
def _x(a: list, b: list, d: int) -> int:
    """Shared items of the first d of each list (a shorter list counts whole)."""
    return len(set(a[:d]) & set(b[:d]))


def rbo_series(a: list, b: list, p: float, depth: int = 4000) -> float:
    """RBO_ext as the series (1-p) sum_d p^(d-1) A_d, with Webber et al.'s extrapolation of the
    agreement: beyond the shorter list (length s) its unseen items agree at rate X_s/s, and
    beyond the longer list (length l) the agreement stays at its value at l."""
    if not a and not b:
        return math.nan
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, n_long = len(short), len(long_)
    xs = _x(short, long_, s)

    def agreement(d: int) -> float:
        if d <= n_long:
            return _x(short, long_, d) / d + (xs * (d - s) / (s * d) if d > s else 0.0)
        return (_x(short, long_, n_long) - xs) / n_long + xs / s

    return sum((1 - p) * p ** (d - 1) * agreement(d) for d in range(1, depth + 1))


def rbo_prefix(a: list, b: list, p: float) -> float:
    s = min(len(a), len(b))
    if not a and not b:
        return math.nan
    return sum((1 - p) * p ** (d - 1) * _x(a, b, d) / d for d in range(1, s + 1))


def _csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=indptr[1:])
    items = np.array([i for x in lists for i in x], dtype=np.int64)
    return indptr, items


def _random_lists(seed: int, n_users: int = 60, n_items: int = 25):
    rng = np.random.default_rng(seed)
    A, B = [], []
    for _ in range(n_users):
        la, lb = rng.integers(0, 12, size=2)
        A.append(list(rng.permutation(n_items)[:la]))
        # b reuses some of a's items in another order
        pool = list(rng.permutation(A[-1]))[: rng.integers(0, la + 1)] + \
            list(rng.permutation(n_items))
        B.append(list(dict.fromkeys(pool))[:lb])
    return A, B


# ---- array functions against the oracles ---------------------------------------------------
def test_rbo_worked_examples():
    ia, a = _csr([[0, 1]])
    ib, b = _csr([[1, 0]])
    # p = 0.5: X_1 = 0, X_2 = 2; (1-p)/p (0 + 2/2 p^2) + (X_2/2) p^2 = 0.25 + 0.25
    assert listpairs.rbo(ia, a, ib, b, p=0.5)[0] == pytest.approx(0.5, rel=1e-15)
    # identical lists: 1; disjoint: 0; one empty: 0; both empty: NaN
    ia, a = _csr([[0, 1, 2], [0, 1], [], []])
    ib, b = _csr([[0, 1, 2], [2, 3], [4], []])
    out = listpairs.rbo(ia, a, ib, b, p=0.9)
    assert out[0] == pytest.approx(1.0, rel=1e-15) and out[1] == 0 and out[2] == 0
    assert math.isnan(out[3])


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
@pytest.mark.parametrize("seed", range(3))
def test_rbo_ext_matches_series(p, seed):
    A, B = _random_lists(seed)
    got = listpairs.rbo(*_csr(A), *_csr(B), p=p)
    want = np.array([rbo_series(a, b, p) for a, b in zip(A, B, strict=True)])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    prefix = listpairs.rbo(*_csr(A), *_csr(B), p=p, form="sum")
    np.testing.assert_allclose(prefix, [rbo_prefix(a, b, p) for a, b in zip(A, B, strict=True)],
                               rtol=1e-12, atol=1e-15)
    ok = ~np.isnan(got)
    assert (prefix[ok] <= got[ok] + 1e-12).all()  # the prefix sum is a lower bound


@pytest.mark.parametrize("seed", range(3))
def test_rbo_matches_the_rbo_package(seed):
    rbo_pkg = pytest.importorskip("rbo")
    A, B = _random_lists(seed)
    ext = listpairs.rbo(*_csr(A), *_csr(B), p=0.9)
    pre = listpairs.rbo(*_csr(A), *_csr(B), p=0.9, form="sum")
    for j, (a, b) in enumerate(zip(A, B, strict=True)):
        if not a or not b:
            continue
        sim = rbo_pkg.RankingSimilarity(a, b)
        assert ext[j] == pytest.approx(sim.rbo_ext(p=0.9), rel=1e-10, abs=1e-12)
        assert pre[j] == pytest.approx(sim.rbo(p=0.9), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_overlap_and_shared_match_sets(seed):
    A, B = _random_lists(seed)
    got = listpairs.overlap(*_csr(A), *_csr(B))
    for j, (a, b) in enumerate(zip(A, B, strict=True)):
        union = set(a) | set(b)
        want = len(set(a) & set(b)) / len(union) if union else math.nan
        assert got[j] == want or (math.isnan(got[j]) and math.isnan(want))
    np.testing.assert_array_equal(listpairs.shared(*_csr(A), *_csr(B)),
                                  [len(set(a) & set(b)) for a, b in zip(A, B, strict=True)])


@pytest.mark.parametrize("over", ["intersection", "union"])
@pytest.mark.parametrize("seed", range(3))
def test_kendall_tau_matches_scipy(over, seed):
    A, B = _random_lists(seed)
    got = listpairs.kendall_tau(*_csr(A), *_csr(B), over=over)
    for j, (a, b) in enumerate(zip(A, B, strict=True)):
        items = [i for i in a if i in b] if over == "intersection" else list(dict.fromkeys(a + b))
        x = [a.index(i) + 1 if i in a else len(a) + 1 for i in items]
        y = [b.index(i) + 1 if i in b else len(b) + 1 for i in items]
        if len(items) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
            assert math.isnan(got[j])
            continue
        ref = sps.kendalltau(x, y).statistic
        assert got[j] == pytest.approx(ref, rel=1e-12, abs=1e-15)


def test_kendall_tau_chunks_agree(monkeypatch):
    A, B = _random_lists(7, n_users=40)
    whole = listpairs.kendall_tau(*_csr(A), *_csr(B), over="union")
    monkeypatch.setattr(listpairs, "PAIR_CHUNK", 5)
    np.testing.assert_array_equal(listpairs.kendall_tau(*_csr(A), *_csr(B), over="union"), whole)


# ---- through the engine ------------------------------------------------------------------------
def _frame(lists: dict, scores: bool = True) -> pd.DataFrame:
    rows = [(u, i, float(len(x) - r)) for u, x in lists.items() for r, i in enumerate(x)]
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def test_run_overlap_exact_and_counts():
    a = _frame({1: ["a", "b", "c"], 2: ["a", "b"], 3: ["x"]})
    b = _frame({1: ["b", "d", "a"], 2: ["b"], 4: ["z"]})
    res = rv.run_overlap(a, b, ["overlap@3", "rbo(p=0.5)", "kendall_tau", "unexpectedness@3"])
    pu = res.per_user
    assert list(res.user_ids) == [1, 2, 3, 4]
    assert pu["overlap@3"].tolist() == [2 / 4, 1 / 2, 0.0, 0.0]
    assert pu.loc[1, "rbo(p=0.5)"] == pytest.approx(rbo_series(list("abc"), list("bda"), 0.5))
    assert pu.loc[1, "kendall_tau"] == -1.0 and math.isnan(pu.loc[2, "kendall_tau"])
    assert pu["unexpectedness@3"].tolist()[:3] == [1 - 2 / 3, 1 - 1 / 3, 1.0]
    assert math.isnan(pu.loc[4, "unexpectedness@3"])  # nothing recommended to user 4 by a
    c = res.counts
    assert (c["users"], c["users_both"], c["missing_from_a"], c["missing_from_b"]) == (4, 2, 1, 1)
    assert "4 compared, 1 without a list in run a, 1 without a list in run b" in res.table()
    inter = rv.run_overlap(a, b, ["overlap@3"], users="intersection")
    assert list(inter.user_ids) == [1, 2] and inter.counts["left_out_a_only"] == 1
    assert inter.counts["left_out_b_only"] == 1


def test_run_overlap_orders_like_the_engine():
    """Tied scores are broken on the raw item id, as rv.evaluate orders lists."""
    a = pd.DataFrame({"user": [1, 1, 1], "item": ["c", "a", "b"], "score": [1.0, 1.0, 1.0]})
    b = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    res = rv.run_overlap(a, b, ["rbo", "kendall_tau", "rbo@1"])
    assert res.summary["rbo"] == pytest.approx(1.0) and res.summary["kendall_tau"] == 1.0
    rank = a.assign(rank=[3, 1, 2]).drop(columns="score")  # c, a, b by rank: c last
    res = rv.run_overlap(rank, b, ["kendall_tau"])
    assert res.summary["kendall_tau"] == 1.0


def test_evaluate_with_baseline_run_equals_run_overlap():
    rng = np.random.default_rng(3)
    users = range(30)
    a = pd.DataFrame([(u, i, rng.random()) for u in users for i in rng.choice(20, 8, replace=False)],
                     columns=["user", "item", "score"])
    b = pd.DataFrame([(u, i, rng.random()) for u in users for i in rng.choice(20, 6, replace=False)],
                     columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": list(users), "item": 0})
    keys = ["overlap@5", "rbo@5(p=0.8)", "kendall_tau@5(over=union)", "unexpectedness@5"]
    ev = rv.evaluate(a, truth, keys + ["ndcg@5"], baseline_run=b)
    ro = rv.run_overlap(a, b, keys)
    np.testing.assert_array_equal(ev.per_user[keys].to_numpy(), ro.per_user[keys].to_numpy())
    # blocks of users give the same values (the baseline is packed per block)
    blocks = [a[a.user < 15], a[a.user >= 15]]
    ev_b = rv.Evaluator(truth, keys, baseline_run=b).evaluate_blocks(blocks)
    np.testing.assert_array_equal(ev_b.values, ev.per_user[keys].to_numpy())


def test_replay_unexpectedness_doc_example():
    """RePlay's documented example (replay/metrics/unexpectedness.py)."""
    recs = pd.DataFrame({"user": [1] * 5 + [2] * 5 + [3] * 3,
                         "item": [3, 7, 10, 11, 2, 5, 8, 11, 1, 3, 4, 9, 2],
                         "score": [.6, .5, .4, .3, .2, .6, .5, .4, .3, .2, 1.0, .5, .1]})
    base = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2, 3, 3], "item": [3, 7, 2, 5, 8, 3, 4, 9],
                         "score": [.5, .5, .7, .6, .6, .3, 1.0, .5]})
    res = rv.run_overlap(recs, base, ["unexpectedness@2", "unexpectedness@4"])
    assert res.summary["unexpectedness@2"] == pytest.approx(1 / 6, rel=1e-15)
    assert res.summary["unexpectedness@4"] == 0.5
    assert res.per_user["unexpectedness@2"].tolist() == [0.5, 0.0, 0.0]
    assert res.per_user["unexpectedness@4"].tolist() == [0.5, 0.5, 0.5]


def test_errors():
    a = _frame({1: ["a"]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(InputError, match="baseline_run"):
        rv.evaluate(a, truth, ["rbo@3"])
    with pytest.raises(InputError, match="run-comparison"):
        rv.run_overlap(a, a, ["ndcg@3"])
    with pytest.raises(PolicyError, match="average"):
        rv.run_overlap(a, a, ["rbo"], ties="average")
    with pytest.raises(PolicyError, match="union"):
        rv.run_overlap(a, a, ["rbo"], users="truth")
    with pytest.raises(InputError, match="id type"):
        rv.run_overlap(a, _frame({1: [1, 2]}), ["rbo"])
    with pytest.raises(rv.MetricError, match=r"\(0"):
        rv.run_overlap(a, a, ["rbo(p=1)"])


def _run_pair_keys() -> list[str]:
    """Every run-comparison metric and every choice of its parameters, from the registry."""
    from cases import metric_cases

    from receval.metrics import REGISTRY, load_plugins

    load_plugins()
    names = {n for n, d in REGISTRY.items() if "baseline_run" in d.needs}
    return [k for k in metric_cases(cutoffs=(3,), plugins=True)
            if k.split("@")[0].split("(")[0] in names]


def test_registry_lists_the_run_comparison_metrics():
    keys = _run_pair_keys()
    for name in ("overlap", "rbo", "kendall_tau", "unexpectedness"):
        assert any(k.startswith(name) for k in keys)
    assert "rbo@3(p=0.5)" in keys and "kendall_tau@3(over=union)" in keys


@pytest.mark.parametrize("seed", range(2))
def test_explain_agrees_for_every_run_comparison_key(seed):
    from receval.explain import explain

    rng = np.random.default_rng(seed)
    a = pd.DataFrame([(u, i, float(rng.integers(0, 4))) for u in range(4)
                      for i in rng.choice(8, rng.integers(1, 6), replace=False)],
                     columns=["user", "item", "score"])
    b = pd.DataFrame([(u, i, rng.random()) for u in range(4)
                      for i in rng.choice(8, rng.integers(0, 6), replace=False)],
                     columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": range(4), "item": 0})
    keys = _run_pair_keys()
    res = rv.evaluate(a, truth, keys, baseline_run=b)
    for key in keys:
        for u in range(4):
            ex = explain(key, a, truth, u, baseline_run=b)
            assert ex.computed and ex.agrees, (key, u, ex.value, ex.reference)
            want = res.per_user.loc[u, key]
            assert ex.value == pytest.approx(want, rel=1e-12, abs=1e-15) or (
                math.isnan(ex.value) and math.isnan(want))
