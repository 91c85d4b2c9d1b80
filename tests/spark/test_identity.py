"""The Spark engine returns exactly what the local engine returns.

The same random and adversarial cases as the local suite (``oracle.random_case``: ties, empty
and short lists, users only in the run or only in the truth, graded relevance), evaluated by
``rv.evaluate`` on pandas frames and by the Spark engine on the same rows with 1, 3 and 64
buckets: per-user values, counts and summaries must be equal, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases
from oracle import random_case
from spark_cases import (
    APPROX,
    BEYOND,
    KERNEL,
    NOT_DISTRIBUTED,
    STRATEGIES,
    _tag,
    assert_identical,
    frames,
    judged_case,
    sdf,
    spread,
)

import receval as rv

pytestmark = pytest.mark.spark
rvs = pytest.importorskip("receval.spark")

def run_both(spark, run_rows, truth_rows, metrics, id_kind="str", buckets=3,
             strategy="auto", **policies):
    run_pdf, truth_pdf = frames(run_rows, truth_rows, id_kind)
    local = rv.evaluate(run_pdf, truth_pdf, metrics, **policies)
    spread_kw = {"strategy": strategy} if buckets is None else spread(strategy, buckets)
    got = rvs.evaluate(sdf(spark, run_pdf, id_kind, "score"),
                       sdf(spark, truth_pdf, id_kind, "relevance"), metrics,
                       **spread_kw, **policies)
    return local, got


@pytest.mark.parametrize("buckets", [1, 3, 64])
@pytest.mark.parametrize("id_kind", ["int", "str"])
def test_random_cases_every_kernel_metric(spark, buckets, id_kind):
    rng = np.random.default_rng(7 + buckets)
    run_rows, truth_rows = [], []
    for c in range(4):  # four random cases side by side (distinct users), one evaluation
        r, t = random_case(rng, n_users=12, id_kind=id_kind, tie_levels=3)
        run_rows += [(_tag(u, c, id_kind), i, s) for u, i, s in r]
        truth_rows += [(_tag(u, c, id_kind), i, v) for u, i, v in t]
    local, got = run_both(spark, run_rows, truth_rows, KERNEL, id_kind, buckets)
    assert_identical(local, got)
    assert got.provenance["engine"] == "spark" and got.provenance["buckets"] == buckets


@pytest.mark.parametrize("id_kind", ["int", "str"])
def test_lists_strategy_random_cases_every_kernel_metric(spark, id_kind):
    """The default strategy (no buckets): the same cases, plus duplicate rows, NaN scores and
    users of one side only."""
    rng = np.random.default_rng(17)
    run_rows, truth_rows = [], []
    for c in range(4):
        r, t = random_case(rng, n_users=12, id_kind=id_kind, tie_levels=3)
        run_rows += [(_tag(u, c, id_kind), i, s) for u, i, s in r]
        truth_rows += [(_tag(u, c, id_kind), i, v) for u, i, v in t]
    local, got = run_both(spark, run_rows, truth_rows, KERNEL, id_kind, None)
    assert_identical(local, got)
    assert got.provenance["strategy"] == "lists" and got.provenance["buckets"] is None
    dup = 77 if id_kind == "int" else "dup"
    run_rows += [(dup, run_rows[0][1], 1.0), (dup, run_rows[0][1], 0.5),
                 (dup, run_rows[1][1], float("nan")), (_tag(0, 9, id_kind), run_rows[2][1], 1.0)]
    truth_rows += [(dup, run_rows[0][1], 2.0), (dup, run_rows[0][1], 1.0)]
    for users in ("truth", "union", "run", "intersection"):
        local, got = run_both(spark, run_rows, truth_rows, KERNEL, id_kind, None, users=users,
                              duplicates="max", nan_scores="last", empty_truth="zero")
        assert_identical(local, got)
    assert got.counts["duplicates_removed"] == 1 and got.counts["truth_duplicates"] == 1
    if id_kind == "str":  # a missing item id: collect_list leaves it out, the count does not
        rows = run_rows + [(dup, None, 0.1)]
        with pytest.raises(rv.InputError, match="column 'item' has 1 missing id"):
            rv.evaluate(*frames(rows, truth_rows, id_kind), KERNEL, duplicates="max")
        run_pdf, truth_pdf = frames(rows, truth_rows, id_kind)
        with pytest.raises(rv.InputError, match="column 'item' has 1 missing id"):
            rvs.evaluate(sdf(spark, run_pdf, id_kind, "score"),
                         sdf(spark, truth_pdf, id_kind, "relevance"), KERNEL, duplicates="max")


@pytest.mark.parametrize(("users", "empty_truth"), [("truth", "skip"), ("union", "zero"),
                                                    ("run", "nan"), ("intersection", "skip")])
def test_user_policies_and_adversarial_rows(spark, users, empty_truth):
    rng = np.random.default_rng(3)
    run_rows, truth_rows = random_case(rng, n_users=30, id_kind="str", tie_levels=2)
    run_rows += [("dup", "a", 1.0), ("dup", "a", 0.5), ("dup", "b", float("nan")),
                 ("only-run", "a", 1.0)]
    truth_rows += [("dup", "a", 1.0), ("dup", "a", 2.0), ("only-truth", "x", 1.0),
                   ("zero-rel", "a", 0.0)]
    metrics = ["ndcg@3", "map@5", "mrr", "err@3", "precision@2", "recall@2", "hit_rate@3",
               "first_hit_rank", "num_ret@3"]
    for buckets in (1, 64):
        local, got = run_both(spark, run_rows, truth_rows, metrics, "str", buckets,
                              users=users, empty_truth=empty_truth, duplicates="max",
                              nan_scores="last")
        assert_identical(local, got)
    assert got.counts["duplicates_removed"] == 1 and got.counts["truth_duplicates"] == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("unjudged", ["keep", "remove"])
def test_relevance_zero_rows_are_judged_non_relevant(spark, strategy, unjudged):
    """A relevance-0 truth row is a judged non-relevant item, as locally: judged@k, bpref,
    infAP and unjudged="remove" see it, and a user whose rows are all 0 has an empty truth."""
    run_rows, truth_rows = judged_case(21)
    judged = {k for k in KERNEL if k.startswith(("judged", "bpref", "infap"))}
    assert len(judged) >= 5
    for buckets, empty_truth in ((1, "skip"), (7, "zero")):
        local, got = run_both(spark, run_rows, truth_rows, KERNEL, "str", buckets,
                              strategy=strategy, unjudged=unjudged, empty_truth=empty_truth)
        assert_identical(local, got)
        assert got.policies["unjudged"] == unjudged
        zeros = got.values[list(got.user_ids).index("zeros")]
        if empty_truth == "skip":  # "zeros" has no relevant item: skipped (NaN) and counted
            assert np.isnan(zeros).all() and got.counts["skipped_no_relevant"] >= 1
        else:  # scored 0 on the relevance metrics, and counted as evaluated
            assert zeros[got.metrics.index("ndcg@3")] == 0.0
            assert got.counts["skipped_no_relevant"] == 0
    row = list(got.user_ids).index("mixed")
    assert got.values[row, got.metrics.index("judged@3")] == (1.0 if unjudged == "remove"
                                                               else 2 / 3)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("negative_rel", ["error", "zero", "drop"])
def test_negative_relevance_under_each_policy(spark, strategy, negative_rel):
    """Negative relevance: refused ("error"), judged non-relevant ("zero") or removed, the item
    then unjudged ("drop"), with the local engine's values, counts and largest relevance."""
    run_rows, truth_rows = judged_case(22, negative=True, id_kind="int")
    assert any(r[2] < 0 for r in truth_rows)
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "int")
    run_s = sdf(spark, run_pdf, "int", "score")
    truth_s = sdf(spark, truth_pdf, "int", "relevance")
    policies = {"negative_rel": negative_rel, "users": "union", "empty_truth": "zero"}
    if negative_rel == "error":
        with pytest.raises(rv.PolicyError, match="negative relevance") as local_err:
            rv.evaluate(run_pdf, truth_pdf, ["ndcg@3"], **policies)
        with pytest.raises(rv.PolicyError, match="negative relevance") as spark_err:
            rvs.evaluate(run_s, truth_s, ["ndcg@3"], **spread(strategy, 3), **policies)
        assert "negative_rel='zero'" in str(spark_err.value)
        assert "negative_rel='zero'" in str(local_err.value)
        return
    for unjudged in ("keep", "remove"):
        local = rv.evaluate(run_pdf, truth_pdf, KERNEL, unjudged=unjudged, **policies)
        got = rvs.evaluate(run_s, truth_s, KERNEL, **spread(strategy, 5),
                           unjudged=unjudged, **policies)
        assert_identical(local, got)
        assert got.counts["truth_rows"] == local.counts["truth_rows"]
    n_neg = int((truth_pdf["relevance"] < 0).sum())
    assert got.counts["truth_rows"] == len(truth_pdf) - (n_neg if negative_rel == "drop" else 0)


def test_err_uses_the_truth_wide_max_grade(spark):
    # one user holds the only grade-4 item: every bucket must use max_grade 4, not its own
    rows = [(f"u{i}", f"i{i % 5}", float(i % 3)) for i in range(40)]
    truth = [(f"u{i}", f"i{i % 4}", 1.0 + (i % 2)) for i in range(40)] + [("u0", "i9", 4.0)]
    local, got = run_both(spark, rows, truth, ["err", "err@2", "ndcg@3(gain=exp)"], "str", 8,
                          duplicates="first")
    assert_identical(local, got)


def test_nan_scores_dropped_and_ties_at_cutoff(spark):
    rows = [(f"u{u}", f"i{j}", float("nan") if j == 0 else float(j % 2)) for u in range(20)
            for j in range(6)]
    truth = [(f"u{u}", f"i{(u + j) % 6}", 1.0) for u in range(20) for j in range(2)]
    local, got = run_both(spark, rows, truth, ["precision@2", "ndcg@3", "map"], "str", 5,
                          nan_scores="drop")
    assert got.counts["dropped_nan_scores"] == 20
    assert got.counts["users_tied_at_cutoff"] > 0
    assert_identical(local, got)


def test_empty_run_bucket_and_empty_truth_bucket(spark):
    # 64 buckets for 3 users: most buckets are empty on one side or both
    run = [("a", "x", 1.0), ("b", "y", 1.0)]
    truth = [("a", "x", 1.0), ("c", "z", 1.0)]
    local, got = run_both(spark, run, truth, ["ndcg@2", "recall@2"], "str", 64, users="union")
    assert_identical(local, got)


def test_beyond_accuracy_metrics_with_items_spread_over_buckets(spark):
    rng = np.random.default_rng(5)
    run_rows, truth_rows = random_case(rng, n_users=40, n_items=25, id_kind="str",
                                       tie_levels=None)
    items = sorted({r[1] for r in run_rows} | {r[1] for r in truth_rows})
    users = sorted({r[0] for r in run_rows} | {r[0] for r in truth_rows})
    # every item seen in training (co-occurrence features), evaluated users with a history
    pairs = {(users[j % len(users)], items[j % len(items)])
             for j in range(3 * max(len(items), len(users)))}
    pairs |= {(users[int(a)], items[int(b)]) for a, b in
              zip(rng.integers(0, len(users), 80), rng.integers(0, len(items), 80), strict=True)}
    train = pd.DataFrame(sorted(pairs), columns=["user", "item"]).astype(object)
    features = pd.DataFrame(rng.random((len(items), 4)), index=pd.Index(items, dtype=object))
    categories = {it: [f"g{j % 3}", f"h{j % 5}"][: 1 + j % 2] for j, it in enumerate(items)}
    baseline = pd.DataFrame(run_rows, columns=["user", "item", "score"]).astype(
        {"user": object, "item": object})
    baseline["score"] = rng.permutation(baseline["score"].to_numpy())  # another ordering
    extra = {"train": train, "item_features": features, "item_categories": categories,
             "baseline_run": baseline}
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "str")

    def locally_valid(key):  # keys the registry lists but that need more (e.g. a cutoff)
        try:
            rv.evaluate(run_pdf, truth_pdf, [key], **extra)
        except rv.RecevalError:
            return False
        return True

    metrics = [k for k in BEYOND if not any(s in k for s in NOT_DISTRIBUTED)
               and locally_valid(k)]
    assert len(metrics) > 20
    for buckets in (1, 3, 64):
        local, got = run_both(spark, run_rows, truth_rows, metrics, "str", buckets,
                              train=train, item_features=features, item_categories=categories,
                              baseline_run=baseline)
        assert_identical(local, got, approx=APPROX)
        for key in ("coverage@3", "gini@3", "tail_share@3"):
            assert local.summary[key] == got.summary[key]
            assert local.info.get(key) == got.info.get(key)


def test_per_user_spark_frame_and_summary_only(spark):
    rng = np.random.default_rng(9)
    run_rows, truth_rows = random_case(rng, n_users=25, id_kind="int")
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "int")
    run_s, truth_s = sdf(spark, run_pdf, "int", "score"), sdf(spark, truth_pdf, "int",
                                                                "relevance")
    metrics = ["ndcg@3", "mrr"]
    local = rv.evaluate(run_pdf, truth_pdf, metrics)
    ev = rvs.Evaluator(truth_s, metrics, buckets=4)
    only = ev.evaluate(run_s, per_user=None)
    assert only.stats == local.stats and only.counts == local.counts
    assert len(only.user_ids) == 0
    lazy = ev.evaluate(run_s, per_user="spark")
    frame = lazy.per_user_spark.toPandas().sort_values("user")
    assert list(frame.columns) == ["user", *metrics]
    order = np.argsort(local.user_ids, kind="stable")
    np.testing.assert_array_equal(frame["user"].to_numpy(), local.user_ids[order])
    np.testing.assert_array_equal(frame[metrics].to_numpy(), local.values[order])
    ev.close()


def test_rv_evaluate_dispatches_spark_frames(spark):
    run_pdf, truth_pdf = frames([("a", "x", 1.0)], [("a", "x", 1.0)], "str")
    res = rv.evaluate(sdf(spark, run_pdf, "str", "score"), sdf(spark, truth_pdf, "str",
                                                              "relevance"), ["ndcg@2"])
    assert res.provenance["engine"] == "spark" and res.summary["ndcg@2"] == 1.0
    with pytest.raises(rv.InputError, match="toPandas"):
        rv.evaluate(sdf(spark, run_pdf, "str", "score"), truth_pdf, ["ndcg@2"], engine="local")


def test_errors_are_receval_errors(spark):
    run_pdf, truth_pdf = frames([("a", "x", 1.0), ("a", "x", 2.0)], [("a", "x", 1.0)], "str")
    with pytest.raises(rv.InputError, match="duplicate"):
        rvs.evaluate(sdf(spark, run_pdf, "str", "score"),
                     sdf(spark, truth_pdf, "str", "relevance"), ["ndcg@2"])
    floats = spark.createDataFrame([(1.0, 2.0, 1.0)], "user double, item double, score double")
    with pytest.raises(rv.InputError, match="allow_float_ids"):
        rvs.evaluate(floats, floats.withColumnRenamed("score", "relevance"), ["ndcg@2"])
    ints = spark.createDataFrame([(1, 2, 1.0)], "user bigint, item bigint, score double")
    with pytest.raises(rv.InputError, match="cast"):
        rvs.evaluate(ints, sdf(spark, truth_pdf, "str", "relevance"), ["ndcg@2"])
    # an empty truth is refused, as locally (not an evaluation of no user)
    empty = sdf(spark, truth_pdf.iloc[:0], "str", "relevance")
    with pytest.raises(rv.InputError, match="no rows") as spark_err:
        rvs.evaluate(sdf(spark, run_pdf, "str", "score"), empty, ["ndcg@2"])
    with pytest.raises(rv.InputError, match="no rows") as local_err:
        rv.evaluate(run_pdf, truth_pdf.iloc[:0], ["ndcg@2"])
    assert str(spark_err.value) == str(local_err.value)


CLASSIFICATION = [k for k in metric_cases(cutoffs=(3,), plugins=True)
                  if rv.parse_metric(k).definition.family == "classification"]


@pytest.mark.filterwarnings("ignore::receval.errors.RelevanceThresholdWarning")
def test_classification_metrics_identical_or_refused(spark):
    """Every classification metric either gives the local bits or is refused with a reason.

    Refused (they cannot be merged from buckets of users): metrics whose summary is a weighted
    or pooled value over the whole run (gauc's weighted mean, micro averages), and metrics
    that need the catalogue size when it is not given as a number (a bucket only sees its own
    items: tn, accuracy, specificity, fpr, lauc).
    """
    rng = np.random.default_rng(17)
    run_rows, truth_rows = random_case(rng, n_users=30, id_kind="str", tie_levels=None)
    run_rows = [(u, i, 1 / (1 + math.exp(-s))) for u, i, s in run_rows]  # probabilities
    truth_rows = [(u, i, float(r > 0)) for u, i, r in truth_rows]
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "str")
    run_s, truth_s = sdf(spark, run_pdf, "str", "score"), sdf(spark, truth_pdf, "str",
                                                                "relevance")
    from receval.engines.local import evaluate_packed
    from receval.spark.engine import refusal

    keys, refused = [], []
    for key in CLASSIFICATION:
        spec = rv.parse_metric(key)
        try:  # the local engine on the whole run: does the summary need the whole run?
            ev = rv.Evaluator(truth_pdf, [key], catalog=40)
            packed = ev.pack(run_pdf, lists=ev.plan.keep_lists)
            block = evaluate_packed(packed, ev.plan, ev.context)
        except rv.RecevalError:  # e.g. single_class=error on this data, as in Spark
            continue
        if refusal(spec, 40) or set(block.overrides) - block.global_only:
            refused.append(key)
        else:
            keys.append(key)
    assert keys, "no classification metric was distributed"
    local = rv.evaluate(run_pdf, truth_pdf, keys, catalog=40)
    assert_identical(local, rvs.evaluate(run_s, truth_s, keys, buckets=3, catalog=40))
    # pooled normalized entropy, calibration ratio and equal-width ECE merge their exact sums,
    # equal-mass ECE its scored pairs: none is refused
    assert {rv.parse_metric(k).name for k in refused} <= {"gauc", "lauc", "log_loss",
                                                          "accuracy", "specificity", "fpr",
                                                          "global_auc"}
    local = rv.evaluate(run_pdf, truth_pdf, ["ece(binning=mass)", "ece(bins=3,binning=mass)"])
    assert_identical(local, rvs.evaluate(run_s, truth_s, ["ece(binning=mass)",
                                                          "ece(bins=3,binning=mass)"],
                                         buckets=3))
    if refused:
        with pytest.raises(rv.InputError, match="cannot merge"):
            rvs.evaluate(run_s, truth_s, refused, buckets=3, catalog=40)
    with pytest.raises(rv.InputError, match="catalogue size"):
        rvs.Evaluator(truth_s, ["specificity@3"])


@pytest.mark.parametrize("nan_rel", ["error", "zero", "drop"])
def test_nan_relevance_under_each_policy(spark, nan_rel):
    """NaN relevance: refused ("error"), gain 0 ("zero") or the row removed ("drop"), with the
    local engine's values and counts; ERR's truth-wide largest grade never sees a NaN (Spark's
    max ranks NaN above every number)."""
    run_rows, truth_rows = judged_case(23, id_kind="int")
    # the largest grade only on a NaN row's user; NaN rows spread over users and buckets
    truth_rows = [(u, i, float("nan")) if n % 7 == 3 else (u, i, v)
                  for n, (u, i, v) in enumerate(truth_rows)]
    run_pdf, truth_pdf = frames(run_rows, truth_rows, "int")
    assert truth_pdf["relevance"].isna().sum() > 3
    run_s = sdf(spark, run_pdf, "int", "score")
    truth_s = sdf(spark, truth_pdf, "int", "relevance")
    policies = {"nan_rel": nan_rel, "users": "union", "empty_truth": "zero"}
    metrics = [*KERNEL, "err@5"]
    if nan_rel == "error":
        with pytest.raises(rv.InputError, match="NaN"):
            rv.evaluate(run_pdf, truth_pdf, ["ndcg@3"], **policies)
        n_nan = int(truth_pdf["relevance"].isna().sum())
        with pytest.raises(rv.InputError, match=f"has {n_nan} NaN") as info:
            rvs.evaluate(run_s, truth_s, ["ndcg@3"], buckets=3, **policies)
        # the truth's whole count and a real offending row, named by its ids (a task's row
        # number would be its bucket's)
        import re

        user, item = re.search(r"user (\S+), item (\S+)\)", str(info.value)).groups()
        bad = truth_pdf[truth_pdf["relevance"].isna()]
        assert ((bad["user"].astype(str) == user) & (bad["item"].astype(str) == item)).any()
        assert "at row" not in str(info.value)
        return
    local = rv.evaluate(run_pdf, truth_pdf, metrics, **policies)
    got = rvs.evaluate(run_s, truth_s, metrics, buckets=4, **policies)
    assert_identical(local, got)
    assert got.counts["truth_rows"] == local.counts["truth_rows"]
