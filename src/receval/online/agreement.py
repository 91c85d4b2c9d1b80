"""How well each offline metric predicts the online result, over a ledger of past experiments.

Per offline metric ``m`` and the ``E`` experiments with both effects (``x_e`` offline,
``y_e`` online, standard errors ``sx_e``, ``sy_e``):

- sign agreement ``A = (1/E) sum 1{sign x_e = sign y_e}`` with a Wilson interval (Wilson 1927)
  and a one-sided binomial test against 1/2; also over the online-significant experiments only
  (directionality: Dmitriev & Wu, "Measuring metrics", CIKM 2016);
- Kendall tau-b and Spearman rho (scipy), the exact permutation p-value of tau for ``E <= 8``,
  and percentile bootstrap intervals over experiments (with ``measurement_error``, each resample
  also perturbs every effect by ``N(0, se^2)``, so the interval carries the noise of the points);
- reliability ``R = 1 - mean(se^2) / Var(delta)`` of each side and the attenuation-corrected
  Pearson correlation ``r / sqrt(R_off R_on)`` (Spearman 1904; a diagnostic, capped at 1);
- a noise-aware slope ``y = a + b x`` by York's errors-in-both-variables regression (York,
  Evensen, Martinez & Delgado, Am. J. Phys. 72, 2004; Deming regression when the error ratio is
  constant), with a bootstrap interval and a prediction interval at ``predict_at``;
- AUC of ``x`` for "online effect > 0" (Mann-Whitney);
- sensitivity: the share of experiments significant offline (``|x| > z se``) and online.

Rows are ranked by tau-b; ``tau_diff_best`` is each metric's tau minus the best metric's tau,
with a paired bootstrap p-value over the same resamples and ``correction`` across metrics.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
from scipy import stats

from ..errors import InputError, plain
from ..stats.corrections import adjust, check_correction
from ..validation import (
    FINITE,
    POSITIVE_INT,
    PROBABILITY_OPEN,
    Boolean,
    InstanceOf,
    Interval,
    validate_params,
)
from ._params import CORRECTION, RNG
from ._results import OnlineResult
from .ledger import Ledger


@validate_params({"k": [Interval(Integral, 0, None)], "n": [Interval(Integral, 0, None)],
                  "confidence": PROBABILITY_OPEN})
def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` trials (NaN for ``n = 0``)."""
    if k > n:
        raise InputError(f"wilson: k={k} successes exceed n={n} trials.")
    if n == 0:
        return math.nan, math.nan
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return c - h, c + h


def _tau_b_rows(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Kendall tau-b of every row pair of (B x E) arrays."""
    i, j = np.triu_indices(X.shape[1], 1)
    dx = np.sign(X[:, i] - X[:, j])
    dy = np.sign(Y[:, i] - Y[:, j])
    s = (dx * dy).sum(axis=1)
    den = np.sqrt((dx != 0).sum(axis=1) * (dy != 0).sum(axis=1).astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, s / np.where(den > 0, den, 1), np.nan)


def _spearman_rows(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    rx = stats.rankdata(X, axis=1)
    ry = stats.rankdata(Y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def exact_tau_pvalue(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided permutation p-value of tau-b over all ``E!`` orderings of ``y``."""
    perms = np.array(list(itertools.permutations(range(y.size))))
    taus = _tau_b_rows(np.broadcast_to(x, perms.shape), y[perms])
    obs = _tau_b_rows(x[None], y[None])[0]
    return float(np.mean(np.abs(taus) >= abs(obs) - 1e-12))


def york_rows(X: np.ndarray, Y: np.ndarray, SX: np.ndarray, SY: np.ndarray,
              n_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """York (2004) slopes and intercepts for every row of (B x E) arrays, with per-point
    uncorrelated errors ``SX``, ``SY``; ordinary least squares where every error is zero."""
    X, Y = np.atleast_2d(X).astype(float), np.atleast_2d(Y).astype(float)
    SX = np.broadcast_to(np.nan_to_num(np.atleast_2d(SX)), X.shape)
    SY = np.broadcast_to(np.nan_to_num(np.atleast_2d(SY)), X.shape)
    xc = X - X.mean(axis=1, keepdims=True)
    vx = (xc * xc).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        b = (xc * (Y - Y.mean(axis=1, keepdims=True))).sum(axis=1) / vx
        ols = (SX.sum(axis=1) == 0) & (SY.sum(axis=1) == 0)
        for _ in range(n_iter):
            Wt = 1.0 / np.maximum(SY ** 2 + b[:, None] ** 2 * SX ** 2, 1e-300)
            xb = (Wt * X).sum(axis=1, keepdims=True) / Wt.sum(axis=1, keepdims=True)
            yb = (Wt * Y).sum(axis=1, keepdims=True) / Wt.sum(axis=1, keepdims=True)
            U, V = X - xb, Y - yb
            beta = Wt * (U * SY ** 2 + b[:, None] * V * SX ** 2)
            nb = (Wt * beta * V).sum(axis=1) / (Wt * beta * U).sum(axis=1)
            nb = np.where(ols | ~np.isfinite(nb), b, nb)
            done = np.all((np.abs(nb - b) <= 1e-13 * np.maximum(1.0, np.abs(b))) | ~np.isfinite(b))
            b = nb
            if done:
                break
        Wt = 1.0 / np.maximum(SY ** 2 + b[:, None] ** 2 * SX ** 2, 1e-300)
        xb = (Wt * X).sum(axis=1) / Wt.sum(axis=1)
        yb = (Wt * Y).sum(axis=1) / Wt.sum(axis=1)
    return b, yb - b * xb


def york(x: np.ndarray, y: np.ndarray, sx: np.ndarray, sy: np.ndarray,
         n_iter: int = 100) -> tuple[float, float]:
    """York slope and intercept of one set of points (see :func:`york_rows`)."""
    b, a = york_rows(x[None], y[None], sx[None], sy[None], n_iter)
    return float(b[0]), float(a[0])


def auc(score: np.ndarray, positive: np.ndarray) -> float:
    """P(score of a positive > score of a negative), ties count 1/2."""
    pos, neg = score[positive], score[~positive]
    if pos.size == 0 or neg.size == 0:
        return math.nan
    d = pos[:, None] - neg[None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


def _reliability(d: np.ndarray, se: np.ndarray) -> float:
    v = float(np.var(d, ddof=1)) if d.size > 1 else math.nan
    if not np.isfinite(se).all() or not v > 0:
        return math.nan
    return 1 - float(np.mean(se ** 2)) / v


@validate_params({
    "alpha": PROBABILITY_OPEN,
    "confidence": PROBABILITY_OPEN,
    "n_resamples": POSITIVE_INT,
    "measurement_error": [Boolean()],
    "predict_at": [None, *FINITE],
    "online_metric": [None, InstanceOf(str)],
    "correction": CORRECTION,
    "rng": RNG,
})
def agreement(ledger: Ledger, *, offline_metrics: Sequence[str] | None = None,
              online_metric: str | None = None, alpha: float = 0.05, confidence: float = 0.95,
              n_resamples: int = 2000, measurement_error: bool = True,
              predict_at: float | None = None, correction: str = "holm",
              rng: int | None = 0) -> OnlineResult:
    """Agreement of each offline metric with ``online_metric`` (see the module docstring).

    The ledger is checked as :meth:`Ledger.from_frame` checks a loaded one (each experiment,
    side and metric once, standard errors >= 0); experiments without both effects are counted
    in ``counts["experiments_skipped"]``.
    """
    correction = check_correction(correction)
    if not isinstance(ledger, Ledger):
        raise InputError(f"agreement needs a Ledger; got {type(ledger).__name__} (use "
                         "Ledger.from_frame for a table).")
    ledger = Ledger.from_frame(ledger.to_frame())
    if isinstance(offline_metrics, str):
        offline_metrics = [offline_metrics]
    online = ledger.metrics("online")
    if online_metric is None:
        if len(online) != 1:
            raise InputError(f"the ledger has online metrics {online}; choose one with "
                             "online_metric=.")
        online_metric = online[0]
    if online_metric not in online:
        raise InputError(f"online_metric={plain(online_metric)} is not in the ledger; it has {online}.")
    offs = list(offline_metrics) if offline_metrics else ledger.metrics("offline")
    on = ledger.wide("online", online_metric)
    z = float(stats.norm.ppf(1 - alpha / 2))
    g = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    rows: list[dict[str, Any]] = []
    boots: dict[str, np.ndarray] = {}
    idx_cache: dict[int, np.ndarray] = {}
    skipped: dict[str, int] = {}
    for m in offs:
        if m not in ledger.metrics("offline"):
            raise InputError(f"offline metric {plain(m)} is not in the ledger; it has "
                             f"{ledger.metrics('offline')}.")
        off = ledger.wide("offline", m)
        common = [e for e in off.index if e in on.index]
        both = off.loc[common].add_suffix("_off").join(on.loc[common].add_suffix("_on"))
        ok = np.isfinite(both["delta_off"]) & np.isfinite(both["delta_on"])
        skipped[m] = int(len(off) - ok.sum())
        both = both[ok]
        E = len(both)
        if E < 3:
            raise InputError(f"offline metric {plain(m)} has {E} experiment(s) with both effects; "
                             "agreement needs at least 3.")
        x, y = both["delta_off"].to_numpy(), both["delta_on"].to_numpy()
        sx, sy = both["se_off"].to_numpy(), both["se_on"].to_numpy()
        agree = np.sign(x) == np.sign(y)
        k = int(agree.sum())
        sig = np.abs(y) > z * sy if np.isfinite(sy).all() else both["p_value_on"].to_numpy() < alpha
        ks, ns = int(agree[sig].sum()), int(sig.sum())
        tau = stats.kendalltau(x, y)
        rho = stats.spearmanr(x, y)
        if E not in idx_cache:
            idx_cache[E] = g.integers(0, E, size=(n_resamples, E))
        idx = idx_cache[E]
        Xb, Yb = x[idx], y[idx]
        if measurement_error:
            Xb = Xb + g.normal(size=Xb.shape) * np.nan_to_num(sx)[idx]
            Yb = Yb + g.normal(size=Yb.shape) * np.nan_to_num(sy)[idx]
        tb, rb = _tau_b_rows(Xb, Yb), _spearman_rows(Xb, Yb)
        boots[m] = tb
        q = [0.5 - confidence / 2, 0.5 + confidence / 2]
        slope, icpt = york(x, y, sx, sy)
        sl_b = york_rows(Xb, Yb, sx[idx], sy[idx])[0]
        resid = y - icpt - slope * x
        rsd = math.sqrt(float((resid ** 2).sum()) / (E - 2)) if E > 2 else math.nan
        r_on, r_off = _reliability(y, sy), _reliability(x, sx)
        pear = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else math.nan
        corr = pear / math.sqrt(r_on * r_off) if r_on > 0 and r_off > 0 else math.nan
        row = {"metric": m, "experiments": E, "sign_agreement": k / E,
               "sign_ci_low": wilson(k, E, confidence)[0], "sign_ci_high": wilson(k, E, confidence)[1],
               "sign_p": float(stats.binomtest(k, E, 0.5, alternative="greater").pvalue),
               "significant_online": ns, "sign_agreement_significant": ks / ns if ns else math.nan,
               "kendall_tau": float(tau.statistic), "kendall_p": float(tau.pvalue),
               "kendall_p_exact": exact_tau_pvalue(x, y) if E <= 8 else math.nan,
               "tau_ci_low": float(np.nanquantile(tb, q[0])), "tau_ci_high": float(np.nanquantile(tb, q[1])),
               "spearman_rho": float(rho.statistic), "spearman_p": float(rho.pvalue),
               "rho_ci_low": float(np.nanquantile(rb, q[0])), "rho_ci_high": float(np.nanquantile(rb, q[1])),
               "pearson_r": pear, "reliability_offline": r_off, "reliability_online": r_on,
               "r_corrected": min(corr, 1.0) if np.isfinite(corr) else math.nan,
               "slope": slope, "intercept": icpt,
               "slope_ci_low": float(np.nanquantile(sl_b, q[0])),
               "slope_ci_high": float(np.nanquantile(sl_b, q[1])), "residual_sd": rsd,
               "auc_online_win": auc(x, y > 0),
               "sensitivity_offline": float(np.mean(np.abs(x) > z * sx)) if np.isfinite(sx).all()
               else math.nan,
               "sensitivity_online": float(np.mean(sig))}
        if predict_at is not None:
            t = float(stats.t.ppf(0.5 + confidence / 2, E - 2))
            xc = x - x.mean()
            lev = 1 + 1 / E + (predict_at - x.mean()) ** 2 / float((xc * xc).sum())
            pred = icpt + slope * predict_at
            row.update(predict_at=predict_at, prediction=pred,
                       prediction_low=pred - t * rsd * math.sqrt(lev),
                       prediction_high=pred + t * rsd * math.sqrt(lev))
        rows.append(row)
    rows.sort(key=lambda r: -r["kendall_tau"] if np.isfinite(r["kendall_tau"]) else math.inf)
    best = rows[0]["metric"]
    ps = []
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
        if boots[r["metric"]].shape == boots[best].shape and r["metric"] != best:
            d = boots[r["metric"]] - boots[best]
            r["tau_diff_best"] = r["kendall_tau"] - rows[0]["kendall_tau"]
            p = 2 * min(float(np.nanmean(d >= 0)), float(np.nanmean(d <= 0)))
            r["tau_diff_p"] = min(1.0, p)
        else:
            r["tau_diff_best"] = 0.0 if r["metric"] == best else math.nan
            r["tau_diff_p"] = math.nan
        ps.append(r["tau_diff_p"])
    for r, qv in zip(rows, adjust(ps, correction), strict=True):
        r["tau_diff_p_adjusted"] = float(qv)
    points = {}
    for m in offs:
        off = ledger.wide("offline", m)
        common = [e for e in off.index if e in on.index]
        points[m] = {"experiment": common, "x": off.loc[common, "delta"].tolist(),
                     "sx": off.loc[common, "se"].tolist(), "y": on.loc[common, "delta"].tolist(),
                     "sy": on.loc[common, "se"].tolist()}
    return OnlineResult(
        kind="agreement", rows=rows, summary={r["metric"]: r["kendall_tau"] for r in rows},
        counts={"experiments": len(ledger.experiments), "offline_metrics": len(offs),
                "experiments_skipped": skipped},
        diagnostics={"points": points, "best_metric": best, "warnings": []},
        provenance={"online_metric": online_metric, "alpha": alpha, "confidence": confidence,
                    "n_resamples": n_resamples, "measurement_error": measurement_error,
                    "correction": correction,
                    "seed": None if isinstance(rng, np.random.Generator) else rng},
        title=f"Offline-online agreement ({online_metric})")
