"""Sums and geometric means (``summary=sum``, ``num_q``, ``gm_map``, ``gm_bpref``) through the
Spark engine: the driver's result builder finishes the merged bucket states as the local engine
does, bit for bit, with and without ``compat="trec_eval"``."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import random_case
from spark_cases import _tag, assert_identical, frames, sdf, spread

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")

METRICS = ["gm_map", "gm_bpref", "num_q", "num_ret(summary=sum)", "hits@5(summary=sum)", "map"]
TREC_NAMES = ["gm_map", "gm_bpref", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "P.5"]


@pytest.mark.parametrize("buckets", [1, 3])
@pytest.mark.parametrize("compat", [None, "trec_eval"])
def test_summaries_other_than_the_mean_are_the_local_bits(spark, buckets, compat):
    rng = np.random.default_rng(41 + buckets)
    run_rows, truth_rows = [], []
    for c in range(3):
        r, t = random_case(rng, n_users=10, id_kind="str", tie_levels=3)
        run_rows += [(_tag(u, c, "str"), i, s) for u, i, s in r]
        truth_rows += [(_tag(u, c, "str"), i, v) for u, i, v in t]
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "str")
    names = TREC_NAMES if compat else METRICS
    local = rv.evaluate(run_pdf, truth_pdf, names, compat=compat)
    got = rvs.evaluate(sdf(spark, run_pdf, "str", "score"),
                       sdf(spark, truth_pdf, "str", "relevance"), names, compat=compat,
                       **spread("auto", buckets))
    assert_identical(local, got)
    summaries = {rv.metrics.parse_metric(k).summary for k in got.metrics}
    assert summaries == {"mean", "sum", "geometric"}
    for name in names:
        assert got[name] == local[name], name
