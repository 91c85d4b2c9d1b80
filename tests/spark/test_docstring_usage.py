"""The usage block of ``receval.spark``'s docstring runs as written and gives the local
engine's result (it is a code block, not a doctest, because it needs a Spark session)."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pandas as pd
import pytest

import receval as rv

pytestmark = pytest.mark.spark
pytest.importorskip("receval.spark")


def _usage_block() -> str:
    doc = importlib.import_module("receval.spark").__doc__
    block = doc.split("::\n", 1)[1].split("\n\n")[:2]  # the import, then the two calls
    return "\n".join(re.sub(r"^    ", "", line) for part in block for line in part.splitlines())


def test_usage_block_runs_and_equals_local(spark):
    truth = pd.DataFrame({"user": [1, 1, 2, 3], "item": [10, 11, 12, 13],
                          "relevance": [1.0, 2.0, 1.0, 1.0]})
    run = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [11, 14, 15, 12, 16],
                        "score": [0.9, 0.8, 0.7, 0.6, 0.5]})
    scope = {"truth_sdf": spark.createDataFrame(truth), "run_sdf": spark.createDataFrame(run)}
    exec(compile(_usage_block(), "receval.spark docstring", "exec"), scope)
    local = rv.evaluate(run, truth, ["ndcg@10", "map@100", "mrr"])
    got = scope["res"]
    assert got.summary == local.summary
    np.testing.assert_array_equal(got.values, local.values)
    scope["ev"].close()
