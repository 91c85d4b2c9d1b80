"""Paired tests over per-user values, vectorized over columns (one column = one pair of systems).

Every function takes the per-user differences ``d`` (shape ``(n,)`` or ``(n, P)``, no NaN) of two
systems evaluated on the same ``n`` users. Results are arrays of shape ``(P,)`` (floats for 1-d
input). Every test takes ``alternative``: ``"two-sided"`` (default; H1: the differences are not
centred on 0), ``"greater"`` (H1: ``d`` tends to be positive, system a better on a
higher-is-better metric) or ``"less"`` (H1: ``d`` tends to be negative), with scipy's meaning.

- :func:`paired_ttest`: ``t = mean(d) / (sd(d) / sqrt(n))`` with ``sd`` the sample standard
  deviation (``ddof=1``), Student t with ``n - 1`` degrees of freedom (scipy ``ttest_rel``).
- :func:`wilcoxon`: signed-rank test, ``W+ = sum_{d_i > 0} rank(|d_i|)``; exact null distribution
  for small samples without ties or zeros, else the normal approximation with tie correction and
  an optional continuity correction (scipy ``wilcoxon``).
- :func:`permutation_test`: Fisher's randomization (sign-flip) test of ``mean(d)``; every column
  uses the SAME random sign matrix, drawn from the seed and ``n`` only, so a pair's p-value does
  not depend on which other systems are compared or in which order.
- :func:`sign_test`: the sign test, ``B = #{d_i > 0}`` among the ``n'`` non-zero differences is
  Binomial(``n'``, 1/2) under H0 (scipy ``binomtest``); the statistic reported is
  ``S = #{d_i > 0} - #{d_i < 0}``.
- :func:`bootstrap`: paired bootstrap of ``mean(d)`` (users resampled with replacement, one shared
  resampling matrix): percentile confidence interval and a p-value.
- :func:`cohens_d`: ``d_z = mean(d) / sd(d)``, Cohen's d for paired samples.
- :func:`win_tie_loss`: per-user counts of ``d > tol``, ``|d| <= tol``, ``d < -tol``.

References: Smucker, Allan & Carterette (2007), "A comparison of statistical significance tests
for information retrieval evaluation"; Fisher (1935); Efron & Tibshirani (1993); Conover,
*Practical nonparametric statistics* (1999), 3.4 (sign test).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special
from scipy import stats as sps

from ..errors import InputError, PolicyError, suggest
from ..results.intervals import (
    SIDES,
    block_rows,
    bootstrap_interval,
    bootstrap_means,
    check_level,
    check_side,
    generator,
    t_bounds,
)

ALTERNATIVES = SIDES


def check_alternative(alternative: str) -> str:
    """Validate ``alternative``: ``"two-sided"``, ``"greater"`` or ``"less"``."""
    return check_side(alternative)


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


# ---- t-test ------------------------------------------------------------------------------
def _tail_p(t: np.ndarray, alternative: str, sf: Any, cdf: Any) -> np.ndarray:
    """p-value of statistic ``t`` from the null's survival function and cdf."""
    if alternative == "greater":
        return sf(t)
    if alternative == "less":
        return cdf(t)
    return np.minimum(1.0, 2.0 * sf(np.abs(t)))


def paired_ttest(d: Any, *, alternative: str = "two-sided") -> TestResult:
    """Paired t-test on differences ``d``.

    ``t = mean(d) / (sd(d) / sqrt(n))``, p from Student t with ``n - 1`` df: ``2 P(T >= |t|)``
    (two-sided), ``P(T >= t)`` (greater) or ``P(T <= t)`` (less). When every difference is
    equal (``sd = 0``; scipy returns NaN): p = 1 if they are all 0; otherwise 0 when the sign
    of the mean agrees with the alternative (or it is two-sided), else 1.

    Example: ``d = [1, 2, 3]``: mean 2, sd 1, ``t = 2 / (1 / sqrt(3)) = 2 sqrt(3)``.
    """
    alternative = check_alternative(alternative)
    arr, one = _as_2d(d)
    n = arr.shape[0]
    if n < 2:
        raise InputError(f"the paired t-test needs at least 2 users, got {n}.")
    mean = arr.mean(axis=0)
    sd = arr.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    df = n - 1
    p = _tail_p(t, alternative, lambda x: sps.t.sf(x, df), lambda x: sps.t.cdf(x, df))
    const = sd == 0
    agree = {"two-sided": mean != 0, "greater": mean > 0, "less": mean < 0}[alternative]
    p = np.where(const, np.where(agree, 0.0, 1.0), p)
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
             method: str = "auto", alternative: str = "two-sided") -> TestResult:
    """Wilcoxon signed-rank test on differences ``d``.

    ``W+ = sum_{d_i > 0} r_i`` with ``r_i`` the average rank of ``|d_i|``; the statistic reported
    is ``min(W+, W-)`` whatever the alternative (scipy reports ``W+`` for one-sided tests). Large
    ``W+`` is evidence for ``alternative="greater"``: p = ``P(W+ >= w)`` (exact) or
    ``1 - Phi(z)``; ``"less"``: ``P(W+ <= w)`` or ``Phi(z)``; two-sided: twice the smaller tail.

    - ``zero_method``: ``"wilcox"`` (default) drops zero differences; ``"pratt"`` ranks them and
      drops their ranks; ``"zsplit"`` splits their ranks between ``W+`` and ``W-``.
    - ``method``: ``"exact"`` (null distribution of ``W+`` by counting sign patterns; only
      without ties and zeros, n <= 50), ``"approx"`` (normal approximation,
      ``z = (W+ - mu) / sigma`` with ``mu = n(n+1)/4``,
      ``sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48`` over tie groups), ``"auto"`` (default:
      exact when allowed, else approx). scipy's ``method="auto"`` uses a permutation test for
      n <= 13 with ties; receval uses the normal approximation there.
    - ``correction``: continuity correction of 0.5 in the approximation (default False, as scipy):
      ``z = (W+ - mu - c) / sigma`` with ``c = 0.5 sign(W+ - mu)`` (two-sided), ``+0.5``
      (greater) or ``-0.5`` (less).

    Example: ``d = [1, 2, -3]``: ranks 1, 2, 3, ``W+ = 3``, ``W- = 3``, exact p = 1.
    """
    if zero_method not in _ZERO_METHODS:
        raise PolicyError(f"zero_method={zero_method!r} is not valid; choose one of "
                          f"{list(_ZERO_METHODS)}." + suggest(str(zero_method), _ZERO_METHODS))
    if method not in _WILCOXON_METHODS:
        raise PolicyError(f"method={method!r} is not valid; choose one of "
                          f"{list(_WILCOXON_METHODS)}." + suggest(str(method), _WILCOXON_METHODS))
    alternative = check_alternative(alternative)
    arr, one = _as_2d(d)
    P = arr.shape[1]
    stat = np.empty(P)
    pval = np.empty(P)
    used = np.empty(P, dtype=object)
    for j in range(P):  # loop over pairs of systems (a handful), not over users
        stat[j], pval[j], used[j] = _wilcoxon_one(arr[:, j], zero_method, correction, method,
                                                  alternative)
    return TestResult(_out(stat, one), _out(pval, one),
                      {"method": used[0] if one else used.tolist()})


def _wilcoxon_one(d: np.ndarray, zero_method: str, correction: bool,
                  method: str, alternative: str) -> tuple[float, float, str]:
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
        upper, lower = pmf[k:].sum(), pmf[: k + 1].sum()
        p = {"greater": upper, "less": lower,
             "two-sided": min(1.0, 2.0 * min(upper, lower))}[alternative]
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
    shift = 0.0
    if correction:
        shift = {"greater": 0.5, "less": -0.5,
                 "two-sided": 0.5 * float(np.sign(r_plus - mn))}[alternative]
    z = (r_plus - mn - shift) / se
    p = float(_tail_p(np.float64(z), alternative, lambda x: special.ndtr(-x), special.ndtr))
    return statistic, p, "approx"


# ---- sign test ---------------------------------------------------------------------------
def sign_test(d: Any, *, alternative: str = "two-sided") -> TestResult:
    """Sign test on differences ``d`` (zero differences dropped).

    With ``n'`` non-zero differences and ``B = #{d_i > 0}``, under H0 ``B ~ Binomial(n', 1/2)``:
    p = ``P(B >= b)`` (greater), ``P(B <= b)`` (less) or ``min(1, 2 min(P(B >= b), P(B <= b)))``
    (two-sided; equal to scipy ``binomtest``'s for p = 1/2, a symmetric null). p = 1 when every
    difference is 0. The statistic is ``S = #{d_i > 0} - #{d_i < 0}`` (it changes sign when the
    two systems are swapped).

    Example: ``d = [1, 2, 3, -1]``: ``b = 3`` of ``n' = 4``; greater: ``P(B >= 3) = 5/16``.
    """
    alternative = check_alternative(alternative)
    arr, one = _as_2d(d)
    pos = (arr > 0).sum(axis=0)
    neg = (arr < 0).sum(axis=0)
    nz = pos + neg
    upper = sps.binom.sf(pos - 1, nz, 0.5)   # P(B >= b)
    lower = sps.binom.cdf(pos, nz, 0.5)      # P(B <= b)
    p = {"greater": upper, "less": lower,
         "two-sided": np.minimum(1.0, 2.0 * np.minimum(upper, lower))}[alternative]
    p = np.where(nz == 0, 1.0, p)
    stat = (pos - neg).astype(np.float64)
    return TestResult(_out(stat, one), _out(np.asarray(p, dtype=np.float64), one),
                      {"nonzero": _out(nz.astype(np.float64), one)})


# ---- permutation (sign-flip) test --------------------------------------------------------
def sign_blocks(n: int, n_resamples: int, seed: int | None):
    """Yield blocks of random +-1 rows (float64), drawn from ``(seed, n)`` only."""
    gen = generator(seed, 0)
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
                     exact: str = "auto", alternative: str = "two-sided") -> TestResult:
    """Fisher's randomization test (sign flips) of the mean difference.

    Under H0 each user's difference is as likely to be ``+d_i`` as ``-d_i``. With sign rows
    ``s`` (uniform on {-1, +1}^n) and the event ``E`` = ``|s . d| >= |sum d|`` (two-sided),
    ``s . d >= sum d`` (greater) or ``s . d <= sum d`` (less): ``p = (1 + #E) / (B + 1)`` for
    ``B`` random rows, or ``#E / 2^n`` over all ``2^n`` rows when ``exact="auto"`` and
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
    alternative = check_alternative(alternative)
    arr, one = _as_2d(d)
    n = arr.shape[0]
    total = arr.sum(axis=0)
    tol = np.abs(total) * 1e-12

    def extreme(null: np.ndarray) -> np.ndarray:
        if alternative == "greater":
            return null >= total - tol
        if alternative == "less":
            return null <= total + tol
        return np.abs(null) >= np.abs(total) - tol
    use_exact = exact == "always" or (exact == "auto" and n <= 30 and 2**n <= n_resamples)
    if use_exact:
        if n > 24:
            raise PolicyError(f"exact permutation over 2^{n} sign patterns is too large; "
                              "use exact='never'.")
        count = extreme(_all_signs(n) @ arr).sum(axis=0)
        p = count / float(2**n)
        return TestResult(_out(arr.mean(axis=0), one), _out(p, one),
                          {"n_resamples": 2**n, "exact": True})
    count = np.zeros(arr.shape[1])
    for signs in sign_blocks(n, int(n_resamples), seed_from(rng)):
        count += extreme(signs @ arr).sum(axis=0)
    p = (count + 1.0) / (int(n_resamples) + 1.0)
    return TestResult(_out(arr.mean(axis=0), one), _out(p, one),
                      {"n_resamples": int(n_resamples), "exact": False})


# ---- paired bootstrap --------------------------------------------------------------------
def bootstrap(d: Any, *, n_resamples: int = 10000, rng: Any = 0,
              confidence: float = 0.95, alternative: str = "two-sided",
              ci_method: str = "percentile") -> TestResult:
    """Paired bootstrap of the mean difference: confidence interval and p-value.

    Each resample draws ``n`` users with replacement (the same draws for every column) and
    takes the mean difference ``m*_b``. CI: percentile (default; the ``(1 - c)/2`` and
    ``(1 + c)/2`` quantiles of ``m*``, linear interpolation) or ``ci_method="bca"``, see
    :mod:`receval.results.intervals`; one-sided for a one-sided alternative. p-value (shifted
    null, ``m = mean(d)``): ``(1 + #E) / (B + 1)`` with ``E`` = ``|m*_b - m| >= |m|``
    (two-sided), ``m*_b - m >= m`` (greater) or ``m*_b - m <= m`` (less).
    """
    alternative = check_alternative(alternative)
    confidence = check_level(confidence)
    if int(n_resamples) < 1:
        raise PolicyError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    arr, one = _as_2d(d)
    seed = seed_from(rng)
    means = bootstrap_means(arr, int(n_resamples), seed)
    obs = arr.mean(axis=0)
    lo, hi = bootstrap_interval(arr, level=confidence, method=ci_method, side=alternative,
                                means=means)
    tol = np.abs(obs) * 1e-12
    shifted = means - obs
    if alternative == "greater":
        count = (shifted >= obs - tol).sum(axis=0)
    elif alternative == "less":
        count = (shifted <= obs + tol).sum(axis=0)
    else:
        count = (np.abs(shifted) >= np.abs(obs) - tol).sum(axis=0)
    p = (count + 1.0) / (means.shape[0] + 1.0)
    return TestResult(_out(obs, one), _out(p, one),
                      {"ci_low": _out(np.atleast_1d(lo), one),
                       "ci_high": _out(np.atleast_1d(hi), one),
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


def t_interval(d: Any, *, confidence: float = 0.95,
               alternative: str = "two-sided") -> tuple[Any, Any]:
    """Student-t confidence interval of ``mean(d)``: ``mean +- t_{(1+c)/2, n-1} sd / sqrt(n)``
    (one-sided: ``[mean - t_c sd / sqrt(n), inf)`` for greater, its mirror for less)."""
    arr, one = _as_2d(d)
    n = arr.shape[0]
    se = arr.std(axis=0, ddof=1) / np.sqrt(n)
    lo, hi = t_bounds(arr.mean(axis=0), se, n, level=check_level(confidence),
                      side=check_alternative(alternative))
    return _out(lo, one), _out(hi, one)


def win_tie_loss(d: Any, *, tol: float = 0.0) -> tuple[Any, Any, Any]:
    """Per-user counts: wins ``d > tol``, ties ``|d| <= tol``, losses ``d < -tol``."""
    arr, one = _as_2d(d)
    wins = (arr > tol).sum(axis=0)
    losses = (arr < -tol).sum(axis=0)
    ties = arr.shape[0] - wins - losses
    if one:
        return int(wins[0]), int(ties[0]), int(losses[0])
    return wins, ties, losses
