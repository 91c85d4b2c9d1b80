"""Bad input gets a receval error naming what was received and how to fix it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError, MetricError, PolicyError, UnknownMetricError


@pytest.fixture
def run() -> pd.DataFrame:
    return pd.DataFrame({"user": ["a", "a", "b"], "item": ["x", "y", "x"],
                         "score": [2.0, 1.0, 1.0]})


@pytest.fixture
def truth() -> pd.DataFrame:
    return pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "rel": [1, 2]})


def raises(cls, *fragments):
    """Context manager: raises ``cls`` and the message holds every fragment."""
    class _Check:
        def __enter__(self):
            self.cm = pytest.raises(cls)
            self.info = self.cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            out = self.cm.__exit__(*exc)
            msg = str(self.info.value)
            for f in fragments:
                assert f in msg, f"{f!r} not in {msg!r}"
            return out
    return _Check()


# --- errors keep the builtin classes callers expect ----------------------------------------------


def test_error_hierarchy():
    assert issubclass(InputError, ValueError)
    assert issubclass(MetricError, ValueError)
    assert issubclass(PolicyError, ValueError)
    assert issubclass(UnknownMetricError, KeyError)
    assert issubclass(UnknownMetricError, MetricError)


# --- columns --------------------------------------------------------------------------------------


def test_missing_item_column(run, truth):
    with raises(InputError, "run", "no item column", "product", "item_col"):
        rv.evaluate(run.rename(columns={"item": "product"}), truth, ["ndcg@3"])


def test_missing_user_column_in_truth(run, truth):
    with raises(InputError, "truth", "no user column", "who", "user_col"):
        rv.evaluate(run, truth.rename(columns={"user": "who"}), ["ndcg@3"])


def test_missing_score_and_rank(run, truth):
    with raises(InputError, "no score or rank column", "['user', 'item']", "score_col"):
        rv.evaluate(run.drop(columns="score"), truth, ["ndcg@3"])


@pytest.mark.parametrize(("kw", "given", "near"), [
    ("score_col", "scroe", "score"), ("user_col", "usr", "user"), ("item_col", "itme", "item"),
])
def test_misnamed_run_column_suggests(run, truth, kw, given, near):
    with raises(InputError, repr(given), kw, f"Did you mean {near!r}"):
        rv.evaluate(run, truth, ["ndcg@3"], **{kw: given})


def test_misnamed_rel_column_suggests(run, truth):
    with raises(InputError, "truth", "'relevence'", "rel_col", "Did you mean 'rel'"):
        rv.evaluate(run, truth, ["ndcg@3"], rel_col="relevence")


def test_rank_column_is_used_when_no_score(truth):
    run = pd.DataFrame({"user": ["a", "a"], "item": ["y", "x"], "rank": [1, 2]})
    assert rv.evaluate(run, truth, ["mrr"], users="intersection")["mrr"] == 1 / 2


# --- types ----------------------------------------------------------------------------------------


def test_non_numeric_score(run, truth):
    bad = run.assign(score=["high", "low", "mid"])
    with raises(InputError, "'score'", "numeric", "'high'", "to_numeric"):
        rv.evaluate(bad, truth, ["ndcg@3"])


def test_non_numeric_relevance(run, truth):
    with raises(InputError, "truth", "'rel'", "numeric", "to_numeric"):
        rv.evaluate(run, truth.assign(rel=["1", "2"]), ["ndcg@3"])


def test_unsupported_container(truth):
    with raises(InputError, "unsupported container list", "dict-of-dicts"):
        rv.evaluate([("a", "x", 1.0)], truth, ["ndcg@3"])


def test_missing_ids(truth):
    run = pd.DataFrame({"user": ["a", None], "item": ["x", "y"], "score": [1.0, 2.0]})
    with raises(InputError, "'user'", "1 missing id", "drop or fill"):
        rv.evaluate(run, truth, ["ndcg@3"])


def test_user_id_types_that_never_match(truth):
    run = pd.DataFrame({"user": [1, 1], "item": ["x", "y"], "score": [1.0, 2.0]})
    with raises(InputError, "int", "str", "astype(str)"):
        rv.evaluate(run, truth, ["ndcg@3"])


def test_numpy_run_needs_sparse_truth(truth):
    with raises(InputError, "numpy top-k matrix", "scipy.sparse"):
        rv.evaluate(np.array([[1, 2]]), truth, ["ndcg@3"])


def test_numpy_run_must_be_integer():
    # integral floats are accepted; any other float is an error naming it (never truncated)
    assert rv.evaluate(np.array([[1.0, 2.0]]), [np.array([1])], ["ndcg@3"])["ndcg@3"] == 1.0
    with raises(InputError, "integers", "1.5", "row 0, column 1"):
        rv.evaluate(np.array([[1.0, 1.5]]), [np.array([1])], ["ndcg@3"])
    with raises(InputError, "2-D integer"):
        rv.evaluate(np.array([[[1]]]), [np.array([1])], ["ndcg@3"])


def test_empty_truth_table(run, truth):
    with raises(InputError, "truth", "no rows"):
        rv.evaluate(run, truth.iloc[:0], ["ndcg@3"])


# --- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_nan_or_infinite_score(run, truth, value):
    bad = run.assign(score=[2.0, value, 1.0])
    with raises(InputError, "'score'", "1 NaN/infinite", "row 1", "nan_scores='drop'"):
        rv.evaluate(bad, truth, ["ndcg@3"])


def test_nan_relevance(run, truth):
    with raises(InputError, "truth", "'rel'", "NaN"):
        rv.evaluate(run, truth.assign(rel=[1.0, math.nan]), ["ndcg@3"])


def test_negative_relevance(run, truth):
    with raises(PolicyError, "negative relevance", "-1", "negative_rel='zero'"):
        rv.evaluate(run, truth.assign(rel=[1, -1]), ["ndcg@3"])


def test_duplicate_run_rows(run, truth):
    dup = pd.concat([run, run.iloc[[0]]], ignore_index=True)
    with raises(InputError, "1 duplicate (user, item)", "'a'", "duplicates='max'"):
        rv.evaluate(dup, truth, ["ndcg@3"])


def test_duplicate_truth_rows(run, truth):
    dup = pd.concat([truth, truth.iloc[[1]]], ignore_index=True)
    with raises(InputError, "truth", "duplicate (user, item)", "'b'", "duplicates="):
        rv.evaluate(run, dup, ["ndcg@3"])


def test_empty_truth_error_policy(run):
    truth = pd.DataFrame({"user": ["a", "b"], "item": ["x", "y"], "rel": [1, 0]})
    with raises(PolicyError, "no relevant truth item", "'b'", "empty_truth='skip'"):
        rv.evaluate(run, truth, ["ndcg@3"], empty_truth="error")


# --- metrics --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "near"), [
    ("ndgc@10", "ndcg"), ("precison@5", "precision"), ("reciprocal_rnk", "reciprocal_rank"),
    ("hitrate@10", "hit_rate"),
])
def test_unknown_metric_suggests(run, truth, key, near):
    with raises(UnknownMetricError, "unknown metric", repr(key.split("@")[0]),
                f"Did you mean {near!r}"):
        rv.evaluate(run, truth, [key])


def test_unknown_parameter_suggests(run, truth):
    with raises(UnknownMetricError, "unknown parameter 'gian'", "Did you mean 'gain'"):
        rv.evaluate(run, truth, ["ndcg@10(gian=exp)"])


def test_bad_parameter_value_suggests(run, truth):
    with raises(MetricError, "gain='expo'", "'linear', 'exp'", "Did you mean 'exp'"):
        rv.evaluate(run, truth, ["ndcg@10(gain=expo)"])


@pytest.mark.parametrize("key", ["ndcg@0", "ndcg@-1", "precision@-5"])
def test_cutoff_must_be_positive(run, truth, key):
    got = key.split("@")[1]
    with raises(MetricError, "positive integer", f"got {got}"):
        rv.evaluate(run, truth, [key])


@pytest.mark.parametrize("k", [0, -3, 2.5])
def test_cutoff_must_be_positive_keyword(k):
    with raises(MetricError, "positive integer", f"got {k}"):
        rv.metrics.metric("ndcg", k)


def test_cutoff_bool_is_rejected():
    with raises(MetricError, "positive integer", "got True"):
        rv.metrics.metric("ndcg", True)


def test_cutoff_not_a_number(run, truth):
    with raises(MetricError, "'abc'", "positive integer"):
        rv.evaluate(run, truth, ["ndcg@abc"])


def test_cutoff_on_metric_without_one(run, truth):
    with raises(MetricError, "bpref takes no cutoff", "@10", "'bpref'"):
        rv.evaluate(run, truth, ["bpref@10"])


@pytest.mark.parametrize(("key", "frag"), [
    ("precision@3(rel=0)", "rel='0'"), ("rbp(p=1)", "p='1'"), ("rbp(p=0)", "p='0'"),
    ("fbeta@3(beta=-1)", "beta='-1'"), ("err(max_grade=0)", "max_grade='0'"),
])
def test_parameter_out_of_range(run, truth, key, frag):
    with raises(MetricError, frag, "out of range"):
        rv.evaluate(run, truth, [key])


def test_parameter_not_a_number(run, truth):
    with raises(MetricError, "rbp", "needs a number", "'high'"):
        rv.evaluate(run, truth, ["rbp(p=high)"])


def test_no_metric(run, truth):
    with raises(MetricError, "no metric"):
        rv.evaluate(run, truth, [])


def test_metric_of_wrong_type(run, truth):
    with raises(MetricError, "got 3"):
        rv.evaluate(run, truth, [3])


# --- policies -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value"), [
    ("ties", "random"), ("users", "all"), ("empty_truth", "drop"), ("duplicates", "last"),
    ("nan_scores", "zero"), ("negative_rel", "clip"),
])
def test_bad_policy_value(run, truth, name, value):
    with raises(PolicyError, f"{name}={value!r}", "choose one of"):
        rv.evaluate(run, truth, ["ndcg@3"], **{name: value})


def test_bad_policy_value_suggests(run, truth):
    with raises(PolicyError, "Did you mean 'average'"):
        rv.evaluate(run, truth, ["ndcg@3"], ties="averge")


def test_misspelled_policy_keyword(run, truth):
    with raises(PolicyError, "unknown keyword 'tie'", "Did you mean 'ties'"):
        rv.evaluate(run, truth, ["ndcg@3"], tie="average")


@pytest.mark.parametrize("key", ["err@3", "bpref", "first_hit_rank", "map(denominator=hits)"])
def test_ties_average_unavailable(run, truth, key):
    with raises(PolicyError, "ties='average'", "ties='id'"):
        rv.evaluate(run, truth, [key], ties="average")


def test_err_max_grade_below_the_data(run):
    truth = pd.DataFrame({"user": ["a"], "item": ["x"], "rel": [3]})
    with raises(MetricError, "max_grade=1", "largest relevance", "3"):
        rv.evaluate(run, truth, ["err(max_grade=1)"])
    res = rv.evaluate(run, truth, ["err(max_grade=3)"], users="intersection")
    assert res["err(max_grade=3)"] == (2**3 - 1) / 2**3


@pytest.mark.parametrize("items", [["a", "b"], ("a", "b"), {"a", "b"}, np.array(["a", "b"])])
@pytest.mark.parametrize("role", ["run", "truth", "train"])
def test_a_dict_of_item_lists_is_refused_with_the_dict_of_dicts_that_fixes_it(role, items):
    # {user: [items]} says no value per item; before, it was read as a dict of columns and
    # refused for its keys ("column names must be strings")
    given = {1: items, 2: ["c"]}
    run = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "c"], "score": [2.0, 1, 1]})
    truth = {1: {"a": 1}, 2: {"c": 1}}
    args = {"run": (given, truth, {}), "truth": (run, given, {}),
            "train": (run, truth, {"train": given})}[role]
    value = {"run": "score", "truth": "relevance", "train": "1"}[role]
    with pytest.raises(InputError, match=rf"^{role}: a dict \{{user: \[items\]\}}.*"
                                         rf"\{{user: \{{item: {value}\}}\}}"):
        rv.evaluate(args[0], args[1], ["novelty@2" if role == "train" else "ndcg@2"], **args[2])
    # the dict of dicts it names is read
    fixed = {u: dict.fromkeys(list(v), 1) for u, v in given.items()}
    args = {"run": (fixed, truth, {}), "truth": (run, fixed, {}),
            "train": (run, truth, {"train": fixed})}[role]
    rv.evaluate(args[0], args[1], ["novelty@2" if role == "train" else "ndcg@2"], **args[2])
