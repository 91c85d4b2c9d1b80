"""EPC, EFD, EPD and EILD (Vargas & Castells 2011, as RankSys and Elliot compute them): worked
examples in fractions, an oracle written from the formulas, blocks, adversarial inputs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.expected  # noqa: F401 - registers the families
from receval.errors import InputError, MetricError

# distinct training users per item: a 3, b 1, c 1, z 1 (4 training users; 6 (user, item) pairs)
TRAIN = {"u": {"a": 1, "b": 1}, "v": {"a": 1}, "w": {"z": 1}, "y": {"a": 1, "c": 1}}
FEATS = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [0.0, 1.0], "z": [1.0, 0.0]}
RUN = {"u": {"a": 3.0, "d": 2.0, "c": 1.0}, "v": {"b": 2.0, "a": 1.0}, "w": {"a": 1.0}}
TRUTH = {"u": {"a": 1, "c": 2}, "v": {"b": 1}, "w": {"a": 1}}


def _ev(keys, run=RUN, truth=TRUTH, **kw):
    kw.setdefault("train", TRAIN)
    kw.setdefault("item_features", FEATS)
    return rv.evaluate(run, truth, keys, **kw)


def _vals(res, key):
    return dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(), strict=True))


def _log_disc(k):
    return 1 / math.log2(k + 2)


def test_epc_worked_example():
    keys = ["epc@3(relevance=none,disc=none)", "epc@3", "epc@3(disc=exp,base=0.5)",
            "epc@3(relevance=graded,disc=none)"]
    res = _ev(keys)
    none, log, exp, graded = (_vals(res, k) for k in keys)
    # nov: a 1 - 3/4 = 1/4, d unseen 1, c 1 - 1/4 = 3/4, b 3/4
    assert none["u"] == pytest.approx((F(1, 4) + 1 + F(3, 4)) / 3, rel=1e-15)
    assert none["v"] == 0.5 and none["w"] == 0.25
    # binary relevance, log discount: u's relevant a (rank 0) and c (rank 2)
    d = [_log_disc(k) for k in range(3)]
    assert log["u"] == pytest.approx((d[0] / 4 + d[2] * 3 / 4) / sum(d), rel=1e-15)
    assert log["v"] == pytest.approx((3 / 4) / (1 + d[1]), rel=1e-15)
    # exp 1/2: discounts 1, 1/2, 1/4
    assert exp["u"] == pytest.approx(float((F(1, 4) + F(1, 4) * F(3, 4)) / F(7, 4)), rel=1e-15)
    # graded gains 2^(r - 1 + 1) - 1: a 1, c 3
    assert graded["u"] == pytest.approx(float((F(1, 4) + 3 * F(3, 4)) / 3), rel=1e-15)
    assert graded["w"] == 0.25


def test_efd_worked_example():
    res = _ev(["efd@3(relevance=none,disc=none)", "efd@3"])
    v = _vals(res, "efd@3(relevance=none,disc=none)")
    # shares of the 6 pairs: a 1/2 (1 bit), b, c, z 1/6 (log2 6); d unseen: the largest, log2 6
    assert v["u"] == pytest.approx((1 + 2 * math.log2(6)) / 3, rel=1e-15)
    assert v["v"] == pytest.approx((1 + math.log2(6)) / 2, rel=1e-15)
    assert v["w"] == 1.0
    d = [_log_disc(k) for k in range(3)]
    assert _vals(res, "efd@3")["u"] == pytest.approx((d[0] + d[2] * math.log2(6)) / sum(d),
                                                     rel=1e-15)


def test_epd_and_eild_worked_example():
    keys = ["epd@3(relevance=none,disc=none)", "eild@3(relevance=none,disc=none)",
            "eild@3(relevance=none)", "eild@3"]
    res = _ev(keys)
    epd, eild, eild_log, eild_rel = (_vals(res, k) for k in keys)
    s = 1 / math.sqrt(2)  # cos(a, c) = cos(d, c)
    # u: profile a, b; list a, d, c: distances to the profile: a (0 + 1)/2, d (1 + 0)/2,
    # c (1 - s + 1 - s)/2
    assert epd["u"] == pytest.approx((0.5 + 0.5 + (1 - s)) / 3, rel=1e-15)
    assert epd["w"] == 0.0  # a against the profile z: identical vectors
    # EILD, no discount: d(a, d) = 1, d(a, c) = d(d, c) = 1 - s; each item's mean distance
    assert eild["u"] == pytest.approx(((1 + 1 - s) / 2 * 2 + (1 - s)) / 3, rel=1e-15)
    assert eild["v"] == 1.0 and eild["w"] == 0.0
    # log discount: rank gaps disc(max(0, l - k - 1)) inside, disc(k) outside
    d = [_log_disc(k) for k in range(3)]
    dist = {(0, 1): 1.0, (0, 2): 1 - s, (1, 2): 1 - s}
    want = 0.0
    for k in range(3):
        ws = [(d[max(0, m - k - 1)], dist[tuple(sorted((k, m)))]) for m in range(3) if m != k]
        want += d[k] * sum(w * x for w, x in ws) / sum(w for w, _ in ws)
    assert eild_log["u"] == pytest.approx(want / sum(d), rel=1e-15)
    # binary relevance: only a (rank 0) and c (rank 2) are relevant; d weighs 0 inside
    inner_a = dist[(0, 2)]  # w(a, d) = 0
    inner_c = (d[0] * dist[(0, 2)]) / d[0]
    assert eild_rel["u"] == pytest.approx((d[0] * inner_a + d[2] * inner_c) / sum(d), rel=1e-15)


def test_users_without_relevant_items_are_skipped_like_elliot():
    truth = {**TRUTH, "w": {"a": 0}}  # w's only truth item is below the threshold
    res = _ev(["epc@3", "epc@3(relevance=none)", "efd@3(rel=2)"], truth=truth)
    assert math.isnan(_vals(res, "epc@3")["w"])
    assert res.info["epc@3"]["users_without_relevant"] == 1
    assert _vals(res, "epc@3(relevance=none)")["w"] == pytest.approx(0.25)
    # rel=2: only u has an item of relevance >= 2
    efd2 = _vals(res, "efd@3(rel=2)")
    assert math.isnan(efd2["v"]) and math.isnan(efd2["w"]) and not math.isnan(efd2["u"])


# ---- oracle from the formulas (RankSys ItemNoveltyMetric / EILD) ------------------------------

def _disc(k, disc, base):
    return {"none": 1.0, "log": 1 / math.log2(k + 2), "exp": base ** k}[disc]


def _gain(r, relevance, t):
    if relevance == "none":
        return 1.0
    if r < t:
        return 0.0
    return 1.0 if relevance == "binary" else 2 ** (r - t + 1) - 1


def _cos(x, y):
    nx, ny = math.sqrt(sum(a * a for a in x)), math.sqrt(sum(b * b for b in y))
    return sum(a * b for a, b in zip(x, y, strict=True)) / (nx * ny) if nx and ny else 0.0


def _oracle(train, feats, lists, truth, kind, disc, base, relevance, t):
    users_of: dict = {}
    for u, h in train.items():
        for i in h:
            users_of.setdefault(i, set()).add(u)
    n_users = len(train)
    norm = sum(len(s) for s in users_of.values())
    max_fd = -math.log2(min(len(s) for s in users_of.values()) / norm)
    out = {}
    for u, items in lists.items():
        if relevance != "none" and not any(r >= t for r in truth[u].values()):
            out[u] = math.nan
            continue
        g = [_gain(truth[u].get(i, 0), relevance, t) for i in items]
        dk = [_disc(k, disc, base) for k in range(len(items))]
        if kind == "eild":
            total = 0.0
            for k, i in enumerate(items):
                num = den = 0.0
                for m, j in enumerate(items):
                    if m != k:
                        w = _disc(max(0, m - k - 1), disc, base) * g[m]
                        num += w * (1 - _cos(feats[i], feats[j]))
                        den += w
                if den > 0:
                    total += dk[k] * g[k] * num / den
            out[u] = total / sum(dk)
            continue
        if kind == "epd" and not train.get(u):
            out[u] = math.nan
            continue
        nov = []
        for i in items:
            if kind == "epc":
                nov.append(1 - len(users_of.get(i, ())) / n_users)
            elif kind == "efd":
                nov.append(-math.log2(len(users_of[i]) / norm) if i in users_of else max_fd)
            else:
                prof = sorted(train[u])
                nov.append(sum(1 - _cos(feats[i], feats[j]) for j in prof) / len(prof))
        out[u] = sum(d * x * y for d, x, y in zip(dk, g, nov, strict=True)) / sum(dk)
    return out


@st.composite
def _data(draw):
    n_items = draw(st.integers(2, 8))
    items = [f"i{j}" for j in range(n_items)]
    vec = st.lists(st.sampled_from([0.0, 1.0, 2.0]), min_size=3, max_size=3)
    feats = {i: draw(vec) for i in items}
    users = [f"u{j}" for j in range(draw(st.integers(1, 5)))]
    train = {u: draw(st.lists(st.sampled_from(items), max_size=4, unique=True)) for u in users}
    lists = {u: draw(st.lists(st.sampled_from(items), min_size=1, max_size=6, unique=True))
             for u in users}
    truth = {u: {i: draw(st.integers(0, 3)) for i in
                 draw(st.lists(st.sampled_from(items), min_size=1, max_size=4, unique=True))}
             for u in users}
    return feats, train, lists, truth


@settings(max_examples=60, deadline=None)
@given(_data(), st.sampled_from(["none", "log", "exp"]), st.sampled_from([0.5, 0.85]),
       st.sampled_from(["none", "binary", "graded"]), st.sampled_from([1.0, 2.0]))
def test_fast_path_equals_formula_oracle(data, disc, base, relevance, t):
    feats, train, lists, truth = data
    train_df = pd.DataFrame([(u, i) for u, h in train.items() for i in h],
                            columns=["user", "item"])
    if train_df.empty:
        return
    train = {u: h for u, h in train.items() if h}  # the users train= knows
    run = {u: {i: float(len(items) - r) for r, i in enumerate(items)}
           for u, items in lists.items()}
    params = f"disc={disc},base={base},relevance={relevance},rel={t}"
    keys = [f"{m}({params})" for m in ("epc", "efd", "epd", "eild")]
    truth_rows = [(u, i, r) for u, d in truth.items() for i, r in d.items()]
    truth_df = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    res = rv.evaluate(run, truth_df, keys, train=train_df, item_features=feats)
    for kind, key in zip(("epc", "efd", "epd", "eild"), res.metrics, strict=True):
        want = _oracle(train, feats, lists, truth, kind, disc, base, relevance, t)
        got = _vals(res, key)
        for u in lists:
            assert (math.isnan(got[u]) and math.isnan(want[u])) or \
                got[u] == pytest.approx(want[u], rel=1e-12, abs=1e-14), (kind, u)


def test_blocks_equal_in_memory_bit_for_bit():
    rng = np.random.default_rng(11)
    items = [f"i{j}" for j in range(40)]
    feats = {i: rng.random(4).round(2).tolist() for i in items}
    train = pd.DataFrame([(u, i) for u in range(60) for i in rng.choice(items, 5) if u % 7],
                         columns=["user", "item"])
    run = pd.DataFrame([(u, i, rng.random()) for u in range(60)
                        for i in rng.choice(items, int(rng.integers(1, 9)), replace=False)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, int(rng.integers(0, 4))) for u in range(60)
                          for i in rng.choice(items, 6, replace=False)],
                         columns=["user", "item", "relevance"])
    keys = ["epc@5", "efd@5(relevance=graded,disc=exp)", "epd@5(relevance=none)",
            "eild@5", "eild@8(disc=exp,base=0.5,relevance=none)", "epd@5(source=cooccurrence)"]
    kw = {"train": train, "item_features": feats}
    whole = rv.evaluate(run, truth, keys, **kw)
    blocks = [run[run.user < 23], run[(run.user >= 23) & (run.user < 31)], run[run.user >= 31]]
    parts = rv.Evaluator(truth, keys, **kw).evaluate_blocks(blocks)
    np.testing.assert_array_equal(parts.values, whole.values)
    for k in whole.metrics:
        assert parts.summary[k] == whole.summary[k]


def test_adversarial_inputs():
    with pytest.raises(MetricError, match="disc"):
        _ev(["epc(disc=linear)"])
    with pytest.raises(MetricError, match="relevance"):
        _ev(["efd(relevance=yes)"])
    with pytest.raises(MetricError, match="base"):
        _ev(["eild(disc=exp,base=1.5)"])
    with pytest.raises(InputError, match="train="):
        rv.evaluate(RUN, TRUTH, ["epc"])
    with pytest.raises(InputError, match="item_features"):
        rv.evaluate(RUN, TRUTH, ["eild"], train=TRAIN)
    # an item without features: error naming the fix, or left out of the list
    run = {"u": {"q": 2.0, "a": 1.0, "b": 0.5}}
    with pytest.raises(InputError, match="missing=skip"):
        _ev(["eild"], run=run, truth={"u": {"a": 1}})
    res = _ev(["eild(missing=skip,relevance=none,disc=none)"], run=run, truth={"u": {"a": 1}})
    assert res.user_values(res.metrics[0]).tolist() == [1.0]  # a and b are orthogonal
    # a user without training rows: EPD has no profile (NaN, counted); EPC / EFD are defined
    res = _ev(["epd(relevance=none)", "epc(relevance=none)"], run={"x": {"a": 1.0}},
              truth={"x": {"a": 1}})
    assert math.isnan(res.user_values("epd(relevance=none)")[0])
    assert res.info["epd(relevance=none)"]["users_without_profile"] == 1
    assert res.user_values("epc(relevance=none)")[0] == 0.25
    # an empty list (a truth user without run rows): NaN for every metric
    res = _ev(["epc(relevance=none)", "efd(relevance=none)", "eild(relevance=none)",
               "epd(relevance=none)"], run={"u": {"a": 1.0}},
              truth={"u": {"a": 1}, "v": {"a": 1}})
    for k in res.metrics:
        assert math.isnan(res.user_values(k)[1])
        assert res.info[k]["empty_lists"] == 1
