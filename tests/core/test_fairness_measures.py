"""User-group fairness measures (receval.results.fairness): worked examples, oracles written
from Yao & Huang (NeurIPS 2017) and Foulds et al. (ICDE 2020), adversarial inputs."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as F
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError
from receval.results import fairness as fm

RUN = {"u1": {"a": 3, "b": 2}, "u2": {"a": 3, "c": 2}, "u3": {"b": 1}, "u4": {"c": 1}}
TRUTH = {"u1": {"a": 1}, "u2": {"c": 1}, "u3": {"b": 1}, "u4": {"a": 1}}


def test_user_mad_worked():
    # precision@1: u1 1, u2 0, u3 1, u4 0; x = {u1}, y = {u2, u3}, z = {u4}
    res = rv.evaluate(RUN, TRUTH, ["precision@1"],
                      groups={"u1": "x", "u2": "y", "u3": "y", "u4": "z"})
    assert fm.group_means(res, "precision@1") == {"x": 1.0, "y": 0.5, "z": 0.0}
    # pairs |1 - 1/2|, |1 - 0|, |1/2 - 0| -> 2 / 3
    assert fm.user_mad(res, "precision@1") == pytest.approx(2 / 3, rel=1e-15)
    assert fm.user_mad(res, "precision@1", pairs="max") == 1.0


def test_user_mad_two_groups_is_the_gap():
    res = rv.evaluate(RUN, TRUTH, ["ndcg@2"], groups={"u1": "x", "u2": "x", "u3": "y",
                                                     "u4": "y"})
    m = fm.group_means(res, "ndcg@2")
    assert fm.user_mad(res, "ndcg@2") == abs(m["x"] - m["y"])


def test_user_mad_needs_groups_and_two_of_them():
    res = rv.evaluate(RUN, TRUTH, ["ndcg@2"])
    with pytest.raises(InputError, match="groups="):
        fm.user_mad(res, "ndcg@2")
    one = rv.evaluate(RUN, TRUTH, ["ndcg@2"], groups={u: "x" for u in RUN})
    with pytest.warns(rv.errors.UndefinedValueWarning, match="two"):
        assert math.isnan(fm.user_mad(one, "ndcg@2"))
    with pytest.raises(InputError, match="pairs"):
        fm.user_mad(one, "ndcg@2", pairs="median")


# -------------------------------------------------------------------------------------------
# Yao & Huang's unfairness family: worked examples

Y = [1, 1, 1, 0, 1, 1]
R = [0.5, 1.0, 0.0, 0.5, 1.0, 0.5]
ITEMS = ["a", "a", "a", "a", "b", "b"]
ATTR = ["f", "f", "m", "m", "f", "m"]
# item a: f: y 1, r 3/4 -> y - r = 1/4; m: y 1/2, r 1/4 -> 1/4
# item b: f: y 1, r 1 -> 0; m: y 1, r 1/2 -> 1/2


def test_value_unfairness_worked():
    # (|1/4 - 1/4| + |0 - 1/2|) / 2 = 1/4
    assert fm.value_unfairness(Y, R, ITEMS, ATTR) == 0.25


def test_absolute_under_over_worked():
    assert fm.absolute_unfairness(Y, R, ITEMS, ATTR) == 0.25
    # under = max(0, y - r): a (1/4, 1/4), b (0, 1/2) -> 1/4; over = max(0, r - y): all 0
    assert fm.under_unfairness(Y, R, ITEMS, ATTR) == 0.25
    assert fm.over_unfairness(Y, R, ITEMS, ATTR) == 0.0


def test_non_parity_worked():
    # f: (0.5 + 1 + 1) / 3 = 5/6, m: (0 + 0.5 + 0.5) / 3 = 1/3 -> 1/2
    assert fm.non_parity(R, ATTR) == pytest.approx(0.5, rel=1e-15)
    # three groups: population std of (1, 0, 1/2) = sqrt(1/6)
    assert fm.non_parity([1.0, 0.0, 0.5], ["x", "y", "z"]) == pytest.approx(
        math.sqrt(1 / 6), rel=1e-15)


def test_eps_recbole_keeps_items_missing_from_a_group():
    # item c only in group f: eps=0 leaves it out; eps=1e-5 counts it with means ~0 for m
    y, r, it, at = Y + [1], R + [0.0], ITEMS + ["c"], ATTR + ["f"]
    assert fm.value_unfairness(y, r, it, at) == 0.25
    got = fm.value_unfairness(y, r, it, at, eps=1e-5)
    # c: f: (1 - 0) / (1 + 1e-5), m: 0 -> |1/(1+1e-5)|; a, b with counts + 1e-5
    want = (abs((2 - 1.5) / 2.00001 - (1 - 0.5) / 2.00001)
            + abs((1 - 1) / 1.00001 - (1 - 0.5) / 1.00001) + 1 / 1.00001) / 3
    assert got == pytest.approx(want, rel=1e-12)


def test_multi_valued_pairs():
    at = ["f", "f", "m", "m", "x", "x"]
    it = ["a"] * 6
    y = [1, 1, 1, 1, 1, 1]
    r = [1.0, 1.0, 0.5, 0.5, 0.0, 0.0]
    # y - r: f 0, m 1/2, x 1 -> pairs 1/2, 1, 1/2
    assert fm.value_unfairness(y, r, it, at) == pytest.approx(2 / 3, rel=1e-15)
    assert fm.value_unfairness(y, r, it, at, pairs="max") == 1.0


def test_differential_fairness_worked():
    # alpha = recbole: 1 / 2 items; item a: f (1 + 1/2) / (1 + 1), m (0 + 1/2) / 2 -> log 3;
    # item b: f (1/2 + 1/2) / 2, m (1/2 + 1/2) / 2 -> 0
    got = fm.differential_fairness([1.0, 0.0, 0.5, 0.5], ["a", "a", "b", "b"],
                                   ["f", "m", "f", "m"])
    assert got == pytest.approx(math.log(3) / 2, rel=1e-14)
    got_max = fm.differential_fairness([1.0, 0.0, 0.5, 0.5], ["a", "a", "b", "b"],
                                       ["f", "m", "f", "m"], reduce="max")
    assert got_max == pytest.approx(math.log(3), rel=1e-14)


# -------------------------------------------------------------------------------------------
# oracles from the formulas (exact fractions) against the fast path


def _oracle_value(y, r, items, attr, kind):
    groups = sorted(set(attr))
    out = []
    for g, h in combinations(groups, 2):
        d = []
        for j in sorted(set(items)):
            def mean(vals, grp, j=j):
                xs = [F(v) for v, i, a in zip(vals, items, attr, strict=True)
                      if i == j and a == grp]
                return sum(xs, F(0)) / len(xs) if xs else None
            yg, rg, yh, rh = mean(y, g), mean(r, g), mean(y, h), mean(r, h)
            if yg is None or yh is None:
                continue
            dg, dh = yg - rg, yh - rh
            d.append({"value": abs(dg - dh), "absolute": abs(abs(dg) - abs(dh)),
                      "under": abs(max(dg, 0) - max(dh, 0)),
                      "over": abs(max(-dg, 0) - max(-dh, 0))}[kind])
        if d:
            out.append(sum(d, F(0)) / len(d))
    return float(sum(out, F(0)) / len(out)) if out else float("nan")


@st.composite
def _pairs(draw):
    n = draw(st.integers(1, 25))
    y = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    r = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.5, 4.0]), min_size=n,
                      max_size=n))
    items = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    attr = draw(st.lists(st.sampled_from("fmx"), min_size=n, max_size=n))
    return y, r, items, attr


@settings(max_examples=80, deadline=None)
@given(_pairs(), st.sampled_from(["value", "absolute", "under", "over"]))
def test_yao_huang_oracle(data, kind):
    y, r, items, attr = data
    fn = getattr(fm, f"{kind}_unfairness")
    want = _oracle_value(y, r, items, attr, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rv.errors.UndefinedValueWarning)
        got = fn(y, r, items, attr)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(_pairs(), st.floats(0.05, 3.0))
def test_differential_fairness_oracle(data, alpha):
    _, r, items, attr = data
    groups = sorted(set(attr))
    if len(groups) < 2:
        return
    eps = []
    for j in sorted(set(items)):
        logs = []
        for g in groups:
            xs = [v for v, i, a in zip(r, items, attr, strict=True) if i == j and a == g]
            logs.append(math.log((sum(xs) + alpha) / (len(xs) + 1.0)))
        eps.append(max(abs(a - b) for a, b in combinations(logs, 2)))
    got = fm.differential_fairness(r, items, attr, alpha=alpha)
    assert got == pytest.approx(sum(eps) / len(eps), rel=1e-12, abs=1e-15)


# -------------------------------------------------------------------------------------------
# adversarial inputs


def test_single_group_nan_with_reason():
    with pytest.warns(rv.errors.UndefinedValueWarning, match="two"):
        assert math.isnan(fm.value_unfairness([1, 1], [1.0, 0.0], ["a", "b"], ["f", "f"]))
    with pytest.warns(rv.errors.UndefinedValueWarning):
        assert math.isnan(fm.non_parity([1.0], ["f"]))
    with pytest.warns(rv.errors.UndefinedValueWarning):
        assert math.isnan(fm.differential_fairness([1.0], ["a"], ["f"]))


def test_no_shared_item_nan_with_reason():
    with pytest.warns(rv.errors.UndefinedValueWarning, match="no item"):
        assert math.isnan(fm.value_unfairness([1, 1], [1.0, 0.0], ["a", "b"], ["f", "m"]))


def test_bad_inputs_named():
    with pytest.raises(InputError, match="attribute"):
        fm.non_parity([1.0, 2.0], ["f"])
    with pytest.raises(InputError, match="eps"):
        fm.value_unfairness([1], [1.0], ["a"], ["f"], eps=-1)
    with pytest.raises(InputError, match="negative"):
        fm.differential_fairness([-1.0, 1.0], ["a", "a"], ["f", "m"])
    with pytest.raises(InputError, match="alpha"):
        fm.differential_fairness([1.0, 1.0], ["a", "a"], ["f", "m"], alpha=0)
    with pytest.raises(InputError, match="finite"):
        fm.non_parity([float("nan"), 1.0], ["f", "m"])
