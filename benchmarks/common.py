"""Seeded synthetic data shared by the benchmark scripts."""

from __future__ import annotations

import numpy as np
import pandas as pd


def make_data(n_users: int, *, k: int = 100, n_truth: int = 10, n_items: int | None = None,
              seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (n_users x k rows) and truth (~n_truth rows per user) with string ids.

    Item popularity is Zipf-like (exponent 1.1); each user's truth is a popularity-weighted
    sample, the run mixes popular items with ~30% of the user's truth so metrics are non-trivial.
    """
    rng = np.random.default_rng(seed)
    n_items = n_items or max(1000, n_users // 2)
    pop = 1.0 / np.arange(1, n_items + 1) ** 1.1
    pop /= pop.sum()
    item_names = np.array([f"i{j:07d}" for j in range(n_items)], dtype=object)
    user_names = np.array([f"u{j:08d}" for j in range(n_users)], dtype=object)

    t_counts = np.maximum(1, rng.poisson(n_truth, n_users))
    t_user = np.repeat(np.arange(n_users), t_counts)
    t_item = rng.choice(n_items, size=len(t_user), p=pop)
    truth = pd.DataFrame({"user": user_names[t_user], "item": item_names[t_item],
                          "relevance": rng.integers(1, 4, len(t_user)).astype(np.float64)})
    truth = truth.drop_duplicates(["user", "item"], ignore_index=True)

    r_item = rng.choice(n_items, size=(n_users, k), p=pop)
    # plant some truth items near the top of the lists
    first = np.concatenate([[0], np.cumsum(t_counts)[:-1]])
    plant = rng.random((n_users, 3)) < 0.3
    pos = rng.integers(0, k, (n_users, 3))
    src = t_item[first]
    for j in range(3):
        r_item[plant[:, j], pos[plant[:, j], j]] = src[plant[:, j]]
    # make lists duplicate-free: replace repeats by unique fillers beyond the catalogue head
    r_sorted = np.sort(r_item, axis=1)
    dup_rows = (r_sorted[:, 1:] == r_sorted[:, :-1]).any(axis=1)
    for u in np.flatnonzero(dup_rows):
        row = r_item[u]
        _, first_idx = np.unique(row, return_index=True)
        mask = np.ones(k, dtype=bool)
        mask[first_idx] = False
        free = np.setdiff1d(rng.choice(n_items, size=3 * k, replace=False), row)[: mask.sum()]
        row[mask] = free
    scores = -np.sort(-rng.random((n_users, k)), axis=1)
    run = pd.DataFrame({"user": np.repeat(user_names, k), "item": item_names[r_item.ravel()],
                        "score": scores.ravel()})
    return run, truth
