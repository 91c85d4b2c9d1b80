"""Log loss, rating errors on arrays and tables, average recall over IoU."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from receval.classification import (
    average_recall,
    binary_confusion,
    iou,
    log_loss,
    mae,
    mean_average_recall,
    mse,
    r2,
    rating_errors,
    recall_iou_curve,
    rmse,
)
from receval.errors import InputError, PolicyError

# ---- log loss -----------------------------------------------------------------------------------

def test_log_loss_exact():
    assert log_loss([1, 0], [0.5, 0.5]) == math.log(2)
    assert log_loss([1, 0, 1], [0.8, 0.1, 0.6]) == pytest.approx(
        -(math.log(0.8) + math.log(0.9) + math.log(0.6)) / 3, rel=1e-15)
    assert log_loss([1, 0], [0.5, 0.5], normalize=False) == 2 * math.log(2)


@pytest.mark.parametrize("seed", range(4))
def test_log_loss_against_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 300)
    p = rng.uniform(0, 1, 300)
    p[:3] = [0.0, 1.0, 0.5]  # extremes are clipped like scikit-learn
    assert log_loss(y, p) == pytest.approx(skm.log_loss(y, p, labels=[0, 1]), rel=1e-12)
    w = rng.uniform(0.5, 2, 300)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(
        skm.log_loss(y, p, sample_weight=w, labels=[0, 1]), rel=1e-12)


def test_log_loss_bad_input_and_no_clipping():
    with pytest.raises(InputError, match=r"probabilities in \[0, 1\]"):
        log_loss([1, 0], [1.2, 0.1])
    with pytest.raises(InputError, match=r"probabilities in \[0, 1\]"):
        log_loss([1, 0], [np.nan, 0.1])
    with pytest.raises(InputError, match="length mismatch"):
        log_loss([1, 0, 1], [0.2, 0.1])
    with pytest.raises(InputError, match="eps"):
        log_loss([1], [0.5], eps=0.7)
    assert log_loss([1, 0], [0.0, 0.0], eps=0) == math.inf
    assert log_loss([1], [0.0]) == -math.log(np.finfo(float).eps)


# ---- rating errors ------------------------------------------------------------------------------

def test_rating_arrays_exact_and_sklearn():
    assert rmse([5, 3], [4, 3]) == math.sqrt(1 / 2)
    assert mae([5, 3], [4, 3]) == 1 / 2
    assert mse([5, 3, 1], [4, 3, 3]) == (1 + 0 + 4) / 3
    assert r2([1, 2, 3], [1, 2, 4]) == 1 - 1 / 2
    rng = np.random.default_rng(0)
    t = rng.integers(1, 6, 100).astype(float)
    p = t + rng.normal(size=100)
    w = rng.uniform(0.5, 2, 100)
    assert mse(t, p) == pytest.approx(skm.mean_squared_error(t, p), rel=1e-12)
    assert mae(t, p, sample_weight=w) == pytest.approx(
        skm.mean_absolute_error(t, p, sample_weight=w), rel=1e-12)
    assert r2(t, p, sample_weight=w) == pytest.approx(skm.r2_score(t, p, sample_weight=w),
                                                      rel=1e-12)
    with pytest.raises(InputError, match="zero variance"):
        r2([3, 3], [1, 2])
    with pytest.raises(InputError, match="length mismatch"):
        rmse([1, 2], [1])


def test_rating_errors_tables():
    pl = pytest.importorskip("polars")
    preds = pd.DataFrame({"user": ["a", "a", "b", "b", "b"], "item": [1, 2, 1, 3, 9],
                          "prediction": [4.0, 3.0, 2.0, 5.0, 1.0]})
    ratings = pl.DataFrame({"user": ["a", "a", "b", "b"], "item": [1, 2, 1, 3],
                            "rating": [5.0, 3.0, 4.0, 4.0]})
    out = rating_errors(preds, ratings)
    # errors: a: -1, 0; b: -2, +1 -> squared 1, 0, 4, 1
    assert out["rmse"].value == math.sqrt(6 / 4)
    assert out["mae"].value == 4 / 4
    assert out["mse"].per_user["b"] == (4 + 1) / 2
    # ratings 5, 3, 4, 4 have mean 4: total sum of squares 1 + 1 + 0 + 0
    assert out["r2"].value == 1 - 6 / 2
    assert out["rmse"].info["unrated_predictions"] == 1
    macro = rating_errors(preds, ratings, average="macro", metrics=["rmse", "r2"])
    assert macro["rmse"].value == (math.sqrt(1 / 2) + math.sqrt(5 / 2)) / 2
    assert macro["rmse"].key == "rmse(average=macro)"
    # b's ratings are constant: its R^2 is undefined, left out and counted
    assert macro["r2"].value == 1 - 1 / 2
    assert macro["r2"].info["users_constant_ratings"] == 1


def test_rating_errors_bad_input():
    preds = pd.DataFrame({"user": [1], "item": [1], "prediction": [3.0]})
    ratings = pd.DataFrame({"user": [1, 1], "item": [1, 2], "rating": [3.0, 4.0]})
    with pytest.raises(PolicyError, match="missing='skip'"):
        rating_errors(preds, ratings)
    ok = rating_errors(preds, ratings, missing="skip", metrics="mae")
    assert ok["mae"].value == 0.0 and ok["mae"].info["unpredicted"] == 1
    dup = pd.DataFrame({"user": [1, 1], "item": [1, 1], "prediction": [3.0, 2.0]})
    with pytest.raises(InputError, match="duplicate"):
        rating_errors(dup, ratings, missing="skip")
    with pytest.raises(PolicyError, match="average"):
        rating_errors(preds, ratings, average="weighted")
    with pytest.raises(InputError, match="rating column"):
        rating_errors(preds, ratings[["user", "item"]])


# ---- confusion on arrays ------------------------------------------------------------------------

def test_binary_confusion_against_sklearn():
    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    c = binary_confusion(y, p)
    tn, fp, fn, tp = skm.confusion_matrix(y, p).ravel()
    assert (c.tp[0], c.fp[0], c.fn[0], c.tn[0]) == (tp, fp, fn, tn)
    assert c.accuracy() == pytest.approx(skm.accuracy_score(y, p), rel=1e-15)
    assert c.precision() == pytest.approx(skm.precision_score(y, p), rel=1e-15)
    assert c.fbeta(2.0) == pytest.approx(skm.fbeta_score(y, p, beta=2.0), rel=1e-12)


# ---- average recall -----------------------------------------------------------------------------

def test_average_recall_exact():
    # 2 * integral_{0.5}^{1} recall: objects at 0.75 -> 0.5, 1.0 -> 1, 0.3 -> 0
    assert average_recall([0.75, 1.0, 0.3]) == (0.5 + 1 + 0) / 3
    # numeric integral of recall(t) over [0.5, 1] agrees
    o = np.random.default_rng(1).uniform(0, 1, 50)
    t = np.linspace(0.5, 1, 200001)
    rec = (o[None, :] >= t[:, None]).mean(axis=1)
    assert average_recall(o) == pytest.approx(2 * np.trapezoid(rec, t), abs=1e-4)
    # COCO-style thresholds 0.5, 0.55, ..., 0.95: 0.75 passes 6 of 10, 1.0 all, 0.3 none
    assert average_recall([0.75, 1.0, 0.3], method="thresholds") == pytest.approx(
        (6 + 10 + 0) / 30, rel=1e-15)
    assert mean_average_recall({"cat": [1.0], "dog": [0.75, 0.5]}) == (1 + 0.25) / 2
    c = recall_iou_curve([0.75, 1.0, 0.3])
    assert c.area == 0.5 and c.x[0] == 0.5 and c.y[0] == 2 / 3
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        average_recall([1.2])
    with pytest.raises(InputError, match="at least one"):
        average_recall([])


def test_iou_exact():
    m = iou([[0, 0, 2, 2], [0, 0, 1, 1]], [[1, 1, 3, 3], [0, 0, 2, 2], [5, 5, 6, 6]])
    assert m.tolist() == [[1 / 7, 1.0, 0.0], [0.0, 1 / 4, 0.0]]
    with pytest.raises(InputError, match="x2 >= x1"):
        iou([[2, 0, 0, 2]], [[0, 0, 1, 1]])
