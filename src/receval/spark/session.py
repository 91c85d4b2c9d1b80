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
            raise InputError(f"conf={entry!r}: expected KEY=VALUE entries.")
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


def evaluate_paths(run: str, truth: str, metrics: Any, *, master: str | None = None,
                   conf: list[str] | tuple[str, ...] = (), run_format: str | None = None,
                   truth_format: str | None = None, **kwargs: Any) -> EvalResult:
    """Read a run and a truth file with Spark (in a session of ``master`` / ``conf``) and
    evaluate them there; ``kwargs`` are :func:`receval.spark.evaluate`'s (column names,
    ``buckets``, ``strategy``, ``per_user``, ``compat``, policies)."""
    from . import evaluate

    spark = session(master, conf)
    fmt = {"jsonl": "json"}
    run_sdf = read(spark, run, fmt.get(run_format, run_format))  # type: ignore[arg-type]
    truth_sdf = read(spark, truth, fmt.get(truth_format, truth_format))  # type: ignore[arg-type]
    return evaluate(run_sdf, truth_sdf, metrics, **kwargs)
