"""Overlap diagnostics between a logging policy and a target policy, run before any estimate.

With importance weights ``w_i = pi_e(a_i | x_i) / pi_b(a_i | x_i)`` on the logged rows:
``mean w`` estimates the target's mass on the logging support (about 1 under full overlap; a
mean clearly below 1 means the target chooses actions the logger never shows, so every IPS-family
estimate is biased), ``ESS = (sum w)^2 / sum w^2`` (Kish 1965; Owen, *Monte Carlo theory*, 2013,
ch. 9), the share of deterministic logging (``p = 1``: no exploration), the smallest
propensity, the largest weight and weight quantiles.
"""

from __future__ import annotations

import math

import numpy as np

from ._results import OnlineResult


def weight_stats(w: np.ndarray, p: np.ndarray, unit: np.ndarray, n_units: int,
                 cap: float = 10.0, shift: float = 0.0) -> dict[str, float]:
    """Overlap numbers of one weight vector (``unit``: cluster code per row), the weights given
    as ``w e^-shift`` (see :mod:`receval.online.estimate`: tiny propensities)."""
    if shift > 0:
        st = weight_stats(w, p, unit, n_units, cap * math.exp(-shift))
        with np.errstate(over="ignore"):
            k = float(np.exp(shift))
        for key in ("mean_weight", "mean_weight_se", "max_weight", "w_p50", "w_p90", "w_p99"):
            st[key] *= k
        return st
    n = w.size
    s, s2 = float(w.sum()), float((w * w).sum())
    per_u = np.bincount(unit, weights=w, minlength=n_units)
    cnt = np.bincount(unit, minlength=n_units).astype(np.float64)
    mw = s / n if n else math.nan
    infl = per_u - mw * cnt
    se = math.sqrt(n_units / max(n_units - 1, 1) * float((infl ** 2).sum())) / n if n else math.nan
    q = np.quantile(w, [0.5, 0.9, 0.99]) if n else [math.nan] * 3
    return {"rows": n, "mean_weight": mw, "mean_weight_se": se,
            "ess": s * s / s2 if s2 > 0 else 0.0, "ess_share": (s * s / s2) / n if s2 > 0 else 0.0,
            "max_weight": float(w.max()) if n else math.nan,
            "w_p50": float(q[0]), "w_p90": float(q[1]), "w_p99": float(q[2]),
            "share_zero_weight": float((w == 0).mean()) if n else math.nan,
            "share_above_cap": float((w > cap).mean()) if n else math.nan,
            "min_propensity": float(p.min()) if n else math.nan,
            "share_deterministic_logging": float((p >= 1 - 1e-12).mean()) if n else math.nan}


def overlap_result(stats_by_kind: dict[str, dict[str, float]], counts: dict,
                   cap: float) -> OnlineResult:
    rows, warn = [], []
    for kind, st in stats_by_kind.items():
        rows.append({"weights": kind, **st})
        if st["share_deterministic_logging"] == 1.0:
            warn.append(f"{kind}: every logged propensity is 1 (deterministic logging): no "
                        "off-policy estimate is possible from this log.")
        elif st["share_deterministic_logging"] > 0.5:
            warn.append(f"{kind}: {st['share_deterministic_logging']:.0%} of rows were logged "
                        "deterministically (p = 1); only the rest carry information.")
        if st["mean_weight"] + 3 * st["mean_weight_se"] < 1:
            warn.append(f"{kind}: mean weight {st['mean_weight']:.3g} is clearly below 1: the "
                        "target puts mass on actions the logger never shows (support violation); "
                        "IPS-type estimates are biased downwards.")
        if st["ess_share"] < 0.01:
            warn.append(f"{kind}: effective sample size {st['ess']:.1f} is under 1% of the "
                        f"{st['rows']} rows; estimates will be very noisy.")
    return OnlineResult(kind="overlap", rows=rows,
                        summary={f"ess:{r['weights']}": r["ess"] for r in rows},
                        counts=counts, diagnostics={"warnings": warn},
                        provenance={"cap": cap}, title="Overlap of logging and target policies")
