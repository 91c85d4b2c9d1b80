"""Serendipity: recommendations that are both relevant and unexpected.

``Serendipity@k(u) = 1/k * sum_{i in R_k(u)} rel(u, i) * unexp(u, i)`` with ``rel(u, i) = 1``
when i is a relevant held-out item of u (truth relevance >= ``rel``), and the unexpectedness
named by ``unexpected``:

- ``"history"`` (default): ``unexp(u, i) = 1 - mean_{h in H(u)} sim(i, h)``, the distance of i to
  the user's training history H(u) (Vargas & Castells 2011, unexpectedness w.r.t. the profile);
  undefined (NaN) for users without training history;
- ``"popularity"``: ``unexp(u, i) = [i not among the `top` most popular training items]``,
  i.e. not something a most-popular recommender would have shown (Ge et al. 2010,
  Murakami et al. 2008 "primitive recommender").

The denominator is k, as for precision@k (a list shorter than k counts the missing ranks as
not serendipitous); without a cutoff it is the list length. An empty list scores 0, except
for a user without training history under ``unexpected="history"`` (NaN).
"""

from __future__ import annotations

import numpy as np

from ._lists import user_of_position


def expected_by_popularity(popularity, *, top: int) -> np.ndarray:
    """Items a most-popular recommender shows: the ``top`` most popular and ties with the last.

    >>> expected_by_popularity([5, 1, 3, 3, 0], top=2).tolist()
    [True, False, True, True, False]
    """
    pop = np.asarray(popularity, dtype=np.float64)
    seen = np.sort(pop[pop > 0])[::-1]
    if seen.size == 0:
        return np.zeros(pop.shape, dtype=bool)
    threshold = seen[min(int(top), seen.size) - 1]
    return (pop >= threshold) & (pop > 0)


def serendipity(indptr: np.ndarray, relevant: np.ndarray, unexpectedness: np.ndarray, *,
                k: int | None = None) -> np.ndarray:
    """Per list ``1/D * sum_i relevant_i * unexp_i`` from per-position arrays (CSR by indptr).

    ``D = k`` when given, else the list length; NaN when a position's unexpectedness is NaN
    (user without history) or a list is empty without k.

    >>> serendipity(np.array([0, 3]), np.array([1, 0, 1]), np.array([0.5, 1.0, 1.0]), k=4)
    array([0.375])
    """
    n = len(indptr) - 1
    user = user_of_position(indptr)
    term = np.asarray(relevant, dtype=np.float64) * np.asarray(unexpectedness, dtype=np.float64)
    # a NaN unexpectedness makes the user's value NaN even when the item is not relevant
    term = np.where(np.isnan(unexpectedness), np.nan, term)
    sums = np.bincount(user, weights=np.nan_to_num(term, nan=0.0), minlength=n)
    has_nan = np.bincount(user, weights=np.isnan(term).astype(np.float64), minlength=n) > 0
    denom = np.full(n, float(k)) if k is not None else np.diff(indptr).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(denom > 0, sums / np.maximum(denom, 1), np.nan)
    out[has_nan] = np.nan
    return out
