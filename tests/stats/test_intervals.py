"""Confidence intervals of every reported mean: ``EvalResult.confidence_intervals`` (t, percentile
and BCa bootstrap) and the interval functions they share with the paired tests."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

import receval as rv
from receval.errors import PolicyError
from receval.results.intervals import bootstrap_interval, bootstrap_means, t_interval


@pytest.fixture
def result():
    rng = np.random.default_rng(0)
    users = np.arange(60)
    rows = [(u, i, float(rng.random())) for u in users for i in rng.choice(40, 8, replace=False)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i) for u in users for i in rng.choice(40, 4, replace=False)],
                         columns=["user", "item"])
    return rv.evaluate(run, truth, ["ndcg@5", "precision@5", "mrr", "coverage@5",
                                    "hit_rate@5(level=truth)"])


def test_t_interval_worked_example():
    # values [0, 1, 1, 1]: mean 3/4, sd 1/2, se 1/4
    lo, hi = t_interval([0.0, 1.0, 1.0, 1.0], level=0.95)
    half = sps.t.ppf(0.975, 3) / 4
    assert lo == pytest.approx(3 / 4 - half, rel=1e-15)
    assert hi == pytest.approx(3 / 4 + half, rel=1e-15)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_result_t_intervals_match_scipy(result, level):
    ci = result.confidence_intervals(level, method="t").set_index("metric")
    for key in ("ndcg@5", "precision@5", "mrr"):
        x = result.user_values(key)
        x = x[np.isfinite(x)]
        ref = sps.t.interval(level, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
        assert ci.loc[key, "ci_low"] == pytest.approx(ref[0], rel=1e-12)
        assert ci.loc[key, "ci_high"] == pytest.approx(ref[1], rel=1e-12)
        assert ci.loc[key, "mean"] == result.summary[key]
        assert ci.loc[key, "level"] == level and ci.loc[key, "method"] == "t"
        assert ci.loc[key, "n"] == len(x) and ci.loc[key, "note"] == ""


def test_result_intervals_not_for_catalogue_or_micro(result):
    ci = result.confidence_intervals().set_index("metric")
    for key, reason in (("coverage@5", "catalogue-wide"), ("hit_rate@5(level=truth)", "micro")):
        assert math.isnan(ci.loc[key, "ci_low"]) and math.isnan(ci.loc[key, "ci_high"])
        assert reason in ci.loc[key, "note"]


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_result_bootstrap_intervals_seeded(result, method):
    a = result.confidence_intervals(0.9, method=method, n_resamples=2000, rng=7)
    b = result.confidence_intervals(0.9, method=method, n_resamples=2000, rng=7)
    c = result.confidence_intervals(0.9, method=method, n_resamples=2000, rng=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a["ci_low"].equals(c["ci_low"])
    row = a.set_index("metric").loc["ndcg@5"]
    assert row["method"] == method and row["ci_low"] < row["mean"] < row["ci_high"]


def test_bootstrap_alias_is_percentile(result):
    a = result.confidence_intervals(method="bootstrap", n_resamples=500)
    b = result.confidence_intervals(method="percentile", n_resamples=500)
    pd.testing.assert_frame_equal(a, b)


def test_percentile_interval_is_quantiles_of_bootstrap_means():
    x = np.random.default_rng(3).exponential(size=50)
    means = bootstrap_means(x[:, None], 3000, 5)[:, 0]
    lo, hi = bootstrap_interval(x, level=0.9, n_resamples=3000, seed=5)
    assert (lo, hi) == (np.quantile(means, 0.05), np.quantile(means, 0.95))


def test_bca_formula_against_direct_computation():
    """BCa from its definition (Efron & Tibshirani 1993, 14.3) on the same bootstrap means."""
    x = np.random.default_rng(4).exponential(size=40)
    B, level = 4000, 0.95
    means = bootstrap_means(x[:, None], B, 11)[:, 0]
    m = x.mean()
    z0 = sps.norm.ppf(np.mean(means < m))
    jack = np.array([np.delete(x, i).mean() for i in range(len(x))])
    dev = jack.mean() - jack
    acc = np.sum(dev**3) / (6 * np.sum(dev**2) ** 1.5)
    qs = []
    for a in ((1 - level) / 2, (1 + level) / 2):
        z = sps.norm.ppf(a)
        qs.append(sps.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))))
    lo, hi = bootstrap_interval(x, level=level, method="bca", n_resamples=B, seed=11)
    assert lo == pytest.approx(np.quantile(means, qs[0]), rel=1e-12)
    assert hi == pytest.approx(np.quantile(means, qs[1]), rel=1e-12)


def test_bca_close_to_scipy():
    """scipy draws other resamples: agreement within Monte Carlo error."""
    x = np.random.default_rng(9).exponential(size=80)
    lo, hi = bootstrap_interval(x, level=0.95, method="bca", n_resamples=20000, seed=1)
    ref = sps.bootstrap((x,), np.mean, n_resamples=20000, method="BCa", confidence_level=0.95,
                        rng=np.random.default_rng(2)).confidence_interval
    width = ref.high - ref.low
    assert abs(lo - ref.low) < 0.05 * width and abs(hi - ref.high) < 0.05 * width


def test_t_coverage_simulation():
    """A 90% t interval covers the true mean of normal samples about 90% of the time."""
    rng = np.random.default_rng(12)
    X = rng.normal(1.0, 2.0, size=(15, 4000))
    lo, hi = t_interval(X, level=0.9)
    cover = np.mean((lo <= 1.0) & (1.0 <= hi))
    assert abs(cover - 0.9) < 4 * math.sqrt(0.9 * 0.1 / 4000)


def test_bad_arguments(result):
    with pytest.raises(PolicyError, match="bca"):
        result.confidence_intervals(method="normal")
    with pytest.raises(PolicyError, match=r"\(0, 1\)"):
        result.confidence_intervals(95)
