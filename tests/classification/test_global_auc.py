"""The pooled (global) AUC as a metric key: ``global_auc`` (alias ``auc``).

One AUC over the scored (user, item) pairs of every user together:
``(1/(P N)) sum_{p,n} ([s_p > s_n] + 1/2 [s_p = s_n])``. Checked against a slow oracle written
from that formula (exact fractions, random data with ties), scikit-learn's ``roc_auc_score``,
Microsoft Recommenders' ``auc`` (when installed) and worked examples of RecBole's ``AUC``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, PolicyError

# user a: x (relevant) .9, y (judged 0) .2; user b: x (relevant) .5, z (unlabelled) .6
RUN = {"a": {"x": 0.9, "y": 0.2}, "b": {"x": 0.5, "z": 0.6}}
TRUTH = {"a": {"x": 1, "y": 0}, "b": {"x": 1}}


def oracle(run: dict, truth: dict, *, rel: float = 1.0, unlabelled: str = "negative",
           users: str = "truth") -> Fraction | None:
    """The docstring formula over every (positive, negative) pair of the pool, exactly."""
    evaluated = set(truth) if users == "truth" else set(truth) | set(run)
    pos, neg = [], []
    for u in evaluated:
        for item, s in run.get(u, {}).items():
            t = truth.get(u, {})
            if item not in t and unlabelled == "skip":
                continue
            (pos if t.get(item, 0) >= rel else neg).append(Fraction(s))
    if not pos or not neg:
        return None
    total = sum((Fraction(1) if p > n else Fraction(1, 2) if p == n else Fraction(0))
                for p in pos for n in neg)
    return total / (len(pos) * len(neg))


def test_worked_example_both_unlabelled_rules():
    res = rv.evaluate(RUN, TRUTH, ["auc", "global_auc(unlabelled=skip)"])
    # positives .9, .5; negatives .2, .6: (.9>.2) (.9>.6) (.5>.2) (.5<.6) = 3/4
    assert res["global_auc"] == 3 / 4
    # labelled pairs only: positives .9, .5; negative .2: 2/2
    assert res["global_auc(unlabelled=skip)"] == 1.0
    # the per-user column is each user's own AUC; the summary is not their mean
    assert res.user_values("global_auc").tolist() == [1.0, 0.0]
    info = res.info["global_auc"]
    assert (info["positives"], info["negatives"], info["pairs"]) == (2, 2, 4)
    assert info["unlabelled_pairs"] == 1 and info["unscored_positives"] == 0


def test_ties_count_one_half_across_users():
    run = {"a": {"x": 0.5, "y": 0.5}, "b": {"x": 0.5, "z": 0.1}}
    truth = {"a": {"x": 1}, "b": {"x": 1}}
    # positives a.x .5, b.x .5; negatives a.y .5 (tied: 1/2 each), b.z .1 (1 each): 3/4
    assert rv.evaluate(run, truth, ["auc"])["auc"] == 3 / 4


def test_alias_and_function_agree():
    res = rv.evaluate(RUN, TRUTH, ["auc"])
    assert res.metrics == ["global_auc"]
    score = rv.classification.global_auc(RUN, TRUTH)
    assert score.value == res["auc"] and score.info["positives"] == 2
    skip = rv.classification.global_auc(RUN, TRUTH, unlabelled="skip")
    assert skip.value == 1.0


def test_single_class_rule():
    run = {"a": {"x": 0.9, "y": 0.1}}
    truth = {"a": {"x": 1, "y": 1}}
    res = rv.evaluate(run, truth, ["auc"])
    assert math.isnan(res["auc"])
    assert res.info["global_auc"]["negatives"] == 0
    with pytest.raises(PolicyError, match="0 negative"):
        rv.evaluate(run, truth, ["auc(single_class=error)"])


def test_blocks_are_refused_and_summary_says_pooled():
    with pytest.raises(InputError, match="pooled"):
        rv.Evaluator(TRUTH, ["auc"]).evaluate_blocks([{"a": RUN["a"]}, {"b": RUN["b"]}])
    res = rv.evaluate(RUN, TRUTH, ["auc"])
    ci = res.confidence_intervals().set_index("metric")
    assert "pooled" in ci.loc["global_auc", "note"]
    assert math.isnan(ci.loc["global_auc", "ci_low"])
    from receval.metrics.describe import describe

    text = describe(rv.parse_metric("auc").definition)
    assert "summary:   one value over every user's pairs pooled" in text


def _frames(data: tuple) -> tuple[dict, dict]:
    run_rows, truth_rows = data
    run: dict = {}
    for u, i, s in run_rows:
        run.setdefault(u, {})[i] = s
    truth: dict = {}
    for u, i, r in truth_rows:
        truth.setdefault(u, {})[i] = r
    return run, truth


@st.composite
def cases(draw):
    """Users 0..5, items 0..7, scores on a grid of quarters (many ties across users), truth
    relevance 0..2 on a random subset of (user, item) pairs."""
    pairs = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), min_size=1,
                          max_size=40, unique=True))
    run_rows = [(f"u{u}", f"i{i}", draw(st.integers(0, 4)) / 4) for u, i in pairs]
    tpairs = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), min_size=1,
                           max_size=30, unique=True))
    truth_rows = [(f"u{u}", f"i{i}", float(draw(st.integers(0, 2)))) for u, i in tpairs]
    return run_rows, truth_rows


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning",
                            "ignore::receval.errors.RelevanceThresholdWarning")
@settings(max_examples=150, deadline=None)
@given(cases(), st.sampled_from(["negative", "skip"]), st.sampled_from([1.0, 2.0]),
       st.sampled_from(["truth", "union"]))
def test_oracle_exact(data, unlabelled, rel, users):
    run, truth = _frames(data)
    key = rv.metric("global_auc", rel=rel, unlabelled=unlabelled).key
    res = rv.evaluate(run, truth, [key], users=users)
    want = oracle(run, truth, rel=rel, unlabelled=unlabelled, users=users)
    got = res[key]
    if want is None:
        assert math.isnan(got)
    else:
        assert got == float(want)  # exact: the count of halves is exact, one rounding


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@settings(max_examples=40, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_order_and_labels_do_not_matter(data, rnd):
    run_rows, truth_rows = data
    a, b = list(run_rows), list(truth_rows)
    rnd.shuffle(a)
    rnd.shuffle(b)
    relabel = {f"i{i}": f"item-{(7 * i + 3) % 11}" for i in range(8)}
    a = [(u, relabel[i], s) for u, i, s in a]
    b = [(u, relabel[i], r) for u, i, r in b]
    cols_r, cols_t = ["user", "item", "score"], ["user", "item", "relevance"]
    first = rv.evaluate(pd.DataFrame(run_rows, columns=cols_r),
                        pd.DataFrame(truth_rows, columns=cols_t), ["auc"])
    second = rv.evaluate(pd.DataFrame(a, columns=cols_r), pd.DataFrame(b, columns=cols_t),
                         ["auc"])
    assert first["auc"] == second["auc"] or (math.isnan(first["auc"])
                                             and math.isnan(second["auc"]))


@pytest.mark.parametrize("seed", range(5))
def test_scikit_learn_roc_auc_score(seed):
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    rows = [(u, i) for u in range(30) for i in rng.choice(20, int(rng.integers(1, 12)),
                                                          replace=False)]
    df = pd.DataFrame(rows, columns=["user", "item"])
    df["score"] = rng.integers(0, 10, len(df)) / 10  # ties within and across users
    df["label"] = (rng.random(len(df)) < 0.3).astype(float)
    labelled = df.sample(frac=0.7, random_state=seed)  # the truth: labels of some pairs
    truth = labelled.rename(columns={"label": "relevance"})[["user", "item", "relevance"]]
    run = df[["user", "item", "score"]]
    res = rv.evaluate(run, truth, ["auc", "auc(unlabelled=skip)"])
    # unlabelled pairs are negatives
    y = df.merge(truth, on=["user", "item"], how="left")["relevance"].fillna(0).to_numpy()
    s = df.merge(truth, on=["user", "item"], how="left")["score"].to_numpy()
    in_truth = df["user"].isin(truth["user"]).to_numpy()
    assert res["global_auc"] == pytest.approx(skm.roc_auc_score(y[in_truth] >= 1, s[in_truth]),
                                              rel=1e-12)
    inner = df.merge(truth, on=["user", "item"])
    assert res["global_auc(unlabelled=skip)"] == pytest.approx(
        skm.roc_auc_score(inner["relevance"] >= 1, inner["score"]), rel=1e-12)


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("seed", range(3))
def test_ms_recommenders_auc(seed):
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    rng = np.random.default_rng(seed)
    rows = [(u, i) for u in range(25) for i in rng.choice(15, int(rng.integers(2, 10)),
                                                          replace=False)]
    pred = pd.DataFrame(rows, columns=["userID", "itemID"])
    pred["prediction"] = rng.integers(0, 8, len(pred)) / 8
    true = pred.sample(frac=0.6, random_state=seed)[["userID", "itemID"]].copy()
    true["rating"] = (rng.random(len(true)) < 0.4).astype(float)
    extra = pd.DataFrame({"userID": [0, 1], "itemID": [99, 98], "rating": [1.0, 0.0]})
    true = pd.concat([true, extra], ignore_index=True)  # labelled, not predicted
    want = pe.auc(true, pred)
    res = rv.evaluate(pred, true, ["auc"], compat="ms_recommenders", user_col="userID",
                      item_col="itemID")
    assert res["auc"] == pytest.approx(want, rel=1e-12)
    assert res.info["compat"]["names"]["auc"] == "global_auc(unlabelled=skip)"


def test_recbole_auc_worked_example():
    # RecBole AUC (recbole/evaluator/metrics.py): the labelled interactions of value-based
    # evaluation pooled; M positives among N interactions, descending ranks of the positives:
    # AUC = (M (N + 1) - M (M + 1) / 2 - sum rank_i) / (M (N - M)).
    run = {"a": {"x": 0.9, "y": 0.7, "z": 0.3}, "b": {"x": 0.8, "w": 0.4}}
    truth = {"a": {"x": 1, "y": 0, "z": 1}, "b": {"x": 0, "w": 0}}
    # pooled descending: .9 (+) .8 (-) .7 (-) .4 (-) .3 (+): ranks of positives 1 and 5
    m, n = 2, 5
    want = (m * (n + 1) - m * (m + 1) / 2 - (1 + 5)) / (m * (n - m))
    res = rv.evaluate(run, truth, ["auc"], compat="recbole")
    assert res["auc"] == want == 0.5
    assert res.info["compat"]["names"]["auc"] == "global_auc"


def test_nan_scores_last_rank_below_every_score_and_tie():
    run = pd.DataFrame({"user": ["a", "a", "b", "b"], "item": ["x", "y", "x", "z"],
                        "score": [0.9, math.nan, math.nan, 0.6]})
    truth = {"a": {"x": 1}, "b": {"x": 1}}
    # positives .9, NaN; negatives NaN, .6: 1 + 1 + 1/2 (NaN vs NaN) + 0 = 5/2 of 4
    res = rv.evaluate(run, truth, ["auc"], nan_scores="last")
    assert res["auc"] == 5 / 8
    res = rv.evaluate(run, truth, ["auc"], nan_scores="drop")
    assert res["auc"] == 1.0  # positive .9 against negative .6 only
