"""The pooled exposure states (exposure_share, exposure_gini: item counts per rank keyed by raw
ids) and the per-list exposure, entropy, AWRF and expected-exposure values give the same bits on
the Spark engine, over any number of buckets, as in memory and in blocks of users."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
import receval.beyond.exposure  # noqa: F401  (registers the families)
import receval.beyond.miscalibration  # noqa: F401

pytestmark = pytest.mark.spark

KEYS = ["exposure_share@5(group=A,missing=other)", "exposure_share@3(group=B,missing=skip,weight=log)",
        "exposure_gini@5", "exposure_gini(weight=uniform,denominator=n-1)",
        "rank_biased_entropy@5", "rank_biased_entropy(p=0.5,smooth=0.000001)",
        "awrf@5", "awrf(distance=kl,p=0.5,target=population,weight=geometric)",
        "awrf@4(target=relevant)", "ee_loss@5", "ee_disparity@5(level=group,missing=skip)",
        "ee_relevance(nonrelevant=drop)", "ee_loss@4(max_grade=3,weight=cascade)",
        "miscalibration@5", "miscalibration@5(distance=js,weight=log)"]


def _case(seed: int):
    rng = np.random.default_rng(seed)
    n_users, n_items = 60, 30
    items = [f"i{j}" for j in range(n_items)]
    rows = []
    for u in range(n_users):
        m = int(rng.integers(1, 9))
        for r, c in enumerate(rng.choice(n_items, size=m, replace=False)):
            rows.append((f"u{u}", items[c], float(m - r) + 0.5 * rng.random()))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame([(f"u{u}", items[int(c)], float(rng.integers(1, 4)))
                          for u in range(n_users) for c in rng.choice(n_items, 3, replace=False)],
                         columns=["user", "item", "relevance"])
    groups = {it: ("A", "B", "C")[j % 3] for j, it in enumerate(items) if j % 7}
    cats = {it: [f"g{j % 4}"] + ([f"h{j % 3}"] if j % 5 == 0 else [])
            for j, it in enumerate(items)}
    train = pd.DataFrame({"user": [f"u{int(u)}" for u in rng.integers(0, n_users, 300)],
                          "item": [items[int(i)] for i in rng.integers(0, n_items, 300)]})
    return run, truth, {"item_groups": groups, "item_categories": cats, "train": train}


def _sdf(spark, pdf: pd.DataFrame, value: str):
    return spark.createDataFrame(pdf, f"user string, item string, {value} double")


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("strategy, buckets", [("lists", None), ("mapInArrow", 1),
                                               ("mapInArrow", 3), ("mapInArrow", 16)])
def test_pooled_exposure_states_give_the_same_bits_on_spark(spark, strategy, buckets):
    rvs = pytest.importorskip("receval.spark")
    run, truth, kw = _case(3)
    local = rv.evaluate(run, truth, KEYS, **kw)
    users = sorted(run["user"].unique())
    blocks = rv.Evaluator(truth, KEYS, **kw).evaluate_blocks(
        [run[run["user"].isin(users[b::4])] for b in range(4)])
    spread = {"strategy": strategy} if buckets is None else \
        {"strategy": strategy, "buckets": buckets}
    got = rvs.evaluate(_sdf(spark, run, "score"), _sdf(spark, truth, "relevance"), KEYS,
                       **spread, **kw)
    for key in local.metrics:
        assert _same(got.summary[key], local.summary[key]), (key, got.summary[key],
                                                             local.summary[key])
        assert _same(blocks.summary[key], local.summary[key]), key
        want = local.per_user[key].sort_index()
        assert got.per_user[key].sort_index().equals(want), key
        assert blocks.per_user[key].sort_index().equals(want), key
    # the pooled values are the run's, not a mean of the lists': the share is the ratio of
    # the run's sums
    assert got.summary["exposure_share@5(group=A,missing=other)"] != \
        local.per_user["exposure_share@5(group=A,missing=other)"].mean()


def test_alignment_and_given_target_on_spark(spark):
    rvs = pytest.importorskip("receval.spark")
    from receval.engines.plugins import OPTION_NAMES

    if not {"item_alignment", "group_target"} <= set(OPTION_NAMES):
        # the Spark tasks read the options again: they must be evaluate() keywords
        pytest.skip("item_alignment= and group_target= are not evaluate() keywords yet")
    run, truth, kw = _case(5)
    items = sorted(set(run["item"]) | set(truth["item"]))
    kw["item_alignment"] = {it: {"A": j % 3, "B": 1 + j % 2} for j, it in enumerate(items)}
    kw["group_target"] = {"A": 1, "B": 3}
    keys = ["awrf@5(membership=alignment)", "awrf(membership=alignment,target=given)",
            "awrf@3(membership=alignment,target=relevant)", "awrf(target=given)"]
    local = rv.evaluate(run, truth, keys, **kw)
    got = rvs.evaluate(_sdf(spark, run, "score"), _sdf(spark, truth, "relevance"), keys,
                       strategy="mapInArrow", buckets=3, **kw)
    for key in local.metrics:
        assert _same(got.summary[key], local.summary[key]), key
        assert got.per_user[key].sort_index().equals(local.per_user[key].sort_index()), key
