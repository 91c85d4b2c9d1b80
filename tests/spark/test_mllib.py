"""``compat="spark_mllib"`` reproduces ``pyspark.ml.evaluation.RankingEvaluator`` to 1e-12.

The names, parameters and policies come from the ``spark_mllib`` preset of ``receval.compat``
(one definition for the local and the Spark engine): the tests check that both engines give
the same keys and values, and Spark's own values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from spark_cases import STRATEGIES, assert_identical, spread

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


def _ranking_input(run, truth, how="inner"):
    """RankingEvaluator's (label, pred) arrays. The labels of a truth with a relevance column
    are the items with relevance >= 1 (receval's default threshold); a user whose rows are all
    below it keeps an empty label array. Without a relevance column every row is a label."""
    from pyspark.sql import functions as F

    pred = run.groupBy("user").agg(F.sort_array(F.collect_list(F.struct(
        (-F.col("score")).alias("s"), F.col("item").cast("double").alias("i")))).alias("p")) \
        .select("user", F.col("p.i").alias("pred"))
    item = F.col("item").cast("double")
    if "relevance" in truth.columns:
        item = F.when(F.col("relevance") >= 1, item)  # collect_list skips the nulls
    label = truth.groupBy("user").agg(F.collect_list(item).alias("label"))
    # inner: users in both (the preset's users="intersection"); left: every truth user, with
    # an empty list when the run has none (users="truth")
    return label.join(pred, "user", how).select(
        "label", F.coalesce("pred", F.array().cast("array<double>")).alias("pred"))


@pytest.mark.parametrize("graded", [False, True])
def test_spark_mllib_matches_ranking_evaluator(spark, graded):
    """Without a relevance column every truth row is a label; with one (grades 0 to 3), the
    rows of relevance >= 1 are, and a relevance-0 row is a judged non-relevant item."""
    from pyspark.ml.evaluation import RankingEvaluator

    run, truth = _data(spark)
    if not graded:
        truth = truth.drop("relevance")
    data = _ranking_input(run, truth).cache()
    if graded:  # some users have only relevance-0 rows: an empty label set, scored 0
        from pyspark.sql import functions as F

        assert data.filter(F.size("label") == 0).count() > 0
    names = [f"{n}@{k}" if k else n for n, k in NAMES]
    res = rvs.evaluate(run, truth, names, compat="spark_mllib", buckets=3)
    for (name, k), given in zip(NAMES, names, strict=True):
        ev = RankingEvaluator(predictionCol="pred", labelCol="label", metricName=name,
                              k=k or 10)
        expected = ev.evaluate(data)
        got = res.summary[rvs.mllib_key(given)]
        assert abs(got - expected) <= 1e-12, (name, k, got, expected)
        assert res[given] == got  # the preset's names read the result (info["compat"])
    assert res.provenance["spark_mllib_names"]["ndcgAtK@10"] == "ndcg@10(gain=binary)"
    assert res.policies["users"] == "intersection" and res.policies["empty_truth"] == "zero"
    assert res.info["compat"]["preset"] == "spark_mllib"
    assert res.info["relevance"]["truth_columns"]["relevance"] == (
        "relevance" if graded else None)
    data.unpersist()
    # a policy given explicitly wins over the preset's: every truth user, empty lists score 0
    left = _ranking_input(run, truth, "left")
    res = rvs.evaluate(run, truth, ["ndcgAtK@10"], compat="spark", users="truth", buckets=2)
    expected = RankingEvaluator(predictionCol="pred", labelCol="label", metricName="ndcgAtK",
                                k=10).evaluate(left)
    assert abs(res.summary["ndcg@10(gain=binary)"] - expected) <= 1e-12


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_spark_engine_and_local_engine_read_one_preset(spark, strategy):
    """The Spark engine's compat="spark_mllib" is the local engine's: same keys, policies,
    per-user values, counts and summaries, with the relevance column read alike (relevance-0
    rows judged non-relevant, negative ones under negative_rel) and without one."""
    run, truth = _data(spark)
    names = ["ndcgAt@5", "precisionAt@3", "meanAveragePrecisionAt@4", "recall@5", "mrr@5"]
    spark_names = ["ndcgAtK@5", "precisionAtK@3", "meanAveragePrecisionAtK@4", "recall@5"]
    run_pdf = run.toPandas()
    for truth_s in (truth, truth.drop("relevance")):
        local = rv.evaluate(run_pdf, truth_s.toPandas(), names[:4] + ["map"],
                            compat="spark_mllib")
        got = rvs.evaluate(run, truth_s, spark_names + ["map"],
                           compat="spark_mllib", **spread(strategy, 3))
        assert_identical(local, got)
    # negative grades: refused by default, as locally; judged non-relevant with "zero"
    from pyspark.sql import functions as F

    signed = truth.withColumn("relevance", F.col("relevance") - 1)
    with pytest.raises(rv.PolicyError, match="negative relevance"):
        rvs.evaluate(run, signed, spark_names, compat="spark_mllib", **spread(strategy, 3))
    for policy in ("zero", "drop"):
        local = rv.evaluate(run_pdf, signed.toPandas(), names[:4], compat="spark_mllib",
                            negative_rel=policy, unjudged="remove")
        got = rvs.evaluate(run, signed, spark_names, compat="spark_mllib",
                           **spread(strategy, 3), negative_rel=policy, unjudged="remove")
        assert_identical(local, got)
    with pytest.raises(rv.MetricError, match="no metric"):
        rvs.Evaluator(truth, names, compat="spark_mllib")  # mrr: not a Spark MLlib metric
    from receval.compat import get as get_preset

    # any other preset applies on Spark as locally, unless its policies lay lists out locally
    for preset in ("rectools", "recbole", "ranx", "pytrec_eval"):
        p = get_preset(preset)
        pol = dict(p.policies)
        local_only = pol.get("ranks", "order") != "order" or pol.get("ties") == "input" or \
            pol.get("unretrieved", "absent") != "absent"
        if local_only:
            with pytest.raises(rv.PolicyError, match="Spark"):
                rvs.Evaluator(truth, ["ndcg@10"], compat=preset)
        else:
            ev = rvs.Evaluator(truth, ["ndcg@10"], compat=preset)
            assert ev.compat == p.name and ev.names == {"ndcg@10": ev.metrics[0].key}
            ev.close()


def test_mllib_keys_and_local_engine():
    from receval.compat import resolve

    assert rvs.mllib_key("ndcgAtK") == "ndcg@10(gain=binary)"
    assert rvs.MLLIB_POLICIES == {"users": "intersection", "empty_truth": "zero"}
    # one source of truth: the keys are the preset's
    for name, preset_name in [("ndcgAtK@7", "ndcgAt@7"), ("precisionAtK@3", "precisionAt@3"),
                              ("meanAveragePrecisionAtK@4", "meanAveragePrecisionAt@4"),
                              ("recallAtK@9", "recallAt@9"),
                              ("meanAveragePrecision", "meanAveragePrecision")]:
        specs, policies, _ = resolve("spark_mllib", [preset_name])
        assert rvs.mllib_key(name) == specs[0].key
        assert policies == rvs.MLLIB_POLICIES
    assert rvs.mllib_key("precisionAtK", 5) == "precision@5"
    assert rvs.mllib_keys(["ndcgAtK", "ndcg@3"]) == {"ndcgAtK": "ndcg@10(gain=binary)",
                                                    "ndcg@3": "ndcg@3(gain=binary)"}
    assert rvs.mllib_key("meanAveragePrecision") == "map"
    assert rvs.mllib_key("recallAtK@100") == "recall@100"
    with pytest.raises(rv.UnknownMetricError, match="RankingEvaluator"):
        rvs.mllib_key("auc")
