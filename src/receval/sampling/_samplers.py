"""Negative samplers: uniform or popularity-proportional, with or without replacement, filtered."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InputError, PolicyError, suggest

_SAMPLERS = ("uniform", "popularity")


def _item_probabilities(
    sampler: str, n_items: int, popularity: Any, alpha: float
) -> np.ndarray | None:
    if sampler not in _SAMPLERS:
        raise PolicyError(
            f"sampler={sampler!r} is not valid; choose one of {list(_SAMPLERS)}."
            + suggest(str(sampler), _SAMPLERS)
        )
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
    if isinstance(n_negatives, bool) or not isinstance(n_negatives, (int, np.integer)):
        raise InputError(f"n_negatives must be a positive integer; got {n_negatives!r}.")
    m = int(n_negatives)
    if m < 1:
        raise InputError(f"n_negatives must be a positive integer; got {n_negatives!r}.")
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
    out = np.full((u.size, m), -1, dtype=np.int64)
    for _ in range(max_rounds):
        empty = np.flatnonzero(out.ravel() < 0)
        if empty.size == 0:
            break
        flat = out.ravel()
        flat[empty] = _draw(rng, empty.size, n_items, cdf, last)
        row = empty // m
        bad = np.isin(u[row] * n_items + flat[empty], known_keys) if known_keys.size else None
        if bad is not None:
            flat[empty[bad]] = -1
        if not replace:
            filled = np.flatnonzero(flat >= 0)
            key = (filled // m) * n_items + flat[filled]
            is_new = np.isin(filled, empty)
            order = np.lexsort((is_new, key))  # accepted cells first among equal keys
            dup = np.zeros(order.size, dtype=bool)
            dup[1:] = key[order][1:] == key[order][:-1]
            flat[filled[order[dup]]] = -1
        out = flat.reshape(u.size, m)
    rest = np.flatnonzero((out < 0).any(axis=1))
    for j in rest:  # rare: very few eligible items left; finish these rows exactly
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
