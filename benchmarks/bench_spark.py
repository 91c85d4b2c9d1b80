"""The Spark engine against its floor, Spark's RankingEvaluator and the local engine.

Same machine, same ``local[C]`` session, data read from Parquet by every contender on every
run (no cache shared between contenders); median of ``--runs`` warm runs; start-up reported
separately.

(a) floor: a no-op cogroup of the same projected, bucketed data (shuffle + Arrow transfer only)
(b) RankingEvaluator: arrays built with sort_array(collect_list(struct(-score, item))), sliced
    to the deepest k, joined with the truth arrays (cached for its four evaluate calls), then
    ndcgAtK@10, precisionAtK@10, meanAveragePrecision, recallAtK@100
(c) receval's Spark engine: the same four metrics (compat="spark_mllib"), then six metrics,
    with the default strategy (lists: per-user lists joined on the user), then the six with
    the bucketed strategies, cogroup (Spark 4) and mapInArrow
(d) the local engine: pandas.read_parquet + rv.evaluate
(a1), (a2) the floor's two parts alone: (a1) every run row into a Python worker
    (mapInArrow of the projected, bucketed run, counting rows: no shuffle), (a2) the shuffle
    alone (repartition by bucket, summed in the JVM: no Python)

    python benchmarks/bench_spark.py --users 100000 --recs 100 --runs 3 --master 'local[2]'
    python benchmarks/bench_spark.py --users 1000000 --runs 1 --contenders a b c4 c6 d
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings

import numpy as np

FOUR = ["ndcgAtK@10", "precisionAtK@10", "meanAveragePrecision", "recallAtK@100"]
CONTENDERS = ("a", "a1", "a2", "b", "c4", "c6", "c6c", "c6m", "d")  # see the module docstring
SIX = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@100", "hit_rate@10"]


def make_data(path: str, users: int, recs: int, truth: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    os.makedirs(path, exist_ok=True)
    n_items = max(10 * recs, users // 2)
    # per user a Zipf-popular start item and a walk with a prime step: distinct items per list
    base = (rng.zipf(1.3, size=users) % n_items).astype(np.int64)
    u = np.repeat(np.arange(users, dtype=np.int64), recs)
    items = (base[:, None] + np.arange(recs)[None, :] * 7919) % n_items
    scores = rng.random(users * recs)
    pq.write_table(pa.table({"user": u, "item": items.ravel(), "score": scores}),
                   os.path.join(path, "run.parquet"))
    # truth: distinct walk positions in [0, 3 recs); those below recs are hits
    pos = np.argsort(rng.random((users, 3 * recs), dtype=np.float32), axis=1)[:, :truth]
    ti = (base[:, None] + pos * 7919) % n_items
    tu = np.repeat(np.arange(users, dtype=np.int64), truth)
    pq.write_table(pa.table({"user": tu, "item": ti.ravel(),
                             "relevance": np.ones(users * truth)}),
                   os.path.join(path, "truth.parquet"))


class Peak:
    """Peak RSS (MiB) of this process, its JVM and the Python workers, sampled every 0.2 s."""

    def __init__(self) -> None:
        self.peak = {"driver": 0.0, "jvm": 0.0, "workers": 0.0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        out = subprocess.run(["ps", "-eo", "pid,ppid,rss,args"], capture_output=True,
                             text=True).stdout.splitlines()[1:]
        rows = []
        for line in out:
            parts = line.split(None, 3)
            if len(parts) == 4:
                rows.append((int(parts[0]), int(parts[1]), int(parts[2]), parts[3]))
        me = os.getpid()
        children: dict[int, list[int]] = {}
        for pid, ppid, _, _ in rows:
            children.setdefault(ppid, []).append(pid)
        desc, todo = set(), [me]
        while todo:
            p = todo.pop()
            for c in children.get(p, []):
                if c not in desc:
                    desc.add(c)
                    todo.append(c)
        jvm = workers = 0
        for pid, _, rss, args in rows:
            if pid == me:
                self.peak["driver"] = max(self.peak["driver"], rss / 1024)
            elif pid in desc and "java" in args.split()[0]:
                jvm += rss
            elif pid in desc and "python" in args:
                workers += rss
        self.peak["jvm"] = max(self.peak["jvm"], jvm / 1024)
        self.peak["workers"] = max(self.peak["workers"], workers / 1024)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:  # pragma: no cover - a process vanished mid-sample
                pass
            time.sleep(0.2)

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def noop(spark, path: str, buckets: int) -> float:
    import pyarrow as pa
    from pyspark.sql import functions as F

    run = spark.read.parquet(os.path.join(path, "run.parquet"))
    truth = spark.read.parquet(os.path.join(path, "truth.parquet"))
    b = F.pmod(F.xxhash64("user"), F.lit(buckets)).cast("int").alias("_b")
    run = run.select("user", "item", "score", b)
    truth = truth.select("user", "item", "relevance", b)

    def f(left, right):
        return pa.table({"n": pa.array([left.num_rows + right.num_rows], pa.int64())})

    return float(run.groupBy("_b").cogroup(truth.groupBy("_b")).applyInArrow(f, "n long")
                 .agg(F.sum("n")).collect()[0][0])


def _bucketed_run(spark, path: str, buckets: int):
    from pyspark.sql import functions as F

    run = spark.read.parquet(os.path.join(path, "run.parquet"))
    b = F.pmod(F.xxhash64("user"), F.lit(buckets)).cast("int").alias("_b")
    return run.select("user", "item", "score", b)


def into_python(spark, path: str, buckets: int) -> float:
    """(a1): the projected, bucketed run rows handed to Python workers, where they are only
    counted (no shuffle)."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    def count(batches):
        n = 0
        for batch in batches:
            n += batch.num_rows
        yield pa.RecordBatch.from_pydict({"n": pa.array([n], pa.int64())})

    return float(_bucketed_run(spark, path, buckets).mapInArrow(count, "n long")
                 .agg(F.sum("n")).collect()[0][0])


def shuffle_only(spark, path: str, buckets: int) -> float:
    """(a2): the run rows shuffled into their buckets and summed in the JVM (no Python)."""
    from pyspark.sql import functions as F

    return float(_bucketed_run(spark, path, buckets).repartition(buckets, "_b")
                 .agg(F.sum("item") + F.sum("_b")).collect()[0][0])


def ranking_evaluator(spark, path: str) -> dict[str, float]:
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql import functions as F

    run = spark.read.parquet(os.path.join(path, "run.parquet"))
    truth = spark.read.parquet(os.path.join(path, "truth.parquet"))
    pred = run.groupBy("user").agg(F.slice(F.sort_array(F.collect_list(F.struct(
        (-F.col("score")).alias("s"), F.col("item").cast("double").alias("i")))), 1, 100)
        .alias("p")).select("user", F.col("p.i").alias("pred"))
    label = truth.groupBy("user").agg(F.collect_list(F.col("item").cast("double"))
                                      .alias("label"))
    # inner join: the users of both sides (the spark_mllib preset's users="intersection")
    data = label.join(pred, "user", "inner").select(
        "label", F.coalesce("pred", F.array().cast("array<double>")).alias("pred")).cache()
    out = {}
    for name in FOUR:
        metric, _, k = name.partition("@")
        out[name] = RankingEvaluator(predictionCol="pred", labelCol="label", metricName=metric,
                                     k=int(k or 10)).evaluate(data)
    data.unpersist()
    return out


def receval_spark(spark, path: str, metrics: list[str], **kw) -> dict[str, float]:
    import receval.spark as rvs

    run = spark.read.parquet(os.path.join(path, "run.parquet"))
    truth = spark.read.parquet(os.path.join(path, "truth.parquet"))
    res = rvs.evaluate(run, truth, metrics, per_user=None, cache=False, **kw)
    return res.summary


def local(path: str, metrics: list[str]) -> dict[str, float]:
    import pandas as pd

    import receval as rv

    run = pd.read_parquet(os.path.join(path, "run.parquet"))
    truth = pd.read_parquet(os.path.join(path, "truth.parquet"))
    return rv.evaluate(run, truth, metrics).summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--recs", type=int, default=100)
    ap.add_argument("--truth", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--buckets", type=int, default=None,
                    help="user buckets (default: the engine's, max(2 x cores, truth rows / "
                    "250k))")
    ap.add_argument("--data", default=None, help="folder for the Parquet files (default: tmp)")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="a Spark configuration for the session (repeatable)")
    ap.add_argument("--contenders", nargs="+", default=list(CONTENDERS),
                    choices=CONTENDERS, help="which contenders to run (default: all; "
                    "a is the floor the ratios divide by)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", module="pyspark")  # its pandas >= 3 notice
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    path = args.data or tempfile.mkdtemp(prefix="receval-bench-spark-")
    if not os.path.exists(os.path.join(path, "run.parquet")):
        make_data(path, args.users, args.recs, args.truth)
    m = re.fullmatch(r"local\[(\d+)\]", args.master)
    cores = int(m.group(1)) if m else (os.cpu_count() or 2)
    from receval.spark.engine import ROWS_PER_BUCKET

    buckets = args.buckets or max(2 * cores, -(-args.users * args.truth // ROWS_PER_BUCKET))
    t0 = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(args.master).appName("receval-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", str(buckets))
             .config("spark.driver.memory", "6g"))
    for item in args.conf:
        key, _, value = item.partition("=")
        spark = spark.config(key, value)
    spark = spark.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(10).count()
    startup = time.perf_counter() - t0
    every = [
        ("a", "(a) no-op cogroup (floor)", lambda: noop(spark, path, buckets)),
        ("a1", "(a1) run rows into Python only (no shuffle)",
         lambda: into_python(spark, path, buckets)),
        ("a2", "(a2) shuffle only (no Python)", lambda: shuffle_only(spark, path, buckets)),
        ("b", "(b) RankingEvaluator, 4 metrics", lambda: ranking_evaluator(spark, path)),
        ("c4", "(c) receval spark, same 4 (spark_mllib)",
         lambda: receval_spark(spark, path, FOUR, compat="spark_mllib")),
        ("c6", "(c) receval spark, 6 metrics", lambda: receval_spark(spark, path, SIX)),
        ("c6c", "(c) receval spark, 6 metrics, cogroup",
         lambda: receval_spark(spark, path, SIX, buckets=buckets, strategy="cogroup")),
        ("c6m", "(c) receval spark, 6 metrics, mapInArrow",
         lambda: receval_spark(spark, path, SIX, buckets=buckets, strategy="mapInArrow")),
        ("d", "(d) local engine, 6 metrics", lambda: local(path, SIX)),
    ]
    chosen = [c for c in every if c[0] == "a" or c[0] in args.contenders]
    print(f"\n{args.users} users x {args.recs} recs, {args.truth} truth items/user, "
          f"master {args.master}, {buckets} buckets, median of {args.runs} warm runs; "
          f"Spark start-up {startup:.1f} s\n")
    print("| contender | seconds | / floor | peak RSS MiB driver / JVM / Python workers |")
    print("|---|---:|---:|---|", flush=True)
    values, seconds = {}, {}
    for key, label, fn in chosen:
        fn()  # warm-up (Python workers, JIT of the JVM)
        times = []
        with Peak() as peak:
            for _ in range(args.runs):
                t = time.perf_counter()
                values[key] = fn()
                times.append(time.perf_counter() - t)
        seconds[key], p = statistics.median(times), peak.peak
        print(f"| {label} | {seconds[key]:.2f} | {seconds[key] / seconds['a']:.2f} | "
              f"{p['driver']:.0f} / {p['jvm']:.0f} / {p['workers']:.0f} |", flush=True)
    if "b" in values and "c4" in values:
        import receval.spark as rvs

        diff = max(abs(values["b"][n] - values["c4"][rvs.mllib_key(n)]) for n in FOUR)
        print(f"\nmax |RankingEvaluator - receval spark_mllib| over the four metrics: "
              f"{diff:.2e}")
        print(f"RankingEvaluator / receval spark_mllib (same 4 metrics): "
              f"{seconds['b'] / seconds['c4']:.2f}x")
    spark.stop()


if __name__ == "__main__":
    main()
