"""The propensity domain of every propensity-scored metric (families found in the registry).

One rule for given and estimated propensities: each one a metric reads lies in (0, 1]; a value
outside is refused (never clipped) with the metric key, the count and the first culprit.
Jain et al.'s estimate stays inside for N >= 3 training users (C = (ln N - 1)(B + 1)^A > 0)
and, for an item no training user has, B > 0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.debiased import jain_propensities
from receval.errors import InputError
from receval.metrics import REGISTRY, load_plugins

load_plugins()

#: every family that reads propensities (from propensities= or train=)
FAMILIES = sorted(n for n, d in REGISTRY.items() if d.family == "debiased")

RUN = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "v": {"c": 2.0, "a": 1.0}}
TRUTH = {"u": {"a": 1, "d": 1}, "v": {"c": 1}}
ITEMS = ("a", "b", "c", "d")


def _train(n_users: int) -> pd.DataFrame:
    users = [f"t{j}" for j in range(n_users)]
    return pd.DataFrame({"user": users, "item": [ITEMS[j % 3] for j in range(n_users)]})


def test_families_found():
    assert {"psp", "psndcg", "ips_hit_rate"} <= set(FAMILIES)


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("n_users", [1, 2])
def test_estimate_from_fewer_than_three_users_is_refused(name, n_users):
    # C = (ln N - 1)(B + 1)^A < 0: the formula gives p >= 1 (or infinite / negative)
    key = f"{name}@3"
    C = (math.log(n_users) - 1) * 2.5 ** 0.55
    with pytest.raises(InputError) as exc:
        rv.evaluate(RUN, TRUTH, [key], train=_train(n_users))
    msg = str(exc.value)
    assert msg.startswith(f"{key}: 4 of 4 propensities estimated from train= lie outside (0, 1]")
    assert f"N = {n_users} training users" in msg and repr(C) in msg
    assert "np." not in msg


@pytest.mark.parametrize("name", FAMILIES)
def test_estimate_from_three_users_equals_the_given_propensities(name):
    key = f"{name}@3"
    train = _train(3)
    counts = np.array([1.0, 1.0, 1.0, 0.0])  # a, b, c once each; d by nobody
    p = jain_propensities(3, counts)
    assert ((p > 0) & (p < 1)).all()
    given_p = dict(zip(ITEMS, p.tolist(), strict=True))
    est = rv.evaluate(RUN, TRUTH, [key], train=train)
    gvn = rv.evaluate(RUN, TRUTH, [key], propensities=given_p)
    assert est[key] == gvn[key]
    np.testing.assert_array_equal(est.values, gvn.values)


@pytest.mark.parametrize("name", FAMILIES)
def test_unseen_item_with_b_zero_is_refused(name):
    key = f"{name}@3(B=0)"
    with pytest.raises(InputError, match=r"1 of 4 propensities estimated from train= lie "
                                         r"outside \(0, 1\] \(item 'd': p = 0.0\)"):
        rv.evaluate(RUN, TRUTH, [key], train=_train(3))


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("bad", [0.0, -0.5, 1.0000001, 2.0, float("nan"), float("inf")])
def test_given_propensity_outside_the_unit_interval_is_refused(name, bad):
    key = f"{name}@3"
    prop = {"a": 0.5, "b": np.float64(bad), "c": 0.5, "d": 0.5}
    with pytest.raises(InputError) as exc:
        rv.evaluate(RUN, TRUTH, [key], propensities=prop)
    msg = str(exc.value)
    assert msg.startswith(f"{key}: 1 of 4 propensities given in propensities=... lie outside")
    assert f"(item 'b': p = {bad!r})" in msg and "np." not in msg


@pytest.mark.parametrize("name", FAMILIES)
def test_propensity_one_is_inside(name):
    key = f"{name}@3"
    res = rv.evaluate(RUN, TRUTH, [key], propensities=dict.fromkeys(ITEMS, 1.0))
    assert np.isfinite(res[key])


@settings(max_examples=60, deadline=None)
@given(n_users=st.integers(1, 40), a=st.floats(0.05, 3.0), b=st.floats(0.0, 5.0),
       counts=st.lists(st.integers(0, 40), min_size=1, max_size=6))
def test_estimate_inside_exactly_when_the_rule_says(n_users, a, b, counts):
    # the documented domain of Jain et al.'s estimate: p in (0, 1) when N >= 3 and
    # (B > 0 or N_l > 0); the refusal happens exactly outside it
    n_l = np.minimum(np.array(counts, dtype=float), n_users)
    with np.errstate(all="ignore"):
        p = jain_propensities(n_users, n_l, A=a, B=b)
    inside = (p > 0) & (p <= 1)
    if n_users >= 3:
        assert (inside == ((b > 0) | (n_l > 0))).all()
    else:
        assert not inside.any()


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("exp", [-1000, -1060, -1071])
def test_tiny_propensities_give_the_values_of_scaled_ones(name, exp):
    # every value is a ratio of sums of 1/p: multiplying every propensity by 2^exp changes
    # nothing, bit for bit, even where 1/p alone would overflow (p down to 2^-1074)
    key = f"{name}@3"
    base = {"a": 0.5, "b": 0.25, "c": 0.75, "d": 0.125}
    tiny = {i: math.ldexp(p, exp) for i, p in base.items()}
    want = rv.evaluate(RUN, TRUTH, [key], propensities=base)
    got = rv.evaluate(RUN, TRUTH, [key], propensities=tiny)
    assert np.isfinite(got[key]) and got[key] == want[key]
    np.testing.assert_array_equal(got.values, want.values)
    blocks = rv.evaluate_blocks([{"u": RUN["u"]}, {"v": RUN["v"]}], TRUTH, [key],
                                propensities=tiny)
    assert blocks[key] == want[key]
