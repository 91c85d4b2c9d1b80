"""Nothing is dropped without a count, and the raw errors of issue 11 are receval errors now."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError, NoCommonUsersWarning, ParameterError

RUN = {"u1": {"a": 0.9, "b": 0.8, "c": 0.1}, "u2": {"a": 0.5, "c": 0.4}, "u3": {"a": 1.0}}
TRUTH = {"u1": {"b": 1}, "u2": {"c": 1, "a": 1}, "u3": {"z": 1}}


# ---- section 2: counts --------------------------------------------------------------------
def test_gauc_single_class_users_are_counted_as_skipped():
    # u2: every listed item relevant (no negative); u3: no listed item relevant (no positive)
    res = rv.evaluate(RUN, TRUTH, ["ndcg@10", "gauc", "lauc@2"])
    stats = {row["metric"]: row for row in res.stats}
    assert stats["gauc"]["skipped"] == 2 and stats["gauc"]["n"] == 1
    assert res.info["gauc"]["skipped"] == 2
    assert stats["ndcg@10"]["skipped"] == 0
    # gauc's own rule is not "no relevant item": the users are still evaluated for ndcg
    assert res.counts["evaluated"] == 3 and res.counts["skipped_no_relevant"] == 0
    assert np.isnan(res.user_values("gauc")[1:]).all()


@pytest.mark.parametrize(("conv", "counts", "text"), [
    ({"compat": "trec_eval"},
     dict(truth_users=2, run_users=1, missing_from_run=0, truth_users_left_out=1,
          missing_from_truth=0, run_users_left_out=0, evaluated=1),
     "1 in the truth without a list (left out)"),
    ({"users": "truth"},
     dict(truth_users=2, run_users=1, missing_from_run=1, truth_users_left_out=0,
          missing_from_truth=0, run_users_left_out=0, evaluated=2),
     "1 missing from the run (scored 0)"),
])
def test_a_truth_user_without_a_list_is_counted_under_every_users_policy(conv, counts, text):
    # run user 1 holds items 1, 2; truth user 2 (item 3) has no list
    run = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 3]})
    res = rv.evaluate(run, truth, ["recall@10", "ndcg@10"], **conv)
    assert {k: res.counts[k] for k in counts} == counts
    assert text in res.table()


def test_a_run_without_rows_warns_with_the_counts():
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 3]})
    empty = pd.DataFrame({"user": pd.Series([], dtype="int64"),
                          "item": pd.Series([], dtype="int64"),
                          "score": pd.Series([], dtype="float64")})
    with pytest.warns(NoCommonUsersWarning,
                      match=r"no rows: none of the 2 truth user\(s\) has a list \(2 evaluated"):
        res = rv.evaluate(empty, truth, ["ndcg@10"])
    assert res.user_values("ndcg@10").tolist() == [0.0, 0.0]
    with pytest.warns(NoCommonUsersWarning, match="0 evaluated .* 2 left out"):
        rv.evaluate(empty, truth, ["ndcg@10"], users="intersection")
    with pytest.warns(NoCommonUsersWarning, match="no rows"):
        rv.Evaluator(truth, ["ndcg@10"]).evaluate_blocks([])


def test_lauc_skipped_survives_blocks():
    ev = rv.Evaluator({**TRUTH, "u3": {"z": 0}}, ["lauc@2"])  # u3: no positive
    whole = ev.evaluate(RUN)
    blocks = [{u: RUN[u]} for u in RUN]
    assert whole.stats[0]["skipped"] == 1
    assert ev.evaluate_blocks(blocks).stats == whole.stats


def test_no_user_in_common_warns():
    with pytest.warns(NoCommonUsersWarning, match="no user in common") as rec:
        res = rv.evaluate({7: {"a": 1.0}}, {1: {"a": 1}}, ["ndcg@10"])
    assert res.summary["ndcg@10"] == 0.0
    assert "7 (int)" in str(rec[0].message) and "1 (int)" in str(rec[0].message)
    assert rec[0].filename == __file__  # points at the caller, not inside receval


def test_ids_of_different_kinds_are_an_error_not_a_warning():
    with pytest.raises(rv.InputError, match="integers but truth user ids"):
        rv.evaluate({1: {"a": 1.0}}, {"1": {"a": 1}}, ["ndcg@10"])


def test_some_users_in_common_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rv.evaluate(RUN, TRUTH, ["ndcg@10"])


@pytest.fixture
def two():
    a = rv.evaluate(RUN, TRUTH, ["ndcg@10"], name="a")
    b = rv.evaluate({u: dict(reversed(v.items())) for u, v in RUN.items()}, TRUTH, ["ndcg@10"])
    return a, b


def test_compare_keeps_systems_whose_names_print_the_same(two):
    a, b = two
    with pytest.raises(InputError, match="distinct names"):
        rv.compare({1: a, "1": b})


def test_compare_intersection_without_common_user_raises(two):
    a, _ = two
    other = rv.evaluate({"x": {"a": 1.0}}, {"x": {"a": 1}}, ["ndcg@10"])
    with pytest.raises(InputError, match="share no user"):
        rv.compare({"a": a, "o": other}, users="intersection")


@pytest.fixture
def log():
    return pd.DataFrame({"user": [1, 1, 2, 2], "item": [1, 2, 3, 4],
                         "timestamp": [1, 2, 3, 4]})


@pytest.mark.parametrize(("kwargs", "side"), [({"at": 100}, "test"), ({"at": 0}, "train"),
                                              ({"at": -5}, "train")])
def test_temporal_split_with_an_empty_side_raises(log, kwargs, side):
    with pytest.raises(InputError, match=f"the {side} side is empty"):
        rv.split.temporal_split(log, **kwargs)


def test_temporal_split_quantile_with_an_empty_side_raises():
    one = pd.DataFrame({"user": [1], "item": [1], "timestamp": [5]})
    with pytest.raises(InputError, match="side is empty"):
        rv.split.temporal_split(one, quantile=0.5)


@pytest.mark.parametrize(("by", "n_folds"), [("interaction", 5), ("user", 3),
                                             ("user_interactions", 5)])
def test_kfold_with_more_folds_than_units_raises(log, by, n_folds):
    with pytest.raises(InputError, match="would have no test rows"):
        rv.split.kfold_split(log, n_folds=n_folds, by=by)


def test_kfold_user_interactions_warns_on_an_empty_fold():
    df = pd.DataFrame({"user": [1, 2, 3], "item": [1, 2, 3]})
    with pytest.warns(rv.RecevalWarning, match="have no test rows"):
        folds = rv.split.kfold_split(df, n_folds=3, by="user_interactions", seed=0)
    assert sum(len(f.test) for f in folds) == 3


# ---- section 3: raw errors ----------------------------------------------------------------
def test_report_digits_negative():
    res = rv.evaluate(RUN, TRUTH, ["ndcg@10"])
    with pytest.raises(ParameterError, match=r"report: digits=-1 is not valid; digits must be an integer in \[0, 17\]\."):
        rv.report(res, digits=-1)


def test_sample_negatives_without_items():
    with pytest.raises(ParameterError, match="n_items"):
        rv.sampling.sample_negatives(np.array([0]), 1, n_items=0)
    with pytest.raises(ParameterError, match=r"n_items=0 is not valid; n_items must be an integer in \[1, inf\)\.$"):
        rv.sampling.sample_negatives(np.array([0]), 1, n_items=np.int64(0))


def test_messages_print_numpy_scalars_plainly(two):
    a, b = two
    with pytest.raises(rv.PolicyError) as info:
        rv.compare({"a": a, "b": b}, alpha=np.float64("nan"))
    assert "alpha=nan is not valid" in str(info.value) and "np." not in str(info.value)


@pytest.mark.parametrize("field", ["metrics", "user_ids", "values", "stats", "counts",
                                   "policies"])
def test_incomplete_result_json_names_the_field(field):
    doc = rv.evaluate(RUN, TRUTH, ["ndcg@10"]).to_dict()
    del doc[field]
    with pytest.raises(InputError, match=f"'{field}'"):
        rv.EvalResult.from_json(json.dumps(doc))
    with pytest.raises(InputError, match=f"'{field}'"):
        rv.load_report(json.dumps(doc))


@pytest.mark.parametrize("field", ["mean", "n", "skipped"])
def test_incomplete_stats_row_names_the_field(field):
    doc = rv.evaluate(RUN, TRUTH, ["ndcg@10"]).to_dict()
    del doc["stats"][0][field]
    with pytest.raises(InputError, match=f"'{field}'"):
        rv.load_report(json.dumps(doc))


def test_malformed_documents_are_input_errors(two):
    doc = rv.evaluate(RUN, TRUTH, ["ndcg@10"]).to_dict()
    doc["values"] = [[1.0]]
    with pytest.raises(InputError, match="'values' is 1 x 1"):
        rv.load_report(json.dumps(doc))
    with pytest.raises(InputError, match="'results'"):
        rv.load_report(json.dumps({"format": "receval.Results/1"}))
    with pytest.raises(InputError):
        rv.EvalResult.from_json('{"format": "receval.EvalResult/1"')
    cmp = rv.compare(dict(zip("ab", two, strict=True))).to_dict()
    del cmp["pairs"]
    with pytest.raises(InputError, match="'pairs'"):
        rv.load_report(json.dumps(cmp))


def test_dollar_names_are_drawn_literally(two):
    pytest.importorskip("matplotlib")
    a, b = two
    res_a = rv.evaluate(RUN, TRUTH, ["ndcg@5", "ndcg@10"], name=r"$\frac$")
    res_b = rv.evaluate(RUN, TRUTH, ["ndcg@5", "ndcg@10"], name="$x$")
    html = rv.report(rv.compare({res_a.name: res_a, res_b.name: res_b}), "html")
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", html)
    assert "$x$" in texts and r"$\frac$" in texts  # the legend shows the names as written


def test_plot_curves_labels_are_literal():
    pytest.importorskip("matplotlib")
    from receval.report.plots import literal

    assert literal("a $x$ b") == r"a \$x\$ b"
    curve = rv.classification.roc_curve([0, 1, 1], [0.1, 0.9, 0.5], label="$x$")
    ax = curve.plot()
    ax.figure.canvas.draw() if hasattr(ax.figure.canvas, "draw") else None
    assert [t.get_text() for t in ax.get_legend().get_texts()][0].startswith(r"\$x\$")
