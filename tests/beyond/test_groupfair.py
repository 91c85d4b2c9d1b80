"""Item-group fairness (receval.beyond.groupfair): worked examples, a slow oracle written from
the papers' and Elliot's definitions, blocks == in memory, adversarial inputs."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.groupfair  # noqa: F401  (registers the families)
from receval.beyond.groupfair import short_head
from receval.errors import InputError

RUN = {"u1": {"a": 3, "b": 2, "c": 1}, "u2": {"c": 3, "a": 2, "d": 1}}
TRUTH = {"u1": {"a": 1, "c": 1}, "u2": {"d": 2}}
GROUPS = {"a": "A", "b": "A", "c": "B", "d": "B"}
TRAIN = pd.DataFrame([("u1", "d"), ("u2", "b"), ("u3", "a"), ("u3", "b")],
                     columns=["user", "item"])


def _ev(keys, run=RUN, truth=TRUTH, **kw):
    kw.setdefault("item_groups", GROUPS)
    return rv.evaluate(run, truth, keys, **kw)


def _cv(p):
    """std / mean (population std), exactly: the square root taken once at the end."""
    mean = sum(p, F(0)) / len(p)
    var = sum(((x - mean) ** 2 for x in p), F(0)) / len(p)
    return math.sqrt(var) / float(mean)


# -------------------------------------------------------------------------------------------
# worked examples (by hand)


def test_reo_worked():
    # top 2: u1 (a, b), u2 (c, a); relevant u1 {a, c}, u2 {d}
    # A: hits a (u1) / relevant {a}: 1/1; B: no hit / relevant {c, d}: 0/2 -> P = (1, 0): 1
    res = _ev(["reo@2"])
    assert res["reo@2"] == 1.0
    assert res.info["reo@2"]["ranked"] == [1, 0] and res.info["reo@2"]["candidates"] == [1, 2]
    # top 3: u1 (a, b, c) hits a, c; u2 (c, a, d) hits d: P = (1, 1): 0
    assert _ev(["reo@3"])["reo@3"] == 0.0


def test_reo_drop_train_items():
    # u1 has d in train, but d is not u1's relevant item: the same value; u2's relevant d
    # stays (u2 trained on b only)
    a = _ev(["reo@2(train_items=drop)"], train=TRAIN)["reo@2(train_items=drop)"]
    assert a == 1.0
    train = pd.DataFrame([("u2", "d")], columns=["user", "item"])
    res = _ev(["reo@3(train_items=drop)"], train=train)
    # B's candidates: c (u1) only; hits: c -> P = (1, 1): 0 and candidates [1, 1]
    assert res.info["reo@3(train_items=drop)"]["candidates"] == [1, 1]


def test_rsp_worked():
    # top 2 slots: A {a, b, a} = 3, B {c} = 1; |A| = |B| = 2
    # keep: candidates 2 users x 2 = 4 each: P = (3/4, 1/4): std 1/4, mean 1/2 -> 1/2
    assert _ev(["rsp@2(train_items=keep)"])["rsp@2(train_items=keep)"] == 0.5
    # drop: u1 trained on d (B), u2 on b (A): candidates A = 4 - 1, B = 4 - 1
    res = _ev(["rsp@2"], train=TRAIN)
    assert res.info["rsp@2"]["candidates"] == [3, 3]
    assert res["rsp@2"] == pytest.approx(_cv([F(3, 3), F(1, 3)]), rel=1e-15)


def test_item_mad_worked():
    # ranking gain 2^(r - 1 + 1) - 1 of relevant items: a in u1's top 2 (r = 1): gain 1,
    # a in u2's top 2: 0 -> v_a = 1/2, v_b = 0 (A: 1/4), v_c = 0 (B: 0): |1/4 - 0|
    assert _ev(["item_mad@2"])["item_mad@2"] == 0.25
    # rating: a's score in u1's list (3) -> v_a = 3/2, A: 3/4
    assert _ev(["item_mad@2(variant=rating)"])["item_mad@2(variant=rating)"] == 0.75
    # graded gain: u2's d (r = 2) at rank 3: 2^2 - 1 = 3 -> v_d = 3, v_c = 1/2 (u1 c r=1,
    # u2 c 0); B = (1/2 + 3) / 2 = 7/4; A = (1/2 + 0) / 2 = 1/4 -> 3/2
    assert _ev(["item_mad@3"])["item_mad@3"] == 1.5


def test_item_mad_three_groups_mean_of_pairs():
    groups = {"a": "A", "b": "B", "c": "C", "d": "C"}
    # top 3: v_a = 1/2 (A), v_b = 0 (B), v_c = 1/2, v_d = 3 (C: 7/4)
    # pairs |1/2 - 0|, |1/2 - 7/4|, |0 - 7/4| -> (1/2 + 5/4 + 7/4) / 3 = 7/6
    res = _ev(["item_mad@3"], item_groups=groups)
    assert res["item_mad@3"] == pytest.approx(7 / 6, rel=1e-15)


def test_bias_disparity_worked():
    keys = ["bias_disparity@2(group=A,measure=br)", "bias_disparity@2(group=A,measure=bs)",
            "bias_disparity@2(group=B)", "bias_disparity@2(group=A,measure=bs,users=evaluated)"]
    res = _ev(keys, train=TRAIN)
    # PC_A = PC_B = 1/2; slots A 3 of 4: BR_A = 3/2; training pairs A {b, a, b} 3 of 4: 3/2
    assert res[keys[0]] == 1.5 and res[keys[1]] == 1.5
    # B: BR = (1/4) / (1/2) = 1/2, BS = 1/2: BD = 0
    assert res[keys[2]] == 0.0
    # evaluated users u1 (d: B), u2 (b: A): BS_A = (1/2) / (1/2) = 1
    assert res[keys[3]] == 1.0


def test_short_head_elliot_rule():
    # popularity 5, 3, 1, 1 of 10 pairs, 0.8 -> limit 8: b (5) -> 3, c (3) -> 0: stop
    assert short_head(np.array([1, 5, 3, 1]), np.array(["a", "b", "c", "d"]), 10,
                      0.8).tolist() == [False, True, True, False]
    # ties by raw id: a before d
    assert short_head(np.array([2, 2]), np.array(["d", "a"]), 4, 0.5).tolist() == [False, True]


def test_pop_reo_rsp_worked():
    train = pd.DataFrame([("x", "a"), ("y", "a"), ("z", "a"), ("x", "b"), ("y", "c")],
                         columns=["user", "item"])
    # popularity a 3, b 1, c 1 of 5 pairs; limit 4: a (3) -> 1, b (1) -> 0: head {a, b},
    # tail {c}; d unseen: no group
    # pop_rsp keep, top 2: head slots a, b, a = 3 of 2 x 2 = 4; tail c = 1 of 2 x 1 = 2
    res = _ev(["pop_rsp@2(train_items=keep)", "pop_reo@3"], train=train)
    assert res["pop_rsp@2(train_items=keep)"] == pytest.approx(_cv([F(3, 4), F(1, 2)]),
                                                                rel=1e-15)
    # pop_reo@3: relevant head {a (u1)}: hit; tail {c (u1)}: hit -> P = (1, 1): 0
    assert res["pop_reo@3"] == 0.0


# -------------------------------------------------------------------------------------------
# slow oracle from the definitions (Elliot's loops) against the fast path


def _oracle(run, truth, groups, train, k):
    top = {u: sorted(s, key=lambda i: (-s[i], str(i)))[:k] for u, s in run.items()}
    labels = sorted(set(groups.values()))
    users = [u for u in run if u in truth]
    hist = {u: set(train[train.user == u].item) for u in users}
    rel = {u: {i for i, r in truth[u].items() if r >= 1} for u in users}
    num = {g: 0 for g in labels}
    den = {g: 0 for g in labels}
    rnum = {g: 0 for g in labels}
    rden = {g: 0 for g in labels}
    for u in users:
        for i in top[u]:
            if i in groups:
                rnum[groups[i]] += 1
                if i in rel[u]:
                    num[groups[i]] += 1
        for i, g in groups.items():
            den[g] += i in rel[u]
            rden[g] += i not in hist[u]
    reo = _cv([F(num[g], den[g]) for g in labels]) if all(den.values()) and any(num.values()) \
        else float("nan")
    rsp = _cv([F(rnum[g], rden[g]) for g in labels]) if all(rden.values()) and \
        any(rnum.values()) else float("nan")
    count, gain = {}, {}
    for u in users:
        if not rel[u]:
            continue
        for i in top[u]:
            count[i] = count.get(i, 0) + 1
            r = truth[u].get(i, 0)
            gain[i] = gain.get(i, 0) + (2 ** r - 1 if r >= 1 else 0)
    gm = {g: [F(gain[i], count[i]) for i in count if groups.get(i) == g] for g in labels}
    if all(gm.values()):
        m = [sum(gm[g], F(0)) / len(gm[g]) for g in labels]
        d = [abs(m[a] - m[b]) for a in range(len(m)) for b in range(a + 1, len(m))]
        mad = float(sum(d, F(0)) / len(d))
    else:
        mad = float("nan")
    # bias disparity of G0: slots of the top-k lists and every training pair, per group
    slots = {g: sum(1 for u in users for i in top[u] if groups.get(i) == g) for g in labels}
    pairs = {g: sum(1 for i in train.drop_duplicates().item if groups.get(i) == g)
             for g in labels}
    pc = F(sum(1 for g in groups.values() if g == "G0"), len(groups))
    br = F(slots["G0"], sum(slots.values())) / pc if sum(slots.values()) else None
    bs = F(pairs["G0"], sum(pairs.values())) / pc
    bd = float((br - bs) / bs) if br is not None and bs else float("nan")
    return reo, rsp, mad, bd


@st.composite
def _data(draw):
    n_items = draw(st.integers(3, 8))
    items = [f"i{j}" for j in range(n_items)]
    n_users = draw(st.integers(1, 6))
    run, truth, rows = {}, {}, []
    for u in range(n_users):
        listed = draw(st.lists(st.sampled_from(items), min_size=1, max_size=n_items,
                               unique=True))
        run[f"u{u}"] = {i: float(n_items - j) for j, i in enumerate(listed)}
        rel = draw(st.dictionaries(st.sampled_from(items), st.integers(1, 3), min_size=1,
                                   max_size=3))
        truth[f"u{u}"] = rel
        for i in draw(st.lists(st.sampled_from(items), max_size=3, unique=True)):
            rows.append((f"u{u}", i))
    groups = {i: draw(st.sampled_from(["G0", "G1", "G2"])) for i in items}
    groups["i0"], groups["i1"] = "G0", "G1"  # at least two groups
    rows.append(("t", "i0"))
    return run, truth, groups, pd.DataFrame(rows, columns=["user", "item"]), \
        draw(st.integers(1, 4))


@settings(max_examples=60, deadline=None)
@given(_data())
def test_oracle(data):
    run, truth, groups, train, k = data
    keys = [f"reo@{k}", f"rsp@{k}", f"item_mad@{k}", f"bias_disparity@{k}(group=G0)"]
    res = rv.evaluate(run, truth, keys, item_groups=groups, train=train)
    want = _oracle(run, truth, groups, train, k)
    for key, w in zip(keys, want, strict=True):
        got = res[key]
        if math.isnan(w):
            assert math.isnan(got), (key, got)
        else:
            assert got == pytest.approx(w, rel=1e-12, abs=1e-15), key


# -------------------------------------------------------------------------------------------
# blocks == in memory, bit for bit


def test_blocks_equal_memory():
    rng = np.random.default_rng(7)
    rows = [(u, i, float(rng.random())) for u in range(40)
            for i in rng.choice(30, 6, replace=False)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, int(i), int(rng.integers(1, 3))) for u in range(40)
                          for i in rng.choice(30, 3, replace=False)],
                         columns=["user", "item", "rel"])
    train = pd.DataFrame([(u, int(i)) for u in range(50) for i in rng.choice(30, 4,
                                                                              replace=False)],
                         columns=["user", "item"])
    groups = {i: f"g{i % 3}" for i in range(30)}
    keys = ["reo@5", "rsp@5", "pop_reo@5", "pop_rsp@5", "item_mad@5",
            "item_mad@5(variant=rating)", "bias_disparity@5(group=g1)",
            "bias_disparity@5(group=g2,measure=bs,users=evaluated)",
            "reo@5(train_items=drop)"]
    whole = rv.evaluate(run, truth, keys, item_groups=groups, train=train)
    blocks = [run[run.user < 13], run[(run.user >= 13) & (run.user < 29)], run[run.user >= 29]]
    parts = rv.Evaluator(truth, keys, item_groups=groups, train=train).evaluate_blocks(blocks)
    for key in keys:
        a, b = whole[key], parts[key]
        assert (a == b) or (math.isnan(a) and math.isnan(b)), key
        assert not math.isnan(a), key
        assert parts.info[key] == whole.info[key], key


def test_blocks_info_is_the_merged_state():
    # the first block alone has no relevant B item (B undefined there); merged, B has one
    run = pd.DataFrame([("u1", "a", 2.0), ("u1", "c", 1.0), ("u2", "c", 2.0)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([("u1", "a", 1), ("u2", "c", 1)], columns=["user", "item", "rel"])
    groups = {"a": "A", "c": "B"}
    ev = rv.Evaluator(truth, ["reo@1"], item_groups=groups)
    parts = ev.evaluate_blocks([run[run.user == "u1"], run[run.user == "u2"]])
    whole = rv.evaluate(run, truth, ["reo@1"], item_groups=groups)
    assert parts["reo@1"] == whole["reo@1"] == 0.0
    assert "undefined" not in parts.info["reo@1"]


# -------------------------------------------------------------------------------------------
# adversarial inputs


def test_missing_item_groups_named():
    with pytest.raises(InputError, match="item_groups="):
        rv.evaluate(RUN, TRUTH, ["reo@2"])


def test_missing_train_named():
    with pytest.raises(InputError, match="train="):
        _ev(["rsp@2"])
    with pytest.raises(InputError, match="train="):
        _ev(["pop_reo@2"])


def test_single_group_nan_with_reason():
    res = _ev(["reo@2", "item_mad@2", "rsp@2(train_items=keep)"],
              item_groups={i: "A" for i in "abcd"})
    for key in ("reo@2", "item_mad@2", "rsp@2(train_items=keep)"):
        assert math.isnan(res[key])
        assert "at least two" in res.info[key]["undefined"]


def test_group_without_candidates_nan_with_reason():
    # group C holds e, which no user has among the relevant items
    groups = {**GROUPS, "e": "C"}
    res = _ev(["reo@2", "item_mad@2"], item_groups=groups)
    assert math.isnan(res["reo@2"]) and "'C'" in res.info["reo@2"]["undefined"]
    assert math.isnan(res["item_mad@2"]) and "'C'" in res.info["item_mad@2"]["undefined"]


def test_bias_disparity_group_required_and_checked():
    with pytest.raises(InputError, match="group="):
        _ev(["bias_disparity@2(measure=br)"])
    with pytest.raises(InputError, match="'A'"):
        _ev(["bias_disparity@2(group=Z,measure=br)"])


def test_items_without_group_left_out():
    # d has no group: its slot and its relevance count nowhere
    groups = {"a": "A", "b": "A", "c": "B"}
    res = _ev(["reo@3", "bias_disparity@3(group=A,measure=br)"], item_groups=groups)
    assert res.info["reo@3"]["candidates"] == [1, 1]
    # slots with a group: A {a, b, a} 3, B {c, c} 2 -> (3/5) / (2/3)
    assert res["bias_disparity@3(group=A,measure=br)"] == pytest.approx(0.9, rel=1e-15)


def test_bad_parameters_named():
    with pytest.raises(Exception, match="variant"):
        _ev(["item_mad@2(variant=score)"])
    with pytest.raises(Exception, match="head"):
        _ev(["pop_reo@2(head=1.5)"], train=TRAIN)


# -------------------------------------------------------------------------------------------
# the libraries' differences, as parameters


def test_empty_drop_leaves_the_group_out():
    groups = {**GROUPS, "e": "C"}
    res = _ev(["reo@2(empty=drop)"], item_groups=groups)
    assert res["reo@2(empty=drop)"] == 1.0  # as without C
    one = _ev(["reo@2(empty=drop)"], item_groups={"a": "A", "e": "C"})
    assert math.isnan(one["reo@2(empty=drop)"])


def test_item_mad_users_and_gain():
    run = {**RUN, "u3": {"a": 1.0, "c": 0.5}}
    truth = {**TRUTH, "u3": {"d": 0}}  # judged, not relevant
    # users=all adds u3's list (a, c: no gain): v_a = 1/3, v_b = 0 -> A 1/6; v_c = 0 -> 1/6
    res = _ev(["item_mad@2(users=all)", "item_mad@2"], run=run, truth=truth)
    assert res["item_mad@2(users=all)"] == pytest.approx(1 / 6, rel=1e-15)
    assert res["item_mad@2"] == 0.25
    # gain=warprec: 2^(r + 1) - 1 = 3 for a (r = 1): v_a = 3/2 -> A 3/4
    assert _ev(["item_mad@2(gain=warprec)"])["item_mad@2(gain=warprec)"] == 0.75


def test_short_head_strict_rule():
    # popularity 2, 2 of 4 pairs, 0.5 -> limit 2: reached by the first item (elliot stops),
    # exceeded only with the second (warprec takes both)
    assert short_head(np.array([2, 2]), np.array(["a", "b"]), 4, 0.5).tolist() == [True, False]
    assert short_head(np.array([2, 2]), np.array(["a", "b"]), 4, 0.5,
                      strict=True).tolist() == [True, True]


def test_item_mad_count_hits():
    # hits only: a is a hit in u1's list only (score 3): v_a = 3; b, c never hits in the top 2
    # -> B has no item: NaN; top 3: c hit in u1 (score 1), d in u2 (score 1): B = 1 -> |3 - 1|
    key = "item_mad@3(variant=rating,count=hits)"
    assert _ev([key])[key] == 2.0
    res = _ev(["item_mad@2(count=hits)"])
    assert math.isnan(res["item_mad@2(count=hits)"])


def test_per_user_group_equals_the_group_alone():
    run = {**RUN, "u3": {"d": 2, "b": 1}}
    truth = {**TRUTH, "u3": {"b": 1, "c": 1}}
    keys = ["reo@2", "bias_disparity@2(group=A,measure=br)", "item_mad@3",
            "rsp@2(train_items=keep)"]
    res = _ev(keys, run=run, truth=truth, groups={"u1": "x", "u2": "x", "u3": "y"})
    rows = {(r["group"], r["metric"]): r["mean"] for r in res.group_stats}
    for label, users in (("x", ["u1", "u2"]), ("y", ["u3"])):
        alone = _ev(keys, run={u: run[u] for u in users}, truth={u: truth[u] for u in users})
        for key in keys:
            a, b = rows[(label, key)], alone[key]
            assert a == b or (math.isnan(a) and math.isnan(b)), (label, key)
