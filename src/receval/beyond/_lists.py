"""Recommendation lists as CSR arrays (``indptr``, ``items``), the layout every function uses.

A collection of lists is accepted as:

- a tuple of two numpy arrays ``(indptr, items)``: user u's list is
  ``items[indptr[u]:indptr[u + 1]]`` in rank order;
- a 2-D integer array (users x k) of item ids in rank order, ``-1`` marking padding;
- a sequence of sequences of item ids (one per user).

Items are integer codes (row numbers of a feature matrix, positions of a count vector).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError

#: whether the fairness metrics and ``train=`` read their inputs with the compiled passes
#: (:mod:`receval.kernels`); ``False`` runs the numpy formulas those passes replace, kept as
#: the tests' oracle (both give the same bits)
COMPILED = True


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + n)`` for each pair (s, n), vectorized."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    offsets = np.repeat(np.asarray(starts, dtype=np.int64) - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def cut(indptr: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, positions in the original arrays) of the first ``k`` items of every list."""
    lens = np.diff(indptr)
    if k is None or not len(lens) or int(lens.max()) <= k:  # every list whole: no gather
        first = int(indptr[0]) if len(indptr) else 0
        out = np.asarray(indptr, dtype=np.int64) - first
        return out, np.arange(first, first + int(out[-1]) if len(out) else first,
                              dtype=np.int64)
    new = np.minimum(lens, k)
    out = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(new, out=out[1:])
    return out, ranges(indptr[:-1], new)


def as_csr(lists: Any, *, what: str = "lists", ids: bool = False
           ) -> tuple[np.ndarray, np.ndarray]:
    """Normalize ``lists`` (see module doc) to ``(indptr, items)`` arrays.

    Items must be integer codes unless ``ids=True`` (raw ids of any hashable type, as in a
    sequence of sequences).
    """
    if isinstance(lists, tuple) and len(lists) == 2 and isinstance(lists[0], np.ndarray) \
            and isinstance(lists[1], np.ndarray) and lists[0].ndim == 1 and lists[1].ndim == 1 \
            and len(lists[0]) > 0 and int(np.asarray(lists[0])[0]) == 0 \
            and int(np.asarray(lists[0])[-1]) == len(lists[1]):
        indptr = np.asarray(lists[0], dtype=np.int64)
        items = np.asarray(lists[1])
        if ids and items.dtype.kind not in "iu":
            return indptr, items
        if items.dtype.kind not in "iu":
            raise InputError(f"{what}: item codes must be integers, got dtype {items.dtype}.")
        if np.any(np.diff(indptr) < 0):
            raise InputError(f"{what}: indptr must be non-decreasing.")
        return indptr, items.astype(np.int64, copy=False)
    if isinstance(lists, np.ndarray) and lists.ndim == 2:
        if lists.dtype.kind not in "iu":
            raise InputError(
                f"{what}: a (users x k) array must hold integer item codes (-1 = padding), got "
                f"dtype {lists.dtype}."
            )
        arr = lists.astype(np.int64, copy=False)
        keep = arr >= 0
        lens = keep.sum(axis=1)
        # padding must trail: a -1 followed by an item would reorder ranks silently
        if not np.array_equal(keep, np.arange(arr.shape[1])[None, :] < lens[:, None]):
            raise InputError(f"{what}: -1 padding must come after the items of each row.")
        indptr = np.zeros(arr.shape[0] + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        return indptr, arr[keep]
    try:
        seqs = [np.asarray(s) for s in lists]
        seqs = [s if s.size else np.zeros(0, dtype=np.int64) for s in seqs]
    except TypeError:
        raise InputError(
            f"{what}: expected (indptr, items), a (users x k) integer array or a list of item "
            f"sequences, got {type(lists).__name__}."
        ) from None
    lens = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    indptr = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    items = np.concatenate(seqs) if len(seqs) and lens.sum() else np.zeros(0, dtype=np.int64)
    if ids and items.dtype.kind not in "iu":
        return indptr, items
    if items.dtype.kind not in "iu":
        raise InputError(f"{what}: item codes must be integers, got dtype {items.dtype}.")
    return indptr, items.astype(np.int64, copy=False)


def truncate(indptr: np.ndarray, items: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` items of every list (all of them when ``k`` is None)."""
    if k is None:
        return indptr, items
    lens = np.diff(indptr)
    if lens.size == 0 or lens.max(initial=0) <= k:
        return indptr, items
    new = np.minimum(lens, k)
    out = np.zeros(len(indptr), dtype=np.int64)
    np.cumsum(new, out=out[1:])
    return out, items[ranges(indptr[:-1], new)]


def select(indptr: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """New indptr after dropping the positions where ``keep`` is False (order kept)."""
    kept = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    return kept[indptr]


def user_of_position(indptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))


def blocks(n: int, size: int):
    """``(start, stop)`` of consecutive blocks of at most ``size`` users."""
    size = max(int(size), 1)
    for start in range(0, n, size):
        yield start, min(start + size, n)


def distinct(indptr: np.ndarray, items: np.ndarray, *, assume_distinct: bool = False
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(items, user)`` of every position whose item did not occur earlier in its list.

    Lists built by :func:`receval.evaluate` never repeat an item (``assume_distinct=True``
    skips the check). Lists of equal length are checked with one row-wise sort; ragged lists
    with a sort by (user, item).
    """
    user = user_of_position(indptr)
    if assume_distinct or len(items) < 2:
        return items, user
    lens = np.diff(indptr)
    if lens.size and (lens == lens[0]).all():
        width = int(lens[0])
        rows = np.sort(items.reshape(-1, width), axis=1) if width else items.reshape(-1, 1)
        if width < 2 or not (rows[:, 1:] == rows[:, :-1]).any():
            return items, user
    order = np.lexsort((items, user))
    s_items, s_user = items[order], user[order]
    first = np.ones(len(items), dtype=bool)
    first[1:] = (s_items[1:] != s_items[:-1]) | (s_user[1:] != s_user[:-1])
    return s_items[first], s_user[first]
