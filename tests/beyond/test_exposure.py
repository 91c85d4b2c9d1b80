"""Exposure and provider fairness: worked examples in exact fractions, slow oracles written
from the papers' formulas (TREC Fair 2022 AWRF, Diaz et al.'s expected exposure, LensKit's
ExposureGini and rank-biased entropy), blocks == in memory, and refused inputs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.exposure  # noqa: F401  (registers the families)
from receval.beyond.attention import Geometric, LogDiscount, Uniform
from receval.beyond.exposure import exposure_gini
from receval.errors import InputError

RUN = pd.DataFrame({"user": [1, 1, 2, 2, 2], "item": ["a", "b", "b", "c", "a"],
                    "score": [3.0, 2.0, 3.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user": [1, 2], "item": ["a", "c"], "rel": [1, 2]})
GROUPS = {"a": "A", "b": "B", "c": "A"}
CATS = {"a": ["x"], "b": ["y"], "c": ["x", "y"]}


def _eval(keys, run=RUN, truth=TRUTH, **kw):
    kw.setdefault("item_groups", GROUPS)
    kw.setdefault("item_categories", CATS)
    return rv.evaluate(run, truth, keys, **kw)


def test_exposure_share_worked_example():
    # p = 1/2: user 1 [a, b] -> A gets 1 of 3/2; user 2 [b, c, a] -> A gets 1/2 + 1/4 of 7/4
    key = "exposure_share(group=A,p=0.5)"
    res = _eval([key])
    assert res.summary[key] == float(F(7, 4) / F(13, 4))
    assert res.per_user[key].tolist() == [float(F(2, 3)), float(F(3, 7))]
    # uniform attention: the share of positions
    key = "exposure_share(group=B,weight=uniform)"
    assert _eval([key]).summary[key] == 2 / 5


def test_exposure_gini_worked_example():
    # p = 0.85 (LensKit's default), top 2: a: 1, b: 0.85 + 1, c: 0.85; catalogue {a, b, c}
    e = sorted([1.0, 1.85, 0.85])
    want = ((2 * 1 - 4) * e[0] + 0 * e[1] + 2 * e[2]) / (3 * math.fsum(e))
    res = _eval(["exposure_gini@2"])
    assert res.summary["exposure_gini@2"] == pytest.approx(want, rel=1e-15)
    # a catalogue of 5 items adds two zeros
    e5 = [0, 0, *e]
    want5 = math.fsum((2 * j - 6) * x for j, x in enumerate(e5, 1)) / (5 * math.fsum(e5))
    res5 = _eval(["exposure_gini@2"], catalog=5)
    assert res5.summary["exposure_gini@2"] == pytest.approx(want5, rel=1e-15)
    assert exposure_gini([1.0, 0.0, 0.0, 1.0]) == 0.5
    assert exposure_gini([2.0, 2.0]) == 0.0
    assert math.isnan(exposure_gini([0.0, 0.0]))


def test_rank_biased_entropy_worked_example():
    # p = 1/2: user 1 x: 1, y: 1/2; user 2 [b(y), c(x, y), a(x)]: x: 3/4, y: 3/2 -> 1/3, 2/3
    key = "rank_biased_entropy(p=0.5)"
    h = -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert _eval([key]).per_user[key].tolist() == pytest.approx([h, h], rel=1e-15)
    # a category nobody lists counts only through the smoothing
    cats = {**CATS, "d": ["z"]}
    key = "rank_biased_entropy(p=0.5,smooth=0.25)"
    t = [1 + 0.25, 0.5 + 0.25, 0.25]
    q = [x / sum(t) for x in t]
    got = _eval([key], item_categories=cats).per_user[key].tolist()[0]
    assert got == pytest.approx(-sum(x * math.log2(x) for x in q), rel=1e-14)


def test_awrf_worked_example():
    # list [a] alone, two groups, uniform target: a = (1, 0), m = (3/4, 1/4),
    # JS = (log 4/3 + (log 4/3) / 2) / 2 = 3/4 log 4/3 (nats, TREC Fair 2022)
    run = pd.DataFrame({"user": [1], "item": ["a"], "score": [1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    got = _eval(["awrf"], run, truth).summary["awrf"]
    assert got == pytest.approx(1 - 0.75 * math.log(4 / 3), rel=1e-15)
    got2 = _eval(["awrf(base=2)"], run, truth).summary["awrf(base=2)"]
    assert got2 == pytest.approx(1 - 0.75 * math.log2(4 / 3), rel=1e-15)
    # [a, b] with the clipped log discount (1, 1): exactly the uniform target
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    assert _eval(["awrf"], run, truth).summary["awrf"] == 1.0
    # KL: a = (2/3, 1/3) against (1/2, 1/2) with geometric p = 1/2
    key = "awrf(distance=kl,p=0.5,weight=geometric)"
    kl = 2 / 3 * math.log(4 / 3) + 1 / 3 * math.log(2 / 3)
    assert _eval([key], run, truth).summary[key] == pytest.approx(1 - kl, rel=1e-14)
    # population target: items of item_groups are 2/3 A and 1/3 B, as the list's attention
    key = "awrf(p=0.5,target=population,weight=geometric)"
    assert _eval([key], run, truth).summary[key] == pytest.approx(1.0, abs=1e-15)


def test_awrf_relevance_proportional_target():
    # user 1: relevant a (A) -> target (1, 0); list [a, b], log_clip weights 1, 1: a = (1/2, 1/2)
    # JS: m = (3/4, 1/4): (1/2 log 2/3 + 1/2 log 2 + log 4/3) / 2 = 3/4 log 4/3
    # user 2: relevant c (A); list [b, c, a]: a = (1 + c3, 1) / (2 + c3), c3 = 1 / log2 3
    key = "awrf(target=relevant)"
    got = _eval([key]).per_user[key].tolist()
    assert got[0] == pytest.approx(1 - 0.75 * math.log(4 / 3), rel=1e-14)
    c3 = 1 / math.log2(3)
    a = [(1 + c3) / (2 + c3), 1 / (2 + c3)]
    m = [(a[0] + 1) / 2, a[1] / 2]
    js = (a[0] * math.log(a[0] / m[0]) + a[1] * math.log(a[1] / m[1]) + math.log(1 / m[0])) / 2
    assert got[1] == pytest.approx(1 - js, rel=1e-13)
    # a user whose relevant items have no group has no target: NaN
    truth = pd.DataFrame({"user": [1, 2], "item": ["a", "z"], "rel": [1, 1]})
    r = _eval([key], truth=truth)
    assert r.per_user[key].isna().tolist() == [False, True]
    assert r.info[key]["users_without_grouped_relevant"] == 1


def test_awrf_matches_scipy_jensenshannon():
    spatial = pytest.importorskip("scipy.spatial.distance")
    run = pd.DataFrame({"user": [1] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    w = LogDiscount("clip").weights(3)
    attn = np.array([w[0] + w[2], w[1]])
    want = 1 - spatial.jensenshannon(attn / attn.sum(), [0.5, 0.5]) ** 2
    assert _eval(["awrf"], run, truth).summary["awrf"] == pytest.approx(want, rel=1e-13)


def test_expected_exposure_worked_example():
    # p = 1/2. user 1: relevant a (target 1); list [a, b]: e = 1, 1/2
    #   EE-L = 0 + 1/4, EE-D = 1 + 1/4, EE-R = 1
    # user 2: relevant c (grade 2, target 1); list [b, c, a]: e = 1, 1/2, 1/4
    #   EE-L = 1 + 1/4 + 1/16, EE-D = 1 + 1/4 + 1/16, EE-R = 1/2
    res = _eval(["ee_loss", "ee_disparity", "ee_relevance"])
    assert res.per_user["ee_loss"].tolist() == [0.25, 1.3125]
    assert res.per_user["ee_disparity"].tolist() == [1.25, 1.3125]
    assert res.per_user["ee_relevance"].tolist() == [1.0, 0.5]
    # two relevant items of one grade share the first two positions: target (1 + 1/2) / 2
    truth = pd.DataFrame({"user": [1, 1], "item": ["c", "d"], "rel": [1, 1]})
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "c"], "score": [2.0, 1.0]})
    r = _eval(["ee_loss", "ee_relevance", "ee_loss(nonrelevant=drop)"], run, truth)
    t = 0.75
    assert r.summary["ee_loss"] == 1 + (0.5 - t) ** 2 + t ** 2
    assert r.summary["ee_relevance"] == 0.5 * t
    assert r.summary["ee_loss(nonrelevant=drop)"] == (0.5 - t) ** 2 + t ** 2
    # the cascade (ERR's stop 1/2 per relevant item of grade 1): a relevant pair [c, d]
    run2 = pd.DataFrame({"user": [1, 1], "item": ["c", "d"], "score": [2.0, 1.0]})
    truth2 = pd.DataFrame({"user": [1, 1], "item": ["c", "d"], "rel": [1, 1]})
    keys = ["ee_loss(weight=cascade)", "ee_relevance(weight=cascade)",
            "ee_disparity(weight=cascade)"]
    r = _eval(keys, run2, truth2)
    # e = 1, 1/2 * 1/2; the ideal shares (1 + 1/4) / 2 = 5/8 between c and d
    assert [r.summary[k] for k in keys] == [float(F(9, 32)), float(F(25, 32)), float(F(17, 16))]
    with pytest.raises(InputError, match="max_grade"):
        _eval(["ee_loss(max_grade=1,weight=cascade)"])  # a grade 2 in TRUTH
    # g_max defaults to the truth's largest grade (2 here), 1 with binary grades
    r = _eval(["ee_loss(weight=cascade)", "ee_loss(max_grade=2,weight=cascade)",
               "ee_loss(grades=binary,weight=cascade)", "ee_loss(grades=binary,max_grade=1,weight=cascade)"])
    assert r.summary["ee_loss(weight=cascade)"] == r.summary["ee_loss(max_grade=2,weight=cascade)"]
    assert r.summary["ee_loss(grades=binary,weight=cascade)"] == \
        r.summary["ee_loss(grades=binary,max_grade=1,weight=cascade)"]
    with pytest.raises(InputError, match="Plackett-Luce"):
        _eval(["ee_loss(policy=plackett_luce,weight=cascade)"])
    # per item group (a, c in A; b in B), user 2: E = (A: 1/2 + 1/4, B: 1), E* = (A: 1, B: 0)
    res = _eval(["ee_loss(level=group)", "ee_relevance(level=group)"])
    assert res.per_user["ee_loss(level=group)"].tolist() == [0.25, 0.0625 + 1]
    assert res.per_user["ee_relevance(level=group)"].tolist() == [1.0, 0.75]
    # grades 2 and 1: separate levels (graded) or one (binary)
    truth = pd.DataFrame({"user": [1, 1], "item": ["c", "d"], "rel": [2, 1]})
    r = _eval(["ee_loss", "ee_loss(grades=binary)"], run, truth)
    assert r.summary["ee_loss"] == 1 + (0.5 - 1) ** 2 + 0.5 ** 2      # c's target 1, d's 1/2
    assert r.summary["ee_loss(grades=binary)"] == 1 + (0.5 - t) ** 2 + t ** 2
    # a cutoff: ideal positions beyond k have no attention
    r = _eval(["ee_loss@1", "ee_relevance@1"], run, truth)
    assert r.summary["ee_loss@1"] == 1 + 1 + 0  # a: 1 (target 0), c: 0 (target 1), d: 0
    assert r.summary["ee_relevance@1"] == 0.0


def test_plackett_luce_expected_exposure_worked_example():
    # scores ln 3 and 0: a is first with probability 3/4; p = 1/2: e_a = 3/4 + 1/4 * 1/2 = 7/8,
    # e_b = 1/4 + 3/4 * 1/2 = 5/8; a relevant (target 1)
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [math.log(3), 0.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    keys = ["ee_loss(policy=plackett_luce)", "ee_disparity(policy=plackett_luce)",
            "ee_relevance(policy=plackett_luce)"]
    r = _eval(keys, run, truth)
    assert [r.summary[k] for k in keys] == pytest.approx(
        [float(F(1, 64) + F(25, 64)), float(F(74, 64)), float(F(7, 8))], rel=1e-13)
    # @1 reads the whole list: b is first with probability 1/4
    r = _eval(["ee_loss@1(policy=plackett_luce)"], run, truth)
    assert r.summary["ee_loss@1(policy=plackett_luce)"] == pytest.approx(
        float((F(3, 4) - 1) ** 2 + F(1, 4) ** 2), rel=1e-13)
    # temperature 2: weights sqrt(3) and 1
    key = "ee_relevance(policy=plackett_luce,temperature=2)"
    first = math.sqrt(3) / (1 + math.sqrt(3))
    assert _eval([key], run, truth).summary[key] == pytest.approx(
        first + (1 - first) / 2, rel=1e-13)


def test_plackett_luce_rank_probabilities_match_enumeration():
    from receval.beyond.exposure import plackett_luce_ranks

    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 6))
        s = rng.normal(size=n) * float(rng.choice([0.1, 1.0, 5.0]))
        t = float(rng.choice([0.5, 1.0, 2.0]))
        assert plackett_luce_ranks(s, n, t) == pytest.approx(_pl_oracle(s, t), abs=1e-12)
        assert plackett_luce_ranks(s, 2, t).shape == (n, min(n, 2))


def _pl_oracle(scores, temperature):
    """P(item i at rank r) by enumerating every permutation (Plackett-Luce probabilities)."""
    import itertools

    w = np.exp((scores - scores.max()) / temperature)
    n = len(w)
    out = np.zeros((n, n))
    for perm in itertools.permutations(range(n)):
        pr = 1.0
        for r, i in enumerate(perm):
            pr *= w[i] / math.fsum(w[list(perm[r:])])
        for r, i in enumerate(perm):
            out[i, r] += pr
    return out


# -------------------------------------------------------------------------------------------------
# slow oracles, from the formulas


def _lists(run: dict) -> dict:
    return {u: [i for i, _ in sorted(s.items(), key=lambda t: -t[1])] for u, s in run.items()}


def _w(weight: str, p: float, n: int) -> list[float]:
    model = {"geometric": Geometric(p), "log": LogDiscount(), "log_clip": LogDiscount("clip"),
             "uniform": Uniform()}[weight]
    return model.weights(n).tolist()


def oracle_share(lists, groups, group, weight, p, k):
    num = den = 0.0
    per = []
    for items in lists.values():
        items = items[:k]
        w = _w(weight, p, len(items))
        a = sum(wi for wi, i in zip(w, items, strict=True) if groups[i] == group)
        per.append(a / sum(w) if items else math.nan)
        num, den = num + a, den + sum(w)
    return num / den, per


def oracle_gini(lists, weight, p, k, n):
    e: dict = {}
    for items in lists.values():
        for wi, i in zip(_w(weight, p, len(items[:k])), items[:k], strict=True):
            e[i] = e.get(i, 0.0) + wi
    x = sorted(list(e.values()) + [0.0] * (n - len(e)))
    return sum((2 * j - n - 1) * v for j, v in enumerate(x, 1)) / (n * sum(x))


def oracle_awrf(items, groups, labels, weight, p, distance, relevant=None):
    w = _w(weight, p, len(items))
    a = [sum(wi for wi, i in zip(w, items, strict=True) if groups[i] == g) for g in labels]
    a = [x / sum(a) for x in a]
    t = [1 / len(labels)] * len(labels)
    if relevant is not None:  # the groups' shares of the relevant items
        t = [sum(groups[i] == g for i in relevant) for g in labels]
        if not sum(t):
            return math.nan
        t = [x / sum(t) for x in t]
    kl = lambda x, y: sum(xi * math.log(xi / yi) for xi, yi in zip(x, y, strict=True) if xi > 0)  # noqa: E731
    if distance == "kl":
        return 1 - kl(a, t)
    m = [(x + y) / 2 for x, y in zip(a, t, strict=True)]
    return 1 - (kl(a, m) + kl(t, m)) / 2


def oracle_ee(items, rels, p, k, catalog=None, groups=None, cascade=None):
    """Diaz et al.: e_i = p^(rank-1) within k; the ideal policy ranks by grade and shuffles
    equal grades, e*_i = the mean attention of its level's positions (0 beyond k); with a
    catalogue (a list of every item id), its nonrelevant items are the last level.
    ``cascade=g_max``: the GERR user model, attention times prod_{j<r} (1 - phi(g_j)),
    phi(g) = (2^g - 1) / 2^g_max."""
    def attention(grades_in_order):
        out, reach = [], 1.0
        for r, g in enumerate(grades_in_order):
            out.append(p ** r * reach if r < k else 0.0)
            if cascade is not None:
                reach *= 1 - (2 ** g - 1) / 2 ** cascade
        return out

    items = items[:k]
    listed = attention([max(rels.get(i, 0), 0) for i in items])
    e = dict(zip(items, listed, strict=True))
    grades = {i: g for i, g in rels.items() if g > 0}
    if catalog is not None:
        grades.update({i: 0 for i in catalog if i not in grades})
    ranked = sorted(grades.values(), reverse=True)
    att = attention(ranked)
    level = {}
    for g in set(ranked):
        pos = [r for r, x in enumerate(ranked) if x == g]
        level[g] = sum(att[r] for r in pos) / len(pos)
    tgt = {i: level[g] for i, g in grades.items()}
    if groups is not None:  # group expected exposure: sums per group
        e = _per_group(e, groups)
        tgt = _per_group(tgt, groups)
    every = set(e) | set(tgt)
    loss = sum((e.get(i, 0.0) - tgt.get(i, 0.0)) ** 2 for i in every)
    disp = sum(v * v for v in e.values())
    relv = sum(e[i] * tgt.get(i, 0.0) for i in e)
    return loss, disp, relv


def _per_group(values, groups):
    out: dict = {}
    for i, v in values.items():
        out[groups[i]] = out.get(groups[i], 0.0) + v
    return out


def oracle_rbe(items, cats, n_cat, p, smooth):
    w = _w("geometric", p, len(items))
    tot: dict = {}
    for wi, i in zip(w, items, strict=True):
        for c in cats[i]:
            tot[c] = tot.get(c, 0.0) + wi
    vals = [v + smooth for v in tot.values()] + [smooth] * (n_cat - len(tot))
    z = sum(vals)
    return -sum(v / z * math.log2(v / z) for v in vals if v > 0)


@st.composite
def data(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 9)), int(rng.integers(2, 12))
    items = [f"i{j}" for j in range(n_items)]
    run, truth = {}, {}
    for u in range(n_users):
        m = int(rng.integers(1, n_items + 1))
        chosen = rng.choice(n_items, size=m, replace=False)
        run[f"u{u}"] = {items[c]: float(m - r) for r, c in enumerate(chosen)}
        rel = rng.choice(n_items, size=int(rng.integers(1, n_items + 1)), replace=False)
        truth[f"u{u}"] = {items[c]: int(rng.integers(0, 4)) for c in rel}
    labels = ["G0", "G1", "G2"][: int(rng.integers(2, 4))]
    groups = {i: labels[int(rng.integers(0, len(labels)))] for i in items}
    labels = sorted(set(groups.values()))  # the groups item_groups has
    cats = {i: [f"c{c}" for c in rng.choice(4, size=int(rng.integers(1, 3)), replace=False)]
            for i in items}
    k = int(rng.integers(1, n_items + 1))
    p = float(rng.choice([0.3, 0.5, 0.85]))
    return run, truth, groups, cats, labels, k, p, n_items


@settings(max_examples=60, deadline=None)
@given(data(), st.sampled_from(["geometric", "log", "log_clip", "uniform"]))
def test_exposure_metrics_match_the_oracles(d, weight):
    run, truth, groups, cats, labels, k, p, n_items = d
    lists = _lists(run)
    g = labels[0]
    share = rv.metric("exposure_share", k, group=g, weight=weight, p=p).key
    gini = rv.metric("exposure_gini", k, weight=weight, p=p).key
    awrf = rv.metric("awrf", k, weight=weight, p=p).key
    awrf_kl = rv.metric("awrf", k, weight=weight, p=p, distance="kl").key
    awrf_rel = rv.metric("awrf", k, weight=weight, p=p, target="relevant").key
    res = rv.evaluate(run, truth, [share, gini, awrf, awrf_kl, awrf_rel], item_groups=groups,
                      catalog=n_items + 2, users="intersection")
    want, per = oracle_share(lists, groups, g, weight, p, k)
    assert res.summary[share] == pytest.approx(want, rel=1e-12)
    assert res.per_user[share].tolist() == pytest.approx(per, rel=1e-12)
    assert res.summary[gini] == pytest.approx(oracle_gini(lists, weight, p, k, n_items + 2),
                                              rel=1e-9, abs=1e-12)
    for key, dist in ((awrf, "js"), (awrf_kl, "kl")):
        want = [oracle_awrf(lists[u][:k], groups, labels, weight, p, dist)
                for u in res.per_user.index]
        assert res.per_user[key].tolist() == pytest.approx(want, rel=1e-12, abs=1e-12)
    want = [oracle_awrf(lists[u][:k], groups, labels, weight, p, "js",
                        [i for i, g in truth[u].items() if g > 0]) for u in res.per_user.index]
    assert res.per_user[awrf_rel].tolist() == pytest.approx(want, rel=1e-12, abs=1e-12,
                                                            nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(data())
def test_expected_exposure_and_entropy_match_the_oracles(d):
    run, truth, groups, cats, labels, k, p, n_items = d
    lists = _lists(run)
    keys = [rv.metric(n, k, p=p).key for n in ("ee_loss", "ee_disparity", "ee_relevance")]
    rbe = rv.metric("rank_biased_entropy", k, p=p, smooth=1e-6).key
    res = rv.evaluate(run, truth, [*keys, rbe], item_categories=cats, users="intersection",
                      empty_truth="zero")
    for u in res.per_user.index:
        want = oracle_ee(lists[u], truth[u], p, k)
        got = [res.per_user.loc[u, key] for key in keys]
        assert got == pytest.approx(list(want), rel=1e-12, abs=1e-14)
        assert res.per_user.loc[u, rbe] == pytest.approx(
            oracle_rbe(lists[u][:k], cats, len({c for v in cats.values() for c in v}), p, 1e-6),
            rel=1e-12)
    # the cascade (GERR) user model, over the items and with a catalogue
    for extra, catalog in (({}, None), ({"nonrelevant": "catalog"}, [f"i{j}" for j in range(n_items + 2)])):
        keys = [rv.metric(n, k, p=p, weight="cascade", max_grade=3, **extra).key
                for n in ("ee_loss", "ee_disparity", "ee_relevance")]
        res = rv.evaluate(run, truth, keys, users="intersection", empty_truth="zero",
                          catalog=catalog)
        for u in res.per_user.index:
            want = oracle_ee(lists[u], truth[u], p, k, catalog, cascade=3)
            got = [res.per_user.loc[u, key] for key in keys]
            assert got == pytest.approx(list(want), rel=1e-12, abs=1e-14)
    # group expected exposure: the exposures summed per item group
    keys = [rv.metric(n, k, p=p, level="group").key
            for n in ("ee_loss", "ee_disparity", "ee_relevance")]
    res = rv.evaluate(run, truth, keys, users="intersection", empty_truth="zero",
                      item_groups=groups)
    for u in res.per_user.index:
        want = oracle_ee(lists[u], truth[u], p, k, groups=groups)
        got = [res.per_user.loc[u, key] for key in keys]
        assert got == pytest.approx(list(want), rel=1e-12, abs=1e-14)
    # a Plackett-Luce policy over each list: exposure = expected attention over permutations
    keys = [rv.metric(n, k, p=p, policy="plackett_luce").key
            for n in ("ee_loss", "ee_disparity", "ee_relevance")]
    small = {u: dict(list(s.items())[:6]) for u, s in run.items()}
    res = rv.evaluate(small, truth, keys, users="intersection", empty_truth="zero")
    for u in res.per_user.index:
        items = list(small[u])
        probs = _pl_oracle(np.array([small[u][i] for i in items]), 1.0)
        att = np.array([p ** r if r < k else 0.0 for r in range(len(items))])
        e = dict(zip(items, probs @ att, strict=True))
        grades = {i: g for i, g in truth[u].items() if g > 0}
        ranked = sorted(grades.values(), reverse=True)
        ideal = [p ** r if r < k else 0.0 for r in range(len(ranked))]
        level = {g: np.mean([ideal[r] for r, x in enumerate(ranked) if x == g]) for g in grades.values()}
        tgt = {i: level[g] for i, g in grades.items()}
        every = set(e) | set(tgt)
        want = [sum((e.get(i, 0.0) - tgt.get(i, 0.0)) ** 2 for i in every),
                sum(v * v for v in e.values()), sum(e[i] * tgt.get(i, 0.0) for i in e)]
        got = [res.per_user.loc[u, key] for key in keys]
        assert got == pytest.approx(want, rel=1e-10, abs=1e-12)
    # Diaz et al.'s ideal policy over a catalogue: its nonrelevant items share the ranks after
    # the relevant ones
    catalog = [f"i{j}" for j in range(n_items + 3)]
    keys = [rv.metric(n, k, p=p, nonrelevant="catalog").key
            for n in ("ee_loss", "ee_disparity", "ee_relevance")]
    res = rv.evaluate(run, truth, keys, users="intersection", empty_truth="zero",
                      catalog=catalog)
    for u in res.per_user.index:
        want = oracle_ee(lists[u], truth[u], p, k, catalog)
        got = [res.per_user.loc[u, key] for key in keys]
        assert got == pytest.approx(list(want), rel=1e-12, abs=1e-14)


@settings(max_examples=30, deadline=None)
@given(data(), st.integers(1, 4))
def test_blocks_equal_in_memory_bit_for_bit(d, n_blocks):
    run, truth, groups, cats, labels, k, p, n_items = d
    keys = [rv.metric("exposure_share", k, group=labels[0], p=p).key,
            rv.metric("exposure_share", None, group=labels[-1], weight="log").key,
            rv.metric("exposure_gini", k, p=p).key, "exposure_gini",
            rv.metric("awrf", k).key, rv.metric("rank_biased_entropy", k, p=p).key,
            rv.metric("ee_loss", k, p=p).key, "ee_relevance", "ee_disparity@3",
            rv.metric("ee_loss", k, nonrelevant="catalog").key,
            rv.metric("ee_relevance", None, nonrelevant="catalog").key,
            rv.metric("ee_loss", k, policy="plackett_luce", temperature=2).key,
            rv.metric("ee_relevance", k, policy="plackett_luce", level="group").key,
            rv.metric("ee_loss", k, level="group").key,
            rv.metric("ee_loss", k, weight="cascade", max_grade=3).key]
    users = list(run)
    parts = [x for x in ({u: run[u] for u in users[b::n_blocks]} for b in range(n_blocks)) if x]
    # an explicit catalogue, and the default one (train + truth + run items: each block's
    # own, their union over the blocks)
    for catalog, ks in ((n_items + 1, keys), (None, [k for k in keys if "catalog" not in k])):
        ev = rv.Evaluator(truth, ks, item_groups=groups, item_categories=cats, catalog=catalog)
        whole = ev.evaluate(run)
        blocks = ev.evaluate_blocks(parts)
        for key in ks:
            a, b = whole.summary[key], blocks.summary[key]
            assert a == b or (math.isnan(a) and math.isnan(b)), key
            pa = whole.per_user[key].sort_index()
            pb = blocks.per_user[key].sort_index()
            assert pa.equals(pb), key


def test_refused_inputs_name_the_fix():
    with pytest.raises(InputError, match="item_groups="):
        rv.evaluate(RUN, TRUTH, ["exposure_share(group=A)"])
    with pytest.raises(InputError, match="group="):
        _eval(["exposure_share(group=Z)"])
    with pytest.raises(InputError, match="group="):
        _eval(["exposure_share"])
    with pytest.raises(InputError, match="missing=skip"):
        _eval(["exposure_share(group=A)"], item_groups={"a": "A", "b": "B"})
    with pytest.raises(rv.errors.MetricError, match="p=1"):
        rv.metric("exposure_gini", p=1)
    with pytest.raises(InputError, match="item_categories"):
        rv.evaluate(RUN, TRUTH, ["rank_biased_entropy"])
    with pytest.raises(InputError, match="missing=skip"):
        _eval(["ee_loss(level=group)"], item_groups={"a": "A", "b": "B"})
    with pytest.raises(InputError, match="level=group"):
        _eval(["ee_loss(level=group,nonrelevant=catalog)"], catalog=5)
    with pytest.raises(InputError, match="n_items=10000"):
        rv.evaluate(RUN, TRUTH, ["ee_loss(nonrelevant=catalog)"])
    # N in the key or as an explicit catalogue: one value
    a = _eval(["ee_loss(n_items=7,nonrelevant=catalog)"]).summary
    b = _eval(["ee_loss(nonrelevant=catalog)"], catalog=7).summary
    assert a["ee_loss(n_items=7,nonrelevant=catalog)"] == b["ee_loss(nonrelevant=catalog)"]
    # an item without a group: left out (skip) or counted in no group (other)
    groups = {"a": "A", "b": "B"}
    r = _eval(["exposure_share(group=A,missing=skip,p=0.5)",
               "exposure_share(group=A,missing=other,p=0.5)", "awrf"], item_groups=groups)
    assert r.per_user["exposure_share(group=A,missing=skip,p=0.5)"].tolist() == [
        float(F(2, 3)), float(F(1, 5))]
    assert r.per_user["exposure_share(group=A,missing=other,p=0.5)"].tolist() == [
        float(F(2, 3)), float(F(1, 7))]
    assert r.info["awrf"]["positions_without_group"] == 1
