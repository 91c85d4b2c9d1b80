"""``receval evaluate --engine spark``: a Spark session, the files read by Spark, the engine."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..errors import InputError
from ..results import EvalResult

_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".json": "json",
            ".jsonl": "json", ".orc": "orc"}


def session(master: str | None = None, conf: list[str] | tuple[str, ...] = (),
            app_name: str = "receval") -> Any:
    """The active Spark session, or a new one (``conf``: ``"key=value"`` entries)."""
    from .engine import _types

    _types()  # a clear message when pyspark is missing
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    elif not os.environ.get("SPARK_HOME") and "spark.master" not in "".join(conf):
        builder = builder.master("local[*]")
    for entry in conf:
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--spark-conf {entry!r}: expected KEY=VALUE.")
        builder = builder.config(key.strip(), value.strip())
    return builder.getOrCreate()


def read(spark: Any, path: str, fmt: str | None = None) -> Any:
    """A Spark DataFrame of a Parquet / CSV (header row) / JSON Lines / ORC path."""
    if fmt is None:
        stem = path.rstrip("/")
        for suffix in (".gz", ".bz2", ".snappy"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
        fmt = _FORMATS.get(os.path.splitext(stem)[1].lower(), "parquet")
    if fmt == "trec":
        raise InputError(f"{path}: the Spark engine reads Parquet, CSV, TSV, JSON Lines or ORC; "
                         "evaluate TREC files with the local engine.")
    reader = spark.read.format("csv" if fmt == "tsv" else fmt)
    if fmt in ("csv", "tsv"):
        reader = reader.option("header", "true").option("inferSchema", "true")
        if fmt == "tsv":
            reader = reader.option("sep", "\t")
    return reader.load(path)


def evaluate_paths(args: Any, keys: list[str], policies: dict[str, str],
                   name: str | None) -> EvalResult:
    """The CLI's Spark path: read ``--run`` / ``--truth`` with Spark and evaluate there."""
    from . import evaluate

    spark = session(args.spark_master, args.spark_conf)
    fmt = {"jsonl": "json"}
    run = read(spark, args.run, fmt.get(args.run_format, args.run_format))
    truth = read(spark, args.truth, fmt.get(args.truth_format, args.truth_format))
    return evaluate(run, truth, keys, name=name, user_col=args.user_col,
                    item_col=args.item_col, score_col=args.score_col, rank_col=args.rank_col,
                    rel_col=args.rel_col, truth_user_col=args.truth_user_col,
                    truth_item_col=args.truth_item_col, buckets=args.buckets,
                    strategy=getattr(args, "strategy", None) or "auto",
                    per_user="pandas" if args.per_user else None, **policies)
