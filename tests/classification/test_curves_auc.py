"""ROC / PR curves, AUC, average precision, 11-point precision and BEP on arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from receval.classification import (
    auc,
    average_precision,
    break_even_point,
    eleven_point_average_precision,
    interpolated_precision,
    pr_curve,
    roc_auc,
    roc_curve,
)
from receval.errors import InputError, PolicyError


def _data(seed: int, n: int = 200, levels: int = 7):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)  # rounding creates many ties
    s = np.floor(s * levels) / levels
    return y, s


# ---- exact small examples ----------------------------------------------------------------------

def test_roc_exact_points_and_area():
    c = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert c.x.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert c.y.tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert c.thresholds.tolist() == [np.inf, 0.8, 0.4, 0.35, 0.1]
    # 3 of 4 (positive, negative) pairs are ordered correctly
    assert c.area == 3 / 4
    assert roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 3 / 4
    thr, fpr, tpr = c  # unpacks as (thresholds, x, y)
    assert fpr is c.x and tpr is c.y and thr is c.thresholds


def test_auc_ties_count_one_half():
    # positive tied with one negative, above another: (1/2 + 1) / 2
    assert roc_auc([1, 0, 0], [0.5, 0.5, 0.1]) == (0.5 + 1) / 2
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5


def test_trapezoid_seed_formula():
    x, y = [0, 0.25, 0.5, 1.0], [0, 0.5, 0.75, 1.0]
    expected = 0.25 * 0.5 / 2 + 0.25 * (0.5 + 0.75) / 2 + 0.5 * (0.75 + 1) / 2
    assert auc(x, y) == expected
    assert auc(x[::-1], y[::-1]) == expected
    with pytest.raises(InputError, match="monotone"):
        auc([0, 1, 0.5], [0, 1, 1])


def test_pr_curve_and_area_exact():
    c = pr_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    assert c.x.tolist() == [1 / 2, 1 / 2, 1.0, 1.0]
    assert c.y.tolist() == [1.0, 1 / 2, 2 / 3, 2 / 4]
    assert c.area == 1 / 2 * (1 + 2 / 3)
    assert average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]) == 1 / 2 * (1 + 2 / 3)


def test_area_ap_differs_from_discrete_sum_with_ties():
    # documented example: tied block (positive, negative) -> area 1/2; discrete sum 1 or 1/2
    assert average_precision([1, 0], [0.8, 0.8]) == 1 / 2
    assert average_precision([1, 0], [0.8, 0.7]) == 1.0


def test_ap_interpolations_exact():
    y, s = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]
    # points (r, p): (.5, 1), (.5, .5), (1, 2/3), (1, .5); trapezoid through (0, 1)
    assert average_precision(y, s, interpolation="trapezoid") == (
        0.5 * (1 + 1) / 2 + 0 + 0.5 * (0.5 + 2 / 3) / 2 + 0)
    # max: precision at recall .5 interpolated to max(1, .5, 2/3, .5) = 1
    y2, s2 = [0, 1, 1], [0.9, 0.8, 0.7]  # points (.5, 1/2), (1, 2/3)
    assert average_precision(y2, s2) == 0.5 * 0.5 + 0.5 * 2 / 3
    assert average_precision(y2, s2, interpolation="max") == 0.5 * 2 / 3 + 0.5 * 2 / 3
    with pytest.raises(PolicyError, match="interpolation"):
        average_precision(y, s, interpolation="linear")


def test_eleven_point_exact():
    c = interpolated_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6])
    assert np.allclose(c.x, np.linspace(0, 1, 11), rtol=0, atol=0)
    assert c.y.tolist() == [1.0] * 6 + [2 / 3] * 5
    assert eleven_point_average_precision([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]) == (
        np.mean([1.0] * 6 + [2 / 3] * 5))
    # level 0.3 is reached by recall 3/10 exactly (no floating-point miss)
    y = [1, 1, 1] + [0] * 3 + [1] * 7
    s = np.arange(len(y), 0, -1)
    c = interpolated_precision(y, s)
    assert c.y[3] == 1.0


def test_eleven_point_levels_not_reached_are_zero():
    # one positive among three, but all positives are scored: recall 1 is reached
    c = interpolated_precision([0, 0, 1], [3, 2, 1], recall_levels=[0.0, 1.0])
    assert c.y.tolist() == [1 / 3, 1 / 3]


def test_bep_is_r_precision_without_ties():
    # 2 positives: rank 2 holds 1 hit -> BEP = 1/2 = R-precision
    assert break_even_point([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]) == 1 / 2
    assert break_even_point([1, 1, 0], [3, 2, 1]) == 1.0


def test_bep_with_tie_straddling_rank_p():
    # P = 2; ranks 2-3 tied holding one positive: expected hits at rank 2 = 1 + 1 * 1/2
    assert break_even_point([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1]) == (1 + 1 / 2) / 2


# ---- cross-checks against scikit-learn (random data with many ties) --------------------------

@pytest.mark.parametrize("seed", range(8))
def test_against_sklearn(seed):
    y, s = _data(seed)
    assert roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
    c = roc_curve(y, s)
    fpr, tpr, thr = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(c.x, fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(c.y, tpr, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(c.thresholds[1:], thr[1:])
    c2 = roc_curve(y, s, drop_intermediate=True)
    fpr2, tpr2, _ = skm.roc_curve(y, s, drop_intermediate=True)
    np.testing.assert_allclose(c2.x, fpr2)
    np.testing.assert_allclose(c2.y, tpr2)
    assert c2.area == pytest.approx(c.area, rel=1e-12)
    assert average_precision(y, s) == pytest.approx(skm.average_precision_score(y, s), rel=1e-12)
    p, r, t = skm.precision_recall_curve(y, s)
    pr = pr_curve(y, s)
    # scikit-learn: increasing thresholds plus the end point (recall 0, precision 1)
    np.testing.assert_allclose(pr.y, p[:-1][::-1], rtol=1e-15)
    np.testing.assert_allclose(pr.x, r[:-1][::-1], rtol=1e-15)
    np.testing.assert_array_equal(pr.thresholds, t[::-1])
    assert average_precision(y, s, interpolation="trapezoid") == pytest.approx(
        skm.auc(r, p), rel=1e-12)


def test_weighted_roc_against_sklearn():
    y, s = _data(3)
    w = np.random.default_rng(1).uniform(0.1, 2.0, len(y))
    assert roc_auc(y, s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12)


# ---- invariants ---------------------------------------------------------------------------------

labels_scores = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
)).filter(lambda t: 0 < sum(t[0]) < len(t[0]))


@settings(max_examples=150, deadline=None)
@given(labels_scores)
def test_auc_invariants(data):
    y, s = np.array(data[0]), np.array(data[1], dtype=float)
    a = roc_auc(y, s)
    assert roc_auc(y, -s) == pytest.approx(1 - a, abs=1e-12)
    assert roc_auc(1 - y, s) == pytest.approx(1 - a, abs=1e-12)
    assert roc_curve(y, s).area == pytest.approx(a, abs=1e-12)
    # brute force over all pairs
    pos, neg = s[y == 1], s[y == 0]
    brute = ((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])).mean()
    assert a == pytest.approx(brute, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(labels_scores)
def test_bep_lies_on_the_curve(data):
    y, s = np.array(data[0]), np.array(data[1], dtype=float)
    bep = break_even_point(y, s)
    c = pr_curve(y, s)
    npos = y.sum()
    tp = c.x * npos
    fp = (s[None, :] >= c.thresholds[:, None]).sum(axis=1) - tp
    # BEP point lies between two consecutive curve points, interpolated in (TP, FP) space
    tps, fps = np.r_[0.0, tp], np.r_[0.0, fp]
    found = False
    for i in range(1, len(tps)):
        n0, n1 = tps[i - 1] + fps[i - 1], tps[i] + fps[i]
        if n0 <= npos <= n1:
            frac = (npos - n0) / (n1 - n0)
            tp_at = tps[i - 1] + frac * (tps[i] - tps[i - 1])
            assert bep == pytest.approx(tp_at / npos, abs=1e-12)
            found = True
    assert found
    if len(np.unique(s)) == len(s):  # no ties: BEP is a point of the curve with P = R
        i = int(npos) - 1
        assert c.x[i] == pytest.approx(c.y[i]) == pytest.approx(bep)
    ap = average_precision(y, s)
    assert 0 <= ap <= 1
    assert average_precision(y, s, interpolation="max") >= ap - 1e-12


# ---- bad input ----------------------------------------------------------------------------------

def test_bad_input():
    with pytest.raises(InputError, match="length mismatch"):
        roc_auc([0, 1, 1], [0.1, 0.2])
    with pytest.raises(InputError, match="both classes"):
        roc_auc([1, 1], [0.1, 0.2])
    with pytest.raises(InputError, match="both classes"):
        roc_curve([0, 0], [0.1, 0.2])
    with pytest.raises(InputError, match="binary labels"):
        roc_auc([0, 2], [0.1, 0.2])
    with pytest.raises(InputError, match="NaN"):
        roc_auc([0, 1], [0.1, np.nan])
    with pytest.raises(InputError, match="at least one positive"):
        average_precision([0, 0], [0.1, 0.2])
    with pytest.raises(InputError, match="1-D"):
        pr_curve([[0, 1]], [[0.1, 0.2]])
    with pytest.raises(InputError, match="recall_levels"):
        interpolated_precision([0, 1], [0.1, 0.2], recall_levels=[1.5])
