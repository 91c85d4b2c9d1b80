"""Each evaluation policy on a tiny example with exact expected values and counts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv

log2 = math.log2


# --- ties -----------------------------------------------------------------------------------------


def test_ties_id_breaks_on_raw_id_ascending():
    run = {"u": {"b": 1.0, "a": 1.0, "c": 0.5}}
    truth = {"u": {"b": 1}}
    assert rv.evaluate(run, truth, ["mrr"])["mrr"] == 1 / 2  # a before b


def test_ties_trec_eval_breaks_on_id_descending():
    run = {"u": {"b": 1.0, "a": 1.0, "c": 0.5}}
    truth = {"u": {"a": 1}}
    assert rv.evaluate(run, truth, ["mrr"], ties="trec_eval")["mrr"] == 1 / 2  # b before a


def test_ties_trec_eval_compares_integer_ids_as_text_int64_column():
    # strcmp order: "5" > "10", so descending puts item 5 first (numerically it would be 10)
    run = pd.DataFrame({"user": [1, 1], "item": [5, 10], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [5]})
    assert rv.evaluate(run, truth, ["mrr"], ties="trec_eval")["mrr"] == 1.0
    assert rv.evaluate(run, truth, ["mrr"])["mrr"] == 1.0  # default: numeric ascending


def test_ties_trec_eval_compares_integer_ids_as_text_dict_input():
    # trec_eval compares docnos with strcmp: "10" < "5", so descending puts 5 first
    run = {1: {5: 1.0, 10: 1.0}}
    truth = {1: {5: 1}}
    assert rv.evaluate(run, truth, ["mrr"], ties="trec_eval")["mrr"] == 1.0


def test_ties_average_expected_values():
    # three tied items, one relevant among them, then a miss
    run = {"u": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0}}
    truth = {"u": {"b": 1, "z": 1}}  # R = 2
    res = rv.evaluate(run, truth, ["mrr", "hit_rate@1", "hit_rate@2", "precision@2", "map",
                                   "dcg@2", "ndcg@2"], ties="average")
    assert res["mrr"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, rel=1e-15)
    assert res["hit_rate@1"] == pytest.approx(1 / 3, rel=1e-15)
    assert res["hit_rate@2"] == pytest.approx(2 / 3, rel=1e-15)
    assert res["precision@2"] == pytest.approx((2 / 3) / 2, rel=1e-15)
    assert res["map"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3 / 2, rel=1e-15)
    assert res["dcg@2"] == pytest.approx(1 / 3 + (1 / 3) / log2(3), rel=1e-15)
    assert res["ndcg@2"] == pytest.approx((1 / 3 + (1 / 3) / log2(3)) / (1 + 1 / log2(3)),
                                          rel=1e-15)


def test_ties_average_two_relevant_in_a_group():
    # McSherry & Najork: AP over the orders of a group of 3 holding 2 relevant items
    run = {"u": {"a": 1.0, "b": 1.0, "c": 1.0}}
    truth = {"u": {"a": 1, "b": 1}}
    orders = [[1, 1, 0], [1, 0, 1], [0, 1, 1]]  # each with probability 1/3

    def ap(bits):
        h, acc = 0, 0.0
        for i, b in enumerate(bits):
            if b:
                h += 1
                acc += h / (i + 1)
        return acc / 2

    res = rv.evaluate(run, truth, ["map", "mrr"], ties="average")
    assert res["map"] == pytest.approx(sum(ap(o) for o in orders) / 3, rel=1e-15)
    assert res["mrr"] == pytest.approx((1 + 1 + 1 / 2) / 3, rel=1e-15)


# --- users ----------------------------------------------------------------------------------------

RUN = {"a": {"x": 1.0}, "c": {"x": 1.0}}  # c is not in the truth
TRUTH = {"a": {"x": 1}, "b": {"x": 1}}  # b has no list


@pytest.mark.parametrize(("users", "expected", "ids"), [
    ("truth", (1 + 0) / 2, ["a", "b"]),
    ("intersection", 1 / 1, ["a"]),
    ("run", 1 / 1, ["a", "c"]),  # c has no relevant item: skipped
    ("union", (1 + 0) / 2, ["a", "b", "c"]),
])
def test_users_policy(users, expected, ids):
    res = rv.evaluate(RUN, TRUTH, ["precision@1"], users=users)
    assert res["precision@1"] == expected
    assert sorted(res.user_ids) == ids


def test_users_counts():
    res = rv.evaluate(RUN, TRUTH, ["precision@1"])
    assert res.counts["missing_from_run"] == 1
    assert res.counts["missing_from_truth"] == 1


# --- empty truth ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("policy", "mean", "n"), [
    ("skip", 1.0, 1), ("zero", 1 / 2, 2), ("nan", math.nan, 2),
])
def test_empty_truth_policy(policy, mean, n):
    run = {"a": {"x": 1.0}, "b": {"x": 1.0}}
    truth = {"a": {"x": 1}, "b": {"x": 0}}  # b: judged, nothing relevant
    res = rv.evaluate(run, truth, ["precision@1"], empty_truth=policy)
    got = res["precision@1"]
    assert (math.isnan(got) and math.isnan(mean)) or got == mean
    assert res.stats[0]["n"] == n
    if policy == "skip":
        assert res.counts["skipped_no_relevant"] == 1
        assert math.isnan(res.user_values("precision@1")[1])


def test_empty_truth_depends_on_the_threshold():
    run = {"a": {"x": 1.0}, "b": {"y": 1.0}}
    truth = {"a": {"x": 2}, "b": {"y": 1}}
    res = rv.evaluate(run, truth, ["precision@1(rel=2)", "precision@1"])
    assert res["precision@1(rel=2)"] == 1.0  # b skipped: nothing at level 2
    assert res["precision@1"] == 1.0
    assert res.stats[0]["n"] == 1 and res.stats[1]["n"] == 2


# --- duplicates, NaN scores, negative relevance ---------------------------------------------------


def test_duplicates_first_and_max():
    run = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]})
    truth = {"u": {"a": 1}}
    # "first" is the best-ranked occurrence (a at 3.0), whatever the row order
    first = rv.evaluate(run, truth, ["mrr"], duplicates="first")  # a keeps 3.0: a, b
    best = rv.evaluate(run, truth, ["mrr"], duplicates="max")  # a keeps 3.0: a, b
    reverse = rv.evaluate(run.iloc[::-1], truth, ["mrr"], duplicates="first")
    assert first["mrr"] == best["mrr"] == reverse["mrr"] == 1.0
    assert first.counts["duplicates_removed"] == 1


def test_truth_duplicates_max_keeps_highest_relevance():
    run = {"u": {"a": 1.0}}
    truth = pd.DataFrame({"user": ["u", "u"], "item": ["a", "a"], "rel": [1, 3]})
    assert rv.evaluate(run, truth, ["dcg@1"], duplicates="max")["dcg@1"] == 3
    assert rv.evaluate(run, truth, ["dcg@1"], duplicates="first")["dcg@1"] == 3
    assert rv.evaluate(run, truth.iloc[::-1], ["dcg@1"], duplicates="first")["dcg@1"] == 3


def test_nan_scores_drop_and_last():
    run = pd.DataFrame({"user": ["u"] * 3, "item": ["a", "b", "c"],
                        "score": [np.nan, 2.0, 1.0]})
    truth = {"u": {"a": 1}}
    dropped = rv.evaluate(run, truth, ["mrr", "num_ret"], nan_scores="drop")
    last = rv.evaluate(run, truth, ["mrr"], nan_scores="last")
    assert dropped["mrr"] == 0.0
    assert dropped["num_ret"] == 2
    assert dropped.counts["dropped_nan_scores"] == 1
    assert last["mrr"] == 1 / 3


def test_negative_relevance_zero_is_judged_non_relevant():
    run = {"u": {"n": 2.0, "a": 1.0}}
    truth = {"u": {"a": 1, "n": -2}}
    res = rv.evaluate(run, truth, ["bpref", "ndcg", "num_rel"], negative_rel="zero")
    assert res["bpref"] == 1 - 1 / 1
    assert res["ndcg"] == pytest.approx(1 / log2(3), rel=1e-15)
    assert res["num_rel"] == 1


def test_users_tied_at_cutoff_are_counted():
    truth = {"u": {"a": 1}, "v": {"a": 1}, "w": {"a": 1}}
    run = {"u": {"a": 2.0, "b": 1.0},            # no tie
           "v": {"a": 1.0, "b": 1.0, "c": 0.5},  # ranks 1 and 2 tied: straddles @1
           "w": {"a": 3.0, "b": 1.0, "c": 1.0}}  # ranks 2 and 3 tied: straddles @2 only
    assert rv.evaluate(run, truth, ["precision@1"]).counts["users_tied_at_cutoff"] == 1
    assert rv.evaluate(run, truth, ["precision@1", "ndcg@2"]).counts["users_tied_at_cutoff"] == 2
    assert rv.evaluate(run, truth, ["precision@3"]).counts["users_tied_at_cutoff"] == 0
    assert rv.evaluate(run, truth, ["mrr"]).counts["users_tied_at_cutoff"] == 0
