"""The recommender variant of the intent-aware measures (``aspects="categories"``): users are
the queries, the items' categories the subtopics, a relevant truth item relevant to each of its
categories; intent weights from the training profile (``profile_intent_weights``, RankSys'
feature intent model). Exact worked examples, the same numbers as the judgments written out
by hand through ``intents=``, blocks, refusals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.beyond import profile_intent_weights

CATS = {"a": ["x"], "b": ["x", "y"], "c": ["z"], "d": []}
RUN = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "v": {"c": 2.0, "d": 1.0}, "w": {"a": 1.0}}
TRUTH = {"u": {"a": 1, "b": 1, "c": 0}, "v": {"d": 1, "c": 1}, "w": {"e": 1}}
KEYS = ["alpha_ndcg@3(aspects=categories)", "err_ia@3(aspects=categories)",
        "p_ia@2(aspects=categories)", "strec@1(aspects=categories)",
        "nnrbp(aspects=categories)", "ap_ia(aspects=categories)"]


def test_worked_example():
    res = rv.evaluate(RUN, TRUTH, KEYS, item_categories=CATS)
    u = res.per_user.loc["u"]
    log3 = math.log2(3)
    # u: subtopics x (a, b) and y (b); c is judged non-relevant. Gains a: 1 (x new),
    # b: 0.5 (x seen once) + 1 (y new); the greedy ideal is b (2), then a (0.5)
    assert u[KEYS[0]] == pytest.approx((1 + 1.5 / log3) / (2 + 0.5 / log3), abs=1e-15)
    # ERR-IA@3 ideal-ideal: (1/1 + 1.5/2) / (A (1 + 0.5/2 + 0.25/3)), A = 2
    assert u[KEYS[1]] == pytest.approx(1.75 / (2 * (1 + 0.25 + 0.25 / 3)), abs=1e-15)
    assert u[KEYS[2]] == pytest.approx((2 / 2 + 1 / 2) / 2, abs=1e-15)  # P-IA@2
    assert u[KEYS[3]] == 0.5  # a covers x of {x, y}
    # v: d has no category; c is relevant to z only: every measure is that of one subtopic
    assert res.per_user.loc["v", KEYS[3]] == 1.0
    # w's only relevant item is unknown to item_categories: no subtopic, no value
    assert res.per_user.loc["w"].isna().all()
    info = res.info[KEYS[0]]
    assert info["users_without_intents"] == 1
    assert info["relevant_items_without_categories"] == 2  # d for v, e for w


def test_profile_weights_are_rankys_intent_model():
    train = {"u": {"a": 1, "b": 1}, "t": {"q": 1}}
    w = profile_intent_weights(train, CATS)
    got = {(q, s): x for q, s, x in w.itertuples(index=False)}
    # u: item-category pairs (a, x), (b, x), (b, y): x 2/3, y 1/3, z 0
    assert got[("u", "x")] == 2 / 3 and got[("u", "y")] == 1 / 3 and got[("u", "z")] == 0
    # t's profile holds no categorised item: uniform over the three categories
    assert got[("t", "x")] == got[("t", "y")] == got[("t", "z")] == 1 / 3
    run, truth = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"u": {"a": 1, "b": 1, "c": 1}}
    res = rv.evaluate(run, truth, ["p_ia@3(aspects=categories)", "err_ia@3(aspects=categories)"],
                      item_categories=CATS, intent_weights=w)
    # P-IA@3 = 2/3 (x: 2 of 3) * 2/3 + 1/3 (y: 1 of 3) * 1/3 + 0 (z)
    assert res["p_ia@3(aspects=categories)"] == pytest.approx(5 / 9, abs=1e-15)
    # gains a: 2/3 (x), b: 1/3 (x seen once) + 1/3 (y), c: 0; over 1 + 1/4 + 1/12
    assert res["err_ia@3(aspects=categories)"] == pytest.approx(
        (2 / 3 + (2 / 3) / 2) / (1 + 0.25 + 0.25 / 3), abs=1e-15)


def _judgments(run_truth, cats):
    """The subtopic judgments of the recommender variant, written out by hand."""
    rows = [(u, i, c, r) for u, items in run_truth.items() for i, r in items.items()
            for c in cats.get(i, [])]
    return pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_same_as_the_judgments_written_out(seed):
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(15)]
    cats = {i: [f"c{c}" for c in rng.choice(5, int(rng.integers(0, 3)), replace=False)]
            for i in items}
    users = [f"u{k}" for k in range(12)]
    run = {u: {i: float(rng.integers(0, 4)) for i in rng.choice(items, 8, replace=False)}
           for u in users}
    truth = {u: {i: int(rng.integers(0, 3)) for i in rng.choice(items, 5, replace=False)}
             for u in users}
    keys = ["alpha_ndcg@5", "nerr_ia@5", "p_ia@3", "strec@5", "nrbp", "ap_ia"]
    by_cat = rv.evaluate(run, truth, [f"{k}(aspects=categories)" for k in keys],
                         item_categories=cats)
    judged = _judgments(truth, cats)
    if judged.empty:
        return
    by_hand = rv.evaluate(run, truth, keys, intents=judged)
    for k in keys:
        a = by_cat.per_user[f"{k}(aspects=categories)"]
        b = by_hand.per_user[k]
        pd.testing.assert_series_equal(a, b, check_names=False)
    blocks = rv.evaluate_blocks(
        iter([{u: run[u] for u in users[:5]}, {u: run[u] for u in users[5:]}]), truth,
        [f"{k}(aspects=categories)" for k in keys], item_categories=cats)
    assert blocks.summary == by_cat.summary


def test_refusals_name_the_keyword():
    with pytest.raises(rv.InputError, match="item_categories="):
        rv.evaluate(RUN, TRUTH, ["alpha_ndcg@3(aspects=categories)"])
    with pytest.raises(rv.MetricError, match="aspects"):
        rv.evaluate(RUN, TRUTH, ["alpha_ndcg@3(aspects=genres)"], item_categories=CATS)
    with pytest.raises(rv.InputError, match="no item has a category"):
        profile_intent_weights({"u": {"a": 1}}, {"a": []})
