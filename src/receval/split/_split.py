"""Train/test splitters for interaction tables.

Every splitter returns the original rows (same columns, same index, original row order) split
into ``train`` and ``test``; every row lands in exactly one of them. Randomness comes from
``numpy.random.default_rng(seed)`` and is drawn over a canonical order of the rows (user,
then item, then timestamp when a timestamp column is given, all by their raw values ascending,
then input position), so a seed gives the same split whatever the input row order.

Within a user, "last" means: timestamp ascending, then item id ascending (the documented
secondary key for equal timestamps), then input position.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..errors import InputError, RecevalWarning, plain, user_stacklevel
from ..validation import (
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    PROBABILITY_OPEN,
    SEED,
    Boolean,
    Integral,
    Interval,
    Options,
    validate_params,
)
from ._frames import (
    codes,
    group_positions,
    require_columns,
    take,
    time_codes,
    time_values,
    to_pandas,
)


class Split(NamedTuple):
    """A train/test pair of interaction tables with identical columns."""

    train: pd.DataFrame
    test: pd.DataFrame


def _round_half_up(x: np.ndarray | float) -> np.ndarray:
    return np.floor(np.asarray(x, dtype=float) + 0.5).astype(np.int64)


def _prepare(data: Any, user_col: str, item_col: str, timestamp_col: str | None):
    df = to_pandas(data)
    require_columns(df, "data", user=user_col, item=item_col, timestamp=timestamp_col)
    if len(df) == 0:
        raise InputError("data has no rows; there is nothing to split.")
    u = codes(df[user_col])
    i = codes(df[item_col])
    t = time_codes(df, timestamp_col) if timestamp_col is not None else None
    return df, u, i, t


def _canonical(u: np.ndarray, i: np.ndarray, t: np.ndarray | None) -> np.ndarray:
    pos = np.arange(u.size)
    keys = (pos, t, i, u) if t is not None else (pos, i, u)
    return np.lexsort(keys)


def _per_user_test_mask(u: np.ndarray, order: np.ndarray, n_test: np.ndarray) -> np.ndarray:
    """Mark as test the last ``n_test[user]`` rows of each user in ``order``."""
    pos, cnt = group_positions(u, order)
    mask = np.zeros(u.size, dtype=bool)
    mask[order[pos >= cnt - n_test[u[order]]]] = True
    return mask


@validate_params({
    "test_size": PROBABILITY_OPEN,
    "per_user": [Boolean()],
    "min_train": NON_NEGATIVE_INT,
    "seed": SEED,
})
def random_split(
    data: Any,
    *,
    test_size: float = 0.2,
    per_user: bool = False,
    min_train: int = 1,
    seed: int = 0,
    user_col: str = "user",
    item_col: str = "item",
    timestamp_col: str | None = None,
) -> Split:
    """Random split of interactions.

    ``per_user=False`` (default): exactly ``floor(test_size * n + 0.5)`` rows chosen uniformly at
    random go to test. ``per_user=True``: each user ``u`` with ``n_u`` rows sends
    ``min(floor(test_size * n_u + 0.5), n_u - min_train)`` (at least 0) random rows to test, so
    every user keeps ``min_train`` training rows where it can.

    Example: 10 rows, ``test_size=0.25`` -> ``floor(2.5 + 0.5) = 3`` test rows.
    """
    df, u, i, t = _prepare(data, user_col, item_col, timestamp_col)
    frac = float(test_size)
    rng = np.random.default_rng(int(seed))
    canon = _canonical(u, i, t)
    n = u.size
    if not per_user:
        n_test = int(_round_half_up(frac * n))
        mask = np.zeros(n, dtype=bool)
        mask[canon[rng.permutation(n)[:n_test]]] = True
        return Split(take(df, ~mask), take(df, mask))
    key = np.empty(n)
    key[canon] = rng.random(n)
    order = np.lexsort((key, u))
    counts = np.bincount(u)
    n_test = np.clip(np.minimum(_round_half_up(frac * counts), counts - int(min_train)), 0, None)
    mask = _per_user_test_mask(u, order, n_test)
    return Split(take(df, ~mask), take(df, mask))


@validate_params({"quantile": [None, *PROBABILITY_OPEN]})
def temporal_split(
    data: Any,
    *,
    at: Any = None,
    quantile: float | None = None,
    timestamp_col: str = "timestamp",
    user_col: str = "user",
    item_col: str = "item",
) -> Split:
    """Global temporal cut: rows with ``timestamp < at`` train, rows with ``timestamp >= at`` test.

    Give either ``at`` (a timestamp or number comparable with the column; a string is parsed
    with ``pandas.Timestamp`` for datetime columns) or ``quantile=q`` in (0, 1), which sets
    ``at`` to the timestamp at 0-based position ``floor(q * n)`` of the ascending timestamps,
    so about ``q`` of the rows train (rows equal to ``at`` always go to test, so no timestamp is
    on both sides). Example: timestamps 1..10 and ``q=0.8`` give ``at = 9``: rows 1..8 train.
    """
    if (at is None) == (quantile is None):
        raise InputError("temporal_split needs exactly one of at=... or quantile=....")
    df, _, _, _ = _prepare(data, user_col, item_col, timestamp_col)
    tv = time_values(df, timestamp_col)
    if quantile is not None:
        q = float(quantile)
        at_value = np.sort(tv, kind="stable")[int(math.floor(q * tv.size))]
    else:
        at_value = at
        if np.issubdtype(tv.dtype, np.datetime64):
            try:
                stamp = pd.Timestamp(at)
                if stamp.tzinfo is not None:
                    stamp = stamp.tz_convert("UTC").tz_localize(None)
                at_value = np.datetime64(stamp.to_datetime64(), "ns").astype(tv.dtype)
            except (ValueError, TypeError) as exc:
                raise InputError(
                    f"at={plain(at)} cannot be read as a date for the datetime column "
                    f"{plain(timestamp_col)}; pass e.g. at='2024-01-31'."
                ) from exc
        elif isinstance(at, str):
            raise InputError(
                f"at={plain(at)} is a string but column {plain(timestamp_col)} is numeric ({tv.dtype}); "
                "pass a number."
            )
    mask = tv >= at_value
    n_test = int(mask.sum())
    if n_test in (0, mask.size):
        side = "test" if n_test == 0 else "train"
        raise InputError(
            f"temporal_split: the {side} side is empty: "
            f"{'no' if n_test == 0 else 'every'} row has {timestamp_col} >= "
            f"{plain(at if quantile is None else at_value)} (the timestamps span "
            f"{plain(tv.min())} .. {plain(tv.max())}). Choose a cut inside that range."
        )
    return Split(take(df, ~mask), take(df, mask))


@validate_params({
    "last_n": [None, *POSITIVE_INT],
    "fraction": [None, *PROBABILITY_OPEN],
    "min_train": NON_NEGATIVE_INT,
})
def user_temporal_split(
    data: Any,
    *,
    last_n: int | None = None,
    fraction: float | None = None,
    min_train: int = 1,
    timestamp_col: str = "timestamp",
    user_col: str = "user",
    item_col: str = "item",
) -> Split:
    """Per-user temporal holdout: each user's latest interactions go to test.

    Give ``last_n`` (that many rows per user) or ``fraction`` (``floor(fraction * n_u + 0.5)``
    rows per user); either way at most ``n_u - min_train`` rows leave a user. Latest is by
    timestamp, then item id ascending, then input position (the last of these goes to test).
    Test rows of one user can be older than train rows of another: see :func:`check_leakage`.
    """
    if (last_n is None) == (fraction is None):
        raise InputError("user_temporal_split needs exactly one of last_n=... or fraction=....")
    df, u, i, t = _prepare(data, user_col, item_col, timestamp_col)
    counts = np.bincount(u)
    if last_n is not None:
        want = np.full(counts.size, int(last_n))
    else:
        want = _round_half_up(float(fraction) * counts)  # type: ignore[arg-type]
    n_test = np.clip(np.minimum(want, counts - int(min_train)), 0, None)
    order = np.lexsort((np.arange(u.size), i, t, u))
    mask = _per_user_test_mask(u, order, n_test)
    return Split(take(df, ~mask), take(df, mask))


@validate_params({
    "pick": [Options(("last", "random"))],
    "min_train": NON_NEGATIVE_INT,
    "seed": SEED,
})
def leave_one_out(
    data: Any,
    *,
    pick: str = "last",
    min_train: int = 1,
    seed: int = 0,
    timestamp_col: str | None = "timestamp",
    user_col: str = "user",
    item_col: str = "item",
) -> Split:
    """One test interaction per user: the latest (``pick="last"``, needs a timestamp) or one at
    random (``pick="random"``, seeded; the timestamp column is optional there). A user with at
    most ``min_train`` rows stays in train."""
    if pick == "last":
        if timestamp_col is None:
            raise InputError("leave_one_out(pick='last') needs timestamp_col=...")
        return user_temporal_split(
            data, last_n=1, min_train=min_train, timestamp_col=timestamp_col,
            user_col=user_col, item_col=item_col,
        )
    df = to_pandas(data)
    if timestamp_col is not None and timestamp_col not in df.columns:
        timestamp_col = None  # a random pick does not need times
    df, u, i, t = _prepare(df, user_col, item_col, timestamp_col)
    rng = np.random.default_rng(int(seed))
    key = np.empty(u.size)
    key[_canonical(u, i, t)] = rng.random(u.size)
    counts = np.bincount(u)
    n_test = np.clip(np.minimum(1, counts - int(min_train)), 0, None)
    mask = _per_user_test_mask(u, np.lexsort((key, u)), n_test)
    return Split(take(df, ~mask), take(df, mask))


@validate_params({
    "n_folds": [Interval(Integral, 2, None)],
    "by": [Options(("interaction", "user", "user_interactions"))],
    "seed": SEED,
})
def kfold_split(
    data: Any,
    *,
    n_folds: int = 5,
    by: str = "interaction",
    seed: int = 0,
    user_col: str = "user",
    item_col: str = "item",
    timestamp_col: str | None = None,
) -> list[Split]:
    """K-fold cross-validation splits; every row is in the test part of exactly one fold.

    ``by="interaction"``: rows are shuffled and dealt round-robin into folds (fold sizes differ
    by at most one). ``by="user"``: users are shuffled and dealt into folds; a fold's test part
    holds all rows of its users (users unseen in training). ``by="user_interactions"``: each
    user's rows are shuffled and dealt into folds separately, so every user is in every train
    part and in (up to) every test part.
    """
    df, u, i, t = _prepare(data, user_col, item_col, timestamp_col)
    rng = np.random.default_rng(int(seed))
    n = u.size
    units = int(u.max()) + 1 if by == "user" else n
    if units < n_folds:
        what = "users" if by == "user" else "rows"
        raise InputError(
            f"kfold_split: n_folds={n_folds} but the data has only {units} {what} "
            f"(by={plain(by)}): {n_folds - units} fold(s) would have no test rows. Use at most "
            f"n_folds={units}."
        )
    if by == "interaction":
        fold = np.empty(n, dtype=np.int64)
        fold[_canonical(u, i, t)[rng.permutation(n)]] = np.arange(n) % n_folds
    elif by == "user":
        n_users = int(u.max()) + 1
        user_fold = np.empty(n_users, dtype=np.int64)
        user_fold[rng.permutation(n_users)] = np.arange(n_users) % n_folds
        fold = user_fold[u]
    else:
        key = np.empty(n)
        key[_canonical(u, i, t)] = rng.random(n)
        order = np.lexsort((key, u))
        pos, _ = group_positions(u, order)
        offset = rng.integers(0, n_folds, size=int(u.max()) + 1)  # balances folds over users
        fold = np.empty(n, dtype=np.int64)
        fold[order] = (pos + offset[u[order]]) % n_folds
    empty = np.flatnonzero(np.bincount(fold, minlength=n_folds) == 0)
    if empty.size:  # by="user_interactions": every user shorter than n_folds, by chance
        import warnings

        warnings.warn(
            f"kfold_split: {empty.size} of the {n_folds} folds have no test rows (folds "
            f"{empty.tolist()}); every user has fewer rows than n_folds. Use fewer folds.",
            RecevalWarning, stacklevel=user_stacklevel())
    return [Split(take(df, fold != f), take(df, fold == f)) for f in range(n_folds)]


@validate_params({"test_users": [*PROBABILITY_OPEN, *POSITIVE_INT], "seed": SEED})
def cold_start_split(
    data: Any,
    *,
    test_users: float | int = 0.2,
    seed: int = 0,
    user_col: str = "user",
    item_col: str = "item",
) -> Split:
    """Hold out whole users: all rows of the chosen users go to test.

    ``test_users`` is a fraction in (0, 1) (``floor(fraction * n_users + 0.5)`` users) or a
    count of users (an ``int`` >= 1). Users are drawn at random from the sorted user ids.
    """
    df, u, _, _ = _prepare(data, user_col, item_col, None)
    n_users = int(u.max()) + 1
    if isinstance(test_users, (int, np.integer)) and not isinstance(test_users, bool):
        m = int(test_users)
        if not 1 <= m <= n_users:
            raise InputError(f"test_users={m} must be between 1 and the {n_users} users.")
    else:
        m = int(_round_half_up(float(test_users) * n_users))
    rng = np.random.default_rng(int(seed))
    chosen = np.zeros(n_users, dtype=bool)
    chosen[rng.permutation(n_users)[:m]] = True
    mask = chosen[u]
    return Split(take(df, ~mask), take(df, mask))
