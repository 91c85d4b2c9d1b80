"""``receval evaluate --engine spark`` reads the files with Spark and prints the local numbers.

The Spark flags (``--strategy``, ``--spark-master``, repeated ``--spark-conf``, ``--buckets``)
are checked end to end: in this process's session (strategy, buckets) and in a session of its
own started by the command itself, in a subprocess (master and configuration entries, which
an existing session would ignore).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from spark_cases import HAS_COGROUP

pytestmark = pytest.mark.spark
pytest.importorskip("receval.spark")


def _files(tmp_path):
    pytest.importorskip("pyarrow")  # to_parquet
    rng = np.random.default_rng(1)
    run = pd.DataFrame({"user": np.repeat(np.arange(50), 8), "item": rng.integers(0, 30, 400),
                        "score": rng.random(400)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(np.arange(55), 3), "item": rng.integers(0, 30, 165),
                          "relevance": rng.integers(0, 3, 165).astype(float)}
                         ).drop_duplicates(["user", "item"])
    run.to_parquet(tmp_path / "run.parquet")
    truth.to_parquet(tmp_path / "truth.parquet")
    return ["evaluate", "--run", str(tmp_path / "run.parquet"), "--truth",
            str(tmp_path / "truth.parquet"), "-m", "ndcg@5,mrr,err@3,judged@3", "--format",
            "json"]


def test_cli_engine_spark_matches_local(spark, tmp_path, capsys):
    from receval.cli import main

    args = _files(tmp_path)
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(args + ["--engine", "spark", "--buckets", "4", "--spark-conf",
                        "spark.sql.shuffle.partitions=2"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["summary"] == local["summary"] and got["counts"] == local["counts"]
    assert got["stats"] == local["stats"]
    assert got["provenance"]["engine"] == "spark" and got["provenance"]["buckets"] == 4
    # the policy flags reach the Spark engine, --unjudged included
    policy = ["--unjudged", "remove", "--users", "union", "--empty-truth", "zero"]
    assert main(args + policy) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(args + policy + ["--engine", "spark", "--buckets", "3"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["stats"] == local["stats"] and got["counts"] == local["counts"]
    assert got["policies"]["unjudged"] == "remove"
    assert main(args + ["--engine", "spark", "--spark-conf", "nonsense"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize("strategy", ["auto", "cogroup", "mapInArrow"])
def test_cli_strategy_flag(spark, tmp_path, capsys, strategy):
    from receval.cli import main

    args = _files(tmp_path)
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    code = main(args + ["--engine", "spark", "--buckets", "3", "--strategy", strategy])
    if strategy == "cogroup" and not HAS_COGROUP:  # Spark 3.3 to 3.5: refused, one line
        assert code == 1
        err = capsys.readouterr().err
        assert "--strategy 'cogroup'" in err and "Spark 4" in err and "mapInArrow" in err
        return
    assert code == 0
    got = json.loads(capsys.readouterr().out)
    ran = {"auto": "cogroup" if HAS_COGROUP else "mapInArrow"}.get(strategy, strategy)
    assert got["provenance"]["strategy"] == ran
    assert got["stats"] == local["stats"] and got["counts"] == local["counts"]
    assert got["summary"] == local["summary"]


_OWN_SESSION = textwrap.dedent("""
    import json, sys
    from receval.cli import main

    code = main(sys.argv[1:])
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    print(json.dumps({"code": code, "master": spark.sparkContext.master,
                      "parallelism": spark.conf.get("spark.default.parallelism"),
                      "partitions": spark.conf.get("spark.sql.shuffle.partitions"),
                      "app": spark.conf.get("spark.app.name")}))
    spark.stop()
""")


def test_cli_spark_master_and_repeated_conf_reach_a_new_session(spark, tmp_path):
    """The command starts its own session (a subprocess: this process has one already) with
    --spark-master and every --spark-conf entry; the default bucket count follows them."""
    out = tmp_path / "res.json"
    conf = ["spark.default.parallelism=3", "spark.sql.shuffle.partitions=5",
            "spark.app.name=receval-cli-test", "spark.ui.enabled=false",
            "spark.ui.showConsoleProgress=false", "spark.driver.bindAddress=127.0.0.1",
            "spark.driver.host=127.0.0.1", f"spark.local.dir={tmp_path}"]
    argv = [*_files(tmp_path), "-o", str(out), "--engine", "spark", "--spark-master",
            "local[1]", "--strategy", "mapInArrow"]
    for entry in conf:
        argv += ["--spark-conf", entry]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _OWN_SESSION, *argv], capture_output=True,
                          text=True, env=env, cwd=root, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    facts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert facts == {"code": 0, "master": "local[1]", "parallelism": "3", "partitions": "5",
                     "app": "receval-cli-test"}
    got = json.loads(out.read_text())
    assert got["provenance"]["buckets"] == 6  # 2 x spark.default.parallelism
    assert got["provenance"]["strategy"] == "mapInArrow"
    from receval.cli import main

    local = tmp_path / "local.json"
    assert main([*_files(tmp_path), "-o", str(local)]) == 0
    assert got["stats"] == json.loads(local.read_text())["stats"]
