"""Sampled rankings of a stochastic policy: the ``rankings=`` input of expected exposure.

A stochastic ranking policy answers one user with a different ranking each time. Expected
exposure (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020) evaluates such a policy from
several rankings drawn from it per user, as the TREC Fair Ranking 2022 run files
(``wptrec``: a query's sequence of rankings) and Diaz et al.'s ``expeval`` (a ``sample`` field
in the run file) do. ``rv.evaluate(run, truth, ["ee_loss@10(policy=samples)"],
rankings=draws)`` reads them from a table with one row per ranked item:

==============  ===============================================================================
column          meaning
==============  ===============================================================================
user            the user (or query) the ranking answers; names as in a run (``user``,
                ``user_id``, ``qid``, ...)
sample          which ranking of the user: any id (``sample``, ``sample_id``, ``seq_no``,
                ``draw``, ``iteration``); samples of different users are unrelated
item            the ranked item (names as in a run)
rank            its rank in the sample, 1 = first (``rank``, ``position``, ``pos``): each
                sample holds ranks 1..n, no gap, no repeat (as ``expeval``)
score           instead of ``rank``: the sample is ordered by score, descending; tied
                scores in a sample are refused (the order of a ranking must be given)
==============  ===============================================================================

A pandas / polars DataFrame, a pyarrow Table or a dict of columns. When both ``rank`` and
``score`` columns exist, ``rank`` is read. Samples of one user may have different lengths (a
shorter ranking exposes fewer positions); an item twice in one sample, a missing id, rank or
sample, a rank that is not a whole number >= 1 and a NaN or infinite score are refused, each
naming the user, the sample and the value. Users and items follow the id policy of the run
(:mod:`receval.pack.vocab`); the ids must have the run's and the truth's types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from ..io.frames import ITEM_NAMES, RANK_NAMES, SCORE_NAMES, USER_NAMES
from ..pack.vocab import factorize

OPTION = "rankings"
SAMPLE_NAMES = ("sample", "sample_id", "seq_no", "draw", "iteration")


@dataclass(frozen=True)
class RankingSamples:
    """Rankings drawn per user, CSR by user: user ``users[u]`` owns rows
    ``indptr[u]:indptr[u+1]``, sorted by sample then place; ``n_samples[u]`` rankings;
    ``sample`` the 0-based sample of each row within its user, ``place`` its 0-based place in
    its ranking, ``item`` its code in ``items`` (raw ids). ``n_rows``: rows read; ``order``:
    ``"rank"`` or ``"score"``, the column that ordered the samples."""

    users: pd.Index
    indptr: np.ndarray
    n_samples: np.ndarray
    sample: np.ndarray
    place: np.ndarray
    item: np.ndarray
    items: np.ndarray
    n_rows: int
    order: str

    def rows_of(self, user_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row of ``users`` of each given raw user id, -1 without samples; the number of rows
        of each)."""
        if not len(user_ids):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        idx = self.users.get_indexer(pd.Index(user_ids)).astype(np.int64)
        lens = np.where(idx >= 0, np.diff(self.indptr)[np.maximum(idx, 0)], 0)
        return idx, lens


def _frame(obj: Any) -> pd.DataFrame:
    """A pandas DataFrame of ``rankings=`` (pandas, polars, pyarrow, a dict of columns)."""
    if isinstance(obj, pd.DataFrame):
        return obj
    mod = type(obj).__module__.split(".")[0]
    if mod == "polars":
        if hasattr(obj, "collect") and not hasattr(obj, "to_arrow"):
            obj = obj.collect()
        return obj.to_arrow().to_pandas()
    if mod == "pyarrow" and hasattr(obj, "to_pandas"):
        return obj.to_pandas()
    if isinstance(obj, Mapping):
        if any(isinstance(v, Mapping) for v in obj.values()):
            raise InputError(
                f"{OPTION}: a dict {{user: {{item: value}}}} holds one ranking per user; give a "
                "table (a DataFrame or a dict of columns) with user, sample, item and rank (or "
                "score) columns, one row per ranked item.")
        try:
            return pd.DataFrame(dict(obj))
        except (ValueError, TypeError) as exc:
            raise InputError(f"{OPTION}: cannot read the dict of columns: {exc}") from None
    raise InputError(
        f"{OPTION}: expected a pandas / polars DataFrame, a pyarrow Table or a dict of columns "
        f"with user, sample, item and rank (or score) columns; got {type(obj).__name__}.")


def _column(names: list[str], candidates: tuple[str, ...], what: str) -> str | None:
    for cand in candidates:
        if cand in names:
            return cand
    lower = {n.lower(): n for n in names}
    return next((lower[c.lower()] for c in candidates if c.lower() in lower), None)


def _required(names: list[str], candidates: tuple[str, ...], what: str) -> str:
    col = _column(names, candidates, what)
    if col is None:
        raise InputError(f"{OPTION}: no {what} column among {names}; name it one of "
                         f"{list(candidates)}.")
    return col


def as_rankings(obj: Any) -> RankingSamples:
    """Read ``rankings=`` (module docstring) into :class:`RankingSamples`."""
    if isinstance(obj, RankingSamples):
        return obj
    df = _frame(obj)
    names = [str(c) for c in df.columns]
    if len(set(names)) != len(names):
        raise InputError(f"{OPTION}: column names {names} repeat; rename the duplicates.")
    df = df.set_axis(names, axis=1)
    ucol = _required(names, USER_NAMES, "user")
    icol = _required(names, ITEM_NAMES, "item")
    scol = _required(names, SAMPLE_NAMES, "sample")
    rcol = _column(names, RANK_NAMES, "rank")
    vcol = rcol or _column(names, SCORE_NAMES, "score")
    if vcol is None:
        raise InputError(f"{OPTION}: no rank or score column among {names}; name the rank "
                         f"(1 = first) one of {list(RANK_NAMES)}, or the score one of "
                         f"{list(SCORE_NAMES)}.")
    order = "rank" if rcol else "score"
    n = len(df)
    if n == 0:
        raise InputError(f"{OPTION}: the table has no rows; give at least one ranking per "
                         "evaluated user (one row per ranked item).")
    for col in (ucol, icol, scol):
        miss = df[col].isna().to_numpy()
        if miss.any():
            raise InputError(f"{OPTION}: column {col!r} has {int(miss.sum())} missing "
                             "value(s); drop or fill those rows.")
    ucode, users = factorize(df[ucol], what=f"{OPTION} user column {ucol!r}")
    icode, items = factorize(df[icol], what=f"{OPTION} item column {icol!r}")
    ucode = np.asarray(ucode, dtype=np.int64)
    icode = np.asarray(icode, dtype=np.int64)
    scode = np.asarray(pd.factorize(df[scol])[0], dtype=np.int64)
    if not pd.api.types.is_numeric_dtype(df[vcol]) or pd.api.types.is_bool_dtype(df[vcol]):
        raise InputError(f"{OPTION}: column {vcol!r} must be numeric, got dtype "
                         f"{df[vcol].dtype}; convert it with pd.to_numeric(df[{vcol!r}]).")
    value = df[vcol].to_numpy(dtype=np.float64, na_value=np.nan)
    raw_sample = df[scol].to_numpy()

    def where(j: int) -> str:
        return (f"user {plain(users[ucode[j]])}, sample {plain(raw_sample[j])}, item "
                f"{plain(items[icode[j]])}")

    if order == "rank":
        bad = ~np.isfinite(value) | (value < 1) | (value != np.floor(value))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise InputError(f"{OPTION}: {where(j)} has rank {plain(value[j])}; a rank is a "
                             "whole number >= 1 (1 = first). Fix the rank column, or give "
                             "scores (higher first) in a 'score' column instead.")
    elif (~np.isfinite(value)).any():
        j = int(np.flatnonzero(~np.isfinite(value))[0])
        raise InputError(f"{OPTION}: {where(j)} has score {plain(value[j])}; give every row "
                         "a finite score, or drop the row.")
    # one ranking per (user, sample): its code in first-appearance order per user
    pair, _ = pd.factorize(ucode * (int(scode.max(initial=-1)) + 1) + scode)
    pair = np.asarray(pair, dtype=np.int64)
    key = value if order == "rank" else -value
    rows = np.lexsort((key, pair, ucode))
    ucode, icode, pair, key = ucode[rows], icode[rows], pair[rows], key[rows]
    raw_sample = raw_sample[rows]

    def where_sorted(j: int) -> str:
        return (f"user {plain(users[ucode[j]])}, sample {plain(raw_sample[j])}, item "
                f"{plain(items[icode[j]])}")

    new_list = np.ones(n, dtype=bool)
    new_list[1:] = pair[1:] != pair[:-1]
    starts = np.flatnonzero(new_list)
    place = np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n)))
    # an item twice in one ranking
    by_item = np.lexsort((icode, pair))
    dup = np.zeros(n, dtype=bool)
    dup[1:] = (pair[by_item][1:] == pair[by_item][:-1]) & (icode[by_item][1:] ==
                                                            icode[by_item][:-1])
    if dup.any():
        j = int(by_item[np.flatnonzero(dup)[0]])
        raise InputError(
            f"{OPTION}: {where_sorted(j)} appears twice in one sample; each sample is one "
            "ranking, where an item appears at most once. Drop the repeats (e.g. "
            "df.drop_duplicates(['user', 'sample', 'item'])) or give each ranking its own "
            "sample id.")
    if order == "rank":
        bad = key != place + 1
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            what = "shares" if j and not new_list[j] and key[j] == key[j - 1] else "skips to"
            raise InputError(
                f"{OPTION}: {where_sorted(j)} {what} rank {int(key[j])} at place {place[j] + 1} "
                "of its sample; each sample holds the ranks 1..n once each (no gap, no tie). "
                "Renumber the ranks of each sample, e.g. df.groupby(['user', 'sample'])['rank']"
                ".rank(method='first').")
    else:
        tie = np.zeros(n, dtype=bool)
        tie[1:] = ~new_list[1:] & (key[1:] == key[:-1])
        if tie.any():
            j = int(np.flatnonzero(tie)[0])
            raise InputError(
                f"{OPTION}: {where_sorted(j)} ties on score {plain(-key[j])} with another item "
                "of its sample; a sample is one ranking, so its order must be given. Break the "
                "ties, or give a rank column (1 = first).")
    n_users = len(users)
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(ucode, minlength=n_users), out=indptr[1:])
    # the sample of each row within its user: 0, 1, ... in sorted order
    run_no = np.cumsum(new_list) - 1
    sample = run_no - np.repeat(run_no[indptr[:-1][np.diff(indptr) > 0]],
                                np.diff(indptr)[np.diff(indptr) > 0])
    n_samples = np.bincount(ucode, weights=new_list, minlength=n_users).astype(np.int64)
    return RankingSamples(pd.Index(users), indptr, n_samples, sample.astype(np.int64), place,
                          icode, np.asarray(items), n, order)
