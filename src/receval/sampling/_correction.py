"""Corrected estimators for sampled metrics (Krichene & Rendle, KDD 2020).

Setting: each evaluated user has one held-out positive whose rank among all ``n`` candidates
(the positive plus ``n - 1`` negatives) is the *full rank* ``R`` in ``1..n``. Sampled evaluation
ranks it among ``m`` negatives drawn uniformly from the ``n - 1``, giving a *sampled rank*
``r`` in ``1..m+1``. Given ``R``, ``r - 1`` counts the drawn negatives among the ``R - 1`` that
outscore the positive:

- without replacement: ``r - 1 ~ Hypergeometric(population n - 1, successes R - 1, draws m)``
- with replacement:    ``r - 1 ~ Binomial(m, (R - 1) / (n - 1))``

``A[R, r] = P(r | R)`` is the ``n x (m + 1)`` transition matrix. A full-rank metric ``M(R)``
(e.g. ``ndcg@k: [R <= k] / log2(R + 1)``) evaluated naively at ``r`` is biased: it measures
something else, and can reverse the order of two models. Two corrections:

1. **Least squares with a bias/variance trade-off** (their Section 5): choose one corrected
   value ``x_r`` per sampled rank to minimise
   ``sum_R w_R [ (E[x_r | R] - M(R))^2 + gamma * Var[x_r | R] ]``, solved in closed form as
   ``x = ((1 - gamma) A' W A + gamma diag(A' w))^-1 A' W M`` (``W = diag(w)``, uniform ``w`` by
   default); the estimate is the mean of ``x_{r_u}`` over users. ``gamma = 0`` is the
   minimal-bias estimator (high variance); larger ``gamma`` trades bias for variance.
2. **Rank-distribution estimator**: estimate the distribution ``P(R)`` of full ranks from the
   observed sampled ranks by maximum likelihood (EM on ``sum_u log sum_R P(R) A[R, r_u]``),
   then report ``sum_R P(R) M(R)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError, PolicyError, plain, suggest
from ..validation import POSITIVE_INT, Boolean, Interval, Options, Real, validate_params

_METRICS = ("hits", "recall", "ndcg", "mrr", "ap")
_METHODS = ("naive", "least_squares", "rank_distribution")


@validate_params({"n_items": POSITIVE_INT, "n_negatives": POSITIVE_INT, "replace": [Boolean()]})
def rank_transition_matrix(n_items: int, n_negatives: int, *, replace: bool = False) -> np.ndarray:
    """``A[R - 1, r - 1] = P(sampled rank r | full rank R)`` for ``R = 1..n_items``,
    ``r = 1..n_negatives + 1``. Rows sum to 1.

    Example: ``n_items=3, n_negatives=1`` (one of the 2 negatives drawn): ``R=2`` gives
    ``r = 1`` or ``2`` with probability 1/2 each.
    """
    from scipy.special import gammaln, xlog1py, xlogy

    n, m = int(n_items), int(n_negatives)
    if n < 2 or m < 1:
        raise InputError(f"need n_items >= 2 and n_negatives >= 1; got {n_items}, {n_negatives}.")
    if not replace and m > n - 1:
        raise InputError(
            f"n_negatives={m} exceeds the {n - 1} negatives available without replacement."
        )
    if n * (m + 1) > 200_000_000:
        raise InputError(
            f"the {n} x {m + 1} transition matrix is too large; group full ranks or lower n_items."
        )

    def lchoose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return gammaln(a + 1.0) - gammaln(b + 1.0) - gammaln(a - b + 1.0)

    above = np.arange(n, dtype=np.float64)[:, None]  # R - 1 negatives outscore the positive
    j = np.arange(m + 1, dtype=np.float64)[None, :]  # j = r - 1 of them drawn
    if replace:
        q = above / (n - 1)
        return np.exp(lchoose(np.float64(m), j) + xlogy(j, q) + xlog1py(m - j, -q))
    below = (n - 1) - above
    ok = (j <= above) & (m - j <= below)
    logp = (
        lchoose(above, np.minimum(j, above))
        + lchoose(below, np.clip(m - j, 0.0, below))
        - lchoose(np.float64(n - 1), np.float64(m))
    )
    return np.where(ok, np.exp(logp), 0.0)


@validate_params({"k": [None, *POSITIVE_INT]})
def metric_by_rank(metric: str | Callable[[np.ndarray], Any], k: int | None, ranks: np.ndarray):
    """Value of a one-relevant-item metric at each rank: ``hits``/``recall``: ``[R <= k]``;
    ``ndcg``: ``[R <= k] / log2(R + 1)``; ``mrr``/``ap``: ``[R <= k] / R`` (``k=None``: no cut).
    A callable receives the ranks and returns the values."""
    r = np.asarray(ranks, dtype=np.float64)
    if callable(metric):
        return np.asarray(metric(r), dtype=np.float64)
    if metric not in _METRICS:
        raise PolicyError(
            f"metric={plain(metric)} is not valid; choose one of {list(_METRICS)} or pass a callable."
            + suggest(str(metric), _METRICS)
        )
    cut = np.ones_like(r, dtype=bool) if k is None else r <= int(k)
    if metric in ("hits", "recall"):
        if k is None:
            raise InputError(f"metric={plain(metric)} needs a cutoff k.")
        return cut.astype(np.float64)
    if metric == "ndcg":
        return np.where(cut, 1.0 / np.log2(r + 1.0), 0.0)
    return np.where(cut, 1.0 / r, 0.0)


@validate_params({
    "k": [None, *POSITIVE_INT],
    "n_items": POSITIVE_INT,
    "n_negatives": POSITIVE_INT,
    "gamma": [Interval(Real, 0, 1)],
    "replace": [Boolean()],
})
def least_squares_correction(
    metric: str | Callable[[np.ndarray], Any],
    *,
    k: int | None,
    n_items: int,
    n_negatives: int,
    gamma: float = 0.01,
    replace: bool = False,
    weights: Any = None,
) -> np.ndarray:
    """Corrected metric value ``x_r`` for each sampled rank ``r = 1..n_negatives + 1``.

    ``x = ((1 - gamma) A' W A + gamma diag(A' w))^-1 A' W M``; see the module docstring.
    ``gamma=0`` gives the least-squares (minimal bias) solution.
    """
    a = rank_transition_matrix(n_items, n_negatives, replace=replace)
    target = metric_by_rank(metric, k, np.arange(1, int(n_items) + 1))
    w = np.ones(a.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (a.shape[0],) or (w < 0).any():
        raise InputError(f"weights must be {a.shape[0]} non-negative numbers (one per full rank).")
    aw = a * w[:, None]
    if gamma == 0:
        sw = np.sqrt(w)[:, None]
        return np.linalg.lstsq(a * sw, target * sw[:, 0], rcond=None)[0]
    lhs = (1.0 - gamma) * (aw.T @ a) + gamma * np.diag(aw.sum(axis=0))
    return np.linalg.solve(lhs, aw.T @ target)


@validate_params({
    "n_items": POSITIVE_INT,
    "n_negatives": POSITIVE_INT,
    "replace": [Boolean()],
    "max_iter": POSITIVE_INT,
    "tol": [Interval(Real, 0, None, closed="neither")],
})
def estimate_rank_distribution(
    sampled_ranks: Any,
    *,
    n_items: int,
    n_negatives: int,
    replace: bool = False,
    max_iter: int = 2000,
    tol: float = 1e-9,
) -> np.ndarray:
    """Maximum-likelihood distribution ``P(R)``, ``R = 1..n_items``, of the full ranks behind
    the observed sampled ranks (EM; starts from uniform, stops when no probability moves more
    than ``tol``)."""
    r = _integer_ranks(sampled_ranks, n_negatives)
    a = rank_transition_matrix(n_items, n_negatives, replace=replace)
    counts = np.bincount(r - 1, minlength=a.shape[1]).astype(np.float64)
    frac = counts / counts.sum()
    p = np.full(a.shape[0], 1.0 / a.shape[0])
    for _ in range(int(max_iter)):
        mix = a.T @ p  # P(r) under the current estimate
        ratio = np.divide(frac, mix, out=np.zeros_like(frac), where=mix > 0)
        new = p * (a @ ratio)
        new /= new.sum()
        if np.abs(new - p).max() < tol:
            p = new
            break
        p = new
    return p


def _integer_ranks(sampled_ranks: Any, n_negatives: int) -> np.ndarray:
    r = np.asarray(sampled_ranks, dtype=np.float64)
    if r.ndim != 1 or r.size == 0:
        raise InputError("sampled_ranks must be a non-empty 1-D array.")
    if (r != np.round(r)).any():
        raise InputError(
            "corrected estimators need integer sampled ranks; use ties='optimistic' or "
            "'pessimistic' (realistic ranks can be fractional)."
        )
    if (r < 1).any() or (r > int(n_negatives) + 1).any():
        raise InputError(f"sampled ranks must lie in 1..{int(n_negatives) + 1}.")
    return r.astype(np.int64)


@validate_params({
    "k": [None, *POSITIVE_INT],
    "n_items": POSITIVE_INT,
    "n_negatives": POSITIVE_INT,
    "method": [Options(_METHODS)],
    "gamma": [Interval(Real, 0, 1)],
    "replace": [Boolean()],
})
def corrected_metric(
    sampled_ranks: Any,
    metric: str | Callable[[np.ndarray], Any] = "ndcg",
    *,
    k: int | None = 10,
    n_items: int,
    n_negatives: int,
    method: str = "least_squares",
    gamma: float = 0.01,
    replace: bool = False,
) -> float:
    """Estimate the full-ranking value of ``metric@k`` from sampled ranks.

    ``method``: ``"least_squares"`` (default, with trade-off ``gamma``), ``"rank_distribution"``
    (EM estimate of the full-rank distribution), or ``"naive"`` (the biased sampled metric,
    ``metric`` evaluated at the sampled rank, for comparison). ``n_items`` counts every
    candidate of the full ranking (the positive included); ``replace`` must match the sampler.
    """
    r = _integer_ranks(sampled_ranks, n_negatives)
    if method == "naive":
        return float(np.mean(metric_by_rank(metric, k, r)))
    if method == "least_squares":
        x = least_squares_correction(
            metric, k=k, n_items=n_items, n_negatives=n_negatives, gamma=gamma, replace=replace
        )
        return float(np.mean(x[r - 1]))
    p = estimate_rank_distribution(r, n_items=n_items, n_negatives=n_negatives, replace=replace)
    return float(p @ metric_by_rank(metric, k, np.arange(1, int(n_items) + 1)))
