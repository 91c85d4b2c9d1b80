"""Expected exposure over sampled rankings (``rankings=``, ``policy=samples``) gives the same
bits on the Spark engine, over any number of buckets, as in memory; the rankings are read
once on the driver, from a local table or a Spark DataFrame."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
import receval.beyond.exposure  # noqa: F401  (registers the families)

pytestmark = pytest.mark.spark

KEYS = ["ee_loss@4(policy=samples,unsampled=skip)", "ee_disparity(policy=samples,unsampled=skip)",
        "ee_relevance@3(max_grade=3,policy=samples,unsampled=run,weight=cascade)",
        "ee_loss(level=group,missing=skip,policy=samples,unsampled=skip)",
        "ee_loss@5(policy=samples,unsampled=run)"]


def _case(seed: int):
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 12
    items = [f"i{j}" for j in range(n_items)]
    run, draws = [], []
    for u in range(n_users):
        m = int(rng.integers(1, 7))
        for r, c in enumerate(rng.choice(n_items, size=m, replace=False)):
            run.append((f"u{u}", items[c], float(m - r)))
        if u % 9 == 0:
            continue  # no ranking: skipped or read from the run
        for s in range(int(rng.integers(1, 5))):
            ranking = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
            draws += [(f"u{u}", s, items[c], r + 1) for r, c in enumerate(ranking)]
    truth = pd.DataFrame([(f"u{u}", items[int(c)], float(rng.integers(1, 4)))
                          for u in range(n_users) for c in rng.choice(n_items, 3, replace=False)],
                         columns=["user", "item", "relevance"])
    groups = {it: "AB"[j % 2] for j, it in enumerate(items) if j % 5}
    return (pd.DataFrame(run, columns=["user", "item", "score"]), truth,
            pd.DataFrame(draws, columns=["user", "sample", "item", "rank"]), groups)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("strategy, buckets", [("lists", None), ("mapInArrow", 3)])
def test_sampled_expected_exposure_gives_the_same_bits_on_spark(spark, strategy, buckets):
    rvs = pytest.importorskip("receval.spark")
    run, truth, draws, groups = _case(5)
    kw = {"rankings": draws, "item_groups": groups}
    local = rv.evaluate(run, truth, KEYS, **kw)
    spread = {"strategy": strategy} if buckets is None else \
        {"strategy": strategy, "buckets": buckets}
    given = spark.createDataFrame(draws) if buckets else draws  # a Spark table is collected
    got = rvs.evaluate(spark.createDataFrame(run, "user string, item string, score double"),
                       spark.createDataFrame(truth, "user string, item string, relevance double"),
                       KEYS, **spread, rankings=given, item_groups=groups)
    for key in KEYS:
        assert _same(got.summary[key], local.summary[key]), key
        assert got.per_user[key].sort_index().equals(local.per_user[key].sort_index()), key
    assert local.per_user[KEYS[1]].isna().sum() == 4  # u0, u9, u18, u27 have no ranking
