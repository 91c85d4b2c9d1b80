"""One-sided alternatives of every paired test, checked against scipy on random data; the sign
test; the Hochberg and Šidák corrections against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import PolicyError
from receval.stats import (
    ALTERNATIVES,
    adjust,
    bootstrap,
    paired_ttest,
    permutation_test,
    sign_test,
    t_interval,
    wilcoxon,
)

SIDES = ["two-sided", "greater", "less"]


def _diffs(seed: int, n: int, shift: float = 0.15, round_to: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = rng.normal(shift, 1.0, n)
    return np.round(d, round_to) if round_to is not None else d


def test_alternatives_constant():
    assert ALTERNATIVES == tuple(SIDES)


# ---- t-test --------------------------------------------------------------------------------
@pytest.mark.parametrize("alternative", SIDES)
@pytest.mark.parametrize("seed", range(3))
def test_ttest_alternatives_match_scipy(alternative, seed):
    d = _diffs(seed, 40)
    res = paired_ttest(d, alternative=alternative)
    ref = sps.ttest_1samp(d, 0.0, alternative=alternative)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    lo, hi = t_interval(d, confidence=0.9, alternative=alternative)
    ref_lo, ref_hi = ref.confidence_interval(0.9)
    assert lo == pytest.approx(ref_lo, rel=1e-12) if math.isfinite(ref_lo) else lo == ref_lo
    assert hi == pytest.approx(ref_hi, rel=1e-12) if math.isfinite(ref_hi) else hi == ref_hi


def test_ttest_one_sided_halves_two_sided():
    d = _diffs(4, 25, shift=0.5)
    two = paired_ttest(d).pvalue
    assert paired_ttest(d, alternative="greater").pvalue == pytest.approx(two / 2, rel=1e-12)
    assert paired_ttest(d, alternative="less").pvalue == pytest.approx(1 - two / 2, rel=1e-12)


def test_ttest_constant_differences():
    assert paired_ttest([0.5, 0.5, 0.5], alternative="greater").pvalue == 0.0
    assert paired_ttest([0.5, 0.5, 0.5], alternative="less").pvalue == 1.0
    assert paired_ttest([0.0, 0.0], alternative="less").pvalue == 1.0


# ---- Wilcoxon ------------------------------------------------------------------------------
@pytest.mark.parametrize("alternative", SIDES)
@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_exact_alternatives_match_scipy(alternative, seed):
    d = _diffs(seed, 18)
    res = wilcoxon(d, alternative=alternative)
    ref = sps.wilcoxon(d, alternative=alternative, method="exact")
    assert res.extra["method"] == "exact"
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", SIDES)
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
def test_wilcoxon_approx_alternatives_match_scipy(alternative, zero_method, correction):
    d = _diffs(11, 90, round_to=1)  # ties and zeros: the normal approximation
    res = wilcoxon(d, alternative=alternative, zero_method=zero_method, correction=correction)
    ref = sps.wilcoxon(d, alternative=alternative, zero_method=zero_method,
                       correction=correction, method="approx")
    assert res.extra["method"] == "approx"
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_wilcoxon_exact_one_sided_by_hand():
    # all positive, n = 4: W+ = 10 is the largest of 16 equally likely sign patterns
    assert wilcoxon([1.0, 2.0, 3.0, 4.0], alternative="greater").pvalue == 1 / 16
    assert wilcoxon([1.0, 2.0, 3.0, 4.0], alternative="less").pvalue == 1.0


# ---- sign test -----------------------------------------------------------------------------
def test_sign_test_by_hand():
    res = sign_test([1.0, 2.0, 3.0, -1.0], alternative="greater")
    assert res.statistic == 3 - 1
    assert res.pvalue == pytest.approx((4 + 1) / 16, rel=1e-15)  # P(B >= 3), B ~ Bin(4, 1/2)
    assert sign_test([1.0, 2.0, 3.0, -1.0], alternative="less").pvalue == pytest.approx(
        (1 + 4 + 6 + 4) / 16, rel=1e-15)
    assert sign_test([1.0, 2.0, 3.0, -1.0]).pvalue == pytest.approx(2 * 5 / 16, rel=1e-15)
    assert sign_test([0.0, 0.0, 0.0]).pvalue == 1.0
    # zeros are dropped: one positive of one non-zero difference
    assert sign_test([0.0, 0.3, 0.0], alternative="greater").pvalue == 0.5


@pytest.mark.parametrize("alternative", SIDES)
@pytest.mark.parametrize("seed", range(4))
def test_sign_test_matches_scipy_binomtest(alternative, seed):
    D = np.column_stack([_diffs(seed * 10 + j, 37, shift=0.2, round_to=1) for j in range(3)])
    res = sign_test(D, alternative=alternative)
    for j in range(3):
        d = D[:, j]
        ref = sps.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5, alternative=alternative)
        assert res.pvalue[j] == pytest.approx(ref.pvalue, rel=1e-12)
        assert res.statistic[j] == (d > 0).sum() - (d < 0).sum()


# ---- permutation ---------------------------------------------------------------------------
@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("seed", range(3))
def test_permutation_exact_alternatives_match_scipy(alternative, seed):
    d = _diffs(seed, 12, shift=0.3)
    res = permutation_test(d, alternative=alternative)
    assert res.extra["exact"]
    ref = sps.permutation_test((d,), np.mean, permutation_type="samples", vectorized=False,
                               n_resamples=10**6, alternative=alternative)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_permutation_one_sided_by_hand():
    # sign sums of [1, 1]: 2, 0, 0, -2 -> >= 2 once, <= 2 four times
    assert permutation_test([1.0, 1.0], alternative="greater").pvalue == 1 / 4
    assert permutation_test([1.0, 1.0], alternative="less").pvalue == 4 / 4


def test_permutation_monte_carlo_one_sided_close_to_exact():
    d = _diffs(8, 15, shift=0.4)
    for alternative in ("greater", "less"):
        exact = permutation_test(d, exact="always", alternative=alternative).pvalue
        mc = permutation_test(d, n_resamples=20000, rng=2, exact="never",
                              alternative=alternative).pvalue
        assert abs(mc - exact) < 5 * math.sqrt(exact * (1 - exact) / 20000) + 1e-4


# ---- bootstrap -----------------------------------------------------------------------------
def test_bootstrap_one_sided():
    d = _diffs(5, 200, shift=0.25)
    two = bootstrap(d, n_resamples=4000, rng=1)
    greater = bootstrap(d, n_resamples=4000, rng=1, alternative="greater")
    less = bootstrap(d, n_resamples=4000, rng=1, alternative="less")
    assert greater.pvalue < two.pvalue and less.pvalue > 0.9
    assert greater.extra["ci_high"] == math.inf and less.extra["ci_low"] == -math.inf
    # one-sided 95% bound = two-sided 90% bound (the same resamples)
    ninety = bootstrap(d, n_resamples=4000, rng=1, confidence=0.9)
    assert greater.extra["ci_low"] == pytest.approx(ninety.extra["ci_low"], rel=1e-12)
    assert less.extra["ci_high"] == pytest.approx(ninety.extra["ci_high"], rel=1e-12)
    # shifted null by hand from the same bootstrap means
    from receval.results.intervals import bootstrap_means

    means = bootstrap_means(d[:, None], 4000, 1)[:, 0]
    m = d.mean()
    assert greater.pvalue == (1 + np.sum(means - m >= m - abs(m) * 1e-12)) / 4001


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0, allow_nan=False, width=32), min_size=2, max_size=14))
def test_one_sided_p_values_mirror_under_sign_flip(values):
    """The greater-p of d is the less-p of -d, for every test."""
    d = np.array(values, dtype=np.float64)
    for fn in (paired_ttest, sign_test, permutation_test):
        assert fn(d, alternative="greater").pvalue == pytest.approx(
            fn(-d, alternative="less").pvalue, rel=1e-12, abs=1e-300)
    assert wilcoxon(d, alternative="greater").pvalue == pytest.approx(
        wilcoxon(-d, alternative="less").pvalue, rel=1e-12)


def test_bad_alternative():
    for fn in (paired_ttest, wilcoxon, sign_test, permutation_test, bootstrap):
        with pytest.raises(PolicyError, match="two-sided"):
            fn([0.1, 0.2, 0.3], alternative="larger")


# ---- corrections ---------------------------------------------------------------------------
_STATSMODELS = {"bonferroni": "bonferroni", "holm": "holm", "hochberg": "simes-hochberg",
                "sidak": "sidak", "holm-sidak": "holm-sidak", "bh": "fdr_bh", "by": "fdr_by"}


@pytest.mark.parametrize("method", sorted(_STATSMODELS))
@pytest.mark.parametrize("seed", range(5))
def test_corrections_match_statsmodels(method, seed):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(1, 40))) ** rng.choice([1, 3, 6])
    p[rng.random(p.size) < 0.1] = p[0]  # ties
    ref = multitest.multipletests(p, alpha=0.05, method=_STATSMODELS[method])[1]
    np.testing.assert_allclose(adjust(p, method), ref, rtol=1e-13, atol=1e-300)


def test_new_corrections_by_hand():
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 (m = 4)
    hoch_sorted = [min(4 * 0.01, 3 * 0.03, 2 * 0.04, 0.2), min(3 * 0.03, 2 * 0.04, 0.2),
                   min(2 * 0.04, 0.2), 0.2]
    assert adjust(p, "hochberg").tolist() == pytest.approx(
        [hoch_sorted[0], hoch_sorted[2], hoch_sorted[1], hoch_sorted[3]], rel=1e-14)
    assert adjust(p, "sidak").tolist() == pytest.approx(
        [1 - (1 - x) ** 4 for x in p], rel=1e-14)
    hs = [1 - 0.99**4, 1 - 0.97**3, 1 - 0.96**2, 0.2]
    hs = list(np.maximum.accumulate(hs))
    assert adjust(p, "holm-sidak").tolist() == pytest.approx([hs[0], hs[2], hs[1], hs[3]],
                                                             rel=1e-14)
    assert adjust(p, "simes-hochberg").tolist() == adjust(p, "hochberg").tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_new_corrections_ordering(ps):
    """Šidák <= Bonferroni, Holm-Šidák <= Holm, Hochberg <= Holm; all >= p."""
    p = np.array(ps)
    a = {m: adjust(p, m) for m in ("bonferroni", "holm", "hochberg", "sidak", "holm-sidak")}
    eps = 1e-12
    assert (a["sidak"] <= a["bonferroni"] + eps).all()
    assert (a["holm-sidak"] <= a["holm"] + eps).all()
    assert (a["holm-sidak"] <= a["sidak"] + eps).all()
    assert (a["hochberg"] <= a["holm"] + eps).all()
    for q in a.values():
        assert (q >= p - eps).all() and (q <= 1).all()


# ---- through compare() ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def systems():
    import pandas as pd

    import receval as rv

    rng = np.random.default_rng(0)
    truth = pd.DataFrame([(u, i) for u in range(80) for i in rng.choice(30, 3, replace=False)],
                         columns=["user", "item"])
    rel = set(map(tuple, truth.to_numpy()))
    ev = rv.Evaluator(truth, ["ndcg@10", "mrr"])
    out = {}
    for name, skill, seed in [("weak", 0.0, 1), ("strong", 0.6, 2)]:
        r = np.random.default_rng(seed)
        run = pd.DataFrame([(u, i, r.random() + skill * ((u, i) in rel))
                            for u in range(80) for i in range(30)],
                           columns=["user", "item", "score"])
        out[name] = ev.evaluate(run, name=name)
    return out


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
@pytest.mark.parametrize("alternative", SIDES)
def test_compare_threads_alternative(systems, test, alternative):
    from receval.stats import compare

    cmp = compare(systems, test=test, alternative=alternative, correction="none",
                  n_resamples=2000)
    assert cmp.options["alternative"] == alternative
    for row in cmp.pairs:
        d = (systems[row["a"]].user_values(row["metric"])
             - systems[row["b"]].user_values(row["metric"]))
        if test == "t":
            ref = sps.ttest_1samp(d, 0.0, alternative=alternative).pvalue
        elif test == "wilcoxon":
            ref = wilcoxon(d, alternative=alternative).pvalue
        elif test == "sign":
            ref = sps.binomtest(int((d > 0).sum()), int((d != 0).sum()),
                                alternative=alternative).pvalue
        elif test == "permutation":
            ref = permutation_test(d, alternative=alternative, n_resamples=2000).pvalue
        else:
            ref = bootstrap(d, alternative=alternative, n_resamples=2000).pvalue
        assert row["p_value"] == pytest.approx(ref, rel=1e-12)
        if alternative == "greater":
            assert row["ci_high"] == math.inf
        if alternative == "less":
            assert row["ci_low"] == -math.inf
        # asked in the other order, the row says what its p-value tests
        flipped = cmp.pair(row["metric"], row["b"], row["a"])
        assert flipped["alternative"] == {"greater": "less", "less": "greater"}.get(
            alternative, alternative)
        assert flipped["p_value"] == row["p_value"]
        assert flipped["ci_low"] == -row["ci_high"]


def test_compare_one_sided_json_round_trip(systems):
    from receval.stats import Comparison, compare

    cmp = compare(systems, test="sign", alternative="greater")
    back = Comparison.from_json(cmp.to_json())
    assert back.options["alternative"] == "greater"
    assert back.pairs == cmp.pairs


def test_compare_tukey_is_two_sided_only(systems):
    from receval.stats import compare

    with pytest.raises(PolicyError, match="two-sided"):
        compare(systems, test="tukey", alternative="greater")
