from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import InputError, PolicyError
from receval.stats import (
    adjust,
    bootstrap,
    cohens_d,
    paired_ttest,
    permutation_test,
    t_interval,
    tukey_hsd,
    wilcoxon,
    win_tie_loss,
)


def _pairs(seed: int, n: int = 80, ties: bool = False):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + rng.normal(0.03, 0.15, n)
    if ties:
        a, b = np.round(a, 1), np.round(b, 1)
    return a, b


# ---- t-test --------------------------------------------------------------------------------
def test_ttest_exact_arithmetic():
    res = paired_ttest([1.0, 2.0, 3.0])
    assert res.statistic == pytest.approx(2 * math.sqrt(3), rel=1e-15)
    assert res.pvalue == pytest.approx(2 * sps.t.sf(2 * math.sqrt(3), 2), rel=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_ttest_matches_scipy(seed):
    a, b = _pairs(seed)
    ref = sps.ttest_rel(b, a)
    res = paired_ttest(b - a)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_ttest_vectorized_columns_equal_single():
    a, b = _pairs(1)
    c = a + 0.01
    D = np.column_stack([b - a, c - a, c - b])
    res = paired_ttest(D)
    for j in range(3):
        assert res.pvalue[j] == paired_ttest(D[:, j]).pvalue


def test_ttest_degenerate():
    assert paired_ttest(np.zeros(5)).pvalue == 1.0
    assert paired_ttest(np.full(5, 0.5)).pvalue == 0.0


def test_ttest_rejects_nan_and_tiny():
    with pytest.raises(InputError, match="NaN"):
        paired_ttest([0.1, float("nan"), 0.2])
    with pytest.raises(InputError, match="at least 2"):
        paired_ttest([0.1])


# ---- Wilcoxon ------------------------------------------------------------------------------
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_matches_scipy_approx(zero_method, correction, seed):
    a, b = _pairs(seed, 120, ties=True)
    d = b - a
    assert (d == 0).any()
    ref = sps.wilcoxon(b, a, zero_method=zero_method, correction=correction,
                       method="asymptotic")
    res = wilcoxon(d, zero_method=zero_method, correction=correction, method="approx")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_exact_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    d = rng.normal(0.3, 1.0, 15)
    ref = sps.wilcoxon(d, method="exact")
    res = wilcoxon(d)
    assert res.extra["method"] == "exact"
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_wilcoxon_small_exact_arithmetic():
    # |d| ranks 1, 2, 3; W+ = 1 + 2 = 3 = W-; P(W+ <= 3) = 5/8 -> p = min(1, 2 * 5/8) = 1
    assert wilcoxon([1.0, 2.0, -3.0]).pvalue == 1.0
    # all positive, n = 4: W+ = 10, P(W+ >= 10) = 1/16 -> p = 2/16
    assert wilcoxon([1.0, 2.0, 3.0, 4.0]).pvalue == pytest.approx(2 / 16, rel=1e-15)


def test_wilcoxon_bad_options():
    with pytest.raises(PolicyError, match="zero_method"):
        wilcoxon([1.0, 2.0], zero_method="drop")
    with pytest.raises(PolicyError, match="ties"):
        wilcoxon([1.0, 1.0, 2.0], method="exact")


# ---- permutation test ----------------------------------------------------------------------
def test_permutation_exact_arithmetic():
    # sign sums of [1, 1]: 2, 0, 0, -2 -> |sum| >= 2 twice out of 4
    assert permutation_test([1.0, 1.0]).pvalue == 2 / 4


@pytest.mark.parametrize("seed", range(4))
def test_permutation_exact_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    D = rng.normal(0.2, 1.0, size=(11, 3))
    res = permutation_test(D)
    for j in range(3):
        ref = sps.permutation_test((D[:, j],), np.mean, permutation_type="samples",
                                   vectorized=False, n_resamples=10**6)
        assert res.pvalue[j] == pytest.approx(ref.pvalue, rel=1e-12)


def test_permutation_seeded_and_order_free():
    a, b = _pairs(3, 300)
    c = a + np.random.default_rng(9).normal(0.01, 0.2, 300)
    D = np.column_stack([b - a, c - a, c - b])
    p1 = permutation_test(D, n_resamples=3000, rng=42).pvalue
    p2 = permutation_test(D[:, ::-1], n_resamples=3000, rng=42).pvalue[::-1]
    p3 = permutation_test(-D, n_resamples=3000, rng=42).pvalue
    assert np.array_equal(p1, p2)
    assert np.array_equal(p1, p3)
    for j in range(3):  # one column alone gives the same p-value as within the matrix
        assert permutation_test(D[:, j], n_resamples=3000, rng=42).pvalue == p1[j]
    assert not np.array_equal(p1, permutation_test(D, n_resamples=3000, rng=43).pvalue)


def test_permutation_monte_carlo_close_to_exact():
    rng = np.random.default_rng(5)
    d = rng.normal(0.4, 1.0, 14)
    exact = permutation_test(d, exact="always").pvalue
    mc = permutation_test(d, n_resamples=20000, rng=1, exact="never").pvalue
    se = math.sqrt(exact * (1 - exact) / 20000)
    assert abs(mc - exact) < 5 * se + 1e-4


def test_permutation_all_zero_is_one():
    assert permutation_test(np.zeros(40), n_resamples=500).pvalue == 1.0


# ---- bootstrap -----------------------------------------------------------------------------
def test_bootstrap_reproducible_and_close_to_scipy():
    a, b = _pairs(7, 400)
    d = b - a
    r1 = bootstrap(d, n_resamples=4000, rng=3)
    r2 = bootstrap(d, n_resamples=4000, rng=3)
    assert r1.extra == r2.extra and r1.pvalue == r2.pvalue
    ref = sps.bootstrap((d,), np.mean, n_resamples=4000, method="percentile",
                        rng=np.random.default_rng(0)).confidence_interval
    width = ref.high - ref.low
    assert abs(r1.extra["ci_low"] - ref.low) < 0.1 * width
    assert abs(r1.extra["ci_high"] - ref.high) < 0.1 * width
    assert r1.extra["ci_low"] < d.mean() < r1.extra["ci_high"]


def test_bootstrap_ci_mirrors_under_sign_flip():
    a, b = _pairs(8, 200)
    r = bootstrap(b - a, n_resamples=2000, rng=0)
    s = bootstrap(a - b, n_resamples=2000, rng=0)
    assert s.extra["ci_low"] == pytest.approx(-r.extra["ci_high"], rel=1e-12)
    assert s.pvalue == r.pvalue


# ---- effect sizes --------------------------------------------------------------------------
def test_cohens_d_and_interval_arithmetic():
    assert cohens_d([1.0, 2.0, 3.0]) == 2.0
    assert cohens_d([0.0, 0.0]) == 0.0
    lo, hi = t_interval([1.0, 2.0, 3.0], confidence=0.95)
    half = sps.t.ppf(0.975, 2) * 1.0 / math.sqrt(3)
    assert lo == pytest.approx(2 - half, rel=1e-14) and hi == pytest.approx(2 + half, rel=1e-14)


def test_win_tie_loss():
    assert win_tie_loss([0.5, 0.0, -0.1, 0.2, 0.0]) == (2, 2, 1)
    assert win_tie_loss([0.5, 0.05, -0.1], tol=0.1) == (1, 2, 0)


# ---- Tukey HSD -----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_tukey_independent_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((40, 4))
    X[:, 2] += 0.15
    ours = tukey_hsd(X, design="independent")
    ref = sps.tukey_hsd(*X.T)
    np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-6, atol=1e-9)
    ci = ref.confidence_interval(0.95)
    np.testing.assert_allclose(ours.ci_low, ci.low, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ours.ci_high, ci.high, rtol=1e-6, atol=1e-9)


def test_tukey_paired_two_way_anova_by_hand():
    X = np.array([[1.0, 2.0, 4.0], [2.0, 2.5, 3.0], [0.5, 1.0, 3.5], [1.5, 3.0, 3.0]])
    n, k = X.shape
    grand = X.mean()
    sse = 0.0
    for u in range(n):
        for s in range(k):
            sse += (X[u, s] - X[u].mean() - X[:, s].mean() + grand) ** 2
    df = (n - 1) * (k - 1)
    mse = sse / df
    res = tukey_hsd(X, design="paired")
    assert res.mse == pytest.approx(mse, rel=1e-14) and res.df == df
    q = abs(X[:, 0].mean() - X[:, 2].mean()) / math.sqrt(mse / n)
    assert res.pvalue[0, 2] == pytest.approx(sps.studentized_range.sf(q, k, df), rel=1e-12)


# ---- corrections ---------------------------------------------------------------------------
def test_corrections_by_hand():
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 (m = 4)
    assert adjust(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.8])
    holm = [4 * 0.01, max(4 * 0.01, 3 * 0.03, 2 * 0.04), max(4 * 0.01, 3 * 0.03), 0.2 * 1]
    assert adjust(p, "holm").tolist() == pytest.approx(
        [holm[0], holm[1], holm[2], max(holm[1], 0.2)])
    bh_sorted = [min(4 / 1 * 0.01, 4 / 3 * 0.04), 4 / 3 * 0.04, 4 / 3 * 0.04, 0.2]
    assert adjust(p, "bh").tolist() == pytest.approx(
        [bh_sorted[0], bh_sorted[2], bh_sorted[1], bh_sorted[3]])
    assert adjust(p, "none").tolist() == p


@pytest.mark.parametrize("method", ["bh", "by"])
def test_fdr_matches_scipy(method):
    p = np.random.default_rng(0).random(30) ** 3
    np.testing.assert_allclose(adjust(p, method), sps.false_discovery_control(p, method=method),
                               rtol=1e-12)


def test_corrections_nan_and_errors():
    out = adjust([0.01, float("nan"), 0.02], "bonferroni")
    assert out[0] == 0.02 and math.isnan(out[1]) and out[2] == 0.04
    with pytest.raises(PolicyError, match="holm"):
        adjust([0.1], "hom")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_corrections_properties(ps):
    p = np.array(ps)
    bonf, holm, bh = adjust(p, "bonferroni"), adjust(p, "holm"), adjust(p, "bh")
    assert (holm <= bonf + 1e-15).all() and (bh <= holm + 1e-15).all()
    assert (bh >= p - 1e-15).all() and (bonf <= 1).all()
    order = np.argsort(p, kind="stable")
    assert (np.diff(holm[order]) >= -1e-15).all() and (np.diff(bh[order]) >= -1e-15).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False, width=32), min_size=2, max_size=40),
       st.integers(0, 2**31))
def test_permutation_properties(values, seed):
    d = np.array(values, dtype=np.float64)
    res = permutation_test(d, n_resamples=200, rng=seed)
    flipped = permutation_test(-d, n_resamples=200, rng=seed)
    assert res.pvalue == flipped.pvalue
    low = 1 / 201 if not res.extra["exact"] else 1 / 2 ** len(d)
    assert low - 1e-15 <= res.pvalue <= 1.0
    if not d.any():
        assert res.pvalue == 1.0
