"""AUC and log-loss conventions of other libraries: pairs inside the top k (RePlay RocAuc@k)
and labelled pairs only (Microsoft Recommenders auc / logloss)."""

from __future__ import annotations

import math

import pytest

import receval as rv

# RePlay's RocAuc docstring example: scores of items 1..7, relevant items 4, 5, 6
RUN = {1: {1: 0.5, 2: 0.1, 3: 0.25, 4: 0.6, 5: 0.2, 6: 0.3, 7: 0.0}}
TRUTH = {1: {4: 1, 5: 1, 6: 1}}


def test_replay_rocauc_documented_value_and_top_k():
    res = rv.evaluate(RUN, TRUTH, ["gauc@7(single_class=zero_one)", "gauc@3", "gauc"])
    assert res["gauc@7(single_class=zero_one)"] == 0.75     # RePlay prints 0.75
    # top 3 = (4: hit, 1: miss, 6: hit): 1 of 2 pairs ordered correctly
    assert res["gauc@3"] == 0.5
    assert res["gauc"] == 0.75                              # the whole list of 7


def test_single_class_zero_one():
    run = {"a": {"x": 2.0, "y": 1.0}, "b": {"x": 2.0, "y": 1.0}, "c": {"x": 1.0}}
    truth = {"a": {"z": 1}, "b": {"x": 1, "y": 1}, "c": {"x": 1}}
    key = "gauc(single_class=zero_one)"
    res = rv.evaluate(run, truth, [key, "gauc"])
    # a: no positive scored -> 0; b and c: no negative -> 1
    assert res.user_values(key).tolist() == [0.0, 1.0, 1.0]
    assert res[key] == pytest.approx(2 / 3, rel=1e-15)
    assert math.isnan(res["gauc"])                          # every user skipped by default


def test_unlabelled_skip_counts_only_labelled_pairs():
    # scored: p (relevant), n (judged 0), u1, u2 (not in the truth)
    run = {"u": {"u1": 0.9, "p": 0.8, "u2": 0.7, "n": 0.6}}
    truth = {"u": {"p": 1, "n": 0, "q": 1}}
    res = rv.evaluate(run, truth, ["gauc", "gauc(unlabelled=skip)", "log_loss",
                                   "log_loss(unlabelled=skip)"])
    assert res["gauc"] == pytest.approx(2 / 3, rel=1e-15)   # p above u2, n; below u1
    assert res["gauc(unlabelled=skip)"] == 1.0              # only (p, n)
    all4 = -(math.log(0.1) + math.log(0.8) + math.log(0.3) + math.log(0.4)) / 4
    labelled = -(math.log(0.8) + math.log(0.4)) / 2
    assert res["log_loss"] == pytest.approx(all4, rel=1e-14)
    assert res["log_loss(unlabelled=skip)"] == pytest.approx(labelled, rel=1e-14)
