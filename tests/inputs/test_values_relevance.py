"""Relevance that silently disables metrics (issue 11): fractional relevance in (0, 1) made
every binary metric NaN with "0 evaluated" while nDCG reported n=50, and nothing warned."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import receval as rv
from receval.errors import RecevalWarning, RelevanceThresholdWarning


def _weighted():
    truth = sp.random(50, 40, density=0.2, random_state=1, format="csr")  # values in (0, 1)
    run = np.argsort(-np.random.default_rng(0).random((50, 40)), axis=1)[:, :10]
    return run, truth


def test_fractional_relevance_warns_once_with_the_fix():
    run, truth = _weighted()
    with pytest.warns(RelevanceThresholdWarning) as rec:
        res = rv.evaluate(run, truth, ["precision@10", "recall@10", "ndcg@10"])
    assert len(rec) == 1  # once, naming every affected metric
    msg = str(rec[0].message)
    assert "['precision@10', 'recall@10']" in msg and "rel=1" in msg
    assert "precision@10(rel=0.5)" in msg  # the fix, as a metric key
    assert "np.float64" not in msg
    assert rec[0].filename == __file__  # points at the caller, not inside receval
    assert issubclass(RelevanceThresholdWarning, RecevalWarning)
    assert np.isnan(res["precision@10"]) and res.stats[0]["n"] == 0
    assert res.stats[2]["n"] == 50  # graded: unaffected


def test_the_suggested_key_works_without_a_warning():
    run, truth = _weighted()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rv.evaluate(run, truth, ["precision@10(rel=0.5)", "ndcg@10"])
    assert res.stats[0]["n"] > 0 and not np.isnan(res["precision@10(rel=0.5)"])


def test_evaluator_warns_once_for_many_runs():
    run, truth = _weighted()
    with pytest.warns(RelevanceThresholdWarning) as rec:
        ev = rv.Evaluator(truth, ["precision@10"])
        ev.evaluate(run)
        ev.evaluate(run[:, :5])
    assert len(rec) == 1


def test_frame_with_explicit_threshold_above_every_relevance_warns():
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rating": [1, 1, 1]})
    run = {1: {"a": 2.0}, 2: {"a": 1.0}}
    with pytest.warns(RelevanceThresholdWarning, match=r"hits@1\(rel=2\).*'rating' is 1"):
        rv.evaluate(run, truth, ["hits@1(rel=2)", "hits@1"])


def test_no_warning_without_any_positive_relevance():
    # nothing relevant at all: every metric skips every user, which the counts already say
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [0.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rv.evaluate({1: {"a": 1.0}}, truth, ["precision@1", "ndcg@1"])
    assert res.counts["skipped_no_relevant"] == 1


def test_info_reports_columns_thresholds_and_max():
    truth = pd.DataFrame({"uid": [1, 1], "iid": ["a", "b"], "grade": [0.25, 3.0]})
    res = rv.evaluate({1: {"a": 1.0}}, truth, ["precision@1", "recall@1(rel=2)", "ndcg@1",
                                                "num_ret"],
                      rel_col="grade")
    info = res.info["relevance"]
    assert info["truth_columns"] == {"user": "uid", "item": "iid", "relevance": "grade"}
    assert info["max"] == 3.0
    assert info["thresholds"] == {"precision@1": 1.0, "recall@1(rel=2)": 2.0, "ndcg@1": "graded"}


def test_info_without_a_relevance_column():
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    res = rv.evaluate({1: {"a": 1.0}}, truth, ["precision@1"])
    info = res.info["relevance"]
    assert info["truth_columns"]["relevance"] is None and info["max"] == 1.0
    run, sparse_truth = _weighted()
    res = rv.evaluate(run, sparse_truth, ["ndcg@10"])
    assert "sparse matrix" in res.info["relevance"]["truth_columns"]["relevance"]
    res = rv.evaluate(run[:2], [np.array([1]), np.array([2])], ["ndcg@10"])
    assert "list of item arrays" in res.info["relevance"]["truth_columns"]["relevance"]


def test_info_survives_json():
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [2]})
    res = rv.evaluate({1: {"a": 1.0}}, truth, ["precision@1", "ndcg@1"])
    back = rv.EvalResult.from_json(res.to_json())
    assert back.info["relevance"] == res.info["relevance"]
