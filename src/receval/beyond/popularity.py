"""Popularity-based metrics: novelty (self-information), ARP, APLT, long-tail share and plot data.

Popularity ``phi(i)`` of an item comes from the training interactions, named by ``pop``:
``"rows"`` = number of training interactions of i (default), ``"users"`` = number of distinct
training users of i. The matching probability is ``p(i) = phi(i) / N`` with N = training rows
(``pop="rows"``) or training users (``pop="users"``, the share of users who know i, as in
Zhou et al. 2010).

Long tail: the *head* is the ``ceil(head * m)`` most popular of the m items seen in training,
together with every item tied with the last of them (so membership never depends on ids); every
other item, including items absent from training, is in the tail (Abdollahpouri et al. 2019
use ``head=0.2``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from ..validation import LOG_BASE, POSITIVE_INT, Options, validate_params
from ._lists import as_csr, truncate, user_of_position

UNSEEN = ("one", "skip", "error")


def tail_mask(popularity, *, head: float = 0.2, unseen: str = "tail",
              max_count: float | None = None) -> np.ndarray:
    """Boolean mask of long-tail items given a popularity count per item.

    ``head``: the head is the ``ceil(head * m)`` most popular of the m items seen in training,
    with every item tied with the last of them; the other seen items are the tail.
    ``max_count``: when given, the tail is instead every seen item with popularity
    ``<= max_count`` (RecBole ``TailPercentage`` with ``tail_ratio > 1``,
    ``recbole/evaluator/metrics.py``). ``unseen``: items with popularity 0 are in the tail
    (``"tail"``, the default) or not (``"head"``: RecBole only counts training items as tail).

    >>> tail_mask([10, 1, 5, 0, 1], head=0.25).tolist()   # 4 seen items: head = top 1
    [False, True, True, True, True]
    >>> tail_mask([10, 1, 5, 0, 1], max_count=1, unseen="head").tolist()
    [False, True, False, False, True]
    """
    pop = np.asarray(popularity, dtype=np.float64)
    if unseen not in ("tail", "head"):
        raise InputError(f"unseen={plain(unseen)}: choose 'tail' or 'head'.")
    if not 0.0 < head <= 1.0:
        raise InputError(f"head={plain(head)}: the head share must lie in (0, 1] (1: every item "
                         "seen in training is in the head, only unseen items are long tail).")
    unseen_mask = (pop <= 0) if unseen == "tail" else np.zeros(pop.shape, dtype=bool)
    if max_count is not None:
        if not max_count >= 0:
            raise InputError(f"max_count={plain(max_count)}: give a training count >= 0.")
        return ((pop > 0) & (pop <= float(max_count))) | unseen_mask
    seen = pop[pop > 0]
    if seen.size == 0:
        return unseen_mask
    m = int(np.ceil(head * seen.size - 1e-12))
    m = min(max(m, 1), seen.size)
    threshold = np.sort(seen)[::-1][m - 1]
    return ((pop > 0) & (pop < threshold)) | unseen_mask


@validate_params({"unseen": [Options(UNSEEN)], "base": LOG_BASE})
def self_information(popularity, total: float, *, unseen: str = "one",
                     base: float = 2.0) -> np.ndarray:
    """Self-information ``-log_b p(i)``, ``p(i) = phi(i) / total`` (Zhou et al. 2010).

    ``unseen``: items with ``phi = 0``: ``"one"`` = counted as seen once (``-log_b(1/total)``,
    the largest finite value), ``"skip"`` = NaN (left out of means), ``"error"``.

    >>> self_information([4, 2, 1], 8).tolist()
    [1.0, 2.0, 3.0]
    """
    pop = np.asarray(popularity, dtype=np.float64)
    if unseen not in UNSEEN:
        raise InputError(f"unseen={plain(unseen)}: choose one of {list(UNSEEN)}.")
    zero = pop <= 0
    if zero.any():
        if unseen == "error":
            raise InputError(
                f"{int(zero.sum())} recommended item(s) never occur in the training data, so "
                "their popularity self-information is infinite; pass unseen='one' (count as "
                "seen once) or unseen='skip' (leave them out)."
            )
        pop = np.where(zero, 1.0 if unseen == "one" else np.nan, pop)
    if total <= 0:
        raise InputError("train: the training data is empty; popularity is undefined.")
    return -np.log(pop / float(total)) / np.log(base) + 0.0


def list_mean(indptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Mean of per-position ``values`` over each list, NaN entries left out; NaN if none."""
    n = len(indptr) - 1
    user = user_of_position(indptr)
    ok = ~np.isnan(values)
    s = np.bincount(user[ok], weights=values[ok], minlength=n)
    c = np.bincount(user[ok], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, s / np.maximum(c, 1), np.nan)


@validate_params({"k": [None, *POSITIVE_INT], "unseen": [Options(UNSEEN)], "base": LOG_BASE})
def novelty(lists, popularity, total: float, *, k: int | None = None, unseen: str = "one",
            base: float = 2.0) -> np.ndarray:
    """Per-list popularity novelty: ``mean_{i in R_k(u)} -log_b p(i)`` (NaN for empty lists).

    >>> novelty([[0, 1], [2]], [4, 2, 1], 8).tolist()
    [1.5, 3.0]
    """
    indptr, items = truncate(*as_csr(lists), k)
    info = self_information(np.asarray(popularity, dtype=np.float64)[items], total,
                            unseen=unseen, base=base)
    return list_mean(indptr, info)


def arp(lists, popularity, *, k: int | None = None) -> np.ndarray:
    """Average recommendation popularity per list: ``mean_{i in R_k(u)} phi(i)`` (Yin et al.
    2012; Abdollahpouri et al. 2019). The summary is the mean over users. Lower = less popular.

    >>> arp([[0, 1], [2]], [4, 2, 1]).tolist()
    [3.0, 1.0]
    """
    indptr, items = truncate(*as_csr(lists), k)
    return list_mean(indptr, np.asarray(popularity, dtype=np.float64)[items])


def aplt(lists, tail, *, k: int | None = None) -> np.ndarray:
    """Average percentage of long-tail items: ``|R_k(u) & Tail| / |R_k(u)|`` per list
    (Abdollahpouri et al. 2019); NaN for empty lists.

    >>> aplt([[0, 1], [2]], [False, True, True]).tolist()
    [0.5, 1.0]
    """
    indptr, items = truncate(*as_csr(lists), k)
    return list_mean(indptr, np.asarray(tail, dtype=np.float64)[items])


def popularity_curve(train: Any, run: Any, *, k: int | None = None, head: float = 0.2,
                     pop: str = "rows", **cols: Any) -> pd.DataFrame:
    """Long-tail plot data: items by training popularity (descending) against their exposure.

    ``train``: (user, item) training rows; ``run``: (user, item, score | rank) rows; ``k``: cut
    each list at k. Returns one row per item seen in training or recommended, sorted by
    training popularity (descending; ties by exposure, then item id) with columns ``item``,
    ``rank`` (1 = most popular), ``popularity``, ``popularity_share``, ``cum_popularity_share``,
    ``exposure`` (lists containing the item), ``exposure_share``, ``cum_exposure_share``,
    ``tail`` (long-tail flag, see module doc).
    """
    from ..io.frames import read_columns
    from ..pack.vocab import factorize, order_keys
    from .inputs import as_train

    tr = as_train(train)
    rc = read_columns(run, role="run", **cols)
    u, _ = factorize(rc.user, what="run user column")
    i, run_items = factorize(rc.item, what="run item column")
    score = -rc.value if rc.value_kind == "rank" else rc.value
    # score descending, ties broken by raw item id ascending (as in evaluate)
    order = np.lexsort((order_keys(run_items, what="run item column")[i], -score, u))
    u_s, i_s = u[order], i[order]
    indptr = np.zeros(int(u.max()) + 2 if len(u) else 1, dtype=np.int64)
    np.cumsum(np.bincount(u_s, minlength=len(indptr) - 1), out=indptr[1:])
    indptr, items = truncate(indptr, i_s, k)
    exposure_run = np.bincount(items, minlength=len(run_items))
    ids = pd.Index(tr.items).append(pd.Index(run_items)).unique()
    popularity = np.zeros(len(ids), dtype=np.int64)
    popularity[ids.get_indexer(pd.Index(tr.items))] = tr.popularity(pop)
    exposure = np.zeros(len(ids), dtype=np.int64)
    np.add.at(exposure, ids.get_indexer(pd.Index(run_items)), exposure_run)
    frame = pd.DataFrame({"item": ids, "popularity": popularity, "exposure": exposure})
    frame["tail"] = tail_mask(popularity, head=head)
    frame = frame.sort_values(["popularity", "exposure", "item"],
                              ascending=[False, False, True], kind="mergesort")
    frame = frame.reset_index(drop=True)
    frame.insert(1, "rank", np.arange(1, len(frame) + 1))
    tp, te = max(popularity.sum(), 1), max(exposure.sum(), 1)
    frame["popularity_share"] = frame["popularity"] / tp
    frame["cum_popularity_share"] = frame["popularity"].cumsum() / tp
    frame["exposure_share"] = frame["exposure"] / te
    frame["cum_exposure_share"] = frame["exposure"].cumsum() / te
    return frame[["item", "rank", "popularity", "popularity_share", "cum_popularity_share",
                  "exposure", "exposure_share", "cum_exposure_share", "tail"]]
