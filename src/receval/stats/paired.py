"""Paired tests over per-user values, vectorized over columns (one column = one pair of systems).

Every function takes the per-user differences ``d`` (shape ``(n,)`` or ``(n, P)``, no NaN) of two
systems evaluated on the same ``n`` users and is two-sided. Results are arrays of shape ``(P,)``
(floats for 1-d input).

- :func:`paired_ttest`: ``t = mean(d) / (sd(d) / sqrt(n))`` with ``sd`` the sample standard
  deviation (``ddof=1``), Student t with ``n - 1`` degrees of freedom (scipy ``ttest_rel``).
- :func:`wilcoxon`: signed-rank test, ``W+ = sum_{d_i > 0} rank(|d_i|)``; exact null distribution
  for small samples without ties or zeros, else the normal approximation with tie correction and
  an optional continuity correction (scipy ``wilcoxon``).
- :func:`permutation_test`: Fisher's randomization (sign-flip) test of ``mean(d)``; every column
  uses the SAME random sign matrix, drawn from the seed and ``n`` only, so a pair's p-value does
  not depend on which other systems are compared or in which order.
- :func:`bootstrap`: paired bootstrap of ``mean(d)`` (users resampled with replacement, one shared
  resampling matrix): percentile confidence interval and a two-sided p-value.
- :func:`cohens_d`: ``d_z = mean(d) / sd(d)``, Cohen's d for paired samples.
- :func:`win_tie_loss`: per-user counts of ``d > tol``, ``|d| <= tol``, ``d < -tol``.

References: Smucker, Allan & Carterette (2007), "A comparison of statistical significance tests
for information retrieval evaluation"; Fisher (1935); Efron & Tibshirani (1993).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as sps

from ..errors import InputError, PolicyError, suggest

#: Random rows drawn per block in the resampling procedures: at most this many, and at most
#: ``BLOCK_CELLS // n`` so that memory stays bounded for many users. The block size depends only
#: on ``n``, so the random matrices are a function of (seed, n) alone.
BLOCK_ROWS = 512
BLOCK_CELLS = 1 << 22


def block_rows(n: int) -> int:
    return max(1, min(BLOCK_ROWS, BLOCK_CELLS // max(int(n), 1)))


@dataclass
class TestResult:
    """Statistic and two-sided p-value per column (plus test-specific extras)."""

    statistic: Any
    pvalue: Any
    extra: dict[str, Any] = field(default_factory=dict)

    __test__ = False  # not a pytest class


def _as_2d(d: Any, name: str = "d") -> tuple[np.ndarray, bool]:
    arr = np.asarray(d, dtype=np.float64)
    one = arr.ndim == 1
    if one:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name} must be 1-d (users) or 2-d (users x pairs), got shape {arr.shape}.")
    if not np.isfinite(arr).all():
        raise InputError(
            f"{name} contains NaN or inf; drop users without a value first "
            "(compare() does this per metric)."
        )
    # column-major: every column is reduced exactly as it would be alone (same summation order)
    return np.asfortranarray(arr), one


def _out(x: np.ndarray, one: bool) -> Any:
    return float(x[0]) if one else x


def seed_from(rng: Any) -> int | None:
    """An integer seed from ``rng`` (int, None, or a numpy Generator: one draw)."""
    if rng is None or isinstance(rng, (int, np.integer)):
        return None if rng is None else int(rng)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    raise PolicyError(f"rng must be an int seed, None or a numpy Generator, got {rng!r}.")


def _generator(seed: int | None, stream: int) -> np.random.Generator:
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream,)))


# ---- t-test ------------------------------------------------------------------------------
def paired_ttest(d: Any) -> TestResult:
    """Paired t-test on differences ``d``.

    ``t = mean(d) / (sd(d) / sqrt(n))``, p from Student t with ``n - 1`` df. When every
    difference is equal (``sd = 0``): p = 1 if they are all 0, else 0 (scipy returns NaN).

    Example: ``d = [1, 2, 3]``: mean 2, sd 1, ``t = 2 / (1 / sqrt(3)) = 2 sqrt(3)``.
    """
    arr, one = _as_2d(d)
    n = arr.shape[0]
    if n < 2:
        raise InputError(f"the paired t-test needs at least 2 users, got {n}.")
    mean = arr.mean(axis=0)
    sd = arr.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    p = 2.0 * sps.t.sf(np.abs(t), n - 1)
    const = sd == 0
    p = np.where(const, np.where(mean == 0, 1.0, 0.0), p)
    t = np.where(const & (mean == 0), 0.0, t)
    return TestResult(_out(t, one), _out(p, one), {"df": n - 1})


# ---- Wilcoxon ----------------------------------------------------------------------------
_ZERO_METHODS = ("wilcox", "pratt", "zsplit")
_WILCOXON_METHODS = ("auto", "exact", "approx")
EXACT_MAX_N = 50


def _signed_rank_counts(n: int) -> np.ndarray:
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (float64, exact for n <= 50)."""
    total = n * (n + 1) // 2
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for i in range(1, n + 1):
        counts[i:] = counts[i:] + counts[:-i].copy()
    return counts


def wilcoxon(d: Any, *, zero_method: str = "wilcox", correction: bool = False,
             method: str = "auto") -> TestResult:
    """Wilcoxon signed-rank test on differences ``d`` (two-sided).

    ``W+ = sum_{d_i > 0} r_i`` with ``r_i`` the average rank of ``|d_i|``; the statistic reported
    is ``min(W+, W-)``.

    - ``zero_method``: ``"wilcox"`` (default) drops zero differences; ``"pratt"`` ranks them and
      drops their ranks; ``"zsplit"`` splits their ranks between ``W+`` and ``W-``.
    - ``method``: ``"exact"`` (null distribution of ``W+`` by counting sign patterns; only
      without ties and zeros, n <= 50), ``"approx"`` (normal approximation,
      ``z = (W+ - mu) / sigma`` with ``mu = n(n+1)/4``,
      ``sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48`` over tie groups), ``"auto"`` (default:
      exact when allowed, else approx). scipy's ``method="auto"`` uses a permutation test for
      n <= 13 with ties; receval uses the normal approximation there.
    - ``correction``: continuity correction of 0.5 in the approximation (default False, as scipy).

    Example: ``d = [1, 2, -3]``: ranks 1, 2, 3, ``W+ = 3``, ``W- = 3``, exact p = 1.
    """
    if zero_method not in _ZERO_METHODS:
        raise PolicyError(f"zero_method={zero_method!r} is not valid; choose one of "
                          f"{list(_ZERO_METHODS)}." + suggest(str(zero_method), _ZERO_METHODS))
    if method not in _WILCOXON_METHODS:
        raise PolicyError(f"method={method!r} is not valid; choose one of "
                          f"{list(_WILCOXON_METHODS)}." + suggest(str(method), _WILCOXON_METHODS))
    arr, one = _as_2d(d)
    P = arr.shape[1]
    stat = np.empty(P)
    pval = np.empty(P)
    used = np.empty(P, dtype=object)
    for j in range(P):  # loop over pairs of systems (a handful), not over users
        stat[j], pval[j], used[j] = _wilcoxon_one(arr[:, j], zero_method, correction, method)
    return TestResult(_out(stat, one), _out(pval, one),
                      {"method": used[0] if one else used.tolist()})


def _wilcoxon_one(d: np.ndarray, zero_method: str, correction: bool,
                  method: str) -> tuple[float, float, str]:
    zeros = d == 0
    n_zero = int(zeros.sum())
    x = d[~zeros] if zero_method == "wilcox" else d
    count = x.size
    if count == 0:
        return 0.0, 1.0, "approx"
    absx = np.abs(x)
    ranks = sps.rankdata(absx)
    r_plus = float(ranks[x > 0].sum())
    r_minus = float(ranks[x < 0].sum())
    if zero_method == "zsplit":
        half = float(ranks[x == 0].sum()) / 2.0
        r_plus += half
        r_minus += half
    _, tie_counts = np.unique(absx, return_counts=True)
    has_ties = bool((tie_counts > 1).any())
    statistic = min(r_plus, r_minus)
    exact_ok = not has_ties and n_zero == 0 and count <= EXACT_MAX_N
    if method == "exact" and not exact_ok:
        raise PolicyError(
            f"wilcoxon(method='exact') needs no ties, no zero differences and at most "
            f"{EXACT_MAX_N} users; got n={count}, ties={has_ties}, zeros={n_zero}. "
            "Use method='approx' or 'auto'."
        )
    if method == "exact" or (method == "auto" and exact_ok):
        counts = _signed_rank_counts(count)
        pmf = counts / counts.sum()
        k = int(round(r_plus))
        p = min(1.0, 2.0 * min(pmf[k:].sum(), pmf[: k + 1].sum()))
        return statistic, float(p), "exact"
    mn = count * (count + 1) / 4.0
    var = count * (count + 1) * (2.0 * count + 1)
    t = tie_counts.astype(np.float64)
    if zero_method == "pratt":
        mn -= n_zero * (n_zero + 1) / 4.0
        var -= n_zero * (n_zero + 1) * (2.0 * n_zero + 1)
        if n_zero:
            t = t[1:]  # the zero group (smallest |d|) is not a tie group here
    var = (var - np.sum(t**3 - t) / 2.0) / 24.0
    se = np.sqrt(var)
    if se == 0:
        return statistic, 1.0, "approx"
    z = (r_plus - mn) / se
    if correction:
        z -= np.sign(z) * 0.5 / se
    p = float(min(1.0, 2.0 * special.ndtr(-abs(z))))
    return statistic, p, "approx"


# ---- permutation (sign-flip) test --------------------------------------------------------
def sign_blocks(n: int, n_resamples: int, seed: int | None):
    """Yield blocks of random +-1 rows (float64), drawn from ``(seed, n)`` only."""
    gen = _generator(seed, 0)
    left = n_resamples
    rows = block_rows(n)
    while left > 0:
        b = min(rows, left)
        bits = gen.integers(0, 2, size=(b, n), dtype=np.int8)
        yield 1.0 - 2.0 * bits
        left -= b


def _all_signs(n: int) -> np.ndarray:
    codes = np.arange(2**n, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(n, dtype=np.int64)[None, :]) & 1
    return 1.0 - 2.0 * bits


def permutation_test(d: Any, *, n_resamples: int = 10000, rng: Any = 0,
                     exact: str = "auto") -> TestResult:
    """Fisher's randomization test (sign flips) of the mean difference, two-sided.

    Under H0 each user's difference is as likely to be ``+d_i`` as ``-d_i``. With sign rows
    ``s`` (uniform on {-1, +1}^n): ``p = (1 + #{|s . d| >= |sum d|}) / (B + 1)`` for ``B`` random
    rows, or ``#{|s . d| >= |sum d|} / 2^n`` over all ``2^n`` rows when ``exact="auto"`` and
    ``2^n <= n_resamples`` (or ``exact="always"``; ``"never"`` always samples). Comparisons use
    a relative tolerance of 1e-12 so that rounding does not decide ties.

    The sign matrix depends only on ``rng`` (an int seed) and ``n``, and is shared by all
    columns: the same seed gives identical p-values whatever the order or number of systems.

    Example: ``d = [1, 1]``: sign sums 2, 0, 0, -2; exact p = 2/4.
    """
    if exact not in ("auto", "always", "never"):
        raise PolicyError(f"exact={exact!r} is not valid; choose one of ['auto', 'always', 'never'].")
    if int(n_resamples) < 1:
        raise PolicyError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    arr, one = _as_2d(d)
    n = arr.shape[0]
    obs = np.abs(arr.sum(axis=0))
    thresh = obs * (1.0 - 1e-12)
    use_exact = exact == "always" or (exact == "auto" and n <= 30 and 2**n <= n_resamples)
    if use_exact:
        if n > 24:
            raise PolicyError(f"exact permutation over 2^{n} sign patterns is too large; "
                              "use exact='never'.")
        null = np.abs(_all_signs(n) @ arr)
        count = (null >= thresh).sum(axis=0)
        p = count / float(2**n)
        return TestResult(_out(arr.mean(axis=0), one), _out(p, one),
                          {"n_resamples": 2**n, "exact": True})
    count = np.zeros(arr.shape[1])
    for signs in sign_blocks(n, int(n_resamples), seed_from(rng)):
        count += (np.abs(signs @ arr) >= thresh).sum(axis=0)
    p = (count + 1.0) / (int(n_resamples) + 1.0)
    return TestResult(_out(arr.mean(axis=0), one), _out(p, one),
                      {"n_resamples": int(n_resamples), "exact": False})


# ---- paired bootstrap --------------------------------------------------------------------
def resample_counts(n: int, n_resamples: int, seed: int | None):
    """Yield blocks of bootstrap count rows (how often each user is drawn), from ``(seed, n)``."""
    gen = _generator(seed, 1)
    left = n_resamples
    rows = block_rows(n)
    while left > 0:
        b = min(rows, left)
        idx = gen.integers(0, n, size=(b, n))
        idx += (np.arange(b) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)
        left -= b


def bootstrap(d: Any, *, n_resamples: int = 10000, rng: Any = 0,
              confidence: float = 0.95) -> TestResult:
    """Paired bootstrap of the mean difference: percentile CI and a two-sided p-value.

    Each resample draws ``n`` users with replacement (the same draws for every column) and
    takes the mean difference ``m*_b``. CI: the ``(1 - c)/2`` and ``(1 + c)/2`` quantiles of
    ``m*`` (linear interpolation). p-value (shifted null): ``(1 + #{|m*_b - mean(d)| >= |mean(d)|})
    / (B + 1)``.
    """
    if not 0.0 < confidence < 1.0:
        raise PolicyError(f"confidence must lie in (0, 1), got {confidence!r}.")
    if int(n_resamples) < 1:
        raise PolicyError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    arr, one = _as_2d(d)
    n = arr.shape[0]
    means = np.concatenate([w @ arr for w in resample_counts(n, int(n_resamples),
                                                             seed_from(rng))]) / n
    obs = arr.mean(axis=0)
    lo, hi = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    count = (np.abs(means - obs) >= np.abs(obs) * (1.0 - 1e-12)).sum(axis=0)
    p = (count + 1.0) / (means.shape[0] + 1.0)
    return TestResult(_out(obs, one), _out(p, one),
                      {"ci_low": _out(lo, one), "ci_high": _out(hi, one),
                       "n_resamples": int(n_resamples)})


# ---- effect sizes ------------------------------------------------------------------------
def cohens_d(d: Any) -> Any:
    """Cohen's d for paired samples, ``d_z = mean(d) / sd(d)`` (``ddof=1``); 0 when all d are 0,
    +-inf when ``sd = 0`` and the mean is not 0.

    Example: ``d = [1, 2, 3]``: ``2 / 1 = 2``.
    """
    arr, one = _as_2d(d)
    mean = arr.mean(axis=0)
    sd = arr.std(axis=0, ddof=1) if arr.shape[0] > 1 else np.zeros(arr.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(sd > 0, mean / np.where(sd > 0, sd, 1.0),
                       np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    return _out(out, one)


def t_interval(d: Any, *, confidence: float = 0.95) -> tuple[Any, Any]:
    """Student-t confidence interval of ``mean(d)``: ``mean +- t_{(1+c)/2, n-1} sd / sqrt(n)``."""
    arr, one = _as_2d(d)
    n = arr.shape[0]
    half = sps.t.ppf((1 + confidence) / 2, n - 1) * arr.std(axis=0, ddof=1) / np.sqrt(n)
    mean = arr.mean(axis=0)
    return _out(mean - half, one), _out(mean + half, one)


def win_tie_loss(d: Any, *, tol: float = 0.0) -> tuple[Any, Any, Any]:
    """Per-user counts: wins ``d > tol``, ties ``|d| <= tol``, losses ``d < -tol``."""
    arr, one = _as_2d(d)
    wins = (arr > tol).sum(axis=0)
    losses = (arr < -tol).sum(axis=0)
    ties = arr.shape[0] - wins - losses
    if one:
        return int(wins[0]), int(ties[0]), int(losses[0])
    return wins, ties, losses
