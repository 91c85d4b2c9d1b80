"""``compat="spark_mllib"`` reproduces ``pyspark.ml.evaluation.RankingEvaluator`` to 1e-12."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")

NAMES = [("precisionAtK", 3), ("precisionAtK", 10), ("recallAtK", 5), ("ndcgAtK", 3),
         ("ndcgAtK", 10), ("meanAveragePrecision", None), ("meanAveragePrecisionAtK", 4)]


def _data(spark):
    rng = np.random.default_rng(2024)
    run, truth = [], []
    for u in range(120):
        n = int(rng.integers(0, 12)) if u % 10 else 0  # every 10th user: no recommendations
        items = rng.choice(40, size=n, replace=False)
        scores = np.round(rng.random(n), 1)  # ties, broken by item id like sort_array
        run += [(u, int(i), float(s)) for i, s in zip(items, scores, strict=True)]
        if u % 7 == 3:
            continue  # a run-only user
        m = int(rng.integers(1, 8))
        truth += [(u, int(i), float(rng.integers(0, 4))) for i in rng.choice(40, m, False)]
    run += [(999, 1, 0.5)]
    run_df = spark.createDataFrame(pd.DataFrame(run, columns=["user", "item", "score"]),
                                   "user bigint, item bigint, score double")
    truth_df = spark.createDataFrame(pd.DataFrame(truth, columns=["user", "item", "relevance"]),
                                     "user bigint, item bigint, relevance double")
    return run_df, truth_df


def _ranking_input(run, truth):
    from pyspark.sql import functions as F

    pred = run.groupBy("user").agg(F.sort_array(F.collect_list(F.struct(
        (-F.col("score")).alias("s"), F.col("item").cast("double").alias("i")))).alias("p")) \
        .select("user", F.col("p.i").alias("pred"))
    label = truth.groupBy("user").agg(F.collect_list(F.col("item").cast("double"))
                                      .alias("label"))
    # every truth user, with an empty list when the run has none (receval's users="truth")
    return label.join(pred, "user", "left").select(
        "label", F.coalesce("pred", F.array().cast("array<double>")).alias("pred"))


def test_spark_mllib_matches_ranking_evaluator(spark):
    from pyspark.ml.evaluation import RankingEvaluator

    run, truth = _data(spark)
    data = _ranking_input(run, truth).cache()
    names = [f"{n}@{k}" if k else n for n, k in NAMES]
    res = rvs.evaluate(run, truth, names, compat="spark_mllib", buckets=3)
    for (name, k), given in zip(NAMES, names, strict=True):
        ev = RankingEvaluator(predictionCol="pred", labelCol="label", metricName=name,
                              k=k or 10)
        expected = ev.evaluate(data)
        got = res.summary[rvs.mllib_key(given)]
        assert abs(got - expected) <= 1e-12, (name, k, got, expected)
    assert res.provenance["spark_mllib_names"]["ndcgAtK@10"] == "ndcg@10(discount=ln)"
    data.unpersist()


def test_mllib_keys_and_local_engine():
    assert rvs.mllib_key("ndcgAtK") == "ndcg@10(discount=ln)"
    assert rvs.mllib_key("meanAveragePrecision") == "map"
    assert rvs.mllib_key("recallAtK@100") == "recall@100"
    with pytest.raises(rv.UnknownMetricError, match="RankingEvaluator"):
        rvs.mllib_key("auc")
