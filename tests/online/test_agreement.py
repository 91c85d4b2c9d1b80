"""Offline-online agreement: the reference note's 8-experiment table, scipy / statsmodels /
scikit-learn cross-checks, York vs Deming, the ledger round trip."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import receval as rv
from receval.errors import InputError
from receval.online import Ledger, agreement
from receval.online.agreement import auc, exact_tau_pvalue, wilson, york

X = [.012, .004, -.003, .020, .008, .001, -.010, .015]
Y = [.8, .3, -.2, .5, -.1, .2, -.6, 1.1]


def _ledger(se_off=0.002):
    led = Ledger()
    for e, (a, b) in enumerate(zip(X, Y, strict=True)):
        led.add(f"e{e}", offline={"ndcg@10": (a, se_off), "noise": (np.sin(7 * e), se_off)},
                online={"kpi": (b, 0.3)})
    return led


def test_worked_example_eight_experiments():
    r = agreement(_ledger(), measurement_error=False).row("ndcg@10")
    assert r["kendall_tau"] == pytest.approx(0.714286, abs=1e-6)
    assert r["kendall_p_exact"] == pytest.approx(0.01414, abs=1e-5)
    assert r["spearman_rho"] == pytest.approx(0.857143, abs=1e-6)
    assert r["sign_agreement"] == pytest.approx(0.875)
    assert (r["significant_online"], r["sign_agreement_significant"]) == (3, 1.0)
    assert r["reliability_online"] == pytest.approx(0.705607, abs=1e-6)
    assert r["auc_online_win"] == pytest.approx(0.866667, abs=1e-6)
    assert r["rank"] == 1


def test_against_scipy_statsmodels_sklearn():
    sm = pytest.importorskip("statsmodels.stats.proportion")
    skm = pytest.importorskip("sklearn.metrics")
    x, y = np.array(X), np.array(Y)
    r = agreement(_ledger()).row("ndcg@10")
    assert r["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-15)
    assert r["kendall_p"] == pytest.approx(stats.kendalltau(x, y).pvalue, abs=1e-15)
    assert r["spearman_p"] == pytest.approx(stats.spearmanr(x, y).pvalue, abs=1e-15)
    assert exact_tau_pvalue(x, y) == pytest.approx(
        stats.kendalltau(x, y, method="exact").pvalue, rel=1e-9)
    assert wilson(7, 8) == pytest.approx(sm.proportion_confint(7, 8, method="wilson"), rel=1e-10)
    assert auc(x, y > 0) == pytest.approx(skm.roc_auc_score(y > 0, x), rel=1e-12)
    assert stats.kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]).statistic == pytest.approx(
        -0.4714045207910316, abs=1e-15)
    xx, yy = np.array([12, 2, 1, 12, 2.0]), np.array([1, 4, 7, 1, 0.0])
    from receval.online.agreement import _tau_b_rows
    assert _tau_b_rows(xx[None], yy[None])[0] == pytest.approx(-0.4714045207910316, abs=1e-15)


def test_york_reduces_to_ols_and_to_deming():
    rng = np.random.default_rng(0)
    x = rng.normal(size=30)
    y = 2 * x + 1 + rng.normal(0, .3, 30)
    b, a = york(x, y, np.zeros(30), np.zeros(30))
    ols = np.polyfit(x, y, 1)
    assert (b, a) == pytest.approx(tuple(ols), rel=1e-10)
    sx, sy = 0.2, 0.5
    b, a = york(x, y, np.full(30, sx), np.full(30, sy))
    lam = sy ** 2 / sx ** 2   # Deming closed form with error-variance ratio lam
    sxx, syy = x.var(), y.var()
    sxy = np.mean((x - x.mean()) * (y - y.mean()))
    bd = (syy - lam * sxx + np.sqrt((syy - lam * sxx) ** 2 + 4 * lam * sxy ** 2)) / (2 * sxy)
    assert b == pytest.approx(bd, rel=1e-8)
    assert a == pytest.approx(y.mean() - bd * x.mean(), rel=1e-8)


def test_ranking_and_prediction():
    res = agreement(_ledger(), predict_at=0.01, n_resamples=300)
    assert res.rows[0]["metric"] == "ndcg@10"
    assert res.diagnostics["best_metric"] == "ndcg@10"
    r = res.row("ndcg@10")
    assert r["prediction_low"] < r["prediction"] < r["prediction_high"]
    assert r["tau_ci_low"] <= r["kendall_tau"] + 1e-12
    assert res.row("noise")["rank"] == 2


@pytest.mark.slow
def test_bootstrap_tau_interval_covers():
    rng = np.random.default_rng(3)
    reps, hit = 100, 0
    # population: bivariate normal with rho 0.6 -> tau = 2/pi asin(rho)
    rho = 0.6
    tau = 2 / np.pi * np.arcsin(rho)
    for r in range(reps):
        z = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], 25)
        led = Ledger()
        for e in range(25):
            led.add(f"e{e}", offline={"m": (z[e, 0], 0.0)}, online={"k": (z[e, 1], 0.0)})
        row = agreement(led, n_resamples=300, measurement_error=False, rng=r).rows[0]
        hit += row["tau_ci_low"] <= tau <= row["tau_ci_high"]
    assert hit / reps >= 0.85


def test_ledger_from_comparison_and_ab_and_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    truth = pd.DataFrame({"user": np.repeat(np.arange(50), 3), "item": rng.integers(0, 20, 150)}
                         ).drop_duplicates()
    runs = {n: pd.DataFrame({"user": np.repeat(np.arange(50), 10), "item": np.tile(np.arange(20)[s::2][:10], 50),
                             "score": np.tile(np.arange(10, 0, -1.0), 50)}) for n, s in (("a", 0), ("b", 1))}
    cmp = rv.compare({n: rv.evaluate(r, truth, ["ndcg@10", "recall@10"], name=n) for n, r in runs.items()},
                     test="t")
    df = pd.DataFrame({"variant": np.repeat(["a", "b"], 100), "y": rng.normal(size=200)})
    online = rv.online.ab.analyze(df, metrics=["y"], control="a")
    led = Ledger().add("exp1", offline=cmp, online=online, treatment="b", control="a")
    pair = cmp.pair("ndcg@10", "b", "a")
    off = led.wide("offline", "ndcg@10").loc["exp1"]
    assert off["delta"] == pytest.approx(pair["diff"])
    assert off["se"] == pytest.approx((pair["ci_high"] - pair["ci_low"]) / (2 * 1.959963984540054))
    assert led.wide("online", "y").loc["exp1", "delta"] == pytest.approx(online.rows[0]["effect"])
    arrow = importlib.util.find_spec("pyarrow") is not None
    for ext in ("csv", "json", "parquet") if arrow else ("csv", "json"):
        path = str(tmp_path / f"ledger.{ext}")
        led.save(path)
        back = Ledger.load(path)
        pd.testing.assert_frame_equal(back.to_frame(), led.to_frame(), check_dtype=False)
    with pytest.raises(InputError, match="already in the ledger"):
        led.add("exp1", offline={"m": (1, 1)}, online={"k": (1, 1)})
    with pytest.raises(InputError, match="at least 3"):
        agreement(led)
