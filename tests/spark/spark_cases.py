"""Shared cases and comparisons of the Spark engine tests (the local engine's bits)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from cases import metric_cases

import receval as rv

# every kernel family, every parameter choice (from the registry)
KERNEL = metric_cases(cutoffs=(2, 3))
BEYOND = [k for k in metric_cases(cutoffs=(3,), plugins=True)
          if rv.parse_metric(k).definition.family == "beyond"]
# Not distributable (say which and why): a custom similarity function is a Python callable
# from the caller's module, which Spark's Python workers cannot import by reference here
NOT_DISTRIBUTED = {"sim=custom": "a custom similarity callable must be importable on executors"}
# Catalogue-wide values that are float sums over items in the run's first-appearance item
# order (a notion Spark does not have): equal to the local value within a few ulps, not bitwise
APPROX = ("entropy", "dist_coverage", "personalization")


def frames(run_rows, truth_rows, id_kind):
    def frame(rows, value):
        ids = (lambda v: np.array(v, dtype=np.int64)) if id_kind == "int" else \
            (lambda v: pd.Series(v, dtype=object))
        return pd.DataFrame({"user": ids([r[0] for r in rows]), "item": ids([r[1] for r in rows]),
                             value: np.array([r[2] for r in rows], dtype=np.float64)})
    return frame(run_rows, "score"), frame(truth_rows, "relevance")


def sdf(spark, pdf, id_kind, value):
    t = "bigint" if id_kind == "int" else "string"
    return spark.createDataFrame(pdf, f"user {t}, item {t}, {value} double")


def same_float(a, b) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def assert_identical(local, got, approx=()):
    assert got.metrics == local.metrics
    assert got.counts == local.counts
    assert got.policies == local.policies
    assert got.info["relevance"] == local.info["relevance"]  # one result builder
    # per-user: the Spark result is sorted by user id; align the local rows with it
    order = np.argsort(np.asarray(local.user_ids), kind="stable")
    assert list(got.user_ids) == list(np.asarray(local.user_ids)[order])
    np.testing.assert_array_equal(got.values, local.values[order])
    for a, b in zip(local.stats, got.stats, strict=True):
        assert a["metric"] == b["metric"]
        if any(a["metric"].startswith(p) for p in approx):
            assert math.isclose(a["mean"], b["mean"], rel_tol=1e-13), (a, b)
            continue
        for key in ("mean", "std", "se", "n", "skipped"):
            assert same_float(a[key], b[key]), (key, a, b)


def _tag(user, case, id_kind):
    return user + 100_000 * case if id_kind == "int" else f"{case}:{user}"
