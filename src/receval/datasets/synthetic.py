"""A seeded synthetic interaction log that looks like real implicit-feedback data.

Generative story (every draw comes from one ``numpy.random.Generator`` seeded by ``seed``):

- items belong to ``n_genres`` genres; item popularity follows a Zipf law,
  ``w_i ∝ 1 / rank_i^zipf`` over a random popularity ranking;
- user activity (number of interactions) is log-normal, at least ``min_activity``;
- each user likes a few genres (Dirichlet preferences with concentration ``taste``); each
  interaction picks a genre from the user's preferences with probability ``1 - mainstream``, or
  the whole catalogue by popularity otherwise, then an item of that genre by popularity;
- timestamps are uniform over ``days`` days (seconds since the start); a user's later
  interactions drift towards their favourite genre;
- feedback is a graded rating 1..5, higher when the item's genre is one the user likes.

Repeated (user, item) draws are dropped (first occurrence kept).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import InputError, plain


def synthetic_interactions(n_users: int = 4000, n_items: int = 2500, *, seed: int = 0,
                           n_genres: int = 20, zipf: float = 1.0, mean_activity: float = 30.0,
                           min_activity: int = 5, taste: float = 0.3, mainstream: float = 0.25,
                           days: int = 365) -> pd.DataFrame:
    """Interaction rows ``user, item, timestamp, rating`` (user/item ids are ints from 0).

    Example
    -------
    >>> log = synthetic_interactions(200, 100, seed=1)
    >>> list(log.columns)
    ['user', 'item', 'timestamp', 'rating']
    """
    for name, value in (("n_users", n_users), ("n_items", n_items), ("n_genres", n_genres)):
        if int(value) < 1:
            raise InputError(f"{name} must be a positive integer, got {plain(value)}.")
    if mean_activity < min_activity:
        raise InputError(f"mean_activity ({mean_activity}) must be >= min_activity "
                         f"({min_activity}).")
    rng = np.random.default_rng(seed)
    # items: genre and Zipf popularity
    genre = rng.integers(0, n_genres, size=n_items)
    pop_rank = rng.permutation(n_items) + 1
    weight = 1.0 / pop_rank.astype(np.float64) ** zipf
    # per-genre sampling tables (items sorted by genre, cumulative weights inside each genre)
    order = np.argsort(genre, kind="stable")
    g_sorted = genre[order]
    g_start = np.searchsorted(g_sorted, np.arange(n_genres))
    g_end = np.searchsorted(g_sorted, np.arange(n_genres), side="right")
    cum_w = np.cumsum(weight[order])
    base = np.where(g_start > 0, cum_w[np.maximum(g_start - 1, 0)], 0.0)
    base = np.where(g_start > 0, base, 0.0)
    total_g = np.where(g_end > g_start, cum_w[np.maximum(g_end - 1, 0)] - base, 0.0)
    glob_cum = np.cumsum(weight) / weight.sum()
    # users: activity and genre preferences
    sigma = 0.9
    mu = np.log(max(mean_activity - min_activity, 1.0)) - sigma**2 / 2
    activity = (min_activity + rng.lognormal(mu, sigma, size=n_users)).astype(np.int64)
    activity = np.minimum(activity, n_items // 2 + 1)
    prefs = rng.dirichlet(np.full(n_genres, taste), size=n_users)
    prefs = np.where(total_g[None, :] > 0, prefs, 0.0)
    prefs /= prefs.sum(axis=1, keepdims=True)
    fav = prefs.argmax(axis=1)
    # interactions
    user = np.repeat(np.arange(n_users), activity)
    n = user.size
    t = rng.random(n)
    ts = (t * days * 86400).astype(np.int64)
    # later interactions lean towards the favourite genre (taste drift over time)
    drift = rng.random(n) < 0.35 * t
    u_cum = np.cumsum(prefs, axis=1)
    pick = (u_cum[user] < rng.random(n)[:, None]).sum(axis=1)
    pick = np.minimum(pick, n_genres - 1)
    pick = np.where(drift, fav[user], pick)
    pick = np.where(total_g[pick] > 0, pick, fav[user])
    target = base[pick] + rng.random(n) * total_g[pick]
    pos = np.searchsorted(cum_w, target, side="right")
    pos = np.clip(pos, g_start[pick], g_end[pick] - 1)
    item = order[pos]
    global_draw = rng.random(n) < mainstream
    item_glob = np.minimum(np.searchsorted(glob_cum, rng.random(n), side="right"), n_items - 1)
    item = np.where(global_draw, item_glob, item)
    # graded feedback: liked genre -> higher rating
    affinity = prefs[user, genre[item]]
    score = 2.6 + 2.2 * np.sqrt(affinity) + rng.normal(0.0, 0.8, size=n)
    rating = np.clip(np.rint(score), 1, 5).astype(np.int64)
    log = pd.DataFrame({"user": user, "item": item, "timestamp": ts, "rating": rating})
    log = log.sort_values(["timestamp", "user", "item"], kind="mergesort")
    log = log.drop_duplicates(["user", "item"], keep="first")
    return log.reset_index(drop=True)


@dataclass
class TemporalSplit:
    """Training rows, held-out rows and the split facts."""

    train: pd.DataFrame
    test: pd.DataFrame
    cutoff: int
    info: dict


def temporal_split(log: pd.DataFrame, *, test_share: float = 0.2, user_col: str = "user",
                   item_col: str = "item", time_col: str = "timestamp",
                   drop_cold: bool = True) -> TemporalSplit:
    """Global time split: interactions at or after the ``1 - test_share`` time quantile are held
    out. With ``drop_cold`` (default) held-out rows of users or items never seen in training are
    dropped (they cannot be recommended by collaborative models); ``info`` counts them.
    """
    if not 0.0 < test_share < 1.0:
        raise InputError(f"test_share must lie in (0, 1), got {plain(test_share)}.")
    for c in (user_col, item_col, time_col):
        if c not in log.columns:
            raise InputError(f"temporal_split: column {plain(c)} is missing; columns are "
                             f"{list(log.columns)}.")
    ts = log[time_col].to_numpy()
    cutoff = int(np.quantile(ts, 1.0 - test_share, method="lower"))
    is_test = ts > cutoff
    train = log.loc[~is_test].reset_index(drop=True)
    test = log.loc[is_test].reset_index(drop=True)
    info = {"cutoff": cutoff, "train_rows": int(len(train)), "test_rows": int(len(test))}
    if drop_cold:
        known_u = test[user_col].isin(pd.unique(train[user_col]))
        known_i = test[item_col].isin(pd.unique(train[item_col]))
        info["cold_user_rows_dropped"] = int((~known_u).sum())
        info["cold_item_rows_dropped"] = int((known_u & ~known_i).sum())
        test = test.loc[known_u & known_i].reset_index(drop=True)
        info["test_rows"] = int(len(test))
    info["test_users"] = int(test[user_col].nunique())
    return TemporalSplit(train, test, cutoff, info)
