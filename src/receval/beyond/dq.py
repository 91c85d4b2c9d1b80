"""Data-quality checks of a raw run that evaluation never sees: repeated items in a list.

:func:`receval.evaluate` packs each list without repeats (``duplicates="error"`` rejects a
repeated (user, item) row; ``"first"`` / ``"max"`` keep one), so a metric over the packed lists
cannot count them. :func:`unrepeated_reco` reads the raw rows instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import PolicyError
from ..io.frames import read_columns
from ..pack import run_codes
from ..pack.vocab import order_keys


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
        raise PolicyError(f"k must be a positive integer, got {k!r}.")
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
