"""``receval evaluate --engine spark`` reads the files with Spark and prints the local numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytestmark = pytest.mark.spark
pytest.importorskip("receval.spark")


def test_cli_engine_spark_matches_local(spark, tmp_path, capsys):
    from receval.cli import main

    rng = np.random.default_rng(1)
    run = pd.DataFrame({"user": np.repeat(np.arange(50), 8), "item": rng.integers(0, 30, 400),
                        "score": rng.random(400)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(np.arange(55), 3), "item": rng.integers(0, 30, 165),
                          "relevance": rng.integers(0, 3, 165).astype(float)}
                         ).drop_duplicates(["user", "item"])
    run.to_parquet(tmp_path / "run.parquet")
    truth.to_parquet(tmp_path / "truth.parquet")
    args = ["evaluate", "--run", str(tmp_path / "run.parquet"), "--truth",
            str(tmp_path / "truth.parquet"), "-m", "ndcg@5,mrr,err@3", "--format", "json"]
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(args + ["--engine", "spark", "--buckets", "4", "--spark-conf",
                        "spark.sql.shuffle.partitions=2"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["summary"] == local["summary"] and got["counts"] == local["counts"]
    assert got["stats"] == local["stats"]
    assert got["provenance"]["engine"] == "spark"
    assert main(args + ["--engine", "spark", "--spark-conf", "nonsense"]) == 1
    assert "KEY=VALUE" in capsys.readouterr().err
