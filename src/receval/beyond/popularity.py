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

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ..validation import LOG_BASE, POSITIVE_INT, Options, validate_params
from ._context import (
    POP,
    beyond_metric,
    popularity_of,
    top_k,
    train_index,
    train_of,
    train_users,
    undefined_info,
)
from ._lists import as_csr, truncate, user_of_position
from .catalogue import LOG_BASES, packed_exposure, tail_share

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

# -------------------------------------------------------------------------------------------------
# Long-tail share, APLT, ARP, novelty and the unseen share:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

HEAD = Param("head", 0.2,
             "share of the training items (most popular first, ties included) that form the "
             "head; the rest, and items unseen in training, are the long tail (head=1: "
             "only unseen items are)",
             kind=float, low=0.0, high=1.0, low_open=True)


TAIL_UNSEEN = Param("unseen", "tail",
                    "items absent from training: tail (long tail, default) | head (not long "
                    "tail: RecBole TailPercentage counts training items only)", ("tail", "head"))


TAIL_MAX = Param("tail_max", None,
                 "when given, the long tail is every training item seen at most tail_max times "
                 "(RecBole TailPercentage with tail_ratio > 1), instead of the items outside the "
                 "head share", kind=float, low=0.0)


def _tail(context: Context, packed: Packed, spec: MetricSpec) -> np.ndarray:
    mask_train = _tail_train(context, spec)
    idx = train_index(context, packed, spec.key)
    unseen = spec.get("unseen") == "tail"
    return np.where(idx >= 0, mask_train[np.maximum(idx, 0)] if len(mask_train) else unseen,
                    unseen)


def _tail_train(context: Context, spec: MetricSpec) -> np.ndarray:
    """Long-tail mask of the training items (head share, or tail_max)."""
    tr = train_of(context, spec.key)
    top = spec.get("tail_max")
    return tail_mask(tr.popularity(spec.get("pop")), head=float(spec.get("head")),
                     max_count=None if top is None else float(top))


def _tail_share(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tail = _tail(context, packed, spec)
    state = packed_exposure(packed, spec.k, tail=tail)
    return MetricValues(None, tail_share(state),
                        {"tail_items_in_train": int(_tail_train(context, spec).sum()),
                         "slots": state.slots})


def _aplt(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tail = _tail(context, packed, spec)
    indptr, pos = top_k(packed, spec.k)
    values = list_mean(indptr, tail[packed.items[pos]].astype(np.float64))
    return MetricValues(values, info=undefined_info(values))


def _arp(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    pop = popularity_of(context, packed, spec.key, spec.get("pop")).astype(np.float64)
    if spec.get("normalize") == "share":  # phi(i) / N (RecTools AvgRecPopularity(normalize))
        pop = pop / max(train_of(context, spec.key).total(spec.get("pop")), 1)
    indptr, pos = top_k(packed, spec.k)
    values = list_mean(indptr, pop[packed.items[pos]])
    return MetricValues(values, info=undefined_info(values))


def _novelty(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tr = train_of(context, spec.key)
    pop_name = spec.get("pop")
    pop = popularity_of(context, packed, spec.key, pop_name)
    indptr, pos = top_k(packed, spec.k)
    try:
        info_bits = self_information(pop[packed.items[pos]], tr.total(pop_name),
                                     unseen=spec.get("unseen"),
                                     base=LOG_BASES[spec.get("base")])
    except InputError as exc:
        raise InputError(f"{spec.key}: {exc}") from None
    if spec.get("normalize") == "max":  # -log_N p(i): 1 for an item seen once (RePlay)
        total = tr.total(pop_name)
        if total < 2:
            raise InputError(f"{spec.key}: normalize=max divides by log(N), N = {total} training "
                             f"{pop_name}; it needs N >= 2. Use normalize=none.")
        info_bits = info_bits / (np.log(total) / np.log(LOG_BASES[spec.get("base")]))
    values = list_mean(indptr, info_bits)
    if spec.get("denominator") == "k" and spec.k is not None:  # sum over the list / k
        ok = ~np.isnan(info_bits)
        user = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        values = np.bincount(user[ok], weights=info_bits[ok], minlength=len(indptr) - 1) / spec.k
    info = undefined_info(values)
    info["unseen_positions"] = int((pop[packed.items[pos]] == 0).sum())
    return MetricValues(values, info=info)


def _in_history(context: Context, packed: Packed, key: str, pos: np.ndarray,
                indptr: np.ndarray) -> np.ndarray:
    """Whether each listed item is in its user's training history."""
    tr = train_of(context, key)
    item = train_index(context, packed, key)[packed.items[pos]]
    ucode = train_users(tr, packed, key)
    user = np.repeat(ucode, np.diff(indptr))
    width = max(len(tr.items), 1)
    hist_user = np.repeat(np.arange(tr.n_users, dtype=np.int64), np.diff(tr.indptr))
    keys = np.sort(hist_user * width + tr.hist)
    probe = user * width + item
    at = np.searchsorted(keys, probe)
    found = (at < len(keys)) & (keys[np.minimum(at, max(len(keys) - 1, 0))] == probe) \
        if len(keys) else np.zeros(len(probe), dtype=bool)
    return found & (user >= 0) & (item >= 0)


def _unseen_share(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = top_k(packed, spec.k)
    seen = _in_history(context, packed, spec.key, pos, indptr)
    values = list_mean(indptr, (~seen).astype(np.float64))
    return MetricValues(values, info=undefined_info(values))


register(beyond_metric(
    "tail_share", "Long-tail share of exposure@k",
    "sum_u |R_k(u) & Tail| / sum_u |R_k(u)|",
    "Share of all recommended positions that hold a long-tail item (tail: every item outside "
    "the `head` share of most popular training items, see docs).",
    _tail_share, (HEAD, POP, TAIL_UNSEEN, TAIL_MAX), needs=("train",),
    reference="Abdollahpouri et al. 2019",
), ("long_tail",))


register(beyond_metric(
    "aplt", "Average percentage of long-tail items@k", "mean_u |R_k(u) & Tail| / |R_k(u)|",
    "Per user share of long-tail items in the top k, averaged over users with a list.",
    _aplt, (HEAD, POP, TAIL_UNSEEN, TAIL_MAX), needs=("train",),
    reference="Abdollahpouri et al. 2019",
))


register(beyond_metric(
    "arp", "Average recommendation popularity@k", "mean_u mean_{i in R_k(u)} phi(i)",
    "Mean training popularity of the recommended items (pop=rows: interactions, pop=users: "
    "distinct users); lower = less popularity bias. normalize=share divides phi(i) by the "
    "training rows (pop=rows) or users (pop=users): RecTools AvgRecPopularity(normalize=True).",
    _arp, (POP, Param("normalize", "none", "none | share", ("none", "share"))),
    needs=("train",), bounds=(0.0, None), higher_is_better=False,
    reference="Yin et al. 2012; Abdollahpouri et al. 2019",
))


register(beyond_metric(
    "novelty", "Popularity novelty (self-information)@k", "mean_{i in R_k(u)} -log_b p(i)",
    "Mean self-information of the recommended items, p(i) = phi(i) / N from the training data "
    "(pop=rows: N = rows; pop=users: p = share of users who know i, Zhou et al. 2010). unseen: "
    "items absent from training count as seen once (one), are left out (skip) or raise (error). "
    "normalize=max divides by -log_b(1/N), the value of an item seen once (range [0, 1]); "
    "denominator=k sums over the top k and divides by k, so short lists score less (RePlay "
    "Surprisal: pop=users, normalize=max, denominator=k).",
    _novelty, (POP, Param("unseen", "one", "one | skip | error", ("one", "skip", "error")),
               Param("base", "2", "logarithm base: 2 | e | 10", ("2", "e", "10")),
               Param("normalize", "none", "none | max", ("none", "max")),
               Param("denominator", "list", "list | k", ("list", "k"))),
    needs=("train",), bounds=(0.0, None), reference="Zhou et al., PNAS 2010",
    example="p = 1/2 and 1/4: (1 + 2) / 2 = 1.5 bits",
), ("self_information",))


register(beyond_metric(
    "unseen_share", "Share of items unseen in training@k",
    "|R_k(u) \\ H(u)| / |R_k(u)|",
    "Share of the top-k items the user did not interact with in training (RePlay Novelty, "
    "replay/metrics/novelty.py: denominator min(k, |R|); Castells, Vargas & Wang 2011). A user "
    "without training history gets 1; an empty list has no value (RePlay gives 1). Needs "
    "train=....",
    _unseen_share, needs=("train",), reference="RePlay Novelty; Castells, Vargas & Wang 2011",
    example="top 2 = [3, 7], training items of the user {5, 6, 8, 9, 2}: 2/2",
), ("replay_novelty", "novelty_unseen"))
