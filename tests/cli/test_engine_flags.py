"""The Spark engine's flags of ``receval evaluate``, checked without Spark: help, choices,
values, and the refusal of Spark flags without ``--engine spark`` (a usage error, exit 2).
The runs with Spark are in tests/spark/test_cli.py."""

from __future__ import annotations

import pytest

from receval.cli import main
from receval.cli.evaluate_cmd import SPARK_STRATEGIES


def test_help_lists_the_spark_flags(capsys):
    assert main(["evaluate", "--help"]) == 0
    out = capsys.readouterr().out
    choices = "{" + ",".join(SPARK_STRATEGIES) + "}"
    for flag in ("--engine", "--spark-master", "--spark-conf", "--buckets", "--strategy",
                 choices, "KEY=VALUE"):
        assert flag in out, flag


def test_strategy_choices_are_the_engines():
    from receval.spark.engine import STRATEGIES  # imports no pyspark

    assert SPARK_STRATEGIES == STRATEGIES


@pytest.mark.parametrize(("extra", "needle"), [
    (["--strategy", "join"], "invalid choice: 'join'"),
    (["--spark-conf", "nonsense"], "expected KEY=VALUE"),
    (["--spark-conf", "=1"], "expected KEY=VALUE"),
    (["--buckets", "0"], "must be at least 1"),
])
def test_bad_spark_flag_values_are_usage_errors(files, capsys, extra, needle):
    run, truth = files
    args = ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr"]
    assert main(args + ["--engine", "spark", *extra]) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--strategy", "mapInArrow"], ["--spark-master", "local[2]"],
                                   ["--spark-conf", "a=b", "--spark-conf", "c=d"],
                                   ["--buckets", "4"]])
def test_spark_flags_need_engine_spark(files, capsys, extra):
    run, truth = files
    args = ["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr", *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert extra[0] in err and "--engine spark" in err
    assert "Traceback" not in err


def test_stream_is_the_local_engines(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--engine", "spark", "--stream"]) == 2
    assert "--stream" in capsys.readouterr().err
