"""tea-tasting's conventions that receval.online expresses: the continuity correction of the
proportion test and the SRM chi-square, CUPED per compared pair, and the Welch degrees of freedom
of the relative CI from the relative variances; cross-checked with scipy and statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from receval.online import ab

sm_prop = pytest.importorskip("statsmodels.stats.proportion")
sm_ws = pytest.importorskip("statsmodels.stats.weightstats")


def _binary(n_a, k_a, n_b, k_b):
    return pd.DataFrame({"variant": ["A"] * n_a + ["B"] * n_b,
                         "o": [1] * k_a + [0] * (n_a - k_a) + [1] * k_b + [0] * (n_b - k_b)})


@pytest.mark.parametrize(("n_a", "k_a", "n_b", "k_b"),
                         [(1200, 300, 1100, 330), (500, 40, 800, 90), (2000, 1000, 2000, 1001)])
def test_proportion_without_correction_is_statsmodels_ztest(n_a, k_a, n_b, k_b):
    r = ab.analyze(_binary(n_a, k_a, n_b, k_b), metrics=[ab.proportion("o")],
                   control="A", srm_expected={"A": n_a, "B": n_b}).rows[0]
    z, p = sm_prop.proportions_ztest([k_b, k_a], [n_b, n_a])
    assert r["statistic"] == pytest.approx(z, rel=1e-12)
    assert r["p_value"] == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize(("n_a", "k_a", "n_b", "k_b"),
                         [(1200, 300, 1100, 330), (500, 40, 800, 90), (2000, 1000, 2000, 1001)])
def test_proportion_correction_is_yates_chi_square(n_a, k_a, n_b, k_b):
    res = ab.analyze(_binary(n_a, k_a, n_b, k_b), metrics=[ab.proportion("o", correction=True)],
                     control="A", srm_expected={"A": n_a, "B": n_b})
    r = res.rows[0]
    table = np.array([[k_a, n_a - k_a], [k_b, n_b - k_b]])
    chi2, p, _, _ = stats.chi2_contingency(table, correction=True)
    assert r["statistic"] ** 2 == pytest.approx(chi2, rel=1e-10)
    assert r["p_value"] == pytest.approx(p, rel=1e-9)
    cc = 0.5 * (1 / n_a + 1 / n_b)
    z = stats.norm.ppf(0.975)
    assert r["ci_high"] - r["effect"] == pytest.approx(z * r["se"] + cc, rel=1e-12)
    w = z * math.sqrt(r["treatment_value"] * (1 - r["treatment_value"])
                      / n_b / r["treatment_value"] ** 2
                      + r["control_value"] * (1 - r["control_value"])
                      / n_a / r["control_value"] ** 2) + cc / r["control_value"]
    ratio = r["treatment_value"] / r["control_value"]
    assert r["rel_ci_high"] == pytest.approx(ratio * math.exp(w) - 1, rel=1e-12)
    plain = ab.analyze(_binary(n_a, k_a, n_b, k_b), metrics=[ab.proportion("o")],
                       control="A", srm_expected={"A": n_a, "B": n_b}).rows[0]
    assert r["p_value"] >= plain["p_value"]


@pytest.mark.parametrize(("a", "b", "share"), [(5100, 4900, 0.5), (520, 480, 0.5),
                                               (3100, 6900, 0.3), (5000, 5000, 0.5)])
def test_srm_correction_two_arms(a, b, share):
    n = a + b
    exp = {"A": share, "B": 1 - share}
    d = max(abs(a - n * share) - 0.5, 0.0)
    want = 2 * stats.norm.sf(d / math.sqrt(n * share * (1 - share)))
    got = ab.srm({"A": a, "B": b}, exp, method="chisquare", correction=True)
    assert got.rows[0]["p_value"] == pytest.approx(want, rel=1e-9)
    raw = ab.srm({"A": a, "B": b}, exp, method="chisquare")
    ref = stats.chisquare([a, b], [n * share, n * (1 - share)])
    assert raw.rows[0]["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)


def test_srm_correction_three_arms_per_cell():
    obs, q = np.array([340.0, 300.0, 360.0]), np.full(3, 1 / 3)
    e = obs.sum() * q
    chi2 = float((np.maximum(np.abs(obs - e) - 0.5, 0) ** 2 / e).sum())
    got = ab.srm({"A": 340, "B": 300, "C": 360}, method="chisquare", correction=True)
    assert got.rows[0]["statistic"] == pytest.approx(chi2, rel=1e-12)
    assert got.rows[0]["p_value"] == pytest.approx(stats.chi2.sf(chi2, 2), rel=1e-12)


def _three_arms(seed=0, n=300):
    rng = np.random.default_rng(seed)
    arms = np.repeat(["A", "B", "C"], n)
    pre = rng.gamma(2, 3, 3 * n) * np.repeat([1.0, 1.3, 0.7], n)
    y = 0.8 * pre + rng.normal(0, 1, 3 * n) + np.repeat([0.0, 0.3, -0.2], n)
    return pd.DataFrame({"variant": arms, "y": y, "pre": pre,
                         "x": rng.integers(1, 9, 3 * n).astype(float)})


@pytest.mark.parametrize("metric", [ab.mean("y", covariate="pre"),
                                    ab.ratio("y", "x", covariate=("pre", "x"))],
                         ids=["mean", "ratio"])
def test_cuped_theta_per_compared_pair(metric):
    df = _three_arms()
    three = ab.analyze(df, metrics=[metric], control="A", correction="none")
    for arm in ("B", "C"):
        pair = ab.analyze(df[df["variant"].isin(["A", arm])], metrics=[metric], control="A",
                          correction="none").rows[0]
        row = next(r for r in three.rows if r["arm"] == arm)
        for k in ("theta", "effect", "se", "p_value", "control_value", "rel_ci_low"):
            assert row[k] == pytest.approx(pair[k], rel=1e-12, abs=1e-15), (arm, k)
    assert three.rows[0]["theta"] != pytest.approx(three.rows[1]["theta"], rel=1e-6)


def test_cuped_theta_of_a_pair_from_the_formula():
    df = _three_arms(seed=4)
    r = ab.analyze(df, metrics=[ab.mean("y", covariate="pre")], control="A").rows[1]
    sub = df[df["variant"].isin(["A", "C"])]
    theta = np.cov(sub["y"], sub["pre"])[0, 1] / np.var(sub["pre"], ddof=1)
    assert r["arm"] == "C" and r["theta"] == pytest.approx(theta, rel=1e-10)
    cbar = sub["pre"].mean()
    for arm, key in (("A", "control_value"), ("C", "treatment_value")):
        g = sub[sub["variant"] == arm]
        assert r[key] == pytest.approx(g["y"].mean() - theta * (g["pre"].mean() - cbar),
                                       rel=1e-10)


def test_welch_df_and_relative_df():
    rng = np.random.default_rng(7)
    a, b = rng.gamma(2, 2, 40) + 1, rng.gamma(2, 5, 25) + 3
    df = pd.DataFrame({"variant": ["A"] * a.size + ["B"] * b.size, "y": np.r_[a, b]})
    r = ab.analyze(df, metrics=["y"], control="A", relative_ci="log").rows[0]
    _, p, dof = sm_ws.ttest_ind(b, a, usevar="unequal")
    assert r["df"] == pytest.approx(dof, rel=1e-10)
    assert r["p_value"] == pytest.approx(p, rel=1e-9)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    ra, rb = va / a.mean() ** 2, vb / b.mean() ** 2
    df_rel = (ra + rb) ** 2 / (ra ** 2 / (a.size - 1) + rb ** 2 / (b.size - 1))
    assert r["df_relative"] == pytest.approx(df_rel, rel=1e-12)
    assert df_rel != pytest.approx(dof, rel=1e-3)
    q = stats.t.ppf(0.975, df_rel)
    ratio = b.mean() / a.mean()
    half = q * math.sqrt(ra + rb)
    assert r["rel_ci_low"] == pytest.approx(ratio * math.exp(-half) - 1, rel=1e-12)
    assert r["rel_ci_high"] == pytest.approx(ratio * math.exp(half) - 1, rel=1e-12)
