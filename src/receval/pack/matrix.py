"""Top-k matrices and scipy.sparse truths, read where they lie.

A numpy (users x k) matrix of item ids in rank order is a run whose rows are already grouped
by user and ordered, with implicit scores: row ``u`` is user ``u``, column ``j`` is rank
``j + 1`` (score ``-(j + 1)``). :func:`top_k` checks it block by block (no temporary of the
matrix's size) and describes it for the join on raw ids (:func:`receval.kernels.join_lists`
with ``rank_rows``): its ids at their width (int8 .. int64, uint8 .. uint64 below 2**63; a
float matrix, once checked integral, as the narrowest of int16 / int32), and the bounds of
each user's rows before the padding. No per-row user, score or int32 id array is made; the
factorized route (catalogue metrics, absolute ranks ...) builds them on first use, as
:func:`run_from_matrix` always did.

A scipy.sparse CSR / CSC / COO truth is grouped on its column indices as they lie (int32 or
int64), by :func:`receval.kernels.group_truth_raw` over the CSR's row pointers (CSC: its CSR
form; COO: its rows grouped), so that no int64 copy of the indices is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..kernels import group_rows, group_truth_raw, nonfinite
from ..policies import Policies
from .options import kernel_options
from .packed import RunCodes, TruthPack, _check_truth_duplicates, _group_truth, _plain
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
    """Check a 2-D run matrix (the messages of :func:`_integer_ids` and
    :func:`_check_padding`, the same first bad entry) and describe it for
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
    """:func:`run_from_matrix` of a 2-D array."""
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


#: Item ids of the matrix paths become int32 codes: -1 is padding, 2**31 - 1 is reserved.
_MAX_ITEM = 2**31 - 1


def _integer_ids(arr: np.ndarray, what: str, where: Any, dtype: Any = np.int64) -> np.ndarray:
    """Item ids of a numpy run matrix / truth list as ``dtype``: integers, or floats that are
    integral; each id is -1 (padding) or in [0, 2**31 - 1), so int32 holds every one.
    ``where(flat_index)`` names the place of a bad value in messages."""
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise InputError(
                f"{what}: item ids must be integers, but {where(i)} holds "
                f"{_plain(arr.ravel()[i])!r}; a float id is never rounded (1.9 is not item 1). "
                "Pass an integer array, e.g. arr.astype(np.int64) after checking the values."
            )
    elif arr.dtype.kind not in "iu":
        raise InputError(
            f"{what}: item ids must be integers (-1 = padding), got dtype {arr.dtype}"
            + (f" (e.g. {_plain(arr.ravel()[0])!r})" if arr.size else "") + "."
        )
    if arr.size:
        low = arr < -1
        high = arr >= _MAX_ITEM
        for mask, rule in ((low, "below -1 (only -1 marks padding)"),
                           (high, f"at or above 2**31 - 1 = {_MAX_ITEM}")):
            if mask.any():
                i = int(np.flatnonzero(mask.ravel())[0])
                raise InputError(
                    f"{what}: item id {_plain(arr.ravel()[i])!r} at {where(i)} is {rule}; item "
                    "ids of a numpy run / list truth are column numbers 0 .. n_items - 1."
                )
    return arr.astype(dtype, copy=False)


def _check_padding(ids: np.ndarray, what: str, row_name: str) -> None:
    """-1 (padding) may only end a row: an id after a -1 would silently move up a rank."""
    pad = ids == -1
    if pad.any():
        # a row is well padded when, once -1 starts, only -1 follows
        after = np.maximum.accumulate(pad, axis=-1) & ~pad
        if after.any():
            idx = np.argwhere(after)[0]
            row = int(idx[0]) if ids.ndim == 2 else None
            place = f"{row_name} {row}" if row is not None else row_name
            raise InputError(
                f"{what}: {place} has item id {int(ids[tuple(idx)])} after a -1; -1 marks "
                "padding and may only end a row (a -1 in the middle would move the later "
                "items up a rank). Remove the -1, or move it to the end of the row."
            )


def truth_from_sparse(matrix: Any, policies: Policies | None = None) -> TruthPack:
    """Truth from a scipy.sparse (users x items) relevance matrix, or a list of item arrays.

    The same rules as a table truth: explicit NaN entries follow the ``nan_rel`` policy,
    repeated (user, item) entries the ``duplicates`` policy (a scipy matrix's explicit duplicate entries are not summed, which would change the
    graded relevance); item ids are integers (floats only when integral), -1 pads the end of a
    list, and every id lies in [0, 2**31 - 1). A CSR / CSC / COO matrix with valid relevances
    is grouped on its int32 / int64 indices as they lie (:func:`receval.pack.matrix.sparse_truth`).
    """
    policies = policies or Policies()
    if isinstance(matrix, list):
        rows = [_truth_list(a, r) for r, a in enumerate(matrix)]
        lens = np.fromiter((len(a) for a in rows), dtype=np.int64, count=len(rows))
        u_codes = np.repeat(np.arange(len(rows), dtype=CODE), lens)
        i_codes = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        rel = np.ones(len(i_codes), dtype=np.float64)
        n_items = int(i_codes.max()) + 1 if len(i_codes) else 0
    elif type(matrix).__module__.startswith("scipy.") and _scipy_sparse().issparse(matrix):

        fast = sparse_truth(matrix, policies)  # CSR / CSC / COO indices as they lie
        if fast is not None:
            return fast
        coo = _scipy_sparse().coo_matrix(matrix)  # keeps explicit duplicate entries (never summed here)
        if len(coo.shape) != 2:
            raise InputError(f"truth: a sparse truth must be 2-D (users x items), got {coo.shape}.")
        u_codes = coo.row.astype(CODE)
        i_codes = coo.col.astype(np.int64)
        if coo.data.dtype.kind not in "biuf":
            raise InputError(
                f"truth: the sparse matrix must hold numeric relevances, got dtype {coo.data.dtype}."
            )
        rel = np.asarray(coo.data, dtype=np.float64)
        n_items = int(coo.shape[1])
        nan = np.isnan(rel)
        if nan.any() and policies.nan_rel == "drop":  # explicit NaN entries: the nan_rel policy
            u_codes, i_codes, rel = u_codes[~nan], i_codes[~nan], rel[~nan]
        elif nan.any() and policies.nan_rel == "zero":
            rel = np.where(nan, 0.0, rel)
        bad = ~np.isfinite(rel) | (rel < 0)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"truth: the sparse matrix holds {int(bad.sum())} negative or non-finite "
                f"relevance(s) (first at row {int(u_codes[j])}, column {int(i_codes[j])}: "
                f"{float(rel[j])!r}); relevances must be finite and >= 0."
            )
        if n_items > _MAX_ITEM:
            raise InputError(
                f"truth: the sparse matrix has {n_items} columns; item ids must lie below "
                f"2**31 - 1 = {_MAX_ITEM}."
            )
    else:
        raise InputError(
            "truth: with a numpy top-k matrix as run, the truth must be a scipy.sparse "
            f"(users x items) matrix or a list of item-id arrays, got {type(matrix).__name__}."
        )
    n_users = len(matrix) if isinstance(matrix, list) else int(matrix.shape[0])
    packed = _group_truth(u_codes, i_codes.astype(CODE), rel,
                          np.arange(n_users, dtype=np.int64),
                          np.arange(n_items, dtype=np.int64), policies)
    packed.raw = {"int": RawIds(INT, packed.item_codes)}  # item codes are the ids here
    return packed


def _scipy_sparse() -> Any:
    """scipy.sparse, imported only for a sparse truth (a list truth never needs it)."""
    import scipy.sparse as sp

    return sp


def _truth_list(a: Any, r: int) -> np.ndarray:
    """One user's truth list: integer item ids, trailing -1 padding removed."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise InputError(
            f"truth: user row {r} of the list of item arrays must be a 1-D array of item ids, "
            f"got shape {arr.shape}."
        )
    ids = _integer_ids(arr, "truth", lambda i: f"user row {r}, position {i}")
    _check_padding(ids, "truth", f"user row {r}")
    pad = ids == -1
    return ids[~pad] if pad.any() else ids




def run_from_matrix(matrix: np.ndarray) -> RunCodes:
    """Run from a (users x k) array of item ids in rank order; -1 pads the end of a row.

    Item ids are integers (a float array only when every value is integral), -1 or in
    [0, 2**31 - 1); ids without a truth column are items no user finds relevant. A -1 followed
    by an item in the same row is an error (it would move that item up a rank). Repeated items
    in a row follow the ``duplicates`` policy when packed. The matrix is read where it lies,
    at its width (:mod:`receval.pack.matrix`).
    """
    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise InputError(
            "run: a numpy run must be a 2-D integer (users x k) array of item ids in rank order "
            f"(-1 = padding), got shape {arr.shape} dtype {arr.dtype}."
        )
    return matrix_run(arr)
