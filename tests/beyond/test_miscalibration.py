"""Miscalibration (Steck 2018), MACE (Silva et al. 2021) and popularity lift / Delta GAP
(Abdollahpouri et al. 2019): worked examples, formula oracles, blocks, adversarial inputs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.miscalibration  # noqa: F401 - registers the families
from receval.errors import InputError, MetricError

# u: profile {a: c1, b: c2}; v: profile {a}; w: profile {z} (an item without categories);
# x: no training rows at all
TRAIN = {"u": {"a": 1, "b": 1}, "v": {"a": 1}, "w": {"z": 1}, "y": {"a": 1, "c": 1}}
CATS = {"a": ["c1"], "b": ["c2"], "c": ["c1", "c2"], "d": ["c2"], "z": []}
RUN = {"u": {"a": 3.0, "d": 2.0, "c": 1.0}, "v": {"b": 2.0, "a": 1.0}, "w": {"a": 1.0},
       "x": {"b": 1.0}}
TRUTH = {"u": {"a": 1}, "v": {"b": 1}, "w": {"a": 1}, "x": {"b": 1}}


def _ev(keys, run=RUN, truth=TRUTH, **kw):
    kw.setdefault("train", TRAIN)
    kw.setdefault("item_categories", CATS)
    return rv.evaluate(run, truth, keys, **kw)


def _vals(res, key):
    return dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(), strict=True))


def test_worked_example_kl_js_hellinger_exact():
    keys = ["miscalibration@3", "miscalibration@3(alpha=0)", "miscalibration@3(distance=js)",
            "miscalibration@3(distance=hellinger,alpha=0)"]
    res = _ev(keys)
    kl, kl0, js, hel = (_vals(res, k) for k in keys)
    # u: p = (1/2, 1/2); q = ((1 + 0 + 1/2)/3, (0 + 1 + 1/2)/3) = (1/2, 1/2): calibrated
    assert kl["u"] == 0.0 and kl0["u"] == 0.0 and js["u"] == 0.0 and hel["u"] == 0.0
    # v: p = (1, 0); list b, a: q = (1/2, 1/2); q~ = 0.99 q + 0.01 p = (101/200, 99/200)
    assert kl["v"] == pytest.approx(math.log(F(200, 101)), rel=1e-15)
    assert kl0["v"] == pytest.approx(math.log(2), rel=1e-15)
    q = (F(101, 200), F(99, 200))
    m = ((1 + q[0]) / 2, q[1] / 2)
    js_v = (math.log(1 / m[0]) + q[0] * math.log(q[0] / m[0]) + q[1] * math.log(q[1] / m[1])) / 2
    assert js["v"] == pytest.approx(js_v, rel=1e-14)
    # Hellinger, alpha = 0: sqrt((1 - sqrt(1/2))^2 + (0 - sqrt(1/2))^2) / sqrt(2)
    assert hel["v"] == pytest.approx(math.sqrt((1 - math.sqrt(.5)) ** 2 + .5) / math.sqrt(2),
                                     rel=1e-15)
    # w: the profile item z has no category; x: no training rows: NaN and counted
    for vals in (kl, kl0, js, hel):
        assert math.isnan(vals["w"]) and math.isnan(vals["x"])
    info = res.info["miscalibration@3"]
    assert info["users_without_profile"] == 2 and info["users_without_train"] == 1
    assert info["undefined_users"] == 2
    assert res.summary["miscalibration@3"] == pytest.approx(math.log(F(200, 101)) / 2, rel=1e-15)


def test_rank_weights_change_q():
    # v: list b (c2), a (c1); log weights 1, 1/log2(3): q(c1) = w2 / (1 + w2)
    res = _ev(["miscalibration@2(weight=log,alpha=0)", "miscalibration@2(weight=geometric,"
                                                         "p=0.5,alpha=0)"])
    w2 = 1 / math.log2(3)
    assert _vals(res, "miscalibration@2(weight=log,alpha=0)")["v"] == pytest.approx(
        -math.log(w2 / (1 + w2)), rel=1e-14)
    # geometric 1/2: q(c1) = (1/2) / (3/2) = 1/3
    assert _vals(res, "miscalibration@2(alpha=0,p=0.5,weight=geometric)")["v"] == \
        pytest.approx(math.log(3), rel=1e-15)


def test_kl_without_smoothing_is_infinite_where_q_misses_a_profile_category():
    run = {"u": {"a": 1.0}}
    res = _ev(["miscalibration(alpha=0)", "miscalibration(alpha=0.5)"], run=run,
              truth={"u": {"a": 1}})
    assert _vals(res, "miscalibration(alpha=0)")["u"] == math.inf
    # q~ = (3/4, 1/4): KL = (1/2) ln((1/2)/(3/4)) + (1/2) ln((1/2)/(1/4))
    assert _vals(res, "miscalibration(alpha=0.5)")["u"] == pytest.approx(
        0.5 * math.log(F(2, 3)) + 0.5 * math.log(2), rel=1e-15)


def test_mace_worked_example():
    res = _ev(["mace@3"])
    v = _vals(res, "mace@3")
    # |C| = 2. u: prefixes q = (1, 0), (1/2, 1/2), (1/2, 1/2): CE = 1/2, 0, 0 -> 1/6
    assert v["u"] == pytest.approx(1 / 6, rel=1e-15)
    # v: p = (1, 0); q = (0, 1), (1/2, 1/2): CE = 1, 1/2 -> 3/4
    assert v["v"] == 0.75
    assert math.isnan(v["w"]) and math.isnan(v["x"])
    assert res.summary["mace@3"] == pytest.approx(F(11, 24), rel=1e-15)


def test_mace_skips_prefixes_without_categories():
    cats = {**CATS, "e": []}
    run = {"v": {"e": 3.0, "b": 2.0, "a": 1.0}}
    res = _ev(["mace@3"], run=run, truth={"v": {"a": 1}}, item_categories=cats)
    # prefix 1 (e only) has no distribution; prefixes 2, 3 as in the worked example
    assert res.user_values("mace@3").tolist() == [0.75]
    assert res.info["mace@3"]["prefixes_without_categories"] == 1


def test_popularity_lift_worked_example_and_delta_gap():
    res = _ev(["popularity_lift@3", "popularity_lift@3(average=macro)",
               "popularity_lift@3(pop=rows)"])
    v = _vals(res, "popularity_lift@3")
    # phi = distinct training users: a 3, b 1, c 1, z 1 (d unseen: 0)
    # u: profile (3 + 1)/2 = 2, list (3 + 0 + 1)/3 = 4/3: lift (4/3 - 2)/2 = -1/3
    assert v["u"] == pytest.approx(-1 / 3, rel=1e-15)
    assert v["v"] == pytest.approx(F(2 - 3, 3), rel=1e-15)       # list (1 + 3)/2 = 2
    assert v["w"] == 2.0                                          # (3 - 1) / 1
    assert math.isnan(v["x"])                                     # no profile
    # Delta GAP: (mean GAP_r - mean GAP_p) / mean GAP_p over u, v, w
    gap_r, gap_p = F(4, 3) + 2 + 3, F(2) + 3 + 1
    assert res.summary["popularity_lift@3"] == pytest.approx((gap_r - gap_p) / gap_p, rel=1e-15)
    assert res.summary["popularity_lift@3(average=macro)"] == pytest.approx(
        (F(-1, 3) + F(-1, 3) + 2) / 3, rel=1e-15)


def test_delta_gap_per_user_group():
    groups = {"u": "g1", "v": "g1", "w": "g2", "x": "g2"}
    res = _ev(["popularity_lift@3"], groups=groups)
    rows = {r["group"]: r for r in res.group_stats if r["metric"] == "popularity_lift@3"}
    # g1: u, v: GAP_r = (4/3 + 2)/2, GAP_p = (2 + 3)/2; g2: w only
    assert rows["g1"]["mean"] == pytest.approx(float((F(4, 3) + 2 - 5) / 5), rel=1e-15)
    assert rows["g2"]["mean"] == 2.0


# ---- oracle from the papers' formulas --------------------------------------------------------

def _dist(items, cats, weights):
    mass: dict = {}
    total = 0.0
    for i, w in zip(items, weights, strict=True):
        cs = cats.get(i, [])
        if not cs:
            continue
        total += w
        for c in cs:
            mass[c] = mass.get(c, 0.0) + w / len(cs)
    return ({c: m / total for c, m in mass.items()} if total > 0 else None), total


def _weights(n, weight, patience):
    if weight == "uniform":
        return [1.0] * n
    if weight == "log":
        return [1 / math.log2(r + 1) for r in range(1, n + 1)]
    return [patience ** (r - 1) for r in range(1, n + 1)]


def _oracle(train, cats, lists, distance, alpha, weight, patience):
    out = {}
    for u, items in lists.items():
        p, _ = _dist(sorted(train.get(u, {})), cats, [1.0] * len(train.get(u, {})))
        q, _ = _dist(items, cats, _weights(len(items), weight, patience))
        if p is None or q is None:
            out[u] = math.nan
            continue
        s = 0.0
        for c in set(p) | set(q):
            pc, qc = p.get(c, 0.0), (1 - alpha) * q.get(c, 0.0) + alpha * p.get(c, 0.0)
            if distance == "kl":
                s += (pc * math.log(pc / qc) if qc > 0 else math.inf) if pc > 0 else 0.0
            elif distance == "js":
                mc = (pc + qc) / 2
                s += ((pc * math.log(pc / mc) if pc > 0 else 0.0)
                      + (qc * math.log(qc / mc) if qc > 0 else 0.0)) / 2
            else:
                s += (math.sqrt(pc) - math.sqrt(qc)) ** 2
        out[u] = math.sqrt(s) / math.sqrt(2) if distance == "hellinger" else s
    return out


def _mace_oracle(train, cats, lists, weight, patience):
    all_c = sorted({c for cs in cats.values() for c in cs})
    out = {}
    for u, items in lists.items():
        p, _ = _dist(sorted(train.get(u, {})), cats, [1.0] * len(train.get(u, {})))
        if p is None:
            out[u] = math.nan
            continue
        ws = _weights(len(items), weight, patience)
        errs = []
        for n in range(1, len(items) + 1):
            q, _ = _dist(items[:n], cats, ws[:n])
            if q is not None:
                errs.append(sum(abs(p.get(c, 0.0) - q.get(c, 0.0)) for c in all_c) / len(all_c))
        out[u] = sum(errs) / len(errs) if errs else math.nan
    return out


@st.composite
def _data(draw):
    n_items = draw(st.integers(2, 9))
    items = [f"i{j}" for j in range(n_items)]
    n_cats = draw(st.integers(1, 4))
    cats = {i: sorted(set(draw(st.lists(st.sampled_from([f"c{c}" for c in range(n_cats)]),
                                        max_size=3)))) for i in items}
    users = [f"u{j}" for j in range(draw(st.integers(1, 6)))]
    train = {u: {i: 1 for i in draw(st.lists(st.sampled_from(items), max_size=5, unique=True))}
             for u in users}
    lists = {u: draw(st.lists(st.sampled_from(items), min_size=1, max_size=6, unique=True))
             for u in users}
    return cats, train, lists


@settings(max_examples=60, deadline=None)
@given(_data(), st.sampled_from(["kl", "js", "hellinger"]), st.sampled_from([0.0, 0.01, 0.3]),
       st.sampled_from(["uniform", "log", "geometric"]))
def test_fast_path_equals_formula_oracle(data, distance, alpha, weight):
    cats, train, lists = data
    train_df = pd.DataFrame([(u, i) for u, h in train.items() for i in h],
                            columns=["user", "item"])
    if train_df.empty:
        return
    run = {u: {i: float(len(items) - r) for r, i in enumerate(items)}
           for u, items in lists.items()}
    truth = {u: {items[0]: 1} for u, items in lists.items()}
    key = f"miscalibration(distance={distance},alpha={alpha},weight={weight},p=0.7)"
    res = rv.evaluate(run, truth, [key, f"mace(weight={weight},p=0.7)"],
                      train=train_df, item_categories=cats)
    want = _oracle(train, cats, lists, distance, alpha, weight, 0.7)
    got = _vals(res, res.metrics[0])
    for u in lists:
        if math.isnan(want[u]) or math.isinf(want[u]):
            assert got[u] == want[u] or (math.isnan(got[u]) and math.isnan(want[u]))
        else:
            assert got[u] == pytest.approx(want[u], rel=1e-12, abs=1e-15)
    want_m = _mace_oracle(train, cats, lists, weight, 0.7)
    got_m = _vals(res, res.metrics[1])
    for u in lists:
        assert (math.isnan(got_m[u]) and math.isnan(want_m[u])) or \
            got_m[u] == pytest.approx(want_m[u], rel=1e-12, abs=1e-15)


def test_blocks_equal_in_memory_bit_for_bit():
    rng = np.random.default_rng(7)
    items = [f"i{j}" for j in range(40)]
    cats = {i: [f"c{c}" for c in rng.choice(6, rng.integers(0, 3), replace=False)]
            for i in items}
    train = pd.DataFrame([(u, i) for u in range(60) for i in rng.choice(items, 5)
                          if u % 7], columns=["user", "item"])
    run = pd.DataFrame([(u, i, rng.random()) for u in range(60)
                        for i in rng.choice(items, 8, replace=False)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": range(60), "item": "i0"})
    keys = ["miscalibration@5", "miscalibration@5(distance=js,weight=log)",
            "miscalibration@5(distance=hellinger,weight=geometric)", "mace@5(weight=log)",
            "popularity_lift@5", "popularity_lift@5(average=macro,pop=rows)"]
    kw = {"train": train, "item_categories": cats}
    whole = rv.evaluate(run, truth, keys, **kw)
    blocks = [run[run.user < 17], run[(run.user >= 17) & (run.user < 41)], run[run.user >= 41]]
    parts = rv.Evaluator(truth, keys, **kw).evaluate_blocks(blocks)
    np.testing.assert_array_equal(parts.values, whole.values)
    for k in whole.metrics:
        assert parts.summary[k] == whole.summary[k]


def test_adversarial_inputs():
    with pytest.raises(MetricError, match="distance"):
        _ev(["miscalibration(distance=euclid)"])
    with pytest.raises(MetricError, match="alpha"):
        _ev(["miscalibration(alpha=1)"])
    with pytest.raises(MetricError, match="weight"):
        _ev(["mace(weight=linear)"])
    with pytest.raises(InputError, match="item_categories"):
        rv.evaluate(RUN, TRUTH, ["miscalibration"], train=TRAIN)
    with pytest.raises(InputError, match="train="):
        rv.evaluate(RUN, TRUTH, ["mace"], item_categories=CATS)
    # a recommended item absent from item_categories: error naming it, or skip
    run = {"u": {"q": 2.0, "a": 1.0}}
    with pytest.raises(InputError, match="missing=skip"):
        _ev(["miscalibration"], run=run, truth={"u": {"a": 1}})
    res = _ev(["miscalibration(missing=skip,alpha=0.5)"], run=run, truth={"u": {"a": 1}})
    # the list is [a]: q = (1, 0), q~ = (3/4, 1/4) against p = (1/2, 1/2)
    assert res.user_values(res.metrics[0])[0] == pytest.approx(
        0.5 * math.log(F(2, 3)) + 0.5 * math.log(2), rel=1e-15)
    assert res.info[res.metrics[0]]["listed_items_without_categories"] == 1
    # a profile item absent from item_categories
    with pytest.raises(InputError, match="training interaction"):
        _ev(["mace"], train={"u": {"a": 1, "q": 1}})
    # empty lists (a truth user without run rows) and lists of uncategorised items: NaN
    res = _ev(["miscalibration", "mace", "popularity_lift"],
              run={"u": {"z": 1.0}}, truth={"u": {"a": 1}, "v": {"a": 1}})
    for k in ("miscalibration", "mace"):
        assert np.isnan(res.user_values(k)).all()
    assert res.user_values("popularity_lift").tolist()[0] == -0.5  # z: 1 against (3 + 1)/2
    assert math.isnan(res.user_values("popularity_lift")[1])
    assert res.info["miscalibration"]["lists_without_categories"] == 1
    assert res.info["miscalibration"]["empty_lists"] == 1
