"""``groups=`` on the Spark engine: the same per-group summaries as the local engine, bit for
bit, for every strategy and bucket count; group values that cannot merge over buckets refused."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import random_case
from spark_cases import STRATEGIES, frames, sdf, spread

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")

METRICS = ["ndcg@3", "precision@2", "recall@3", "mrr", "map", "hit_rate@2", "ndcg@3(gain=exp)"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("id_kind", ["int", "str"])
def test_group_summaries_equal_the_local_engines(spark, strategy, id_kind):
    for seed in range(3):
        run_rows, truth_rows = random_case(np.random.default_rng(seed), n_users=12,
                                           id_kind=id_kind)
        run_pdf, truth_pdf = frames(run_rows, truth_rows, id_kind)
        users = sorted(set(run_pdf["user"]) | set(truth_pdf["user"]), key=str)
        groups = {u: f"g{i % 3}" for i, u in enumerate(users) if i % 5}  # some ungrouped
        local = rv.evaluate(run_pdf, truth_pdf, METRICS, groups=groups)
        got = rvs.evaluate(sdf(spark, run_pdf, id_kind, "score"),
                           sdf(spark, truth_pdf, id_kind, "relevance"), METRICS,
                           groups=groups, **spread(strategy, 3))
        assert str(got.group_stats) == str(local.group_stats)  # NaN prints alike
        assert got.info["groups"] == local.info["groups"]
        order = {u: i for i, u in enumerate(local.user_ids.tolist())}
        assert [got.group_of[i] for i in sorted(range(len(got.user_ids)),
                                                key=lambda i: order[got.user_ids[i]])] \
            == local.group_of.tolist()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_catalogue_values_per_group_equal_the_local_engines(spark, strategy):
    # coverage, Gini, entropy per group: each group's lists against the whole catalogue
    metrics = ["coverage@3", "gini@3", "entropy@3", "ndcg@3", "personalization@3"]
    for seed in range(2):
        run_rows, truth_rows = random_case(np.random.default_rng(seed), n_users=12,
                                           id_kind="int")
        run_pdf, truth_pdf = frames(run_rows, truth_rows, "int")
        users = sorted(set(run_pdf["user"]) | set(truth_pdf["user"]))
        groups = {u: f"g{i % 2}" for i, u in enumerate(users)}
        local = rv.evaluate(run_pdf, truth_pdf, metrics, groups=groups)
        got = rvs.evaluate(sdf(spark, run_pdf, "int", "score"),
                           sdf(spark, truth_pdf, "int", "relevance"), metrics,
                           groups=groups, **spread(strategy, 3))
        assert str(got.group_stats) == str(local.group_stats)


def test_what_spark_does_not_take_is_refused(spark):
    run_rows, truth_rows = random_case(np.random.default_rng(1), id_kind="int")
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "int")
    with pytest.raises(rv.PolicyError, match="local engine only"):
        rvs.evaluate(sdf(spark, run_pdf, "int", "score"),
                     sdf(spark, truth_pdf, "int", "relevance"), ["mrr"], weights={1: 1.0})
