"""Always-valid inference by the mixture sequential probability ratio test (mSPRT).

For i.i.d. observations with variance ``sigma2`` (two-sample: per-pair differences
treatment - control, ``sigma2 = var_T + var_C``), after ``n`` observations with mean ``xbar``
and a normal mixing distribution ``N(theta0, tau2)`` over the effect:

    Lambda_n = sqrt(sigma2 / (sigma2 + n tau2)) * exp(n^2 tau2 (xbar - theta0)^2 / (2 sigma2 (sigma2 + n tau2)))

The always-valid p-value is ``p_n = min(p_{n-1}, 1 / Lambda_n)``, ``p_0 = 1``; rejecting when
``p_n <= alpha`` keeps the type-I error at ``alpha`` however often one looks (Ville's
inequality). The confidence sequence is the set of ``theta`` with ``Lambda_n(theta) < 1/alpha``:

    xbar +- sqrt(2 sigma2 (sigma2 + n tau2) / (n^2 tau2) * (log(1/alpha) + log(1 + n tau2 / sigma2) / 2)),

intersected over looks. References: Johari, Koomen, Pekelis & Walsh, "Peeking at A/B tests",
KDD 2017; Johari, Pekelis & Walsh, "Always valid inference", Operations Research 70(3), 2022.
``tau2`` is a tuning choice (report it): a value near the squared effect one hopes to detect works well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, plain
from ..validation import FINITE, PROBABILITY_OPEN, Interval, Real, validate_params
from ._results import OnlineResult


def _finite(values: Any, name: str) -> np.ndarray:
    """A non-empty 1-d array of finite floats (every look is checked: a NaN look raises)."""
    try:
        x = np.asarray(values, dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise InputError(f"msprt: {name} must be numbers ({exc}).") from None
    if x.ndim > 1:
        raise InputError(f"msprt: {name} must be one value per look; got shape {x.shape}.")
    x = x.ravel()
    if x.size == 0:
        raise InputError(f"msprt: {name} is empty; give at least one look.")
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"msprt: {name} has {int(bad.sum())} NaN/inf look(s) (first at look "
                         f"{i + 1}: {plain(x[i])}); drop or fill them first.")
    return x


@validate_params({
    "sigma2": [Interval(Real, 0, None, closed="neither")],
    "tau2": [Interval(Real, 0, None, closed="neither")],
    "theta0": FINITE,
    "alpha": PROBABILITY_OPEN,
})
def msprt(values: Any = None, *, n: Any = None, mean: Any = None, sigma2: float,
          tau2: float, theta0: float = 0.0, alpha: float = 0.05) -> OnlineResult:
    """Lambda, always-valid p-value and confidence sequence after every look.

    Give either ``values`` (the stream; one look per observation) or the cumulative ``n`` and
    ``mean`` at each look (e.g. daily totals). ``units`` of the result hold one row per look:
    ``n, mean, lambda, p_value, ci_low, ci_high, reject``.
    """
    if values is not None:
        x = _finite(values, "values")
        n_arr = np.arange(1, x.size + 1, dtype=np.float64)
        m_arr = np.cumsum(x) / n_arr
    else:
        if n is None or mean is None:
            raise InputError("msprt needs values=... or both n=... and mean=... (cumulative).")
        n_arr, m_arr = _finite(n, "n"), _finite(mean, "mean")
        if n_arr.shape != m_arr.shape:
            raise InputError(f"msprt: n has {n_arr.size} looks but mean has {m_arr.size}; give "
                             "one (n, mean) pair per look.")
        if (n_arr <= 0).any() or (np.diff(n_arr) < 0).any():
            raise InputError("msprt: n must be positive and non-decreasing (cumulative counts); "
                             f"got {plain(n_arr.tolist()) if n_arr.size <= 20 else 'a look that is not'}.")
    v = sigma2 + n_arr * tau2
    log_lam = 0.5 * np.log(sigma2 / v) + n_arr ** 2 * tau2 * (m_arr - theta0) ** 2 / (2 * sigma2 * v)
    lam = np.exp(log_lam)
    p = np.minimum.accumulate(np.minimum(1.0, np.exp(-log_lam)))
    half = np.sqrt(2 * sigma2 * v / (n_arr ** 2 * tau2)
                   * (np.log(1 / alpha) + 0.5 * np.log(v / sigma2)))
    lo = np.maximum.accumulate(m_arr - half)
    hi = np.minimum.accumulate(m_arr + half)
    reject = p <= alpha
    first = int(np.argmax(reject)) if reject.any() else -1
    row = {"test": "msprt", "n": float(n_arr[-1]), "mean": float(m_arr[-1]),
           "lambda": float(lam[-1]), "p_value": float(p[-1]), "ci_low": float(lo[-1]),
           "ci_high": float(hi[-1]), "reject": bool(reject[-1])}
    return OnlineResult(
        kind="msprt", rows=[row],
        summary={"p_value": float(p[-1]), "lambda": float(lam[-1])},
        counts={"looks": int(n_arr.size), "n": float(n_arr[-1]),
                "first_rejection_look": first},
        provenance={"sigma2": sigma2, "tau2": tau2, "theta0": theta0, "alpha": alpha},
        units={"n": n_arr, "mean": m_arr, "lambda": lam, "p_value": p, "ci_low": lo,
               "ci_high": hi, "reject": reject},
        title="mSPRT (always-valid)")
