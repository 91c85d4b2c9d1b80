"""The Spark engine has no row order, so it refuses ``ties="input"`` (tied scores in input order)."""

from __future__ import annotations

import pandas as pd
import pytest

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")


def test_spark_engine_refuses_ties_input(spark):
    truth = spark.createDataFrame(pd.DataFrame({"user": [1, 2], "item": [1, 2],
                                                "relevance": [1.0, 1.0]}),
                                  "user bigint, item bigint, relevance double")
    with pytest.raises(rv.PolicyError, match="ties='input'.*no row order"):
        rvs.Evaluator(truth, ["ndcg@10"], ties="input")
    rvs.Evaluator(truth, ["ndcg@10"], ties="id")  # the other orders stay available
