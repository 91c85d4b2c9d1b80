"""rv.integrations.mlflow without MLflow: the name mapping works, log names the extra."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

import receval as rv
from receval.errors import MissingDependencyError, ParameterError
from receval.integrations import mlflow as rv_mlflow


def _result():
    run = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [0.9, 0.5, 0.7]})
    truth = pd.DataFrame({"user": [1, 2], "item": [2, 3]})
    return rv.evaluate(run, truth, ["ndcg@10", "recall@5"])


def test_log_without_mlflow_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)  # import mlflow raises ImportError
    with pytest.raises(MissingDependencyError, match=r"receval\[mlflow\]"):
        rv_mlflow.log(_result())


def test_arguments_are_checked_before_mlflow_is_needed(monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(ParameterError, match="table"):
        rv_mlflow.log(_result(), table="xlsx")


@pytest.mark.parametrize("key", ["ndcg@10", "precision@5(rel=2)", "rbp(p=0.95)", "map",
                                 "ndcg@10(gain=exp)", "recall@100", "x@0.5(a=1e-05)"])
def test_mapping_is_reversible_and_valid(key):
    name = rv_mlflow.metric_name(key)
    assert rv_mlflow.metric_key(name) == key
    assert all(c.isascii() and (c.isalnum() or c in "_-. /") for c in name)


def test_names_for_keys_the_result_lacks_are_refused(monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(ParameterError, match="not metrics of this result") as err:
        rv_mlflow.log(_result(), names={"ndcg@5": "n5"})
    assert err.value.param == "names"
