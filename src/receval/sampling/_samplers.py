"""Negative samplers: uniform or popularity-proportional, with or without replacement, filtered."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ..validation import (
    FINITE,
    POSITIVE_INT,
    SEED,
    Boolean,
    Options,
    validate_params,
)

_SAMPLERS = ("uniform", "popularity")
_CHUNK_CELLS = 1 << 22  # sampled cells held at once


def _item_probabilities(
    sampler: str, n_items: int, popularity: Any, alpha: float
) -> np.ndarray | None:
    if sampler == "uniform":
        return None
    if popularity is None:
        raise InputError(
            "sampler='popularity' needs popularity=... (one non-negative weight per item, e.g. "
            "the training interaction counts)."
        )
    pop = np.asarray(popularity, dtype=np.float64)
    if pop.shape != (n_items,):
        raise InputError(f"popularity must have shape ({n_items},); got {pop.shape}.")
    if not np.isfinite(pop).all() or (pop < 0).any():
        raise InputError("popularity must be finite and non-negative.")
    w = pop**alpha if alpha != 1.0 else pop.copy()
    w[pop == 0] = 0.0  # 0 ** 0 would make never-seen items drawable
    if w.sum() <= 0:
        raise InputError("popularity weights are all zero; no item can be drawn.")
    return w / w.sum()


def _draw(rng: np.random.Generator, size: int, n_items: int, cdf: np.ndarray | None, last: int):
    if cdf is None:
        return rng.integers(0, n_items, size=size)
    return np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), last)


@validate_params({
    "n_negatives": POSITIVE_INT,
    "n_items": POSITIVE_INT,
    "exclude_known": [Boolean()],
    "sampler": [Options(_SAMPLERS)],
    "alpha": FINITE,
    "replace": [Boolean()],
    "seed": SEED,
    "max_rounds": POSITIVE_INT,
})
def sample_negatives(
    users: Any,
    n_negatives: int,
    *,
    n_items: int,
    known: sp.spmatrix | None = None,
    exclude_known: bool = True,
    sampler: str = "uniform",
    popularity: Any = None,
    alpha: float = 1.0,
    replace: bool = False,
    seed: int = 0,
    max_rounds: int = 50,
) -> np.ndarray:
    """Draw ``n_negatives`` item columns for each entry of ``users``.

    Parameters
    ----------
    users
        Row indices into ``known`` (one output row per entry; repeats allowed, e.g. one row per
        held-out positive).
    known
        Sparse ``(n_users, n_items)`` matrix of every known positive (train *and* test). With
        ``exclude_known=True`` (the default, "filtered" setting) these items are never drawn.
    sampler
        ``"uniform"``: every eligible item equally likely. ``"popularity"``: item ``i`` drawn with
        probability proportional to ``popularity[i] ** alpha``.
    replace
        ``False`` (default): the negatives of one row are distinct; each is drawn from the
        eligible items not drawn yet, in proportion to their weights (sequential sampling,
        as ``numpy.random.Generator.choice(replace=False, p=...)``). ``True``: independent draws.
    seed
        Seed of ``numpy.random.default_rng``; the output is a deterministic function of the seed
        and the inputs.

    Returns an int64 array of shape ``(len(users), n_negatives)``.

    Raises :class:`InputError` when a row has fewer eligible items than needed.
    """
    u = np.asarray(users)
    if u.ndim != 1 or (u.size and u.dtype.kind not in "iu"):
        raise InputError("users must be a 1-D array of integer row indices.")
    u = u.astype(np.int64)
    m = int(n_negatives)
    n_items = int(n_items)
    p = _item_probabilities(sampler, n_items, popularity, alpha)
    drawable = np.ones(n_items, dtype=bool) if p is None else p > 0
    cdf = None if p is None else np.cumsum(p)
    last = int(np.flatnonzero(drawable)[-1])

    known_keys = np.empty(0, dtype=np.int64)
    n_known = np.zeros(u.size, dtype=np.int64)
    if known is not None and exclude_known:
        if not sp.issparse(known):
            raise InputError("known must be a scipy.sparse (n_users x n_items) matrix.")
        kn = sp.csr_matrix(known)
        if kn.shape[1] != n_items:
            raise InputError(f"known has {kn.shape[1]} item columns but n_items={n_items}.")
        if u.size and (u.min() < 0 or u.max() >= kn.shape[0]):
            raise InputError(f"users must be row indices in [0, {kn.shape[0]}) of known.")
        kn.sum_duplicates()
        rows = np.repeat(np.arange(kn.shape[0], dtype=np.int64), np.diff(kn.indptr))
        known_keys = rows * n_items + kn.indices  # sorted: CSR rows ascending, columns sorted
        per_user = np.bincount(rows[drawable[kn.indices]], minlength=kn.shape[0])
        n_known = per_user[u]
    eligible = int(drawable.sum()) - n_known
    need = 1 if replace else m
    short = np.flatnonzero(eligible < need)
    if short.size:
        j = int(short[0])
        raise InputError(
            f"user row {int(u[j])} has only {int(eligible[j])} item(s) that can be drawn as "
            f"negatives but {need} are needed (n_negatives={m}, replace={replace}). Lower "
            "n_negatives, use replace=True, or drop such users."
        )

    rng = np.random.default_rng(seed)
    out = np.empty((u.size, m), dtype=np.int64)
    step = max(1, _CHUNK_CELLS // m)  # bounded memory; a fixed chunking keeps runs reproducible
    for a in range(0, u.size, step):
        out[a : a + step] = _fill_rows(
            u[a : a + step], m, rng, n_items, cdf, last, drawable, p, known_keys, replace,
            max_rounds,
        )
    return out


def _is_known(keys: np.ndarray, known_keys: np.ndarray) -> np.ndarray:
    """Membership of ``keys`` in the sorted ``known_keys`` (binary search, no re-sorting)."""
    pos = np.searchsorted(known_keys, keys)
    hit = pos < known_keys.size
    hit[hit] = known_keys[pos[hit]] == keys[hit]
    return hit


def _fill_rows(
    u: np.ndarray,
    m: int,
    rng: np.random.Generator,
    n_items: int,
    cdf: np.ndarray | None,
    last: int,
    drawable: np.ndarray,
    p: np.ndarray | None,
    known_keys: np.ndarray,
    replace: bool,
    max_rounds: int,
) -> np.ndarray:
    """Rejection sampling for one chunk of rows: redraw cells that hit a known positive or
    (without replacement) repeat an item already in the row; finish stubborn rows exactly."""
    flat = np.full(u.size * m, -1, dtype=np.int64)
    for _ in range(max_rounds):
        empty = np.flatnonzero(flat < 0)
        if empty.size == 0:
            break
        flat[empty] = _draw(rng, empty.size, n_items, cdf, last)
        if known_keys.size:
            bad = _is_known(u[empty // m] * n_items + flat[empty], known_keys)
            flat[empty[bad]] = -1
        if not replace:
            # only rows that received new cells can hold a duplicate; sort each such row by
            # (item, new after accepted) and reject every repeat of the item before it
            rows = np.unique(empty // m)
            sub = flat.reshape(-1, m)[rows]
            is_new = np.zeros(sub.shape, dtype=np.int64)
            is_new[np.searchsorted(rows, empty // m), empty % m] = 1
            comb = np.where(sub >= 0, sub * 2 + is_new, -1 - np.arange(m))
            order = np.argsort(comb, axis=1)
            sc = np.take_along_axis(comb, order, 1)
            dup = np.zeros(sc.shape, dtype=bool)
            dup[:, 1:] = (sc[:, :-1] >= 0) & (sc[:, 1:] // 2 == sc[:, :-1] // 2)
            r_idx, c_idx = np.nonzero(dup)
            flat[rows[r_idx] * m + order[r_idx, c_idx]] = -1
    out = flat.reshape(u.size, m)
    for j in np.flatnonzero((out < 0).any(axis=1)):  # rare: few eligible items left
        ok = drawable.copy()
        if known_keys.size:
            lo, hi = np.searchsorted(known_keys, [u[j] * n_items, (u[j] + 1) * n_items])
            ok[known_keys[lo:hi] - u[j] * n_items] = False
        holes = out[j] < 0
        if not replace:
            ok[out[j][~holes]] = False
        cand = np.flatnonzero(ok)
        w = None if p is None else p[cand] / p[cand].sum()
        out[j, holes] = rng.choice(cand, size=int(holes.sum()), replace=replace, p=w)
    return out
