"""Expected exposure of a stochastic policy from rankings sampled from it (``rankings=``,
``policy=samples``): a worked example in exact fractions, a slow oracle written from Diaz et
al.'s formula, one sample == the deterministic policy bit for bit, many Plackett-Luce samples
converge to the closed form, blocks == in memory, and refused inputs."""

from __future__ import annotations

import math
import time
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.exposure  # noqa: F401  (registers the families)
from receval.beyond.attention import Geometric, Uniform
from receval.beyond.rankings import as_rankings
from receval.errors import InputError

NAMES = ("ee_loss", "ee_disparity", "ee_relevance")

# user 1: a relevant (grade 1); user 2: c (grade 2), d (grade 1)
TRUTH = pd.DataFrame({"user": [1, 2, 2], "item": ["a", "c", "d"], "rel": [1, 2, 1]})
# the run names the users; policy=samples reads the rankings instead of its lists
RUN = pd.DataFrame({"user": [1, 2], "item": ["b", "a"], "score": [1.0, 1.0]})
# three rankings per user, of different lengths for user 2 (sample ids are per user)
DRAWS = pd.DataFrame({
    "user": [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2],
    "sample": ["s0", "s0", "s1", "s1", "s2", "s2", "x", "x", "x", "y", "y", "z"],
    "item": ["a", "b", "b", "a", "a", "c", "c", "d", "a", "d", "c", "c"],
    "rank": [1, 2, 1, 2, 1, 2, 1, 2, 3, 1, 2, 1]})


def _keys(k=None, **params):
    return [rv.metric(n, k, policy="samples", **params).key for n in NAMES]


def _per_user(res, keys):
    return [[res.per_user.loc[u, key] for key in keys] for u in res.per_user.index]


def test_worked_example_in_fractions():
    # p = 1/2. user 1: a in ranks 1, 2, 1 -> e_a = (1 + 1/2 + 1) / 3 = 5/6; b: (1/2 + 1) / 3
    # = 1/2; c: (1/2) / 3 = 1/6; target e*_a = 1 (the ideal rank 1)
    # user 2: c: (1 + 1/2 + 1) / 3 = 5/6, d: (1/2 + 1) / 3 = 1/2, a: (1/4) / 3 = 1/12;
    # targets c (grade 2): 1, d (grade 1): 1/2
    keys = _keys()
    res = rv.evaluate(RUN, TRUTH, keys, rankings=DRAWS)
    want = [[F(1, 36) + F(1, 4) + F(1, 36), F(25, 36) + F(1, 4) + F(1, 36), F(5, 6)],
            [F(1, 36) + 0 + F(1, 144), F(25, 36) + F(1, 4) + F(1, 144), F(5, 6) + F(1, 4)]]
    assert want == [[F(11, 36), F(35, 36), F(5, 6)], [F(5, 144), F(137, 144), F(13, 12)]]
    for got, exp in zip(_per_user(res, keys), want, strict=True):
        assert got == pytest.approx([float(x) for x in exp], rel=1e-15)
    # EE-L = EE-D - 2 EE-R + ||e*||^2 (||e*||^2 = 1, then 1 + 1/4)
    assert F(35, 36) - 2 * F(5, 6) + 1 == F(11, 36)
    assert F(137, 144) - 2 * F(13, 12) + F(5, 4) == F(5, 144)
    info = res.info[keys[0]]
    assert (info["sampled_users"], info["samples"], info["rankings_rows_read"]) == (2, 6, 12)
    # graded=binary: c and d share ideal ranks 1, 2: e* = 3/4 each
    keys = _keys(grades="binary")
    res = rv.evaluate(RUN, TRUTH, keys, rankings=DRAWS)
    assert _per_user(res, keys)[1] == pytest.approx(
        [float(F(1, 144) + F(1, 16) + F(1, 144)), float(F(137, 144)),
         float(F(5, 6) * F(3, 4) + F(1, 2) * F(3, 4))], rel=1e-15)
    # @2: a, the third of user 2's sample x, is cut (exposure 0: no entry)
    keys = _keys(2)
    res = rv.evaluate(RUN, TRUTH, keys, rankings=DRAWS)
    assert _per_user(res, keys)[1] == pytest.approx(
        [float(F(1, 36)), float(F(25, 36) + F(1, 4)), float(F(13, 12))], rel=1e-15)
    assert _per_user(res, keys)[0] == pytest.approx([11 / 36, 35 / 36, 5 / 6], rel=1e-15)
    # a score column orders each sample (higher first); the run's lists play no part
    scored = DRAWS.assign(score=-DRAWS["rank"] * 10.0).drop(columns="rank")
    other_run = pd.DataFrame({"user": [1, 1, 2], "item": ["c", "a", "d"],
                              "score": [3.0, 2.0, 1.0]})
    res2 = rv.evaluate(other_run, TRUTH, _keys(), rankings=scored)
    res1 = rv.evaluate(RUN, TRUTH, _keys(), rankings=DRAWS)
    assert res2.per_user.equals(res1.per_user)


def test_group_level_worked_example():
    # groups: a, c in A; b, d in B. user 1: E_A = 5/6 + 1/6 = 1, E_B = 1/2; targets A 1, B 0
    keys = _keys(level="group")
    groups = {"a": "A", "c": "A", "b": "B", "d": "B"}
    res = rv.evaluate(RUN, TRUTH, keys, rankings=DRAWS, item_groups=groups)
    assert _per_user(res, keys)[0] == pytest.approx([0 + 1 / 4, 1 + 1 / 4, 1.0], rel=1e-15)
    # user 2: E_A = 5/6 + 1/12 = 11/12, E_B = 1/2; targets A 1, B 1/2
    assert _per_user(res, keys)[1] == pytest.approx(
        [float(F(1, 144)), float(F(121, 144) + F(1, 4)), float(F(11, 12) + F(1, 4))],
        rel=1e-15)


def test_dict_of_columns_polars_and_arrow_read_alike():
    base = rv.evaluate(RUN, TRUTH, _keys(), rankings=DRAWS).per_user
    cols = {c: DRAWS[c].tolist() for c in DRAWS.columns}
    assert rv.evaluate(RUN, TRUTH, _keys(), rankings=cols).per_user.equals(base)
    pa = pytest.importorskip("pyarrow")
    assert rv.evaluate(RUN, TRUTH, _keys(),
                       rankings=pa.Table.from_pandas(DRAWS)).per_user.equals(base)
    pl = pytest.importorskip("polars")
    assert rv.evaluate(RUN, TRUTH, _keys(), rankings=pl.from_pandas(DRAWS)).per_user.equals(base)


# -------------------------------------------------------------------------------------------------
# the slow oracle: Diaz et al.'s expected exposure from the samples, item by item


def oracle(samples, rels, p, k, *, binary=False, cascade=None, drop=False, catalog=None,
           groups=None):
    """(EE-L, EE-D, EE-R) of one user: e_i = the mean over the samples of p^(r-1) (r <= k; the
    GERR cascade: times prod_{j<r} (1 - (2^g_j - 1) / 2^cascade)); e*_i = the mean ideal
    attention of the positions of i's grade level."""
    def grade(i):
        g = max(rels.get(i, 0), 0)
        return (1 if g > 0 else 0) if binary else g

    def attention(grades_in_order):
        out, reach = [], 1.0
        for r, g in enumerate(grades_in_order):
            out.append(p ** r * reach if k is None or r < k else 0.0)
            if cascade is not None:
                reach *= 1 - (2 ** g - 1) / 2 ** cascade
        return out

    e: dict = {}
    for ranking in samples:
        ranking = ranking if k is None else ranking[:k]
        for i, w in zip(ranking, attention([grade(i) for i in ranking]), strict=True):
            e[i] = e.get(i, 0.0) + w
    e = {i: v / len(samples) for i, v in e.items()}
    if drop:
        e = {i: (v if grade(i) > 0 else 0.0) for i, v in e.items()}
    grades = {i: grade(i) for i in rels if grade(i) > 0}
    if catalog is not None:
        grades.update({i: 0 for i in catalog if i not in grades})
    ranked = sorted(grades.values(), reverse=True)
    att = attention(ranked)
    level = {g: sum(att[r] for r, x in enumerate(ranked) if x == g) / ranked.count(g)
             for g in set(ranked)}
    tgt = {i: level[g] for i, g in grades.items()}
    if groups is not None:
        def per_group(v):
            out: dict = {}
            for i, x in v.items():
                out[groups[i]] = out.get(groups[i], 0.0) + x
            return out
        e, tgt = per_group(e), per_group(tgt)
    every = set(e) | set(tgt)
    return (sum((e.get(i, 0.0) - tgt.get(i, 0.0)) ** 2 for i in every),
            sum(v * v for v in e.values()), sum(v * tgt.get(i, 0.0) for i, v in e.items()))


@st.composite
def policies(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 6)), int(rng.integers(2, 9))
    items = [f"i{j}" for j in range(n_items)]
    samples, truth, rows = {}, {}, []
    for u in range(n_users):
        user = f"u{u}"
        samples[user] = []
        for s in range(int(rng.integers(1, 5))):
            m = int(rng.integers(1, n_items + 1))
            ranking = [items[c] for c in rng.choice(n_items, size=m, replace=False)]
            samples[user].append(ranking)
            rows += [(user, s, i, r + 1) for r, i in enumerate(ranking)]
        rel = rng.choice(n_items, size=int(rng.integers(1, n_items + 1)), replace=False)
        truth[user] = {items[c]: int(rng.integers(0, 4)) for c in rel}
    order = rng.permutation(len(rows))  # the rows in any order
    draws = pd.DataFrame([rows[j] for j in order], columns=["user", "sample", "item", "rank"])
    run = {u: {items[0]: 1.0} for u in samples}
    groups = {i: "AB"[int(rng.integers(0, 2))] for i in items}
    k = None if rng.random() < 0.3 else int(rng.integers(1, n_items + 1))
    p = float(rng.choice([0.3, 0.5, 0.85]))
    return run, truth, samples, draws, groups, k, p, items


@settings(max_examples=50, deadline=None)
@given(policies())
def test_matches_the_oracle(d):
    run, truth, samples, draws, groups, k, p, items = d
    catalog = [*items, "x0", "x1"]
    cases = [({}, {}), ({"grades": "binary"}, {"binary": True}),
             ({"nonrelevant": "drop"}, {"drop": True}),
             ({"weight": "cascade", "max_grade": 3}, {"cascade": 3}),
             ({"nonrelevant": "catalog"}, {"catalog": catalog}),
             ({"level": "group"}, {"groups": groups})]
    for params, kw in cases:
        keys = _keys(k, p=p, **params)
        res = rv.evaluate(run, truth, keys, rankings=draws, users="intersection",
                          empty_truth="zero", item_groups=groups, catalog=catalog)
        for u in res.per_user.index:
            want = oracle(samples[u], truth[u], p, k, **kw)
            got = [res.per_user.loc[u, key] for key in keys]
            assert got == pytest.approx(list(want), rel=1e-12, abs=1e-14), (params, u)


def _ranked(run: dict) -> pd.DataFrame:
    """Each list of a run (distinct scores) as one sample, ranked by score."""
    rows = []
    for u, scores in run.items():
        for r, i in enumerate(sorted(scores, key=lambda i: -scores[i])):
            rows.append((u, "only", i, r + 1))
    return pd.DataFrame(rows, columns=["user", "sample", "item", "rank"])


@settings(max_examples=40, deadline=None)
@given(policies())
def test_one_sample_is_the_deterministic_policy_bit_for_bit(d):
    run, truth, samples, draws, groups, k, p, items = d
    # the first sample of each user as the run (scores descending along it)
    run = {u: {i: float(len(s[0]) - r) for r, i in enumerate(s[0])} for u, s in samples.items()}
    one = _ranked(run)
    for params in ({}, {"grades": "binary"}, {"nonrelevant": "drop"},
                   {"weight": "cascade", "max_grade": 3}, {"nonrelevant": "catalog"},
                   {"level": "group"}, {"weight": "log"}):
        det = [rv.metric(n, k, p=p, **params).key for n in NAMES]
        sam = [rv.metric(n, k, p=p, policy="samples", **params).key for n in NAMES]
        res = rv.evaluate(run, truth, det + sam, rankings=one, item_groups=groups,
                          catalog=[*items, "x0"], empty_truth="zero")
        for a, b in zip(det, sam, strict=True):
            assert res.per_user[a].equals(res.per_user[b].rename(a)), (params, a)
            assert res.summary[a] == res.summary[b] or (
                math.isnan(res.summary[a]) and math.isnan(res.summary[b]))


def test_many_plackett_luce_samples_converge_to_the_closed_form():
    rng = np.random.default_rng(20260)
    run, truth, rows = {}, {}, []
    n_draws = 3000
    for u in range(4):
        items = [f"i{j}" for j in range(6)]
        scores = rng.normal(size=6) * 1.5
        run[f"u{u}"] = dict(zip(items, scores.tolist(), strict=True))
        truth[f"u{u}"] = {items[j]: int(rng.integers(0, 3)) for j in range(6)}
        gumbel = rng.gumbel(size=(n_draws, 6))
        order = np.argsort(-(scores[None, :] + gumbel), axis=1)  # Plackett-Luce draws
        for s in range(n_draws):
            rows += [(f"u{u}", s, items[j], r + 1) for r, j in enumerate(order[s])]
    draws = pd.DataFrame(rows, columns=["user", "sample", "item", "rank"])
    for k in (3, None):
        closed = [rv.metric(n, k, policy="plackett_luce").key for n in NAMES]
        sampled = _keys(k)
        res = rv.evaluate(run, truth, closed + sampled, rankings=draws, empty_truth="zero")
        for a, b in zip(closed, sampled, strict=True):
            diff = (res.per_user[a] - res.per_user[b]).abs()
            assert diff.max() < 0.03, (a, diff.max())  # sampling error ~ 1/sqrt(3000)
        # and a single sample is far from it: the test can fail
        one = draws[draws["sample"] == 0]
        res1 = rv.evaluate(run, truth, closed[:2] + sampled[:2], rankings=one,
                           empty_truth="zero")
        assert (res1.per_user[closed[1]] - res1.per_user[sampled[1]]).abs().max() > 0.03


@settings(max_examples=25, deadline=None)
@given(policies(), st.integers(1, 4))
def test_blocks_equal_in_memory_bit_for_bit(d, n_blocks):
    run, truth, samples, draws, groups, k, p, items = d
    keys = [*_keys(k, p=p), *_keys(None, level="group"),
            *_keys(k, weight="cascade", max_grade=3), *_keys(k, nonrelevant="catalog"),
            *_keys(k, nonrelevant="catalog", normalize="bounds")]
    users = list(run)
    parts = [x for x in ({u: run[u] for u in users[b::n_blocks]} for b in range(n_blocks)) if x]
    ev = rv.Evaluator(truth, keys, rankings=draws, item_groups=groups, catalog=[*items, "x"])
    whole = ev.evaluate(run)
    blocks = ev.evaluate_blocks(parts)
    for key in keys:
        a, b = whole.summary[key], blocks.summary[key]
        assert a == b or (math.isnan(a) and math.isnan(b)), key
        assert whole.per_user[key].sort_index().equals(blocks.per_user[key].sort_index()), key
    assert blocks.info[keys[0]]["rankings_rows_read"] == whole.info[keys[0]][
        "rankings_rows_read"]


# -------------------------------------------------------------------------------------------------
# users without rankings, rows of users not evaluated


def test_users_without_rankings_and_rows_not_read():
    truth = pd.concat([TRUTH, pd.DataFrame({"user": [3], "item": ["a"], "rel": [1]})])
    run = pd.concat([RUN, pd.DataFrame({"user": [3, 3], "item": ["b", "a"],
                                        "score": [2.0, 1.0]})])
    with pytest.raises(InputError, match=r"1 evaluated user\(s\) have no ranking in rankings=, "
                                         r"e.g. 3.*unsampled=skip.*unsampled=run"):
        rv.evaluate(run, truth, _keys(), rankings=DRAWS)
    skip = _keys(unsampled="skip")
    res = rv.evaluate(run, truth, skip, rankings=DRAWS)
    assert res.per_user[skip].loc[3].isna().all()
    assert res.info[skip[0]]["users_without_samples"] == 1
    # unsampled=run: user 3's run list [b, a] is its one ranking: the deterministic values
    fall = _keys(unsampled="run")
    res = rv.evaluate(run, truth, fall + list(NAMES), rankings=DRAWS)
    assert [res.per_user.loc[3, k] for k in fall] == [res.per_user.loc[3, k] for k in NAMES]
    assert res.per_user.loc[3, fall[0]] == 1 + (1 / 2 - 1) ** 2  # b: 1 (target 0), a: 1/2 (1)
    # rows of users the evaluation does not hold are not read: counted
    extra = pd.concat([DRAWS, pd.DataFrame({"user": [9, 9], "sample": [0, 0],
                                            "item": ["a", "b"], "rank": [1, 2]})])
    res = rv.evaluate(RUN, TRUTH, _keys(), rankings=extra)
    info = res.info[_keys()[0]]
    assert (info["n_rankings_rows"], info["rankings_rows_read"]) == (14, 12)


# -------------------------------------------------------------------------------------------------
# refused inputs


def _refused(draws, match, keys=None, **kw):
    with pytest.raises(InputError, match=match):
        rv.evaluate(RUN, TRUTH, keys or _keys(), rankings=draws, **kw)


def test_refused_inputs_name_the_fix():
    with pytest.raises(InputError, match=r"pass them as rankings=.*policy=deterministic"):
        rv.evaluate(RUN, TRUTH, _keys())
    twice = DRAWS.copy()
    twice.loc[1, "item"] = "a"  # user 1, sample s0: a at ranks 1 and 2
    _refused(twice, r"user 1, sample 's0', item 'a' appears twice in one sample.*"
                    r"drop_duplicates")
    gap = DRAWS.copy()
    gap.loc[8, "rank"] = 4  # user 2, sample x: ranks 1, 2, 4
    _refused(gap, r"user 2, sample 'x', item 'a' skips to rank 4 at place 3.*ranks 1..n")
    shared = DRAWS.copy()
    shared.loc[7, "rank"] = 1  # user 2, sample x: ranks 1, 1, 3
    _refused(shared, r"sample 'x', item '[cd]' shares rank 1 at place 2")
    for bad in (0, 1.5, np.nan, -2):
        wrong = DRAWS.astype({"rank": float})
        wrong.loc[0, "rank"] = bad
        _refused(wrong, r"user 1, sample 's0', item 'a' has rank .*whole number >= 1")
    scored = DRAWS.assign(score=-DRAWS["rank"].astype(float)).drop(columns="rank")
    tie = scored.copy()
    tie.loc[7, "score"] = -1.0
    _refused(tie, r"user 2, sample 'x', item '[cd]' ties on score -1.*Break the ties")
    nan = scored.copy()
    nan.loc[3, "score"] = np.inf
    _refused(nan, r"user 1, sample 's1', item 'a' has score inf.*finite score")
    _refused(DRAWS.drop(columns="sample"), r"no sample column among.*'sample'")
    _refused(DRAWS.drop(columns="rank"), r"no rank or score column")
    _refused(DRAWS.drop(columns="item"), r"no item column")
    none = DRAWS.astype({"sample": object})
    none.loc[2, "sample"] = None
    _refused(none, r"column 'sample' has 1 missing value")
    _refused(DRAWS.assign(rank=DRAWS["rank"].astype(str)), r"column 'rank' must be numeric")
    _refused({1: {"a": 1}}, r"one ranking per user; give a table")
    _refused(DRAWS.iloc[:0], r"rankings: the table has no rows")
    _refused([1, 2], r"expected a pandas / polars DataFrame.*got list")
    _refused(DRAWS.assign(user=DRAWS["user"].astype(str)),
             r"the user ids of rankings= are str but the evaluation's are int.*astype\(str\)")
    _refused(DRAWS, r"3 sampled item\(s\) of rankings= have no group.*missing=skip",
             _keys(level="group"), item_groups={"a": "A", "d": "B"})
    _refused(DRAWS, r"catalog=2: user 1 has 3 relevant or ranked items",
             _keys(2, nonrelevant="catalog"), catalog=2)
    with pytest.raises(Exception, match=r"unsampled"):
        rv.evaluate(RUN, TRUTH, ["ee_loss(policy=samples,unsampled=drop)"], rankings=DRAWS)


def test_reader_keeps_samples_in_order():
    rk = as_rankings(DRAWS.iloc[::-1])
    assert rk.users.tolist() == [2, 1]
    assert rk.n_samples.tolist() == [3, 3]
    assert rk.place.tolist() == [0, 0, 1, 0, 1, 2, 0, 1, 0, 1, 0, 1]
    assert rk.items[rk.item].tolist()[:6] == ["c", "d", "c", "c", "d", "a"]
    assert rk.order == "rank" and rk.n_rows == 12


# -------------------------------------------------------------------------------------------------
# normalize=bounds: Diaz et al.'s least and greatest values over every policy


def test_normalized_worked_example_in_fractions():
    # catalogue {a, b, c}, a relevant, p = 1/2: w = 1, 1/2, 1/4; W = 7/4, S2 = 21/16; targets
    # a: 1, b and c share ranks 2, 3: 3/8; ||e*||^2 = 41/32; reversed ideal: EE-R = 3/8 + 3/16
    # + 1/4 = 13/16. The list [b, a]: EE-D = 5/4, EE-R = 1/2 + 3/8 = 7/8, EE-L = 25/32
    run, truth = {"u": {"b": 2.0, "a": 1.0}}, {"u": {"a": 1}}
    keys = [rv.metric(n, None, nonrelevant="catalog", normalize="bounds").key for n in NAMES]
    res = rv.evaluate(run, truth, keys, catalog=["a", "b", "c"])
    d = (F(5, 4) - F(49, 48)) / (F(21, 16) - F(49, 48))       # EE-D in [W^2 / N, S2]
    r = (F(7, 8) - F(13, 16)) / (F(41, 32) - F(13, 16))       # EE-R in [13/16, ||e*||^2]
    loss = F(25, 32) / (F(21, 16) - 2 * F(13, 16) + F(41, 32))  # EE-L in [0, 31/32]
    assert (d, r, loss) == (F(11, 14), F(2, 15), F(25, 31))
    assert _per_user(res, keys)[0] == pytest.approx([float(loss), float(d), float(r)],
                                                    rel=1e-15)
    # an unbounded candidate set: EE-D in [0, 1 / (1 - p^2)], EE-R in [0, 1], EE-L in
    # [0, 4/3 + 1]
    keys = [rv.metric(n, None, normalize="bounds").key for n in NAMES]
    res = rv.evaluate(run, truth, keys)
    assert _per_user(res, keys)[0] == pytest.approx(
        [float(F(5, 4) / F(7, 3)), float(F(5, 4) / F(4, 3)), 0.5], rel=1e-15)
    # @1: w = (1): EE-D in [0, 1]; the list's EE-L = 1 + 1 of [0, 1 + 1]
    keys = [rv.metric(n, 1, normalize="bounds").key for n in NAMES]
    assert _per_user(rv.evaluate(run, truth, keys), keys)[0] == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("seed", range(4))
def test_normalized_bounds_are_reached_by_some_policy(seed):
    """Over a catalogue of 4 items: the 24 static rankings reach the greatest EE-D, EE-L and
    EE-R and the least EE-R; the uniform policy (all 24 as samples) the least EE-D; no
    ranking leaves [0, 1]."""
    from itertools import permutations

    rng = np.random.default_rng(seed)
    items = ["a", "b", "c", "d"]
    grades = {i: int(g) for i, g in zip(items, rng.integers(0, 3, 4), strict=True)}
    if len(set(grades.values())) == 1:
        grades["a"] = 3 - grades["a"]  # two grades at least
    truth = {"u": {i: g for i, g in grades.items() if g}}
    k = [None, 2, 3][seed % 3]
    perms = list(permutations(items))
    keys = [rv.metric(n, k, nonrelevant="catalog", normalize="bounds", p=0.6,
                      weight=["geometric", "log"][seed % 2]).key for n in NAMES]
    per = []
    for perm in perms:
        run = {"u": {i: float(4 - r) for r, i in enumerate(perm)}}
        per.append(_per_user(rv.evaluate(run, truth, keys, catalog=items), keys)[0])
    per = np.array(per)
    assert ((per >= 0) & (per <= 1)).all()
    assert per[:, 0].max() == pytest.approx(1.0, abs=1e-12)   # EE-L: the reversed ideal
    assert per[:, 0].min() == pytest.approx(0.0, abs=1e-12) or len(set(grades.values())) < 4
    assert np.allclose(per[:, 1], 1.0)                         # EE-D: every static ranking
    assert per[:, 2].max() == pytest.approx(1.0, abs=1e-12)   # EE-R: the ideal order
    assert per[:, 2].min() == pytest.approx(0.0, abs=1e-12)   # EE-R: the reversed one
    uniform = pd.DataFrame([("u", s, i, r + 1) for s, perm in enumerate(perms)
                            for r, i in enumerate(perm)],
                           columns=["user", "sample", "item", "rank"])
    sampled = [rv.metric(n, k, nonrelevant="catalog", normalize="bounds", p=0.6,
                         weight=["geometric", "log"][seed % 2], policy="samples").key
               for n in NAMES]
    res = rv.evaluate({"u": {"a": 1.0}}, truth, sampled, catalog=items, rankings=uniform)
    assert res.per_user.loc["u", sampled[1]] == pytest.approx(0.0, abs=1e-12)


def test_normalize_refused_where_no_bounds_and_undefined_where_flat():
    run, truth = {"u": {"b": 2.0, "a": 1.0}}, {"u": {"a": 1}}
    for key, why in (("ee_loss(normalize=bounds,weight=cascade)", "cascade"),
                     ("ee_loss(level=group,normalize=bounds)", "item groups"),
                     ("ee_relevance(nonrelevant=drop,normalize=bounds)", "nonrelevant=drop"),
                     ("ee_disparity(normalize=bounds,weight=log)", "infinite sum")):
        with pytest.raises(InputError, match=rf"normalize=bounds is not available here: .*"
                                             rf"{why}.*Leave normalize out"):
            rv.evaluate(run, truth, [key], item_groups={"a": "A", "b": "B"})
    # every item equally relevant: every policy has the same EE-R, no range to place it in
    key = "ee_relevance(n_items=2,nonrelevant=catalog,normalize=bounds)"
    res = rv.evaluate(run, {"u": {"a": 1, "b": 1}}, [key])
    assert math.isnan(res.per_user.loc["u", key])


@pytest.mark.parametrize("model", [Geometric(0.85), Geometric(0.5, normalize=True), Uniform()])
def test_bound_sums_past_the_summed_ranks_take_the_closed_form(monkeypatch, model):
    from receval.beyond import exposure

    for depth in (1, 7, 300):
        monkeypatch.setattr(exposure, "_SUMMED_RANKS", 10**6)
        summed = exposure._weight_sums(model, depth)
        monkeypatch.setattr(exposure, "_SUMMED_RANKS", 0)
        closed = exposure._weight_sums(model, depth)
        np.testing.assert_allclose(closed, summed, rtol=1e-13, atol=0)
    t0 = time.perf_counter()
    s2, w = exposure._weight_sums(model, 10**12)
    assert time.perf_counter() - t0 < 0.1 and np.isfinite(s2) and np.isfinite(w)


def test_log_attention_bounds_past_the_summed_ranks_are_refused():
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(rv.InputError, match="log attention .* no closed form: give a cutoff"):
        rv.evaluate(run, truth, ["ee_disparity@1000000000(weight=log,normalize=bounds)"])
    ok = rv.evaluate(run, truth, ["ee_disparity@1000(weight=log,normalize=bounds)"])
    assert np.isfinite(ok.values).all()
