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

from ..engines.plugins import Context, MetricValues
from ..errors import InputError
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import (
    POP,
    REL,
    beyond_metric,
    catalog_of,
    top_k,
    train_index,
    train_of,
    undefined_info,
)
from ._lists import user_of_position
from .catalogue import packed_exposure
from .diversity import (
    MISSING,
    SIM,
    SOURCE,
    context_features,
    context_similarity,
    feature_rows,
    history_rows,
    history_similarity,
)
from .popularity import list_mean


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

# -------------------------------------------------------------------------------------------------
# Serendipity and RecTools rank-based serendipity:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def _serendipity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    k = spec.k
    if spec.get("unexpected") == "popularity":
        top = spec.get("top") or k
        if top is None:
            raise InputError(f"{spec.key}: without a cutoff, give the popular list size, e.g. "
                             "serendipity(unexpected=popularity,top=10).")
        # popularity ranks are over training items; items unseen in training are unexpected
        tr = train_of(context, spec.key)
        exp_train = expected_by_popularity(tr.popularity(spec.get("pop")), top=int(top))
        idx = train_index(context, packed, spec.key)
        expected = np.where(idx >= 0, exp_train[np.maximum(idx, 0)] if len(exp_train) else False,
                            False)
        indptr, pos = top_k(packed, k)
        unexp = (~expected[packed.items[pos]]).astype(np.float64)
    else:
        feats = context_features(context, spec)
        sim = context_similarity(context, spec, feats)
        indptr, rows, pos = feature_rows(context, packed, spec, feats)
        h_indptr, h_rows = history_rows(context, packed, spec, feats)
        unexp = 1.0 - history_similarity(indptr, rows, h_indptr, h_rows, sim)
    relevant = packed.rel[pos] >= float(spec.get("rel"))
    values = serendipity(indptr, relevant, unexp, k=k)
    if spec.get("unexpected") == "history":
        values[np.diff(h_indptr) == 0] = np.nan  # no history: unexpectedness undefined
    return MetricValues(values, info=undefined_info(values))


def _rank_serendipity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tr = train_of(context, spec.key)
    counts = tr.popularity(spec.get("pop"))
    # dense popularity rank: 1 = the largest training count, equal counts share a rank
    distinct = np.unique(counts[counts > 0])[::-1]
    rank_train = np.zeros(len(counts))
    seen_train = counts > 0
    rank_train[seen_train] = np.searchsorted(-distinct, -counts[seen_train]) + 1
    idx = train_index(context, packed, spec.key)
    pop_rank = np.where(idx >= 0, rank_train[np.maximum(idx, 0)] if len(rank_train) else 0, 0)
    exposure = packed_exposure(packed, None, context=context)
    n_items = catalog_of(context, packed, exposure.counts, key=spec.key).size
    indptr, pos = top_k(packed, spec.k)
    if packed.absolute_ranks and len(packed.scores):  # ranks="position": the rank itself
        position = -packed.scores[pos].astype(np.float64)
    else:
        position = (pos - np.repeat(packed.indptr[:-1], np.diff(indptr)) + 1).astype(np.float64)
    p_user = (n_items + 1 - position) / n_items
    r = pop_rank[packed.items[pos]]
    p_any = np.where(r > 0, (n_items + 1 - r) / n_items, 0.0)  # items unseen in train: 0
    relevant = packed.rel[pos] >= float(spec.get("rel"))
    values = list_mean(indptr, np.maximum(p_user - p_any, 0.0) * relevant)
    return MetricValues(values, info={**undefined_info(values), "n_items": int(n_items)})


register(beyond_metric(
    "serendipity", "Serendipity@k", "1/k sum_{i in R_k(u)} [rel_i >= rel] * unexp(u, i)",
    "Relevant and unexpected recommendations. unexpected=history: unexp = 1 - mean similarity "
    "to the user's training items (NaN for users without history); unexpected=popularity: unexp "
    "= item not among the `top` most popular training items (default top = k). Denominator k as "
    "in precision@k.",
    _serendipity, (Param("unexpected", "history", "history | popularity",
                         ("history", "popularity")),
                   Param("top", None, "size of the most-popular list (unexpected=popularity); "
                         "default: the cutoff k", kind=int, low=1.0),
                   REL, POP, SIM, SOURCE, MISSING),
    needs=("train",), bounds=(0.0, None),
    reference="Ge et al. 2010; Vargas & Castells 2011",
))


register(beyond_metric(
    "rank_serendipity", "Rank-based serendipity@k (RecTools)",
    "mean_{i in R_k(u)} max(p(i) - pu(i), 0) [rel_i >= rel]",
    "RecTools Serendipity (rectools/metrics/serendipity.py): p(i) = (n + 1 - rank_i) / n, the "
    "chance to recommend the item at rank_i to this user; pu(i) = (n + 1 - r(i)) / n with r(i) "
    "the item's dense popularity rank in training (1 = most interactions, equal counts share "
    "a rank; pu = 0 for items unseen in training); n = catalogue size (catalog=..., default "
    "train + truth + run). Mean over the top-k positions of the list (min(k, |R|), as RecTools "
    "averages); NaN for an empty list. Needs train=....",
    _rank_serendipity, (REL, POP), needs=("train",),
    reference="RecTools Serendipity (MTS, 2022); Kotkov, Wang & Veijalainen, KBS 2016",
    example="n = 4, item at rank 1 with popularity rank 2, relevant: (4/4 - 3/4) = 1/4",
))
