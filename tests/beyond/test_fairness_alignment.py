"""AWRF with a given target distribution and with alignment vectors (TREC Fair Ranking 2022:
an item belongs to several groups with weights): worked examples in exact fractions, a slow
oracle written from the definition, agreement with one-hot groups, and refused inputs."""

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
from receval.beyond.alignment import as_alignment, as_group_target
from receval.engines.plugins import OPTION_NAMES
from receval.errors import InputError


@pytest.fixture(autouse=True)
def _options(monkeypatch):
    # the two inputs of awrf(target=given) and awrf(membership=alignment) as evaluate()
    # keywords (plugin options read from context.options)
    monkeypatch.setitem(OPTION_NAMES, "item_alignment", "item -> weights over groups")
    monkeypatch.setitem(OPTION_NAMES, "group_target", "group -> target weight")


RUN = pd.DataFrame({"user": [1, 1, 2, 2, 2], "item": ["a", "b", "b", "c", "a"],
                    "score": [2.0, 1.0, 3.0, 2.0, 1.0]})
TRUTH = pd.DataFrame({"user": [1, 2], "item": ["a", "c"]})
# a: all A; b: 1/4 A, 3/4 B; c: all B
ALIGN = {"a": {"A": 1}, "b": {"A": 1, "B": 3}, "c": {"B": 2}}


def _eval(keys, run=RUN, truth=TRUTH, **kw):
    kw.setdefault("item_alignment", ALIGN)
    return rv.evaluate(run, truth, keys, **kw)


def _js(a, t):
    m = [(x + y) / 2 for x, y in zip(a, t, strict=True)]
    kl = lambda p, q: sum(x * math.log(x / y) for x, y in zip(p, q, strict=True) if x > 0)  # noqa: E731
    return (kl(a, m) + kl(t, m)) / 2


def test_alignment_worked_example():
    # uniform attention: user 1 [a, b]: A = 1 + 1/4, B = 3/4 -> (5/8, 3/8)
    # user 2 [b, c, a]: A = 1/4 + 0 + 1, B = 3/4 + 1 -> (5/12, 7/12)
    a1, a2 = [F(5, 8), F(3, 8)], [F(5, 12), F(7, 12)]
    key = "awrf(membership=alignment,weight=uniform)"
    got = _eval([key]).per_user[key].tolist()
    assert got == pytest.approx([1 - _js([float(x) for x in a1], [0.5, 0.5]),
                                 1 - _js([float(x) for x in a2], [0.5, 0.5])], rel=1e-14)
    # a target equal to user 1's attention: KL 0, AWRF exactly 1
    key = "awrf(distance=kl,membership=alignment,target=given,weight=uniform)"
    got = _eval([key], group_target={"A": 5, "B": 3}).per_user[key].tolist()
    assert got[0] == 1.0
    t = [F(5, 8), F(3, 8)]
    kl = sum(float(x) * math.log(x / y) for x, y in zip(a2, t, strict=True))
    assert got[1] == pytest.approx(1 - kl, rel=1e-14)
    # population: the mean of the three items' vectors, ((1 + 1/4) / 3, (3/4 + 1) / 3)
    key = "awrf(membership=alignment,target=population,weight=uniform)"
    pop = [float(F(5, 12)), float(F(7, 12))]
    got = _eval([key]).per_user[key].tolist()
    assert got[1] == pytest.approx(1.0, abs=1e-15)  # user 2's attention is the population
    assert got[0] == pytest.approx(1 - _js([0.625, 0.375], pop), rel=1e-14)
    # relevant: user 1 holds a (all A): target (1, 0); user 2 holds c (all B): (0, 1)
    key = "awrf(membership=alignment,target=relevant,weight=uniform)"
    got = _eval([key]).per_user[key].tolist()
    assert got == pytest.approx([1 - _js([0.625, 0.375], [1.0, 0.0]),
                                 1 - _js([5 / 12, 7 / 12], [0.0, 1.0])], rel=1e-14)


def test_given_target_worked_example():
    # item groups a: A, b: B, c: A; geometric p = 1/2; user 1 [a, b]: (2/3, 1/3)
    groups = {"a": "A", "b": "B", "c": "A"}
    key = "awrf(distance=kl,p=0.5,target=given,weight=geometric)"
    r = rv.evaluate(RUN, TRUTH, [key], item_groups=groups, group_target={"A": 2, "B": 1})
    assert r.per_user[key].tolist()[0] == 1.0
    # user 2 [b, c, a]: B = 1, A = 1/2 + 1/4 -> (3/7, 4/7) against (2/3, 1/3)
    a = [F(3, 7), F(4, 7)]
    t = [F(2, 3), F(1, 3)]
    kl = sum(float(x) * math.log(x / y) for x, y in zip(a, t, strict=True))
    assert r.per_user[key].tolist()[1] == pytest.approx(1 - kl, rel=1e-14)
    # a group the target does not name gets 0: KL is infinite where the list gives it attention
    r = rv.evaluate(RUN, TRUTH, [key], item_groups=groups, group_target={"A": 1})
    assert r.per_user[key].tolist() == [-math.inf, -math.inf]
    # equal weights are the uniform target, bit for bit
    keys = ["awrf(target=given)", "awrf"]
    r = rv.evaluate(RUN, TRUTH, keys, item_groups=groups, group_target={"A": 3.0, "B": 3.0})
    assert r.per_user[keys[0]].tolist() == r.per_user[keys[1]].tolist()


def test_one_hot_alignment_equals_item_groups_bit_for_bit():
    groups = {"a": "A", "b": "B", "c": "A", "d": "C"}
    align = {i: {g: 1.0} for i, g in groups.items()}
    rng = np.random.default_rng(0)
    run = pd.DataFrame({"user": np.repeat(np.arange(30), 3),
                        "item": rng.choice(list("abcd"), 90), "score": rng.random(90)}
                       ).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.arange(30), "item": rng.choice(list("abcd"), 30)})
    for rest in ("", "target=population,", "target=relevant,", "distance=kl,target=given,"):
        a, b = f"awrf({rest}membership=alignment)", f"awrf({rest.rstrip(',')})"
        b = b.replace("()", "")
        r = rv.evaluate(run, truth, [a, b], item_groups=groups, item_alignment=align,
                        group_target={"A": 1, "B": 2, "C": 1})
        assert np.array_equal(r.per_user[rv.parse_metric(a).key].to_numpy(),
                              r.per_user[rv.parse_metric(b).key].to_numpy(), equal_nan=True)


def _oracle(run: pd.DataFrame, align: dict, target: dict, k: int) -> dict:
    """AWRF from the definition: per list, A(g) = sum_r w_r v_i(g) / sum_g v_i(g), w_r =
    1 / log2(max(r, 2)); a = A / sum A; t = target / sum target; 1 - JS(a, t) (natural log)."""
    labels = list(dict.fromkeys(g for vec in align.values() for g in vec))
    t = np.array([target.get(g, 0.0) for g in labels], dtype=float)
    t = t / t.sum()
    out = {}
    for user, rows in run.groupby("user", sort=True):
        items = rows.sort_values(["score", "item"], ascending=[False, True])["item"].tolist()[:k]
        attn = np.zeros(len(labels))
        for r, item in enumerate(items, 1):
            vec = align.get(item, {})
            total = sum(vec.values())
            if total <= 0:
                continue
            w = 1 / math.log2(max(r, 2))
            for g, v in vec.items():
                attn[labels.index(g)] += w * v / total
        if attn.sum() <= 0:
            out[user] = math.nan
            continue
        out[user] = 1 - _js(list(attn / attn.sum()), list(t))
    return out


@settings(max_examples=40)
@given(st.data())
def test_alignment_against_the_oracle(data):
    n_items = data.draw(st.integers(2, 6))
    items = [f"i{j}" for j in range(n_items)]
    labels = ["A", "B", "C"]
    weight = st.sampled_from([0, 0, 1, 2, 0.5, 3])
    align = {i: {g: data.draw(weight) for g in labels} for i in items[:-1]}  # last: unknown
    target = {g: data.draw(st.sampled_from([0, 1, 2, 5])) for g in labels}
    if sum(target.values()) == 0:
        target["A"] = 1
    n_users = data.draw(st.integers(1, 5))
    rows = []
    for u in range(n_users):
        chosen = data.draw(st.lists(st.sampled_from(items), min_size=1, max_size=n_items,
                                    unique=True))
        rows += [(u, it, float(len(chosen) - j)) for j, it in enumerate(chosen)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": list(range(n_users)), "item": ["i0"] * n_users})
    k = data.draw(st.integers(1, n_items))
    key = f"awrf@{k}(membership=alignment,target=given)"
    got = rv.evaluate(run, truth, [key], item_alignment=align, group_target=target)
    want = _oracle(run, align, target, k)
    values = dict(zip(got.user_ids.tolist(), got.per_user[key].tolist(), strict=True))
    for u, w in want.items():
        if math.isnan(w):
            assert math.isnan(values[u])
        else:
            assert values[u] == pytest.approx(w, rel=1e-12, abs=1e-14)


def test_alignment_tables_read_alike():
    wide = pd.DataFrame({"A": [1.0, 1.0, 0.0], "B": [0.0, 3.0, 2.0]}, index=["a", "b", "c"])
    long = pd.DataFrame({"item": ["a", "b", "b", "c"], "group": ["A", "A", "B", "B"],
                         "weight": [1, 1, 3, 2]})
    for form in (wide, long):
        m, d = as_alignment(form), as_alignment(ALIGN)
        assert list(m.items) == list(d.items) and m.labels == d.labels
        assert np.array_equal(m.dense(), d.dense())
    assert as_alignment(ALIGN).dense().tolist() == [[1.0, 0.0], [0.25, 0.75], [0.0, 1.0]]
    # an item with only zero weights has no group
    m = as_alignment({"a": {"A": 0}, "b": {"B": 1}})
    assert m.rows(np.array(["a", "b", "z"], dtype=object)).tolist() == [-1, 1, -1]


@pytest.mark.parametrize("bad, match", [
    ({"a": {"A": -1}}, r"item 'a', group 'A': weight -1 must be finite and non-negative"),
    ({"a": {"A": math.nan}}, r"weight nan must be finite"),
    ({"a": {"A": "x"}}, r"weight 'x' is not a number"),
    ({"a": ["A"]}, r"item 'a' maps to .*mapping \{group: weight\}"),
    ({}, r"item_alignment is empty"),
    (pd.DataFrame({"item": ["a", "a"], "group": ["A", "A"], "weight": [1, 2]}),
     r"item 'a' names group 'A' twice"),
    ([("a", "A")], r"expected \{item: \{group: weight\}\}"),
])
def test_bad_alignments_are_refused(bad, match):
    with pytest.raises(InputError, match=match):
        as_alignment(bad)


@pytest.mark.parametrize("bad, match", [
    ({"Z": 1}, r"group_target names 'Z', which is not an item group; the groups are \['A', 'B'\]"),
    ({"A": -1}, r"group_target\['A'\]: weight -1 must be finite and non-negative"),
    ({"A": math.inf}, r"weight inf must be finite"),
    ({"A": 0, "B": 0}, r"the weights of group_target sum to 0"),
    ([1, 2], r"group_target must be a mapping \{group: weight\}"),
])
def test_bad_group_targets_are_refused(bad, match):
    with pytest.raises(InputError, match=match):
        as_group_target(bad, ("A", "B"), "awrf(target=given)")
    if isinstance(bad, dict):  # the same through evaluate(), naming the metric
        with pytest.raises(InputError, match=r"awrf\(target=given\): "):
            rv.evaluate(RUN, TRUTH, ["awrf(target=given)"], item_groups={"a": "A", "b": "B",
                                                                          "c": "A"},
                        group_target=bad)
    assert as_group_target(pd.Series({"B": 1.0, "A": 3.0}), ("A", "B"), "k").tolist() == \
        [0.75, 0.25]


def test_missing_inputs_are_named():
    with pytest.raises(InputError, match=r"needs the target distribution: pass group_target="):
        rv.evaluate(RUN, TRUTH, ["awrf(target=given)"], item_groups={"a": "A", "b": "B",
                                                                      "c": "A"})
    with pytest.raises(InputError, match=r"pass item_alignment=\{item: \{group: weight\}\}.*"
                                         r"or use 'awrf' with item_groups="):
        rv.evaluate(RUN, TRUTH, ["awrf(membership=alignment)"])
    # a listed item without weights: refused under missing=error, left out under skip
    align = {"a": {"A": 1}, "b": {"B": 1}}
    with pytest.raises(InputError, match=r"1 listed position\(s\) hold items without weights "
                                         r"in item_alignment, e.g. \['c'\]. Give them weights, or use "
                                         r"'awrf\(membership=alignment\)' to leave them out"):
        _eval(["awrf(membership=alignment,missing=error)"], item_alignment=align)
    key = "awrf(membership=alignment,weight=uniform)"
    r = _eval([key], item_alignment=align)
    assert r.info[key]["positions_without_group"] == 1
    # user 2 [b, c, a] without c: (1/2, 1/2), exactly the uniform target
    assert r.per_user[key].tolist()[1] == 1.0
