"""Confidence intervals of a mean: Student t and bootstrap (percentile, BCa).

One definition, used by :meth:`receval.EvalResult.confidence_intervals` (the mean of a metric
over users) and by :mod:`receval.stats` (the mean of paired differences). Columns of ``x``
(shape ``(n,)`` or ``(n, P)``) are independent samples; results have shape ``(P,)`` (floats for
1-d input).

- ``t``: ``mean +- t_{1-a/2, n-1} sd / sqrt(n)`` with ``sd`` the sample standard deviation and
  ``a = 1 - level`` (scipy ``stats.t.interval(level, n - 1, loc=mean, scale=sd / sqrt(n))``).
- ``percentile``: the ``a/2`` and ``1 - a/2`` quantiles (linear interpolation) of the bootstrap
  means ``m*_b`` (``B`` resamples of the ``n`` users with replacement); Efron & Tibshirani
  (1993), ch. 13.
- ``bca``: bias-corrected and accelerated percentile interval (Efron 1987; Efron & Tibshirani
  1993, ch. 14): quantiles ``Phi(z0 + (z0 + z_q) / (1 - acc (z0 + z_q)))`` for ``q = a/2,
  1 - a/2`` with ``z0 = Phi^-1(#{m*_b < mean} / B)`` and the jackknife acceleration of the
  mean ``acc = sum (x_i - mean)^3 / (6 (sum (x_i - mean)^2)^(3/2))`` (as scipy
  ``stats.bootstrap(method="BCa")``).

One-sided intervals (``side="greater"``: ``[low, inf)``, ``"less"``: ``(-inf, high]``) put the
whole ``a`` in one tail, as scipy's ``ttest_rel(...).confidence_interval()`` does.

The bootstrap draws depend only on the seed and ``n`` (:func:`resample_counts`), so every
column, and every metric with the same users, uses the same resamples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special
from scipy import stats as sps

from ..errors import InputError, PolicyError, suggest

CI_METHODS = ("t", "percentile", "bca")
SIDES = ("two-sided", "greater", "less")

#: Random rows drawn per block in the resampling procedures: at most this many, and at most
#: ``BLOCK_CELLS // n`` so that memory stays bounded for many users. The block size depends only
#: on ``n``, so the random matrices are a function of (seed, n) alone.
BLOCK_ROWS = 512
BLOCK_CELLS = 1 << 22


def block_rows(n: int) -> int:
    return max(1, min(BLOCK_ROWS, BLOCK_CELLS // max(int(n), 1)))


def generator(seed: int | None, stream: int) -> np.random.Generator:
    """The random stream ``stream`` of ``seed`` (fresh entropy when ``seed`` is None)."""
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream,)))


def resample_counts(n: int, n_resamples: int, seed: int | None):
    """Yield blocks of bootstrap count rows (how often each user is drawn), from ``(seed, n)``."""
    gen = generator(seed, 1)
    left = n_resamples
    rows = block_rows(n)
    while left > 0:
        b = min(rows, left)
        idx = gen.integers(0, n, size=(b, n))
        idx += (np.arange(b) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        left -= b


def bootstrap_means(x: np.ndarray, n_resamples: int, seed: int | None) -> np.ndarray:
    """``(B, P)`` means of ``B`` bootstrap resamples of the rows of ``x`` (``(n, P)``)."""
    n = x.shape[0]
    return np.concatenate([w @ x for w in resample_counts(n, int(n_resamples), seed)]) / n


def check_level(level: float) -> float:
    try:
        value = float(level)
    except (TypeError, ValueError):
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise PolicyError(f"the confidence level must lie in (0, 1), got {level!r}; "
                          "e.g. 0.95 for a 95% interval.")
    return value


def check_side(side: str) -> str:
    if side not in SIDES:
        raise PolicyError(f"alternative={side!r} is not valid; choose one of {list(SIDES)}."
                          + suggest(str(side), SIDES))
    return side


def _tails(level: float, side: str) -> tuple[float, float]:
    """Lower and upper quantile levels of the interval (0 / 1 for an open side)."""
    a = 1.0 - level
    if side == "greater":
        return a, 1.0
    if side == "less":
        return 0.0, 1.0 - a
    return a / 2.0, 1.0 - a / 2.0


def _as_2d(x: Any) -> tuple[np.ndarray, bool]:
    arr = np.asarray(x, dtype=np.float64)
    one = arr.ndim == 1
    if one:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"values must be 1-d (users) or 2-d (users x columns), got shape "
                         f"{arr.shape}.")
    if not np.isfinite(arr).all():
        raise InputError("values contain NaN or inf; drop users without a value first.")
    return np.asfortranarray(arr), one


def _out(x: np.ndarray, one: bool) -> Any:
    return float(x[0]) if one else x


def t_bounds(mean: Any, se: Any, n: int, *, level: float = 0.95,
             side: str = "two-sided") -> tuple[Any, Any]:
    """Student-t bounds ``mean +- t_q(n - 1) se`` from a mean and its standard error."""
    lo_q, hi_q = _tails(check_level(level), check_side(side))
    mean = np.asarray(mean, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    df = n - 1
    lo = mean + sps.t.ppf(lo_q, df) * se if lo_q > 0 else np.full_like(mean, -np.inf)
    hi = mean + sps.t.ppf(hi_q, df) * se if hi_q < 1 else np.full_like(mean, np.inf)
    return lo, hi


def t_interval(x: Any, *, level: float = 0.95, side: str = "two-sided") -> tuple[Any, Any]:
    """Student-t confidence interval of ``mean(x)`` per column (needs n >= 2)."""
    arr, one = _as_2d(x)
    n = arr.shape[0]
    if n < 2:
        raise InputError(f"a t interval needs at least 2 values, got {n}.")
    se = arr.std(axis=0, ddof=1) / np.sqrt(n)
    lo, hi = t_bounds(arr.mean(axis=0), se, n, level=level, side=side)
    return _out(lo, one), _out(hi, one)


def bootstrap_interval(x: Any, *, level: float = 0.95, method: str = "percentile",
                       side: str = "two-sided", n_resamples: int = 10000,
                       seed: int | None = 0, means: np.ndarray | None = None
                       ) -> tuple[Any, Any]:
    """Bootstrap confidence interval of ``mean(x)`` per column: ``percentile`` or ``bca``.

    ``means``: bootstrap means already drawn for ``x`` (``(B, P)``), to reuse them.
    """
    if method not in ("percentile", "bca"):
        raise PolicyError(f"method={method!r} is not valid for a bootstrap interval; choose "
                          "'percentile' or 'bca'." + suggest(str(method), ("percentile", "bca")))
    if int(n_resamples) < 1:
        raise PolicyError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    lo_q, hi_q = _tails(check_level(level), check_side(side))
    arr, one = _as_2d(x)
    n, P = arr.shape
    if n < 1:
        raise InputError("a bootstrap interval needs at least 1 value, got 0.")
    if means is None:
        means = bootstrap_means(arr, n_resamples, seed)
    obs = arr.mean(axis=0)
    qs = np.array([lo_q, hi_q])
    if method == "percentile":
        q = np.broadcast_to(qs[:, None], (2, P))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            z0 = special.ndtri((means < obs).mean(axis=0))
            dev = arr - obs
            s2 = (dev**2).sum(axis=0)
            acc = np.where(s2 > 0, (dev**3).sum(axis=0) / (6.0 * s2**1.5), 0.0)
            zq = special.ndtri(qs)[:, None]
            q = special.ndtr(z0 + (z0 + zq) / (1.0 - acc * (z0 + zq)))
        # a constant bootstrap distribution (every user equal) has no bias correction: the
        # interval is that constant, as for the percentile method
        q = np.where(np.isfinite(q), q, qs[:, None])
    lo = np.array([np.quantile(means[:, j], q[0, j]) for j in range(P)]) if lo_q > 0 \
        else np.full(P, -np.inf)
    hi = np.array([np.quantile(means[:, j], q[1, j]) for j in range(P)]) if hi_q < 1 \
        else np.full(P, np.inf)
    return _out(lo, one), _out(hi, one)
