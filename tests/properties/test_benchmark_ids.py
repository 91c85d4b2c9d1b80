"""The id shapes the benchmarks time (``benchmarks/common.py``) hold one data set: each
shape, read back from its Parquet cache, gives the bits of int64 ids, so that every ratio the
benchmarks report compares the same work."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import receval as rv

pytest.importorskip("pyarrow")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from common import ID_TYPES, load_data  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]


@pytest.fixture(scope="module")
def int_result(tmp_path_factory):
    run, truth = load_data(300, k=20, ids="int", cache_dir=str(tmp_path_factory.mktemp("c")))
    return rv.evaluate(run, truth, METRICS)


@pytest.mark.parametrize("ids", [i for i in ID_TYPES if i != "int"])
def test_every_benchmark_id_shape_gives_the_bits_of_int64_ids(ids, int_result, tmp_path):
    run, truth = load_data(300, k=20, ids=ids, cache_dir=str(tmp_path))
    if ids.startswith("category"):
        assert (run["item"].dtype == truth["item"].dtype) == (ids == "category_shared")
    got = rv.evaluate(run, truth, METRICS)
    assert np.array_equal(got.values, int_result.values, equal_nan=True)
    assert got.counts == int_result.counts
