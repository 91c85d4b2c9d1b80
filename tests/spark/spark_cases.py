"""Shared cases and comparisons of the Spark engine tests (the local engine's bits)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases
from oracle import random_case

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


def has_cogroup_arrow() -> bool:
    """Whether this pyspark has ``cogroup(...).applyInArrow`` (Spark 4)."""
    try:
        from pyspark.sql.pandas.group_ops import PandasCogroupedOps
    except ImportError:
        return False
    return hasattr(PandasCogroupedOps, "applyInArrow")


HAS_COGROUP = has_cogroup_arrow()  # Spark 4; on 3.3 to 3.5 only mapInArrow runs
STRATEGIES = ("lists", pytest.param("cogroup", marks=pytest.mark.skipif(
    not HAS_COGROUP, reason="cogroup(...).applyInArrow needs Spark 4")), "mapInArrow")


def judged_case(seed: int, negative: bool = False, id_kind: str = "str") -> tuple[list, list]:
    """Rows where a relevance-0 truth row is not the same as no row.

    Random cases with graded relevance 0 to 3 (with ``negative``: -1 to 3), plus users built
    for the judged / unjudged distinction: ``zeros`` (every truth row has relevance 0: judged,
    nothing relevant), ``mixed`` (a judged non-relevant item ranked above the relevant one and
    an unjudged one), ``zero-unranked`` (its relevance-0 row is not in the run); with
    ``negative`` also ``negs`` (only negative rows: judged non-relevant under
    ``negative_rel="zero"``, no row at all under ``"drop"``) and ``neg-mixed``.
    """
    rng = np.random.default_rng(seed)
    run_rows, truth_rows = [], []
    for c in range(3):
        r, t = random_case(rng, n_users=10, id_kind=id_kind, tie_levels=3, negative=negative)
        run_rows += [(_tag(u, c, id_kind), i, s) for u, i, s in r]
        truth_rows += [(_tag(u, c, id_kind), i, v) for u, i, v in t]
    extra = {"zeros": ([("a", 0.0), ("b", 0.0)], [("a", 3.0), ("b", 2.0), ("z", 1.0)]),
             "mixed": ([("a", 0.0), ("b", 2.0), ("c", 1.0)],
                       [("a", 3.0), ("u", 2.5), ("b", 2.0), ("c", 1.0)]),
             "zero-unranked": ([("q", 0.0), ("b", 1.0)], [("a", 2.0), ("b", 1.0)])}
    if negative:
        extra["negs"] = ([("a", -1.0), ("b", -2.0)], [("a", 2.0), ("c", 1.0)])
        extra["neg-mixed"] = ([("a", -1.0), ("b", 0.0), ("c", 2.0)],
                              [("a", 3.0), ("b", 2.0), ("u", 1.5), ("c", 1.0)])
    for n, (user, (truth, run)) in enumerate(extra.items()):
        uid = 900 + n if id_kind == "int" else user
        item = (lambda x: 950 + ord(x)) if id_kind == "int" else (lambda x: f"x{x}")
        truth_rows += [(uid, item(i), v) for i, v in truth]
        run_rows += [(uid, item(i), v) for i, v in run]
    return run_rows, truth_rows


def spread(strategy, buckets: int) -> dict:
    """The keywords of ``strategy`` with ``buckets`` (the ``lists`` strategy has none)."""
    return {"strategy": strategy} if strategy == "lists" else \
        {"strategy": strategy, "buckets": buckets}
