"""Tukey's honestly significant difference (HSD) test for all pairs of systems.

``X`` holds the per-user values of ``k`` systems (``n`` users x ``k``). For systems i and j::

    q_ij = |mean_i - mean_j| / sqrt(MSE / n),    p_ij = P(Q_{k, df} >= q_ij)

with ``Q`` the studentized range distribution. Two designs (keyword ``design``):

- ``"paired"`` (default): the users are blocks (repeated measures, two-way ANOVA without
  interaction): ``MSE = sum_{u,s} (x_us - mean_u - mean_s + grand)^2 / ((n-1)(k-1))``,
  ``df = (n-1)(k-1)``. Differences between users do not inflate the error.
- ``"independent"``: one-way ANOVA, ``MSE = sum_{u,s} (x_us - mean_s)^2 / (nk - k)``,
  ``df = nk - k`` (scipy ``tukey_hsd``, statsmodels ``pairwise_tukeyhsd``, ranx).

Confidence intervals: ``mean_i - mean_j +- q_{1-alpha, k, df} sqrt(MSE / n)``.
The test controls the family-wise error over all pairs by itself: no further correction.
Reference: Tukey (1949); Sakai (2018), "Laboratory Experiments in Information Retrieval", ch. 4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from ..errors import InputError
from ..validation import PROBABILITY_OPEN, Options, validate_params


@dataclass
class TukeyResult:
    """``statistic[i, j] = mean_i - mean_j``; ``pvalue[i, j]``; CI bounds; ``mse``; ``df``."""

    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    mse: float
    df: int


@validate_params({"design": [Options(("paired", "independent"))], "confidence": PROBABILITY_OPEN})
def tukey_hsd(values: np.ndarray, *, design: str = "paired", confidence: float = 0.95) -> TukeyResult:
    """Tukey HSD over the columns of ``values`` (users x systems, no NaN)."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 2:
        raise InputError(f"tukey_hsd needs users x systems with >= 2 of each, got {x.shape}.")
    if not np.isfinite(x).all():
        raise InputError("tukey_hsd: values contain NaN or inf; drop those users first.")
    n, k = x.shape
    col = x.mean(axis=0)
    if design == "paired":
        resid = x - x.mean(axis=1, keepdims=True) - col[None, :] + x.mean()
        df = (n - 1) * (k - 1)
    else:
        resid = x - col[None, :]
        df = n * k - k
    mse = float((resid**2).sum() / df)
    diff = col[:, None] - col[None, :]
    se = np.sqrt(mse / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / se
    if se == 0:
        p = np.where(diff == 0, 1.0, 0.0)
        half = 0.0
    else:
        p = sps.studentized_range.sf(q, k, df)
        half = float(sps.studentized_range.ppf(confidence, k, df)) * se
    np.fill_diagonal(p, 1.0)
    return TukeyResult(diff, np.minimum(p, 1.0), diff - half, diff + half, mse, int(df))
