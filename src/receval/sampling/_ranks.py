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
