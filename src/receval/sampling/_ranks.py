"""Ranks of held-out positives among candidates, tie policies, and rank-based metrics.

A positive with score ``s`` ranked against candidates with scores ``c_j``:

- ``optimistic``  rank = 1 + #{j : c_j > s}            (ties resolved in the positive's favour)
- ``pessimistic`` rank = 1 + #{j : c_j >= s}           (ties resolved against it)
- ``realistic``   rank = (optimistic + pessimistic) / 2 (the mean of both; expected rank under a
  uniformly random order of the tied candidates)

Metrics (one relevant item per query): ``hits@k = mean(rank <= k)``, ``mrr = mean(1 / rank)``,
``mean_rank = mean(rank)``, ``ndcg@k = mean([rank <= k] / log2(rank + 1))``. With realistic
(fractional) ranks these are evaluated at the fractional rank (the PyKEEN convention).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..errors import InputError, PolicyError, plain, suggest
from ..validation import POSITIVE_INT, Options, validate_params

TIES = ("realistic", "optimistic", "pessimistic")


def _check_ties(ties: str) -> None:
    if ties not in TIES:
        raise PolicyError(
            f"ties={plain(ties)} is not valid; choose one of {list(TIES)}." + suggest(str(ties), TIES)
        )


def ranks_from_counts(greater: np.ndarray, equal: np.ndarray, ties: str) -> np.ndarray:
    """Rank from the number of candidates scoring strictly higher and exactly equal."""
    _check_ties(ties)
    g = np.asarray(greater, dtype=np.float64)
    e = np.asarray(equal, dtype=np.float64)
    if ties == "optimistic":
        return 1.0 + g
    if ties == "pessimistic":
        return 1.0 + g + e
    return 1.0 + g + e / 2.0


@validate_params({"ties": [Options(TIES)]})
def rank_against_negatives(
    pos_scores: Any,
    neg_scores: Any,
    *,
    ties: str = "realistic",
    valid: Any = None,
) -> np.ndarray:
    """Rank of each positive among its own negatives (1 = best).

    ``pos_scores``: shape ``(m,)``; ``neg_scores``: shape ``(m, n)``; ``valid``: optional
    boolean ``(m, n)`` mask of the negatives that count (for ragged candidate lists).

    Example: positive 0.753 against [0.789, 0.695, 0.456, 0.234] has rank 2.
    """
    pos = np.asarray(pos_scores, dtype=np.float64)
    neg = np.asarray(neg_scores, dtype=np.float64)
    if pos.ndim != 1 or neg.ndim != 2 or neg.shape[0] != pos.shape[0]:
        raise InputError(
            f"pos_scores must have shape (m,) and neg_scores (m, n); got {pos.shape} and "
            f"{neg.shape}."
        )
    if np.isnan(pos).any() or np.isnan(neg).any():
        raise InputError("scores contain NaN; a rank is undefined. Replace or drop them.")
    p = pos[:, None]
    gt = neg > p
    eq = neg == p
    if valid is not None:
        v = np.asarray(valid, dtype=bool)
        if v.shape != neg.shape:
            raise InputError(f"valid must have shape {neg.shape}; got {v.shape}.")
        gt &= v
        eq &= v
    return ranks_from_counts(gt.sum(axis=1), eq.sum(axis=1), ties)


def _ranks(ranks: Any) -> np.ndarray:
    r = np.asarray(ranks, dtype=np.float64)
    if r.ndim != 1 or r.size == 0:
        raise InputError("ranks must be a non-empty 1-D array.")
    if np.isnan(r).any() or (r < 1).any():
        raise InputError("ranks must be >= 1 (1 = best) and not NaN.")
    return r


@validate_params({"k": POSITIVE_INT})
def hits_at_k(ranks: Any, k: int) -> float:
    """Fraction of positives ranked in the top ``k``: ``mean(rank <= k)``.
    Example: ranks [2, 1] -> hits@1 = 1/2, hits@3 = 2/2."""
    return float(np.mean(_ranks(ranks) <= k))


def mrr(ranks: Any) -> float:
    """Mean reciprocal rank ``mean(1 / rank)``. Ranks [2, 1] -> (1/2 + 1) / 2 = 0.75."""
    return float(np.mean(1.0 / _ranks(ranks)))


def mean_rank(ranks: Any) -> float:
    """Mean rank (lower is better). Ranks [2, 1] -> 1.5."""
    return float(np.mean(_ranks(ranks)))


@validate_params({"k": POSITIVE_INT})
def ndcg_at_k(ranks: Any, k: int) -> float:
    """NDCG@k with one relevant item: ``mean([rank <= k] / log2(rank + 1))``."""
    r = _ranks(ranks)
    return float(np.mean(np.where(r <= k, 1.0 / np.log2(r + 1.0), 0.0)))


def rank_metrics(ranks: Any, *, ks: Iterable[int] = (1, 3, 10)) -> dict[str, float]:
    """``hits@k`` for every ``k`` in ``ks``, ``mrr`` and ``mean_rank`` in one dict."""
    r = _ranks(ranks)
    out = {f"hits@{int(k)}": hits_at_k(r, int(k)) for k in ks}
    out["mrr"] = mrr(r)
    out["mean_rank"] = mean_rank(r)
    return out


@validate_params({"batch_size": POSITIVE_INT})
def score_candidates(
    score_fn: Callable[[np.ndarray, np.ndarray], Any],
    users: Any,
    items: Any,
    *,
    batch_size: int = 1024,
) -> np.ndarray:
    """Call ``score_fn(users[b], items[b])`` over batches of rows and stack the scores.

    ``items`` has shape ``(m, c)`` (candidate columns per row); ``score_fn`` receives user rows
    of shape ``(b,)`` and items of shape ``(b, c)`` and must return ``(b, c)`` scores.
    """
    u = np.asarray(users)
    it = np.asarray(items)
    if it.ndim != 2 or u.shape != (it.shape[0],):
        raise InputError(f"users must be (m,) and items (m, c); got {u.shape} and {it.shape}.")
    out = np.empty(it.shape, dtype=np.float64)
    for a in range(0, u.size, int(batch_size)):
        b = min(u.size, a + int(batch_size))
        s = score_fn(u[a:b], it[a:b])
        if hasattr(s, "detach"):
            s = s.detach().cpu().numpy()
        s = np.asarray(s, dtype=np.float64)
        if s.shape != (b - a, it.shape[1]):
            raise InputError(
                f"score_fn returned shape {s.shape} for a batch of {b - a} rows with "
                f"{it.shape[1]} candidates; expected {(b - a, it.shape[1])}."
            )
        out[a:b] = s
    return out


@validate_params({"ties": [Options(TIES)], "batch_size": POSITIVE_INT})
def sampled_ranks(
    score_fn: Callable[[np.ndarray, np.ndarray], Any],
    users: Any,
    positives: Any,
    negatives: Any,
    *,
    ties: str = "realistic",
    batch_size: int = 1024,
) -> np.ndarray:
    """Rank each held-out positive ``positives[i]`` of user ``users[i]`` among
    ``negatives[i]`` (e.g. from :func:`sample_negatives`), scoring with a batched ``score_fn``."""
    pos = np.asarray(positives).reshape(-1, 1)
    neg = np.asarray(negatives)
    if neg.ndim != 2 or neg.shape[0] != pos.shape[0]:
        raise InputError(f"negatives must have shape ({pos.shape[0]}, n); got {neg.shape}.")
    s = score_candidates(score_fn, users, np.hstack([pos, neg]), batch_size=batch_size)
    return rank_against_negatives(s[:, 0], s[:, 1:], ties=ties)


def _harmonic(n_max: int, power: int = 1) -> np.ndarray:
    """``H[n] = sum_{i=1..n} 1 / i^power`` for n = 0 .. n_max (exact cumulative sums)."""
    out = np.zeros(n_max + 1)
    if n_max:
        np.cumsum(1.0 / np.arange(1, n_max + 1, dtype=np.float64) ** power, out=out[1:])
    return out


def adjusted_rank_metrics(ranks: Any, n_candidates: Any, *,
                          ks: Iterable[int] = (1, 3, 10)) -> dict[str, float]:
    """Rank metrics against their value under uniformly random ranking (PyKEEN's adjusted
    metrics; Berrendorf, Faerman, Vermue & Tresp, "Interpretable and fair comparison of link
    prediction or entity alignment methods", WI-IAT 2020; Hoyt et al. 2022).

    Task i ranks its true answer among ``N_i = n_candidates[i]`` candidates (the answer
    included, so ranks lie in 1..N_i). Under a uniformly random order (realistic ranks):

    - mean rank: E = mean((N_i + 1) / 2), Var(rank_i) = (N_i^2 - 1) / 12;
    - MRR: E = mean(H_{N_i} / N_i), Var(1/rank_i) = H2_{N_i} / N_i - (H_{N_i} / N_i)^2
      (H, H2: harmonic numbers of order 1 and 2);
    - hits@k: E = mean(min(k, N_i) / N_i), Var = p_i (1 - p_i) with p_i = min(k, N_i) / N_i.

    Returns the expectations (``expected_*``), the adjusted mean rank ``amr = MR / E[MR]``
    (lower is better, in (0, 2)), the adjusted mean rank index ``amri = 1 - (MR - 1) / (E[MR]
    - 1)`` (in [-1, 1]), the adjusted indices ``adjusted_mrr = (MRR - E) / (1 - E)`` and
    ``adjusted_hits@k`` likewise (1 = perfect, 0 = random), and z-scores of the means
    ``z_* = (M - E) / sqrt(Var(M))`` with Var(M) = sum_i Var_i / n^2 (for the mean rank the sign
    is flipped, ``(E - MR) / sd``, so that higher is better throughout).

    Example: ranks [1, 2] among 3 candidates each: E[MR] = 2, AMR = 1.5 / 2 = 0.75,
    AMRI = 1 - 0.5 / 1 = 0.5.
    """
    r = _ranks(ranks)
    n = np.asarray(n_candidates, dtype=np.float64)
    if n.shape != r.shape:
        raise InputError(f"n_candidates has shape {n.shape}; expected {r.shape} (one per rank).")
    if (n < 1).any() or (n != np.floor(n)).any() or (r > n).any():
        raise InputError("n_candidates must be whole numbers >= 1 and >= each rank.")
    m = r.size
    ni = n.astype(np.int64)
    h1 = _harmonic(int(ni.max()))[ni]
    h2 = _harmonic(int(ni.max()), 2)[ni]

    def z(value: float, expected: float, var_each: np.ndarray) -> float:
        sd = float(np.sqrt(np.sum(var_each))) / m
        return (value - expected) / sd if sd > 0 else float("nan")

    out: dict[str, float] = {}
    mr = float(np.mean(r))
    e_mr = float(np.mean((n + 1.0) / 2.0))
    out["mean_rank"] = mr
    out["expected_mean_rank"] = e_mr
    out["amr"] = mr / e_mr
    out["amri"] = 1.0 - (mr - 1.0) / (e_mr - 1.0) if e_mr > 1 else float("nan")
    out["z_mean_rank"] = -z(mr, e_mr, (n * n - 1.0) / 12.0)
    rr = float(np.mean(1.0 / r))
    e_rr = float(np.mean(h1 / n))
    out["mrr"] = rr
    out["expected_mrr"] = e_rr
    out["adjusted_mrr"] = (rr - e_rr) / (1.0 - e_rr) if e_rr < 1 else float("nan")
    out["z_mrr"] = z(rr, e_rr, h2 / n - (h1 / n) ** 2)
    for k in ks:
        k = int(k)
        hk = float(np.mean(r <= k))
        p = np.minimum(k, n) / n
        e_hk = float(np.mean(p))
        out[f"hits@{k}"] = hk
        out[f"expected_hits@{k}"] = e_hk
        out[f"adjusted_hits@{k}"] = (hk - e_hk) / (1.0 - e_hk) if e_hk < 1 else float("nan")
        out[f"z_hits@{k}"] = z(hk, e_hk, p * (1.0 - p))
    return out
