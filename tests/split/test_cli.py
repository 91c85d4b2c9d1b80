from __future__ import annotations

import argparse
import json

import pandas as pd
import pytest

from receval.cli import split_cmd


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="receval")
    split_cmd.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def log(tmp_path):
    df = pd.DataFrame(
        {
            "uid": ["a", "a", "a", "b", "b", "c"],
            "iid": [1, 2, 3, 1, 4, 2],
            "timestamp": ["2023-01-01", "2023-01-05", "2023-02-01", "2023-01-02",
                          "2023-03-01", "2023-02-15"],
        }
    )
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    return path


def test_temporal_csv(log, tmp_path, capsys):
    out = tmp_path / "out"
    code = _run(["split", str(log), "-o", str(out), "--method", "temporal", "--at", "2023-02-01",
                 "--user-col", "uid", "--item-col", "iid", "--json"])
    assert code == 0
    train = pd.read_csv(out / "train.csv")
    test = pd.read_csv(out / "test.csv")
    assert list(train.columns) == ["uid", "iid", "timestamp"]
    assert len(train) == 3 and len(test) == 3  # 2023-02-01 and later go to test
    summary = json.loads(capsys.readouterr().out)
    rep = summary["parts"]["split"]
    assert rep["test_before_train_end"] == 0
    assert rep["test_only_users"] == 1  # c
    assert rep["test_only_items"] == 2  # 3 and 4


def test_kfold_parquet_and_filter(log, tmp_path, capsys):
    pytest.importorskip("pyarrow", reason="Parquet files need the arrow extra")
    out = tmp_path / "folds"
    code = _run(["split", str(log), "-o", str(out), "--method", "kfold", "--folds", "2",
                 "--user-col", "uid", "--item-col", "iid", "--min-user", "2",
                 "--format", "parquet"])
    assert code == 0
    tests = [pd.read_parquet(out / f"fold_{i}" / "test.parquet") for i in (1, 2)]
    assert sum(len(t) for t in tests) == 5  # user c (one row) was filtered out
    text = capsys.readouterr().out
    assert "after filtering" in text and "fold_1" in text


def test_leave_one_out_and_errors(log, tmp_path):
    out = tmp_path / "loo"
    assert _run(["split", str(log), "-o", str(out), "--method", "leave-one-out",
                 "--user-col", "uid", "--item-col", "iid"]) == 0
    test = pd.read_csv(out / "test.csv")
    assert sorted(test["timestamp"]) == ["2023-02-01", "2023-03-01"]  # c keeps its one row
    from receval.errors import InputError

    with pytest.raises(InputError, match="user"):
        _run(["split", str(log), "-o", str(out)])  # default column "user" is absent
    main = pytest.importorskip("receval.cli.main")
    assert main.main(["split", str(tmp_path / "missing.csv"), "-o", str(out)]) == 1
