"""Leakage checks and explicit filtering steps for interaction tables."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, RecevalWarning, plain
from ._frames import require_columns, take, time_values, to_pandas
from ._split import Split


class LeakageWarning(RecevalWarning):
    """A train/test split lets information from the test period or test users leak."""


@dataclass(frozen=True)
class LeakageReport:
    """Counts of the ways a split can leak; all zero for a clean temporal, warm-start split.

    - ``test_before_train_end``: test rows older than the newest train row (global time leak).
    - ``test_before_user_train_end``: test rows older than the same user's newest train row.
    - ``test_only_users`` / ``test_only_user_rows``: users (and their test rows) absent from train.
    - ``test_only_items`` / ``test_only_item_rows``: items (and their test rows) absent from train.
    - ``pairs_in_both``: distinct (user, item) pairs present in train and in test.
    Time counts are ``None`` when no timestamp column was given.
    """

    n_train: int
    n_test: int
    test_before_train_end: int | None
    test_before_user_train_end: int | None
    test_only_users: int
    test_only_user_rows: int
    test_only_items: int
    test_only_item_rows: int
    pairs_in_both: int

    def to_dict(self) -> dict[str, int | None]:
        return asdict(self)

    @property
    def problems(self) -> dict[str, int]:
        """The non-zero leakage counts."""
        skip = {"n_train", "n_test"}
        return {k: v for k, v in asdict(self).items() if k not in skip and v}


def check_leakage(
    train: Any,
    test: Any | None = None,
    *,
    user_col: str = "user",
    item_col: str = "item",
    timestamp_col: str | None = None,
    warn: bool = True,
) -> LeakageReport:
    """Count leakage between ``train`` and ``test`` (or a :class:`Split` passed as ``train``).

    With ``warn=True`` (default) a :class:`LeakageWarning` lists every non-zero count.

    Example: train ``(a, x, t=5)``, test ``(a, y, t=3)`` -> ``test_before_train_end = 1`` and
    ``test_before_user_train_end = 1``; item ``y`` is test-only, so ``test_only_items = 1``.
    """
    if test is None:
        if not isinstance(train, Split):
            raise InputError("check_leakage needs (train, test) or a Split.")
        train, test = train
    tr = to_pandas(train, "train")
    te = to_pandas(test, "test")
    for name, df in (("train", tr), ("test", te)):
        require_columns(df, name, user=user_col, item=item_col, timestamp=timestamp_col)

    tr_users = pd.Index(tr[user_col].unique())
    tr_items = pd.Index(tr[item_col].unique())
    cold_u = ~te[user_col].isin(tr_users).to_numpy()
    cold_i = ~te[item_col].isin(tr_items).to_numpy()
    pairs_tr = pd.MultiIndex.from_frame(tr[[user_col, item_col]]).unique()
    pairs_te = pd.MultiIndex.from_frame(te[[user_col, item_col]]).unique()
    both = int(pairs_te.isin(pairs_tr).sum())

    before = before_user = None
    if timestamp_col is not None and len(tr) and len(te):
        t_tr = time_values(tr, timestamp_col)
        t_te = time_values(te, timestamp_col)
        try:
            before = int((t_te < t_tr.max()).sum())
        except TypeError as exc:
            raise InputError(
                f"timestamp column {plain(timestamp_col)} has different types in train "
                f"({t_tr.dtype}) and test ({t_te.dtype})."
            ) from exc
        last = pd.Series(t_tr).groupby(tr[user_col].to_numpy()).max()
        known = ~cold_u
        user_last = te[user_col][known].map(last).to_numpy().astype(t_tr.dtype)
        before_user = int((t_te[known] < user_last).sum())
    elif timestamp_col is not None:
        before = before_user = 0

    report = LeakageReport(
        n_train=len(tr),
        n_test=len(te),
        test_before_train_end=before,
        test_before_user_train_end=before_user,
        test_only_users=int(te.loc[cold_u, user_col].nunique()),
        test_only_user_rows=int(cold_u.sum()),
        test_only_items=int(te.loc[cold_i, item_col].nunique()),
        test_only_item_rows=int(cold_i.sum()),
        pairs_in_both=both,
    )
    if warn and report.problems:
        detail = ", ".join(f"{k}={v}" for k, v in report.problems.items())
        warnings.warn(f"train/test leakage: {detail}.", LeakageWarning, stacklevel=2)
    return report


def filter_min_interactions(
    data: Any,
    *,
    min_user: int = 1,
    min_item: int = 1,
    iterate: bool = False,
    user_col: str = "user",
    item_col: str = "item",
) -> pd.DataFrame:
    """Keep rows whose user has ``>= min_user`` rows and whose item has ``>= min_item`` rows.

    Counts are taken on the input (one pass). ``iterate=True`` repeats until nothing changes
    (the (min_user, min_item)-core), since removing rows can push others below a threshold.

    Example: users a(3 rows), b(1 row), ``min_user=2`` -> only a's rows remain.
    """
    df = to_pandas(data)
    require_columns(df, "data", user=user_col, item=item_col)
    for name, v in (("min_user", min_user), ("min_item", min_item)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InputError(f"{name} must be a positive integer; got {plain(v)}.")
    keep = np.ones(len(df), dtype=bool)
    while True:
        cur = df[keep]
        uc = cur.groupby(user_col, sort=False)[user_col].transform("size").to_numpy()
        ic = cur.groupby(item_col, sort=False)[item_col].transform("size").to_numpy()
        ok = (uc >= min_user) & (ic >= min_item)
        idx = np.flatnonzero(keep)
        keep[idx[~ok]] = False
        if ok.all() or not iterate:
            break
    return take(df, keep)


def drop_cold(
    train: Any,
    test: Any | None = None,
    *,
    users: bool = True,
    items: bool = True,
    user_col: str = "user",
    item_col: str = "item",
) -> Split:
    """Remove test rows whose user (``users=True``) or item (``items=True``) is not in train."""
    if test is None:
        if not isinstance(train, Split):
            raise InputError("drop_cold needs (train, test) or a Split.")
        train, test = train
    tr = to_pandas(train, "train")
    te = to_pandas(test, "test")
    require_columns(tr, "train", user=user_col, item=item_col)
    require_columns(te, "test", user=user_col, item=item_col)
    keep = np.ones(len(te), dtype=bool)
    if users:
        keep &= te[user_col].isin(pd.Index(tr[user_col].unique())).to_numpy()
    if items:
        keep &= te[item_col].isin(pd.Index(tr[item_col].unique())).to_numpy()
    return Split(tr, take(te, keep))
