"""``weights=``: weighted means and standard errors against their formulas (exact fractions),
the same in blocks; weights that cannot be read, and metrics that cannot be weighted, refused."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, MetricError


def _oracle(x: list[float], w: list[float]) -> tuple[float, float, float]:
    """mean, std, se of the module docstring, in exact fractions."""
    n = len(x)
    W = sum(Fraction(v) for v in w)
    m = sum(Fraction(a) * Fraction(b) for a, b in zip(w, x, strict=True)) / W
    ss = sum(Fraction(b) * (Fraction(a) - m) ** 2 for a, b in zip(x, w, strict=True))
    ss2 = sum((Fraction(b) * (Fraction(a) - m)) ** 2 for a, b in zip(x, w, strict=True))
    std = math.sqrt(n / (n - 1) * float(ss / W))
    se = math.sqrt(n / (n - 1) * float(ss2)) / float(W)
    return float(m), std, se


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_weighted_summary_matches_the_formula(seed):
    rng = np.random.default_rng(seed)
    run = {u: {int(i): float(rng.random()) for i in rng.choice(10, 4, replace=False)}
           for u in range(9)}
    truth = {u: {int(i): 1 for i in rng.choice(10, 2, replace=False)} for u in range(9)}
    weights = {u: float(rng.integers(0, 5)) + float(rng.random()) for u in range(9)}
    res = rv.evaluate(run, truth, ["ndcg@3", "mrr"], weights=weights)
    for j in range(len(res.metrics)):
        x = res.values[:, j].tolist()
        w = [weights[u] for u in res.user_ids.tolist()]
        mean, std, se = _oracle(x, w)
        row = res.stats[j]
        assert row["weighted"] and row["n"] == 9
        assert math.isclose(row["mean"], mean, rel_tol=1e-14, abs_tol=1e-15)
        assert math.isclose(row["std"], std, rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(row["se"], se, rel_tol=1e-12, abs_tol=1e-15)
    streamed = rv.Evaluator(truth, ["ndcg@3", "mrr"], weights=weights).evaluate_blocks(
        [{u: run[u]} for u in range(9)])
    assert streamed.stats == res.stats


def test_unit_weights_give_the_unweighted_summary():
    run = {1: {"a": 2.0, "b": 1.0}, 2: {"b": 1.0}, 3: {"c": 1.0}}
    truth = {1: {"a": 1}, 2: {"a": 1}, 3: {"c": 1}}
    plain = rv.evaluate(run, truth, ["mrr"]).stats[0]
    ones = rv.evaluate(run, truth, ["mrr"], weights={1: 1, 2: 1, 3: 1}).stats[0]
    for key in ("mean", "std", "se"):
        assert math.isclose(plain[key], ones[key], rel_tol=1e-15)
    # weight 3 on a user at 0, 0 on a user at 1: (1 + 0 + 0) / 4
    res = rv.evaluate(run, truth, ["mrr"], weights=pd.Series({1: 1.0, 2: 3.0, 3: 0.0}))
    assert res["mrr"] == 0.25 and res.info["weights"]["zero"] == 1
    table = pd.DataFrame({"user": [1, 2, 3], "traffic": [1, 3, 0], "other": [0, 0, 0]})
    assert rv.evaluate(run, truth, ["mrr"], weights=table, weight_col="traffic")["mrr"] == 0.25


def test_weights_refused_where_they_cannot_be_read():
    run, truth = {1: {"a": 1.0}, 2: {"a": 1.0}}, {1: {"a": 1}, 2: {"b": 1}}
    for bad in ({1: -1.0, 2: 1.0}, {1: float("nan"), 2: 1.0}, {1: True, 2: 1.0},
                {1: "2", 2: 1.0}, {1: float("inf"), 2: 1.0}):
        with pytest.raises(InputError, match="finite number >= 0"):
            rv.evaluate(run, truth, ["mrr"], weights=bad)
    with pytest.raises(InputError, match="no weight"):
        rv.evaluate(run, truth, ["mrr"], weights={1: 1.0})
    with pytest.raises(InputError, match="two weights"):
        rv.evaluate(run, truth, ["mrr"],
                    weights=pd.DataFrame({"user": [1, 1, 2], "w": [1.0, 2.0, 1.0]}))
    with pytest.raises(InputError, match="weight_col"):
        rv.evaluate(run, truth, ["mrr"],
                    weights=pd.DataFrame({"user": [1, 2], "w": [1.0, 1.0], "v": [1, 1]}))
    with pytest.raises(InputError, match="give weights="):
        rv.Evaluator(truth, ["mrr"], weight_col="w")
    with pytest.raises(InputError, match="groups="):
        rv.Evaluator(truth, ["mrr"], weights={1: 1.0, 2: 1.0}, groups={1: "a"})
    # a missing user id was read as a second weight of one user "nan"; an id pandas cannot
    # hash came out as its TypeError
    for bad in ({1: 1.0, 2: 1.0, None: 2.0}, pd.Series([1.0, 1.0, 2.0], index=[1, 2, np.nan])):
        with pytest.raises(InputError, match=r"row 2 has no user id \(1 row\(s\) in all\)"):
            rv.evaluate(run, truth, ["mrr"], weights=bad)
    with pytest.raises(InputError, match=r"column 'user' has 1 missing id"):
        rv.evaluate(run, truth, ["mrr"],
                    weights=pd.DataFrame({"user": [1, 2, None], "w": [1.0, 1.0, 2.0]}))
    with pytest.raises(InputError, match=r"row 1 gives the user id \[2\], a list"):
        rv.evaluate(run, truth, ["mrr"],
                    weights=pd.DataFrame({"user": [1, [2]], "w": [1.0, 1.0]}))


def test_metrics_without_a_mean_over_users_are_not_weighted():
    run, truth = {1: {"a": 1.0}, 2: {"a": 1.0}}, {1: {"a": 1}, 2: {"b": 1}}
    w = {1: 1.0, 2: 2.0}
    for key in ("coverage@1", "num_ret(summary=sum)", "gm_map"):
        with pytest.raises(MetricError, match="weights="):
            rv.evaluate(run, truth, [key], weights=w)


def test_zero_total_weight_is_nan():
    res = rv.evaluate({1: {"a": 1.0}}, {1: {"a": 1}}, ["mrr"], weights={1: 0.0})
    assert math.isnan(res["mrr"])


def test_weighted_results_are_not_compared_unweighted():
    from receval.errors import PolicyError

    run, truth = {1: {"a": 1.0}, 2: {"a": 1.0}}, {1: {"a": 1}, 2: {"b": 1}}
    a = rv.evaluate(run, truth, ["mrr"], weights={1: 1.0, 2: 2.0}, name="a")
    b = rv.evaluate(run, truth, ["mrr"], weights={1: 1.0, 2: 2.0}, name="b")
    with pytest.raises(PolicyError, match="weights="):
        rv.compare({"a": a, "b": b})
