"""Every way of handing users to tasks gives the local engine's bits.

``strategy="lists"`` (each user's rows collected into lists and joined on the user, whole users
read from the record batches), ``"cogroup"`` (``applyInArrow``, Spark 4) and ``"mapInArrow"``
(rows of both sides tagged, repartitioned by bucket, sorted, whole buckets cut from the record
batches; the Spark 3.3 to 3.5 path) are checked against ``rv.evaluate`` on the same rows. The
record batch size is cut to a few rows so that buckets span batches. ``run_partition``'s
carry-over and ``run_lists``' gathering of batches are also checked without Spark, on every
batch size. One check runs in a ``local[1]`` session of its own (a second session cannot share
this process's JVM).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracle import random_case
from spark_cases import (
    HAS_COGROUP,
    KERNEL,
    STRATEGIES,
    _tag,
    assert_identical,
    frames,
    sdf,
    spread,
)

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'receval[spark]')")

from receval.spark import _bucket as B  # noqa: E402


@pytest.fixture
def small_batches(spark):
    """Arrow record batches of 16 rows, so that a bucket's rows span several batches."""
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(key)
    spark.conf.set(key, "16")
    yield spark
    spark.conf.set(key, old)


def _cases(seed: int, id_kind: str, n: int = 3) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    run_rows, truth_rows = [], []
    for c in range(n):
        r, t = random_case(rng, n_users=10, id_kind=id_kind, tie_levels=3)
        run_rows += [(_tag(u, c, id_kind), i, s) for u, i, s in r]
        truth_rows += [(_tag(u, c, id_kind), i, v) for u, i, v in t]
    return run_rows, truth_rows


@pytest.mark.parametrize(("id_kind", "buckets"), [("int", 1), ("str", 3), ("int", 64)])
def test_map_in_arrow_identical_to_local(small_batches, id_kind, buckets):
    spark = small_batches
    run_pdf, truth_pdf = frames(*_cases(11 + buckets, id_kind), id_kind)
    local = rv.evaluate(run_pdf, truth_pdf, KERNEL)
    ev = rvs.Evaluator(sdf(spark, truth_pdf, id_kind, "relevance"), KERNEL, buckets=buckets,
                       strategy="mapInArrow")
    run_s = sdf(spark, run_pdf, id_kind, "score")
    got = ev.evaluate(run_s)  # the cogroup path: test_identity.py, on the same kind of cases
    assert got.provenance["strategy"] == "mapInArrow"
    assert_identical(local, got)
    ev.close()


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rank_column_policies_and_catalogue_metrics(small_batches, strategy):
    spark = small_batches
    rng = np.random.default_rng(4)
    run_rows, truth_rows = random_case(rng, n_users=25, id_kind="str", tie_levels=None)
    run_rows += [("dup", "a", 1.0), ("dup", "a", 0.5), ("only-run", "b", 2.0)]
    truth_rows += [("dup", "a", 1.0), ("only-truth", "x", 1.0)]
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "str")
    # a rank run: 1 = best, from the scores (ties broken by item id, as receval orders)
    run_pdf = run_pdf.sort_values(["user", "score", "item"], ascending=[True, False, True])
    run_pdf["rank"] = run_pdf.groupby("user").cumcount().astype(np.float64) + 1
    run_pdf = run_pdf.drop(columns="score")
    metrics = ["ndcg@3", "map@5", "mrr", "recall@2", "coverage@3", "gini@3"]
    policies = {"users": "union", "empty_truth": "zero", "duplicates": "max"}
    local = rv.evaluate(run_pdf, truth_pdf, metrics, **policies)
    run_s = spark.createDataFrame(run_pdf, "user string, item string, rank double")
    truth_s = sdf(spark, truth_pdf, "str", "relevance")
    for buckets in (2, 16):
        got = rvs.evaluate(run_s, truth_s, metrics, **spread(strategy, buckets), **policies)
        assert_identical(local, got)
        assert got.info["coverage@3"] == local.info["coverage@3"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_per_user_modes_and_empty_run(spark, strategy):
    run_pdf, truth_pdf = frames(*_cases(5, "int", 2), "int")
    metrics = ["ndcg@3", "precision@2"]
    local = rv.evaluate(run_pdf, truth_pdf, metrics)
    ev = rvs.Evaluator(sdf(spark, truth_pdf, "int", "relevance"), metrics,
                       **spread(strategy, 4))
    run_s = sdf(spark, run_pdf, "int", "score")
    only = ev.evaluate(run_s, per_user=None)
    assert only.stats == local.stats and only.counts == local.counts
    lazy = ev.evaluate(run_s, per_user="spark").per_user_spark.toPandas().sort_values("user")
    order = np.argsort(local.user_ids, kind="stable")
    np.testing.assert_array_equal(lazy["user"].to_numpy(), local.user_ids[order])
    np.testing.assert_array_equal(lazy[metrics].to_numpy(), local.values[order])
    with pytest.warns(rv.EmptyRunWarning, match="the run has no rows"):
        empty_local = rv.evaluate(run_pdf.iloc[:0], truth_pdf, metrics)
    with warnings.catch_warnings(record=True) as seen:  # pyspark adds notices of its own
        warnings.simplefilter("always")
        empty_spark = ev.evaluate(run_s.limit(0))
    assert any(issubclass(w.category, rv.EmptyRunWarning) and "the run has no rows" in
               str(w.message) for w in seen)
    assert_identical(empty_local, empty_spark)
    ev.close()


def test_strategy_is_checked_and_auto_picks_lists_or_a_bucketed_one(spark):
    run_pdf, truth_pdf = frames([("a", "x", 1.0)], [("a", "x", 1.0)], "str")
    truth_s, run_s = sdf(spark, truth_pdf, "str", "relevance"), sdf(spark, run_pdf, "str", "score")
    with pytest.raises(rv.PolicyError, match="strategy"):
        rvs.Evaluator(truth_s, ["ndcg@2"], strategy="join")
    with pytest.raises(rv.PolicyError, match="no buckets"):
        rvs.Evaluator(truth_s, ["ndcg@2"], strategy="lists", buckets=3)
    res = rvs.evaluate(run_s, truth_s, ["ndcg@2"])
    assert res.provenance["strategy"] == "lists" and res.provenance["buckets"] is None
    res = rvs.evaluate(run_s, truth_s, ["ndcg@2"], buckets=2)
    assert res.provenance["strategy"] == ("cogroup" if HAS_COGROUP else "mapInArrow")
    if not HAS_COGROUP:
        with pytest.raises(rv.PolicyError, match="Spark 4"):
            rvs.evaluate(run_s, truth_s, ["ndcg@2"], strategy="cogroup")


def _summaries(states: list) -> list[str]:
    """The states' summaries, comparable with NaN (a user alone has no standard deviation)."""
    return [repr(s.summary("m")) for s in states]


def _config(metrics: list[str], has_rel: bool = True) -> B.BucketConfig:
    fields = [pa.field(B.KIND, pa.int8()), pa.field(B.USER, pa.string())]
    fields += [pa.field(B.metric_column(j), pa.float64()) for j in range(len(metrics))]
    fields.append(pa.field(B.STATE, pa.binary()))
    return B.BucketConfig(metrics=metrics, policies={}, value_kind="score", has_rel=has_rel,
                          max_rel=3.0, user_kind="str", item_kind="str",
                          out_schema=pa.schema(fields))


def _tagged_partition(seed: int) -> tuple[pa.Table, dict[int, tuple[pa.Table, pa.Table]]]:
    """Rows of several buckets sorted by (bucket, side, user), and each bucket's two sides."""
    rng = np.random.default_rng(seed)
    run_rows, truth_rows = random_case(rng, n_users=30, id_kind="str", tie_levels=2)
    run = pd.DataFrame(run_rows, columns=[B.USER, B.ITEM, B.SCORE])
    truth = pd.DataFrame(truth_rows, columns=[B.USER, B.ITEM, B.REL])
    bucket_of = {u: int(rng.integers(0, 5))  # sorted: the same buckets in every process
                 for u in sorted(set(run[B.USER]) | set(truth[B.USER]))}
    run[B.REL], truth[B.SCORE] = np.nan, np.nan
    run[B.SIDE], truth[B.SIDE] = B.RUN_SIDE, B.TRUTH_SIDE
    both = pd.concat([run, truth], ignore_index=True)
    both[B.BUCKET] = both[B.USER].map(bucket_of).astype(np.int32)
    both = both.sort_values([B.BUCKET, B.SIDE, B.USER], kind="stable")
    sides = {}
    for b, rows in both.groupby(B.BUCKET):
        sides[int(b)] = (pa.Table.from_pandas(rows[rows[B.SIDE] == B.RUN_SIDE][
            [B.USER, B.ITEM, B.SCORE]], preserve_index=False),
            pa.Table.from_pandas(rows[rows[B.SIDE] == B.TRUTH_SIDE][[B.USER, B.ITEM, B.REL]],
                                 preserve_index=False))
    both[B.SIDE] = both[B.SIDE].astype(np.int8)
    return pa.Table.from_pandas(both, preserve_index=False), sides


def test_run_partition_carries_buckets_over_batch_boundaries():
    metrics = ["ndcg@3", "map", "err@2", "recall@5"]
    cfg = _config(metrics)
    table, sides = _tagged_partition(8)
    assert len(sides) > 2
    expected = [B.run_bucket(cfg, run, truth) for run, truth in sides.values()]
    want = pa.concat_tables(expected)
    for size in (1, 2, 7, 64, table.num_rows):
        batches = table.to_batches(max_chunksize=size)
        got = pa.Table.from_batches(list(B.run_partition(cfg, iter(batches))), want.schema)
        for col in want.column_names[:-1]:  # every column but the pickled state
            np.testing.assert_array_equal(got.column(col).to_numpy(zero_copy_only=False),
                                          want.column(col).to_numpy(zero_copy_only=False))
        blobs = [pickle.loads(b) for b in got.column(B.STATE).to_pylist() if b is not None]
        wanted = [pickle.loads(b) for b in want.column(B.STATE).to_pylist() if b is not None]
        assert len(blobs) == len(sides)
        for a, b in zip(blobs, wanted, strict=True):
            assert a.totals.counts == b.totals.counts
            assert a.totals.n_users == b.totals.n_users
            assert _summaries(a.totals.states) == _summaries(b.totals.states)
    assert list(B.run_partition(cfg, iter([]))) == []
    unsorted = table.take(np.r_[np.arange(table.num_rows)[::-1]])
    with pytest.raises(RuntimeError, match="not sorted"):
        list(B.run_partition(cfg, iter(unsorted.to_batches())))


def _user_lists(seed: int) -> tuple[pa.Table, pa.Table, pa.Table]:
    """Rows as the lists strategy's join gives them (per user: the truth's item and
    relevance lists and row count, the run's item and score lists and row count; users of one
    side only hold nulls), and the run and truth rows they come from."""
    rng = np.random.default_rng(seed)
    run_rows, truth_rows = random_case(rng, n_users=30, id_kind="str", tie_levels=2)
    run = pa.Table.from_pandas(pd.DataFrame(run_rows, columns=[B.USER, B.ITEM, B.SCORE]),
                               preserve_index=False)
    truth = pa.Table.from_pandas(pd.DataFrame(truth_rows, columns=[B.USER, B.ITEM, B.REL]),
                                 preserve_index=False)
    users = sorted({r[0] for r in run_rows} | {t[0] for t in truth_rows})
    cols: dict[str, list] = {}
    for side, rows, names, count in (("truth", truth_rows, (B.ITEM, B.REL), B.TRUTH_COUNT),
                                     ("run", run_rows, (B.ITEM, B.SCORE), B.RUN_COUNT)):
        of = {u: [r for r in rows if r[0] == u] for u in users}
        for j, name in enumerate(names):
            cols[B.list_column(side, name)] = [[r[j + 1] for r in of[u]] or None
                                               for u in users]
        cols[count] = [len(of[u]) or None for u in users]
    return pa.table({B.USER: users, **cols}), run, truth


def test_run_lists_gives_every_batching_the_same_users_and_states():
    metrics = ["ndcg@3", "map", "err@2", "recall@5", "num_ret@3"]
    cfg = _config(metrics)
    table, run, truth = _user_lists(9)
    assert table.column(B.RUN_COUNT).null_count and table.column(B.TRUTH_COUNT).null_count
    want = B.run_bucket(cfg, run, truth)
    users = want.filter(pa.compute.equal(want.column(B.KIND), B.USER_ROW))
    want_state = pickle.loads(want.column(B.STATE).to_pylist()[-1])
    order = np.argsort(users.column(B.USER).to_numpy(zero_copy_only=False), kind="stable")
    for size, per_call in ((1, 1), (4, 7), (5, 10**9), (table.num_rows, 1)):
        out = list(B.run_lists(cfg, iter(table.to_batches(max_chunksize=size)), per_call))
        got = pa.Table.from_batches(out, want.schema)
        rows = got.filter(pa.compute.equal(got.column(B.KIND), B.USER_ROW))
        got_order = np.argsort(rows.column(B.USER).to_numpy(zero_copy_only=False),
                               kind="stable")
        for col in want.column_names[1:-1]:  # user and metric columns, users sorted
            np.testing.assert_array_equal(
                rows.column(col).to_numpy(zero_copy_only=False)[got_order],
                users.column(col).to_numpy(zero_copy_only=False)[order])
        states = [pickle.loads(b) for b in got.column(B.STATE).to_pylist() if b is not None]
        assert len(states) >= (2 if per_call == 1 and size < table.num_rows else 1)
        merged = states[0].totals
        for part in states[1:]:
            merged = merged.merge(part.totals)
        want_totals = want_state.totals
        assert _summaries(merged.states) == _summaries(want_totals.states)
        assert merged.counts == want_totals.counts
        assert merged.n_users == want_totals.n_users
    assert list(B.run_lists(cfg, iter([]))) == []
    # a null item, which collect_list leaves out: the row count tells it, the local engine's
    # message refuses it
    counts = table.column(B.RUN_COUNT).to_numpy(zero_copy_only=False).copy()
    counts[np.flatnonzero(~np.isnan(counts))[0]] += 2
    short = table.set_column(table.column_names.index(B.RUN_COUNT), B.RUN_COUNT,
                             pa.array(counts, mask=np.isnan(counts)).cast(pa.int64()))
    with pytest.raises(rv.InputError, match="column 'item' has 2 missing id"):
        list(B.run_lists(cfg, iter(short.to_batches())))


_LOCAL_1 = textwrap.dedent("""
    import sys
    import numpy as np
    import pandas as pd
    from pyspark.sql import SparkSession
    import receval as rv
    import receval.spark as rvs

    spark = (SparkSession.builder.master("local[1]").appName("receval-local1")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    rng = np.random.default_rng(1)
    n = 300
    run = pd.DataFrame({"user": rng.integers(0, 40, n), "item": rng.integers(0, 30, n),
                        "score": np.round(rng.random(n), 1)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": rng.integers(0, 45, 120), "item": rng.integers(0, 30, 120),
                          "relevance": rng.integers(0, 4, 120).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    metrics = ["ndcg@5", "map@10", "mrr", "err@3", "precision@3", "coverage@5"]
    local = rv.evaluate(run, truth, metrics, users="union", empty_truth="zero")
    order = np.argsort(local.user_ids, kind="stable")
    run_s = spark.createDataFrame(run, "user bigint, item bigint, score double")
    truth_s = spark.createDataFrame(truth, "user bigint, item bigint, relevance double")
    from pyspark.sql.pandas.group_ops import PandasCogroupedOps

    cogroup = hasattr(PandasCogroupedOps, "applyInArrow")
    for strategy in ("lists", "cogroup", "mapInArrow") if cogroup else ("lists", "mapInArrow"):
        spread = {} if strategy == "lists" else {"buckets": 5}
        got = rvs.evaluate(run_s, truth_s, metrics, strategy=strategy, **spread,
                           users="union", empty_truth="zero")
        assert spark.sparkContext.defaultParallelism == 1
        assert got.counts == local.counts, strategy
        for a, b in zip(got.stats, local.stats, strict=True):
            for key in ("mean", "std", "se", "n", "skipped"):
                assert a[key] == b[key] or (a[key] != a[key] and b[key] != b[key]), strategy
        assert list(got.user_ids) == list(local.user_ids[order]), strategy
        assert np.array_equal(got.values, local.values[order], equal_nan=True), strategy
    spark.stop()
    print("identical")
""")


def test_local_1_session_every_strategy(spark):
    """A one-core session (its own JVM, in a subprocess): every strategy, the local bits."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _LOCAL_1], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("identical")
