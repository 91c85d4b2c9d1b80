"""A/B analysis: the reference note's worked examples, statsmodels / scipy cross-checks,
slow formula oracles, merge and invariance properties, errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from receval.errors import InputError, PolicyError, RecevalWarning
from receval.online import OnlineResult, ab


def _units(**arms):
    rows = []
    for arm, cols in arms.items():
        n = len(next(iter(cols.values())))
        rows.append(pd.DataFrame({"variant": [arm] * n, **cols}))
    return pd.concat(rows, ignore_index=True)


def test_delta_method_worked_examples():
    # one arm each: Y=[3,0,0,3], X=10 -> SE 0.0866025; Y=[1,0,2,1], X=[10,5,10,5] -> SE 0.0405720
    u = _units(A={"y": [3, 0, 0, 3], "x": [10] * 4}, B={"y": [1, 0, 2, 1], "x": [10, 5, 10, 5]})
    r = ab.analyze(u, metrics=[ab.ratio("y", "x")], control="A").rows[0]
    assert r["control_value"] == pytest.approx(0.15, abs=1e-15)
    assert r["treatment_value"] == pytest.approx(0.1333333333, abs=1e-9)
    assert r["se"] == pytest.approx(math.sqrt(3 / 100 / 4 + 0.00164609053), rel=1e-8)
    # the naive binomial SE over impressions would be 0.0564579 for arm A alone
    assert math.sqrt(0.15 * 0.85 / 40) == pytest.approx(0.0564579, abs=1e-7)


def test_delta_method_against_slow_formula():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 20, 300).astype(float)
    y = rng.binomial(x.astype(int), 0.1).astype(float)
    arm = np.where(rng.random(300) < 0.5, "A", "B")
    r = ab.analyze(pd.DataFrame({"variant": arm, "y": y, "x": x}),
                   metrics=[ab.ratio("y", "x")], control="A").rows[0]
    var = 0.0
    for a in ("A", "B"):
        yy, xx = y[arm == a], x[arm == a]
        n, R = yy.size, yy.mean() / xx.mean()
        sxy = np.cov(xx, yy, ddof=1)[0, 1]
        var += (yy.var(ddof=1) - 2 * R * sxy + R * R * xx.var(ddof=1)) / xx.mean() ** 2 / n
    assert r["se"] == pytest.approx(math.sqrt(var), rel=1e-10)


def test_cuped_worked_example_pins_pooled_theta():
    u = _units(C={"x": [1, 2, 3], "y": [2, 3, 5]}, T={"x": [2, 3, 4], "y": [4, 4, 6]})
    raw = ab.analyze(u, metrics=[ab.mean("y")], control="C").rows[0]
    cup = ab.analyze(u, metrics=[ab.mean("y", covariate="x")], control="C").rows[0]
    assert raw["effect"] == pytest.approx(4 / 3, abs=1e-12)
    assert cup["theta"] == pytest.approx(14 / 11, abs=1e-12)
    assert cup["effect"] == pytest.approx(4 / 3 - 14 / 11, abs=1e-12)   # 0.0606061
    assert raw["p_value"] == pytest.approx(0.2988, abs=5e-5)
    assert cup["p_value"] == pytest.approx(0.8952, abs=5e-5)
    # Welch on the raw values is scipy's ttest_ind(equal_var=False)
    ref = stats.ttest_ind([4, 4, 6], [2, 3, 5], equal_var=False)
    assert raw["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    # CUPED = Welch on y - theta (x - mean x)
    t = np.array([4, 4, 6]) - 14 / 11 * (np.array([2, 3, 4]) - 2.5)
    c = np.array([2, 3, 5]) - 14 / 11 * (np.array([1, 2, 3]) - 2.5)
    assert cup["p_value"] == pytest.approx(stats.ttest_ind(t, c, equal_var=False).pvalue, rel=1e-9)


def test_cuped_reduces_variance_by_rho2():
    rng = np.random.default_rng(3)
    pre = rng.gamma(2, 5, 4000)
    y = pre * 0.8 + rng.normal(0, 3, 4000)
    arm = np.where(rng.random(4000) < 0.5, "A", "B")
    df = pd.DataFrame({"variant": arm, "y": y, "pre": pre})
    raw = ab.analyze(df, metrics=[ab.mean("y")], control="A").rows[0]
    cup = ab.analyze(df, metrics=[ab.mean("y", covariate="pre")], control="A").rows[0]
    rho2 = np.corrcoef(pre, y)[0, 1] ** 2
    assert cup["variance_reduction"] == pytest.approx(rho2, rel=1e-9)
    assert cup["se"] ** 2 == pytest.approx(raw["se"] ** 2 * (1 - rho2), rel=0.02)


def test_ratio_cuped_matches_linearised_oracle():
    rng = np.random.default_rng(5)
    n = 2000
    imp = rng.integers(1, 30, n).astype(float)
    imp_pre = np.maximum(1, imp + rng.integers(-3, 4, n))
    ctr_u = rng.beta(2, 20, n)
    clk = rng.binomial(imp.astype(int), ctr_u).astype(float)
    clk_pre = rng.binomial(imp_pre.astype(int), ctr_u).astype(float)
    arm = np.where(rng.random(n) < 0.5, "A", "B")
    df = pd.DataFrame({"variant": arm, "c": clk, "i": imp, "cp": clk_pre, "ip": imp_pre})
    r = ab.analyze(df, metrics=[ab.ratio("c", "i", covariate=("cp", "ip"))], control="A").rows[0]
    # oracle: linearise both ratios at pooled means, theta by OLS of the linearised values
    lin = (clk - clk.sum() / imp.sum() * imp) / imp.mean()
    linp = (clk_pre - clk_pre.sum() / imp_pre.sum() * imp_pre) / imp_pre.mean()
    theta = np.cov(lin, linp, ddof=1)[0, 1] / linp.var(ddof=1)
    assert r["theta"] == pytest.approx(theta, rel=1e-9)
    assert 0 < r["variance_reduction"] < 1


def test_two_proportions_spotify_numbers_and_statsmodels():
    smp = pytest.importorskip("statsmodels.stats.proportion")
    u = _units(c={"o": [1] * 40 + [0] * 60}, t={"o": [1] * 50 + [0] * 50})
    r = ab.analyze(u, metrics=[ab.proportion("o")], control="c").rows[0]
    assert r["effect"] == pytest.approx(0.1, abs=1e-12)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((-0.03719748, 0.237197), abs=1e-6)
    assert r["p_value"] == pytest.approx(0.155218, abs=1e-6)
    z, p = smp.proportions_ztest([50, 40], [100, 100])
    assert r["p_value"] == pytest.approx(p, rel=1e-10)
    u = _units(c={"o": [1] * 42 + [0] * 62}, t={"o": [1] * 500 + [0] * 509})
    r = ab.analyze(u, metrics=[ab.proportion("o")], control="c", relative_ci="control",
                   srm_expected={"c": 104, "t": 1009}).rows[0]
    assert r["effect"] == pytest.approx(0.091694, abs=1e-6)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((-0.0075254, 0.190913), abs=1e-6)
    assert r["p_value"] == pytest.approx(0.074866, abs=1e-6)
    assert r["relative"] == pytest.approx(0.227052, abs=1e-6)
    assert (r["rel_ci_low"], r["rel_ci_high"]) == pytest.approx((-0.0186344, 0.47273797), abs=1e-6)
    ci = smp.confint_proportions_2indep(500, 1009, 42, 104, method="wald", compare="diff")
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(ci, rel=1e-9)


def test_relative_ci_variants_agree_for_large_samples():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"variant": np.repeat(["A", "B"], 20000),
                       "y": np.concatenate([rng.normal(10, 2, 20000), rng.normal(10.2, 2, 20000)])})
    out = {m: ab.analyze(df, metrics=["y"], control="A", relative_ci=m).rows[0]
           for m in ("log", "fieller", "delta")}
    for m in ("fieller", "delta"):
        assert out[m]["rel_ci_low"] == pytest.approx(out["log"]["rel_ci_low"], abs=2e-4)
        assert out[m]["rel_ci_high"] == pytest.approx(out["log"]["rel_ci_high"], abs=2e-4)


def test_srm_worked_example_and_scipy():
    r = ab.srm({"control": 821588, "treatment": 815482})
    assert r.rows[0]["statistic"] == pytest.approx(22.774, abs=5e-4)
    assert r.rows[0]["p_value"] == pytest.approx(1.82e-6, rel=1e-2)
    assert r.rows[0]["mismatch"]
    ref = stats.chisquare([821588, 815482])
    assert r.rows[0]["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    three = ab.srm({"a": 100, "b": 210, "c": 290}, {"a": 1, "b": 2, "c": 3})
    assert three.rows[0]["p_value"] == pytest.approx(
        stats.chisquare([100, 210, 290], [100, 200, 300]).pvalue, rel=1e-10)
    small = ab.srm({"a": 40, "b": 60})
    assert small.rows[0]["test"] == "binomial"
    assert small.rows[0]["p_value"] == pytest.approx(stats.binomtest(40, 100).pvalue)


def test_analyze_warns_loudly_on_srm():
    df = pd.DataFrame({"variant": ["A"] * 700 + ["B"] * 300, "y": np.arange(1000.0)})
    with pytest.warns(RecevalWarning, match="sample-ratio mismatch"):
        res = ab.analyze(df, metrics=["y"], control="A")
    assert res.diagnostics["srm"]["mismatch"]
    assert res.warnings


def test_power_sample_size_mde_worked_examples():
    assert ab.power(0.01, 0.34 * 0.66, 225725, n_b=22572, alpha=0.03) == pytest.approx(0.80341, abs=1e-5)
    assert ab.power(0.03, 45, 859896) == pytest.approx(0.8345832, abs=1e-7)
    assert math.floor(ab.sample_size(0.0025, 0.05 * 0.95)) == 119302
    assert ab.sample_size(0.0025, 0.05 * 0.95) == pytest.approx(119303, abs=1)
    assert ab.mde(0.05 * 0.95, 100000) == pytest.approx(0.0027306, abs=1e-7)
    # round trip: the sample size gives the requested power (ignoring the far tail)
    n = ab.sample_size(0.1, 1.0, power=0.9)
    assert ab.power(0.1, 1.0, n) == pytest.approx(0.9, abs=1e-6)


@pytest.mark.parametrize("ratio", [1.0, 0.5, 3.0])
def test_power_matches_statsmodels(ratio):
    smp = pytest.importorskip("statsmodels.stats.power")
    ours = ab.power(0.2, 1.0, 300, n_b=300 * ratio)
    ref = smp.NormalIndPower().power(effect_size=0.2, nobs1=300, alpha=0.05, ratio=ratio)
    assert ours == pytest.approx(ref, rel=1e-10)
    n = ab.sample_size(0.2, 1.0, ratio=ratio, power=0.8)
    n_ref = smp.NormalIndPower().solve_power(effect_size=0.2, alpha=0.05, power=0.8, ratio=ratio)
    assert n == pytest.approx(n_ref, rel=1e-3)  # statsmodels keeps the far tail


def test_msprt_worked_example():
    r = ab.msprt(n=[100], mean=[0.3], sigma2=1.0, tau2=1.0)
    assert r.rows[0]["lambda"] == pytest.approx(8.56672, abs=1e-5)
    assert r.rows[0]["p_value"] == pytest.approx(0.116731, abs=1e-6)
    # the confidence sequence contains exactly the thetas with Lambda(theta) < 1/alpha
    lo, hi = r.rows[0]["ci_low"], r.rows[0]["ci_high"]
    for th, inside in ((lo + 1e-6, True), (hi - 1e-6, True), (lo - 1e-3, False)):
        lam = ab.msprt(n=[100], mean=[0.3], sigma2=1.0, tau2=1.0, theta0=th).rows[0]["lambda"]
        assert (lam < 20) == inside


def test_msprt_stream_equals_cumulative_and_p_is_monotone():
    x = np.random.default_rng(0).normal(0.1, 1, 500)
    a = ab.msprt(x, sigma2=1, tau2=0.05)
    b = ab.msprt(n=np.arange(1, 501), mean=np.cumsum(x) / np.arange(1, 501), sigma2=1, tau2=0.05)
    np.testing.assert_allclose(a.per_unit["p_value"], b.per_unit["p_value"], rtol=1e-12)
    assert (np.diff(a.per_unit["p_value"]) <= 0).all()
    assert (np.diff(a.per_unit["ci_high"] - a.per_unit["ci_low"]) <= 1e-15).all()


@pytest.mark.slow
def test_msprt_type1_under_peeking_while_naive_z_inflates():
    rng = np.random.default_rng(11)
    reps, n = 2000, 400
    x = rng.normal(0, 1, (reps, n))
    cums = np.cumsum(x, axis=1)
    ns = np.arange(1, n + 1)
    rej_m = 0
    for r in range(reps):
        res = ab.msprt(n=ns, mean=cums[r] / ns, sigma2=1.0, tau2=0.1)
        rej_m += res.counts["first_rejection_look"] >= 0
    naive = (np.abs(cums / np.sqrt(ns)) > 1.959964).any(axis=1).mean()
    assert rej_m / reps <= 0.05 + 0.01
    assert naive > 0.15


@pytest.mark.slow
def test_delta_method_ctr_ci_covers_on_clustered_data():
    rng = np.random.default_rng(7)
    covered = naive = 0
    reps = 400
    for _ in range(reps):
        n = 600
        imp = rng.integers(1, 40, n)
        p_u = rng.beta(1, 9, n)          # strong per-user heterogeneity: clustered clicks
        clk = rng.binomial(imp, p_u)
        arm = rng.random(n) < 0.5
        df = pd.DataFrame({"variant": np.where(arm, "B", "A"), "c": clk, "i": imp})
        r = ab.analyze(df, metrics=[ab.ratio("c", "i")], control="A").rows[0]
        covered += r["ci_low"] <= 0 <= r["ci_high"]
        # the classic mistake: impressions as independent Bernoulli trials
        pa, pb = clk[~arm].sum() / imp[~arm].sum(), clk[arm].sum() / imp[arm].sum()
        se = math.sqrt(pa * (1 - pa) / imp[~arm].sum() + pb * (1 - pb) / imp[arm].sum())
        naive += abs(pb - pa) <= 1.959964 * se
    assert 0.92 <= covered / reps <= 0.98
    assert naive / reps < 0.85


def test_merge_of_blocks_equals_one_shot():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"variant": rng.choice(["A", "B"], 999), "y": rng.normal(size=999),
                       "x": rng.integers(1, 9, 999).astype(float)})
    one = ab.analyze(df, metrics=[ab.ratio("y", "x"), "y"], control="A")
    parts = [df.iloc[i::3] for i in range(3)]
    aggs: dict = {}
    for p in parts:
        for arm, g in p.groupby("variant"):
            a = ab.Aggregates.from_frame(g, ["y", "x"])
            aggs[arm] = a if arm not in aggs else aggs[arm] + a
    merged = ab.analyze(aggs, metrics=[ab.ratio("y", "x"), "y"], control="A")
    for r1, r2 in zip(one.rows, merged.rows, strict=True):
        for k in ("effect", "se", "p_value", "rel_ci_low"):
            assert r1[k] == pytest.approx(r2[k], rel=1e-9)
    table = pd.DataFrame([{"variant": k, **v.to_row()} for k, v in aggs.items()])
    again = ab.analyze(ab.from_aggregates(table), metrics=[ab.ratio("y", "x"), "y"], control="A")
    assert again.rows[0]["se"] == pytest.approx(one.rows[0]["se"], rel=1e-9)


@given(st.lists(st.tuples(st.sampled_from(["A", "B"]), st.integers(0, 50), st.integers(1, 60)),
                min_size=8, max_size=60), st.randoms())
def test_invariant_to_row_order_and_arm_id_type(rows, rnd):
    df = pd.DataFrame(rows, columns=["variant", "c", "i"])
    if df["variant"].nunique() < 2 or df.groupby("variant").size().min() < 2:
        return
    res = ab.analyze(df, metrics=[ab.ratio("c", "i")], control="A").rows[0]
    shuffled = df.sample(frac=1, random_state=rnd.randint(0, 10 ** 6)).assign(
        variant=lambda d: d["variant"].map({"A": 0, "B": 1}))
    res2 = ab.analyze(shuffled, metrics=[ab.ratio("c", "i")], control=0).rows[0]
    assert res2["effect"] == pytest.approx(res["effect"], rel=1e-9, abs=1e-12)
    assert res2["se"] == pytest.approx(res["se"], rel=1e-9, abs=1e-12)


def test_per_unit_sums_events_and_pre_period():
    ev = pd.DataFrame({"uid": ["a", "a", "b", "c", "c", "c", None],
                       "arm": ["T", "T", "C", "C", "C", "C", "T"],
                       "click": [1, 0, 1, 1, 1, 0, 1]})
    pre = pd.DataFrame({"uid": ["a", "c"], "click": [2, 5]})
    u = ab.per_unit(ev, unit="uid", variant="arm", sums={"clicks": "click", "impr": 1},
                    pre_period=pre)
    assert u.attrs["rows_dropped"] == 1
    got = u.set_index("uid")
    assert got.loc["c", "clicks"] == 2 and got.loc["c", "impr"] == 3
    assert got.loc["b", "clicks_pre"] == 0 and got.loc["b", "has_pre"] == 0
    assert got.loc["a", "clicks_pre"] == 2


def test_errors_name_the_problem():
    df = pd.DataFrame({"variant": ["A", "B"] * 5, "y": [1.0] * 9 + [np.nan]})
    with pytest.raises(InputError, match="'y'.*missing"):
        ab.analyze(df, metrics=["y"], control="A")
    with pytest.warns(RecevalWarning, match="zero variance"):
        res = ab.analyze(df, metrics=["y"], control="A", nan="drop")
    assert res.counts["units_dropped"] == 1
    with pytest.raises(InputError, match="control='Z'"):
        ab.analyze(df.fillna(0), metrics=["y"], control="Z")
    with pytest.raises(InputError, match="no column 'revenue'"):
        ab.analyze(df, metrics=["revenue"], control="A")
    with pytest.raises(PolicyError, match="relative_ci"):
        ab.analyze(df, metrics=["y"], control="A", relative_ci="bogus")
    with pytest.raises(InputError, match="more than one arm"):
        ab.per_unit(pd.DataFrame({"user_id": [1, 1], "variant": ["A", "B"]}))
    with pytest.raises(InputError, match="not 0/1"):
        ab.analyze(pd.DataFrame({"variant": ["A", "B"] * 3, "o": [0, 1, 2, 0, 1, 0]}),
                   metrics=[ab.proportion("o")], control="A")


def test_corrections_and_json_round_trip():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"variant": np.repeat(["A", "B", "C"], 200),
                       "y": rng.normal(size=600), "z": rng.normal(size=600)})
    res = ab.analyze(df, metrics=["y", "z"], control="A", correction="bonferroni")
    assert len(res.rows) == 4
    for r in res.rows:
        assert r["p_adjusted"] == pytest.approx(min(1, 4 * r["p_value"]))
    back = OnlineResult.from_json(res.to_json())
    assert back.rows[0]["effect"] == res.rows[0]["effect"]
    assert "NaN" not in res.to_json()
