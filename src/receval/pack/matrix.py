"""Top-k matrices and scipy.sparse truths, read where they lie.

A numpy (users x k) matrix of item ids in rank order is a run whose rows are already grouped
by user and ordered, with implicit scores: row ``u`` is user ``u``, column ``j`` is rank
``j + 1`` (score ``-(j + 1)``). :func:`top_k` checks it block by block (no temporary of the
matrix's size) and describes it for the join on raw ids (:func:`receval.kernels.join_lists`
with ``rank_rows``): its ids at their width (int8 .. int64, uint8 .. uint64 below 2**63; a
float matrix, once checked integral, as the narrowest of int16 / int32), and the bounds of
each user's rows before the padding. No per-row user, score or int32 id array is made; the
factorized route (catalogue metrics, absolute ranks ...) builds them on first use, as
:func:`receval.pack.packed.run_from_matrix` always did.

A scipy.sparse CSR / CSC / COO truth is grouped on its column indices as they lie (int32 or
int64), by :func:`receval.kernels.group_truth_raw` over the CSR's row pointers (CSC: its CSR
form; COO: its rows grouped), so that no int64 copy of the indices is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels import group_rows, group_truth_raw, nonfinite
from ..policies import Policies
from .options import kernel_options
from .packed import (
    _MAX_ITEM,
    RunCodes,
    TruthPack,
    _check_padding,
    _check_truth_duplicates,
    _integer_ids,
)
from .rawids import INT, NARROW, RawIds
from .vocab import CODE

#: matrix entries checked at a time (the checks' temporaries stay this small)
CHECK_SLOTS = 1 << 18


@dataclass
class TopK:
    """A checked top-k matrix: ``ids`` its item ids row-major, read by the join (kind
    :data:`INT` or :data:`NARROW`); ``bounds`` ``(2 * n_users,)``: user ``u`` has the rows
    ``bounds[2u]:bounds[2u + 1]`` (its row before the -1 padding)."""

    matrix: np.ndarray   # (n_users, k), C-contiguous, the ids as read (integers)
    ids: RawIds
    bounds: np.ndarray
    n_items: int         # the largest id + 1 (0 when there is none)

    @property
    def shape(self) -> tuple[int, int]:
        n, k = self.matrix.shape
        return int(n), int(k)


def _where(k: int) -> Any:
    return lambda i: f"row {i // max(k, 1)}, column {i % max(k, 1)}"


def _refuse_entry(arr: np.ndarray, at: int) -> None:
    """Raise the id check's message for the matrix entry at flat index ``at``."""
    where = _where(arr.shape[1])
    _integer_ids(arr.ravel()[at:at + 1], "run", lambda _: where(at))


def top_k(matrix: np.ndarray) -> TopK:
    """Check a 2-D run matrix (the messages of :func:`receval.pack.packed._integer_ids` and
    :func:`receval.pack.packed._check_padding`, the same first bad entry) and describe it for
    the join, reading it in blocks of :data:`CHECK_SLOTS` entries."""
    arr = np.ascontiguousarray(matrix)
    n, k = arr.shape
    if arr.dtype.kind not in "iuf":
        _integer_ids(arr, "run", _where(k))  # raises, with the dtype
    step = max(1, CHECK_SLOTS // max(k, 1))
    bounds = np.empty(2 * n, dtype=np.int64)  # each row's start, and its end (k unpadded)
    np.multiply(np.arange(n, dtype=np.int64), k, out=bounds[0::2])
    np.add(bounds[0::2], k, out=bounds[1::2])
    low = high = -1       # flat index of the first id below -1 / at or above _MAX_ITEM
    bad_pad = -1          # the first row with an id after a -1
    top = -1
    for r0 in range(0, n if k else 0, step):
        blk = arr[r0:r0 + step]
        if arr.dtype.kind == "f":
            bad = ~np.isfinite(blk) | (blk != np.floor(blk))
            if bad.any():  # the first one, as the check of the whole matrix names it
                _refuse_entry(arr, r0 * k + int(np.flatnonzero(bad.ravel())[0]))
        rmin = blk.min(axis=1)
        bmax = blk.max()
        top = max(top, int(bmax))
        if low < 0 and rmin.min() < -1:
            low = r0 * k + int(np.flatnonzero((blk < -1).ravel())[0])
        if high < 0 and bmax >= _MAX_ITEM:
            high = r0 * k + int(np.flatnonzero((blk >= _MAX_ITEM).ravel())[0])
        rows = np.flatnonzero(rmin < 0)
        if len(rows) == 0:
            continue
        pad = blk[rows] == -1
        count = pad.sum(axis=1)
        first = np.where(pad.any(axis=1), pad.argmax(axis=1), k)
        bounds[2 * (r0 + rows) + 1] = (r0 + rows) * k + first
        if bad_pad < 0:
            wrong = np.flatnonzero(count != k - first)  # an id after the first -1
            if len(wrong):
                bad_pad = r0 + int(rows[wrong[0]])
    if low >= 0 or high >= 0:  # below -1 first, as the check of the whole matrix
        _refuse_entry(arr, low if low >= 0 else high)
    if bad_pad >= 0:  # the rows up to the first bad one: the check's own message
        _check_padding(arr[:bad_pad + 1], "run", "row")
    ids = _as_ids(arr, top)
    return TopK(matrix=ids[0], ids=ids[1], bounds=bounds, n_items=top + 1 if top >= 0 else 0)


def _as_ids(arr: np.ndarray, top: int) -> tuple[np.ndarray, RawIds]:
    """The checked matrix as the join reads it, without a copy for integers."""
    if arr.dtype.kind == "f":  # integral floats: the narrowest signed width that holds them
        arr = arr.astype(np.int16 if top < 2**15 else np.int32)
    elif arr.dtype == np.uint64:  # every id is below 2**31: the same bits as int64
        arr = arr.view(np.int64)
    flat = arr.reshape(-1)
    if arr.dtype.itemsize == 8:
        return arr, RawIds(INT, flat)
    return arr, RawIds(NARROW, flat)


class MatrixRun(RunCodes):
    """A top-k matrix as a run: joined on its ids where they lie (``row_bounds``, scores
    implicit); the per-row user codes, int32 item codes and -rank scores of the factorized
    route are made on first use."""

    top: TopK
    _score: np.ndarray | None

    def __init__(self, top: TopK) -> None:
        self.top = top
        self._score = None
        n, _ = top.shape
        super().__init__(None, np.arange(n, dtype=np.int64), None, None, None,  # type: ignore[arg-type]
                         "rank", "rank", ordered=True, item_raw=top.ids,
                         row_bounds=top.bounds)

    @property  # type: ignore[override]
    def score(self) -> np.ndarray:
        """``-rank`` of each row (row-major), made on first use."""
        if self._score is None:
            n, k = self.top.shape
            self._score = -np.tile(np.arange(1, k + 1, dtype=np.float64), n)
        return self._score

    @score.setter
    def score(self, value: np.ndarray | None) -> None:
        self._score = value

    @property
    def n_rows(self) -> int:
        n, k = self.top.shape
        return n * k

    @property
    def user_codes(self) -> np.ndarray:
        """The user of each row, -1 on padding."""
        if self._user_codes is None:
            n, k = self.top.shape
            user = np.repeat(np.arange(n, dtype=CODE), k)
            keep = self.top.matrix.reshape(-1) >= 0
            self._user_codes = user if keep.all() else np.where(keep, user, -1)
        return self._user_codes

    def _factorize_items(self) -> None:
        if self._item_codes is None:
            self._item_codes = self.top.matrix.reshape(-1).astype(CODE)
            self._items = np.arange(self.top.n_items, dtype=np.int64)


def matrix_run(matrix: np.ndarray) -> MatrixRun:
    """:func:`receval.pack.packed.run_from_matrix` of a 2-D array."""
    return MatrixRun(top_k(matrix))


def sparse_truth(matrix: Any, policies: Policies) -> TruthPack | None:
    """A CSR / CSC / COO truth grouped on its column indices as they lie, or ``None`` where
    the general route must take it (other formats, non-numeric, NaN, negative or infinite
    relevances, too many columns: its checks and messages)."""
    fmt = getattr(matrix, "format", None)
    if fmt not in ("csr", "csc", "coo") or len(matrix.shape) != 2:
        return None
    n_users, n_items = (int(x) for x in matrix.shape)
    if n_items > _MAX_ITEM or matrix.data.dtype.kind not in "biuf":
        return None
    rel = np.ascontiguousarray(matrix.data, dtype=np.float64)
    if nonfinite(rel, 0.0)[0]:  # NaN / negative / infinite grades: the general route
        return None
    if fmt == "csc":
        matrix = matrix.tocsr()  # (keeps explicit duplicate entries)
        rel = np.ascontiguousarray(matrix.data, dtype=np.float64)
    if fmt == "coo":
        row = matrix.row if matrix.row.dtype == CODE else matrix.row.astype(CODE)
        start, rows = group_rows(np.ascontiguousarray(row), n_users)
        cols = matrix.col
    else:
        start = np.asarray(matrix.indptr, dtype=np.int64)
        rows = np.zeros(0, dtype=np.int64)
        cols = matrix.indices
    cols = np.ascontiguousarray(cols)
    if cols.dtype.itemsize == 8:
        raw = RawIds(INT, cols.view(np.int64) if cols.dtype == np.uint64 else cols)
    else:
        raw = RawIds(NARROW, cols)
    mode = kernel_options(policies).truth_dedupe
    indptr, first, rel_sorted, rel_desc, ndup = group_truth_raw(
        raw.kind, raw.a, None, start, rows, rel, mode)
    users = np.arange(n_users, dtype=np.int64)
    n_dup = _check_truth_duplicates(ndup, mode, users, policies)
    return TruthPack(
        users=users, indptr=indptr, rel=rel_sorted, rel_desc=rel_desc, n_rows=len(rel),
        max_rel=float(rel.max()) if len(rel) else 0.0, counts={"truth_duplicates": n_dup},
        vocab=np.arange(n_items, dtype=np.int64), codes=first,
        raw={"int": RawIds(INT, first)})


__all__ = ["MatrixRun", "TopK", "matrix_run", "sparse_truth", "top_k"]
