"""Data-quality checks of a raw run that evaluation never sees: repeated items in a list.

:func:`receval.evaluate` packs each list without repeats (``duplicates="error"`` rejects a
repeated (user, item) row; ``"first"`` / ``"max"`` keep one), so a metric over the packed lists
cannot count them. :func:`unrepeated_reco` reads the raw rows instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, PolicyError, plain
from ..io.frames import read_columns
from ..metrics.spec import MetricSpec, Param, register
from ..pack import run_codes
from ..pack.packed import Packed
from ..pack.vocab import order_keys
from ._context import REL, beyond_metric, top_k


def unrepeated_reco(run: Any, k: int, *, deep: bool = False, user_col: str | None = None,
                    item_col: str | None = None, score_col: str | None = None,
                    rank_col: str | None = None) -> pd.Series:
    """Per user: whether the first ``k`` rows of the list repeat no item (RecTools
    ``UnrepeatedReco``, rectools/metrics/dq.py).

    Rows are ordered as the engine orders a list (score descending or rank ascending, ties on
    the raw item id ascending, NaN scores last), then cut at ``k`` rows. ``deep=False``: 1 when
    no item of the first ``k`` rows repeats an earlier one, else 0 (the mean is the share of
    users without repeats); ``deep=True``: the share of those rows that are first occurrences.

    Example: items ``[1, 2, 2, 1, 5]`` in rank order, ``k = 4``: ``deep=False`` 0,
    ``deep=True`` 2/4.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise PolicyError(f"k must be a positive integer, got {plain(k)}.")
    codes = run_codes(read_columns(run, role="run", user_col=user_col, item_col=item_col,
                                   score_col=score_col, rank_col=rank_col))
    item_key = order_keys(codes.items, what="run item column")[codes.item_codes]
    score = np.where(np.isnan(codes.score), -np.inf, codes.score)
    order = np.lexsort((item_key, -score, codes.user_codes))
    user = codes.user_codes[order].astype(np.int64)
    item = codes.item_codes[order].astype(np.int64)
    n = len(codes.users)
    start = np.searchsorted(user, np.arange(n))
    position = np.arange(len(user)) - start[user]
    top = position < k
    user, item = user[top], item[top]
    # first occurrence of each (user, item) within the top rows (rows are in list order)
    key = user * (int(item.max(initial=0)) + 1) + item
    _, first = np.unique(key, return_index=True)
    fresh = np.zeros(len(key), dtype=bool)
    fresh[first] = True
    rows = np.bincount(user, minlength=n).astype(np.float64)
    unrepeated = np.bincount(user, weights=fresh, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = unrepeated / rows if deep else (unrepeated == rows).astype(np.float64)
    return pd.Series(values, index=pd.Index(codes.users, name="user"), name=f"unrepeated@{k}")

# -------------------------------------------------------------------------------------------------
# User coverage and sufficient recommendations:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def _user_coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = top_k(packed, spec.k)
    n = len(indptr) - 1
    if spec.get("kind") == "list":
        return MetricValues((np.diff(indptr) > 0).astype(np.float64))
    hit = packed.rel[pos] >= float(spec.get("rel"))
    user = np.repeat(np.arange(n), np.diff(indptr))
    return MetricValues((np.bincount(user[hit], minlength=n) > 0).astype(np.float64))


def _sufficient_reco(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    if spec.k is None:
        raise InputError(f"{spec.key} needs a cutoff: the number of recommendations every user "
                         "should get, e.g. sufficient_reco@10.")
    have = np.minimum(packed.list_len, spec.k).astype(np.float64)
    if spec.get("deep") == "true":
        return MetricValues(have / spec.k)
    return MetricValues((have >= spec.k).astype(np.float64))


register(beyond_metric(
    "user_coverage", "User coverage@k", "kind=list: [|R_k(u)| > 0]; kind=hit: [h_k(u) > 0]",
    "Share of evaluated users who receive a non-empty list (kind=list) or at least one relevant "
    "item in the top k (kind=hit, equal to hit_rate@k but averaged over every evaluated user).",
    _user_coverage, (Param("kind", "list", "list | hit", ("list", "hit")), REL),
    example="users with lists [a], [] : 1/2",
))


register(beyond_metric(
    "sufficient_reco", "Sufficient recommendations@k (RecTools)",
    "deep=false: [|R(u)| >= k]; deep=true: min(|R(u)|, k) / k",
    "Whether the user received at least k recommendations (deep=false, the share of users "
    "with full lists), or the filled share of the k slots (deep=true), as RecTools "
    "SufficientReco (rectools/metrics/dq.py). Needs a cutoff.",
    _sufficient_reco, (Param("deep", "false", "false (full list or not) | true (filled share)",
                             ("false", "true")),),
    reference="RecTools SufficientReco (MTS, 2024)",
    example="lists of 2, 3 and 5 items, k = 4: deep=false [0, 0, 1]; deep=true [0.5, 0.75, 1]",
))
