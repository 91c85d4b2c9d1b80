"""Full ranking: top-k items per user from a score matrix, training items masked.

The standard full-ranking protocol scores every item for every user, removes the items the
user interacted with in training, and keeps the ``k`` best. Users are processed in blocks so
that at most ``block_users x n_items`` scores exist at once (a 1M x 100k matrix is never built).

Tie rule (deterministic, independent of block size and backend): score descending, then item
column index ascending. Items whose score is ``-inf`` (masked training items, or items a model
marks as never recommendable) are never returned; rows that cannot be filled are padded with
item ``-1`` and score ``NaN``.

``k`` larger than the number of items is clamped to it (a list cannot hold more items than the
catalogue has), so ``k=10**9`` costs what ``k=n_items`` costs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ..errors import InputError, PolicyError, require, suggest

#: Default number of scores per block of users (64 MB as float32, 128 MB as float64); the
#: peak working memory of one block is about 2.5 times that. Lower ``block_users`` to bound it
#: further; larger blocks amortise per-block overhead (measured: 320 users x 50k items ran
#: about 30% faster than 83 users x 50k).
BLOCK_ELEMENTS = 1 << 24

_BACKENDS = ("auto", "numpy", "torch")
_MISSING = ("skip", "zero")


class TopK(NamedTuple):
    """Ranked lists in the packed matrix layout accepted by ``receval.evaluate``.

    ``items[u, j]`` is the item column index at rank ``j + 1`` for user row ``u`` (``-1`` =
    padding); ``scores[u, j]`` is its score (``NaN`` at padding), or ``scores`` is ``None``
    when it was not asked for.
    """

    items: np.ndarray
    scores: np.ndarray | None


def _is_torch_tensor(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"k must be a positive integer; got {k!r}. Pass e.g. k=10.")
    return int(k)


def _numeric_block(x: Any, what: str) -> Any:
    """A score block as a numeric 2-D array (torch tensors pass through), else InputError."""
    if _is_torch_tensor(x):
        return x
    if sp.issparse(x):
        if x.dtype.kind not in "biuf":
            raise InputError(f"{what} must hold numbers; got a sparse matrix of dtype {x.dtype}.")
        return x
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be a numeric 2-D array; got {type(x).__name__} ({exc}).") \
            from None
    if arr.dtype.kind not in "biuf":
        example = arr.ravel()[:1].tolist()
        raise InputError(
            f"{what} must hold numbers (int or float); got dtype {arr.dtype}"
            + (f" (e.g. {example[0]!r})" if example else "")
            + ". Convert them, e.g. np.asarray(scores, dtype=float)."
        )
    if arr.ndim != 2:
        raise InputError(f"{what} must be 2-D (n_users x n_items); got shape {arr.shape}.")
    return arr


def _as_csr(x: Any, name: str, shape: tuple[int, int] | None = None) -> sp.csr_matrix:
    if not sp.issparse(x):
        raise InputError(
            f"{name} must be a scipy.sparse matrix (users x items); got {type(x).__name__}. "
            "Build one with scipy.sparse.csr_matrix((data, (rows, cols)), shape=(n_users, n_items))."
        )
    m = sp.csr_matrix(x)
    if shape is not None and m.shape != shape:
        raise InputError(
            f"{name} has shape {m.shape} but the scores have shape {shape}; "
            "both must be (n_users x n_items) with the same row and column order."
        )
    return m


# ----------------------------------------------------------------------------- numpy kernels


class _NonFinite(Exception):
    """A block holds NaN or +inf; the driver turns this into a detailed InputError."""


def _block_topk_dense(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k of each row of a dense, already-masked block; ties by column index ascending.

    ``np.partition`` finds each row's k-th largest score ``t``; every cell ``>= t`` is then
    collected in row-major order (so columns ascend within a row), and of the cells equal to
    ``t`` only the first ``k - #{> t}`` are kept. Cost: one partition and two linear passes.
    """
    b, n = s.shape
    kk = min(k, n)
    if kk == n:
        if not (s < np.inf).all():
            raise _NonFinite
        idx = np.argsort(-s, axis=1, kind="stable")
        vals = np.take_along_axis(s, idx, 1)
    else:
        s = np.ascontiguousarray(s)
        upper = np.partition(s, n - kk, axis=1)[:, n - kk :]
        # NaN and +inf sort last, so they would sit in the upper part: a cheap full check
        if not (upper < np.inf).all():
            raise _NonFinite
        thresh = upper[:, 0]
        flat = np.flatnonzero(s >= thresh[:, None])
        r = flat // n
        v = s.reshape(-1)[flat]
        is_eq = v == thresh[r]
        if flat.size == b * kk:  # no surplus ties anywhere
            keep = slice(None)
        else:
            need = kk - np.bincount(r[~is_eq], minlength=b)
            ce = np.cumsum(is_eq)
            starts = np.searchsorted(r, np.arange(b))
            before = np.where(starts > 0, ce[np.maximum(starts - 1, 0)], 0)
            keep = ~is_eq | (ce - before[r] <= need[r])
        idx = (flat[keep] % n).reshape(b, kk)
        vals = v[keep].reshape(b, kk)
    order = np.lexsort((idx, -vals), axis=-1)
    return np.take_along_axis(idx, order, 1), np.take_along_axis(vals, order, 1)


def _block_topk_sparse(
    data: np.ndarray, indices: np.ndarray, rows: np.ndarray, b: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k over the stored entries only (rows = local row of each entry)."""
    out_i = np.full((b, k), -1, dtype=np.int64)
    out_s = np.full((b, k), np.nan, dtype=np.float64)
    if data.size == 0:
        return out_i, out_s
    order = np.lexsort((indices, -data, rows))
    r = rows[order]
    starts = np.searchsorted(r, np.arange(b))
    rank = np.arange(r.size) - starts[r]
    keep = rank < k
    sel = order[keep]
    out_i[r[keep], rank[keep]] = indices[sel]
    out_s[r[keep], rank[keep]] = data[sel]
    return out_i, out_s


def _finish(idx: np.ndarray, vals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Pad to width k, turn -inf (masked) entries into -1 / NaN."""
    b, kk = idx.shape
    items = np.full((b, k), -1, dtype=np.int64)
    scores = np.full((b, k), np.nan, dtype=np.float64)
    items[:, :kk] = idx
    scores[:, :kk] = vals
    dead = np.isneginf(scores)
    items[dead] = -1
    scores[dead] = np.nan
    return items, scores


def _check_finite_block(s: np.ndarray, users: np.ndarray) -> None:
    if (s < np.inf).all():  # false for NaN and +inf only
        return
    bad = np.isnan(s) | np.isposinf(s)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise InputError(
            f"scores contain {int(bad.sum())} NaN or +inf value(s) (first at user row "
            f"{int(users[r])}, item column {int(c)}: {s[r, c]!r}). Replace them with finite "
            "scores, or with -inf to mark an item as never recommendable."
        )


# ----------------------------------------------------------------------------- torch kernel


def _block_topk_torch(s: Any, k: int, torch: Any, ex_keys: Any = None, ex_max: int = 0) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - needs torch
    """Top ``k`` columns per row on the tensor's device, the excluded columns left out, with
    no pass that writes the block.

    ``ex_keys``: the
    excluded cells as ``row * n_items + column``; ``ex_max``: the most excluded cells of a row.
    ``torch.topk`` of ``k + ex_max + 1`` columns holds, per row, at least ``k + 1`` columns
    that are not excluded; the first ``k`` of them are the row's top k, unless the k-th and
    the next score are equal (a tie straddles the cut, rare with real-valued scores): those
    rows take the exact path (:func:`_ties_at_cut_torch`). The k columns are put in the tie
    order (score descending, column ascending) by two sorts of k columns.
    """
    b, n = s.shape
    kk = min(k, n)
    wide = min(n, kk + ex_max + 1)
    top = torch.topk(s, wide, dim=1, largest=True, sorted=True)
    vals, idx = top.values, top.indices
    if ex_keys is not None and ex_keys.numel():
        rows = torch.arange(b, device=s.device)[:, None]
        valid = ~torch.isin(rows * n + idx, ex_keys)
    else:
        valid = None
    if valid is None:
        tied = vals[:, kk - 1] == vals[:, kk] if wide > kk else None
        vals, idx = vals[:, :kk], idx[:, :kk]
    else:
        place = torch.cumsum(valid.to(torch.int32), dim=1)  # 1 for a row's first valid column
        keep = valid & (place <= kk)
        ninf = torch.tensor(float("-inf"), dtype=vals.dtype, device=s.device)
        at_k = torch.where(valid & (place == kk), vals, ninf).max(dim=1).values
        after = torch.where(valid & (place == kk + 1), vals, ninf).max(dim=1).values
        has_after = (valid & (place == kk + 1)).any(dim=1)
        tied = has_after & (at_k == after)
        # the kept columns first (in score order), the others after them as -inf / column n
        vals = torch.where(keep, vals, ninf)
        idx = torch.where(keep, idx, torch.full_like(idx, n))
        first = torch.sort((~keep).to(torch.int8), dim=1, stable=True).indices[:, :kk]
        vals, idx = torch.gather(vals, 1, first), torch.gather(idx, 1, first)
    # the k columns come in score order; only rows where two of them tie need the tie order
    # (column ascending): two stable sorts of those rows
    ties_in = (vals[:, 1:] == vals[:, :-1]).any(dim=1) if kk > 1 else None
    if ties_in is not None and bool(ties_in.any()):
        rows = torch.nonzero(ties_in)[:, 0]
        r_idx, r_vals = idx[rows], vals[rows]
        by_col = torch.argsort(r_idx, dim=1)
        r_idx, r_vals = torch.gather(r_idx, 1, by_col), torch.gather(r_vals, 1, by_col)
        order = torch.sort(r_vals, dim=1, descending=True, stable=True).indices
        idx, vals = idx.clone(), vals.clone()
        idx[rows], vals[rows] = torch.gather(r_idx, 1, order), torch.gather(r_vals, 1, order)
    if tied is not None and bool(tied.any()):
        rows = torch.nonzero(tied)[:, 0]
        block = s[rows]  # a copy of the few tied rows, masked here
        if ex_keys is not None and ex_keys.numel():
            r, c = ex_keys // n, ex_keys % n
            pick = torch.isin(r, rows)
            local = torch.searchsorted(rows, r[pick])
            block[local, c[pick]] = float("-inf")
        t_idx, t_vals = _ties_at_cut_torch(block, kk, torch)
        idx, vals = idx.clone(), vals.clone()
        idx[rows], vals[rows] = t_idx, t_vals
    idx = torch.where(idx >= n, torch.zeros_like(idx), idx)  # kept -inf: dropped by _finish
    return idx.cpu().numpy().astype(np.int64), vals.double().cpu().numpy()


def _ties_at_cut_torch(s: Any, kk: int, torch: Any) -> tuple[Any, Any]:  # pragma: no cover - needs torch
    """The top ``kk`` of rows where scores tie at the cut: every column above the k-th score,
    then the lowest columns equal to it, ordered by score descending, column ascending."""
    b = s.shape[0]
    thresh = torch.topk(s, kk, dim=1, largest=True, sorted=True).values[:, -1:]
    above = s > thresh
    eq = s == thresh
    need = (kk - above.sum(dim=1))[:, None]
    sel = above | (eq & (torch.cumsum(eq.to(torch.int32), dim=1) <= need))
    idx = torch.nonzero(sel)[:, 1].reshape(b, kk)  # row-major, so ascending column per row
    vals = torch.gather(s, 1, idx)
    order = torch.sort(vals, dim=1, descending=True, stable=True).indices
    return torch.gather(idx, 1, order), torch.gather(vals, 1, order)


# ----------------------------------------------------------------------------- driver


def topk_from_scores(
    scores: np.ndarray | sp.spmatrix | Callable[[np.ndarray], Any] | Any,
    k: int,
    *,
    exclude: sp.spmatrix | None = None,
    users: np.ndarray | None = None,
    n_users: int | None = None,
    missing: str = "skip",
    block_users: int | None = None,
    backend: str = "auto",
    device: str | None = None,
    n_threads: int = 1,
    copy: bool = True,
    return_scores: bool = True,
) -> TopK:
    """Top-``k`` item columns per user, ranked by score, with training items masked.

    Parameters
    ----------
    scores
        A dense ``(n_users, n_items)`` array (numpy, or a torch tensor), a scipy.sparse matrix
        of the same shape, or a callable ``score_fn(user_rows) -> (len(user_rows), n_items)``
        scoring one block of user rows at a time (numpy array or torch tensor).
    k
        List length. The output has ``min(k, n_items)`` columns (padded with ``-1`` where a
        user has fewer rankable items): a list can never hold more items than there are, so
        a larger ``k`` is clamped to the number of items instead of allocating padding.
    exclude
        Sparse ``(n_users, n_items)`` matrix whose stored entries are masked out (the user's
        training items). Stored explicit zeros are masked too. With torch scores, also a
        boolean tensor of the scores' shape (True: masked). The torch backend never writes
        the caller's scores: a boolean mask is applied to a new block (one pass); a sparse
        matrix with few items per row (at most ``max(8, k // 2)``) is read at the top
        ``k`` + (the most masked items of a row) + 1 columns, and a denser one masks a
        copy.
    users
        Rows to rank (default: all rows, in order); output row ``i`` belongs to ``users[i]``.
    n_users
        Number of users; needed only when ``scores`` is a callable and ``users`` is not given.
    missing
        Sparse ``scores`` only: ``"skip"`` (default) ranks only stored entries; ``"zero"``
        treats absent entries as score 0 (blocks are densified).
    block_users
        Users per block (default: ``BLOCK_ELEMENTS // n_items``, at least 1). Peak memory is a
        small multiple of ``block_users * n_items`` scores.
    backend
        ``"auto"`` (default: torch when the scores are torch tensors, else numpy),
        ``"numpy"`` (``numpy.argpartition``), or ``"torch"`` (``torch.topk``; needs the
        ``torch`` extra).
    device
        torch device for ``backend="torch"`` (default ``"cuda"`` when available, else ``"cpu"``).
    n_threads
        Blocks processed concurrently on the numpy backend (default 1). numpy's partition
        releases the GIL, so threads use several cores; a callable ``scores`` must then be
        thread-safe, and peak memory grows with the number of blocks in flight.
    copy
        ``True`` (default): score blocks are copied before training items are masked; the
        caller's scores are never written. ``False``: the excluded items are written as
        ``-inf`` into the blocks themselves, saving a pass that copies them: the blocks a
        callable ``scores`` returns, and the caller's own array or tensor when one is given
        (as RecBole's full-sort evaluation writes ``-inf`` into its score tensor). Use it when
        the scores are discarded after ranking.
    return_scores
        ``True`` (default): also return the scores of the listed items. ``False`` saves the
        ``n_users x k`` score matrix (800 MB as float64 for 1M users and k = 100).

    Returns
    -------
    TopK
        ``items`` (int64, ``-1`` padding) and ``scores`` (``NaN`` padding; float32 when the
        scores came in as float32, else float64; ``None`` with ``return_scores=False``).

    Ties are broken by item column index ascending, so the result does not depend on the
    block size or backend. ``-inf`` scores are never returned.

    Example
    -------
    >>> import numpy as np, scipy.sparse as sp
    >>> s = np.array([[0.1, 0.9, 0.5, 0.9], [0.3, 0.2, 0.1, 0.0]])
    >>> train = sp.csr_matrix(([1], ([1], [0])), shape=(2, 4))
    >>> topk_from_scores(s, 2, exclude=train).items.tolist()
    [[1, 3], [1, 2]]
    """
    k = _check_k(k)
    for flag, value in (("copy", copy), ("return_scores", return_scores)):
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{flag}={value!r}: give True or False.")
    if backend not in _BACKENDS:
        raise PolicyError(
            f"backend={backend!r} is not valid; choose one of {list(_BACKENDS)}."
            + suggest(str(backend), _BACKENDS)
        )
    if missing not in _MISSING:
        raise PolicyError(
            f"missing={missing!r} is not valid; choose one of {list(_MISSING)}."
            + suggest(str(missing), _MISSING)
        )
    is_callable = callable(scores) and not hasattr(scores, "shape")
    if not is_callable:
        scores = _numeric_block(scores, "scores")
    if not is_callable and len(scores.shape) != 2:
        raise InputError(
            f"scores must be 2-D (n_users x n_items); got shape {tuple(scores.shape)}."
        )

    total_users: int
    if is_callable:
        if users is None and n_users is None:
            raise InputError(
                "scores is a callable, so pass n_users=... (or users=...) to say which rows to score."
            )
        total_users = int(n_users) if n_users is not None else -1
        n_items = None
    else:
        total_users, n_items = int(scores.shape[0]), int(scores.shape[1])
        if n_users is not None and int(n_users) != total_users:
            raise InputError(f"n_users={n_users} but scores has {total_users} rows.")

    if users is None:
        user_rows = np.arange(total_users, dtype=np.int64)
    else:
        user_rows = np.asarray(users)
        if user_rows.ndim != 1 or (user_rows.size and user_rows.dtype.kind not in "iu"):
            raise InputError(f"users must be a 1-D array of row indices; got {user_rows!r:.80}.")
        user_rows = user_rows.astype(np.int64)
        hi = total_users if total_users >= 0 else None
        if user_rows.size and (user_rows.min() < 0 or (hi is not None and user_rows.max() >= hi)):
            raise InputError(
                f"users contains row indices outside [0, {hi}); got min {user_rows.min()}, "
                f"max {user_rows.max()}."
            )

    excl = mask = None
    if exclude is not None and _is_torch_tensor(exclude):  # pragma: no cover - needs torch
        if not _is_torch_tensor(scores) or tuple(exclude.shape) != tuple(scores.shape) or \
                str(exclude.dtype) != "torch.bool":
            raise InputError(
                f"exclude: a tensor mask must be boolean and of the scores' shape (a tensor "
                f"{tuple(getattr(scores, 'shape', ()))}); got {exclude.dtype} "
                f"{tuple(exclude.shape)}. Or give a scipy.sparse matrix of the excluded items."
            )
        mask = exclude
    elif exclude is not None:
        excl = _as_csr(exclude, "exclude")
        if n_items is not None and excl.shape[1] != n_items:
            raise InputError(
                f"exclude has {excl.shape[1]} item columns but the scores have {n_items}."
            )
        if total_users >= 0 and excl.shape[0] != total_users:
            raise InputError(
                f"exclude has {excl.shape[0]} user rows but the scores have {total_users}."
            )
        if user_rows.size and user_rows.max() >= excl.shape[0]:
            raise InputError(
                f"users refers to row {user_rows.max()} but exclude has {excl.shape[0]} rows."
            )

    use_torch = backend == "torch" or (
        backend == "auto" and not is_callable and _is_torch_tensor(scores)
    )
    torch = require("torch", "torch") if use_torch else None
    if mask is not None and not use_torch:  # pragma: no cover - needs torch
        excl = sp.csr_matrix(mask.detach().cpu().numpy())
    if torch is not None and device is None:  # pragma: no cover - needs torch
        device = "cuda" if torch.cuda.is_available() else "cpu"

    m = user_rows.size
    if m == 0:
        k0 = k if n_items is None else min(k, n_items)
        return TopK(np.full((0, k0), -1, dtype=np.int64),
                    np.full((0, k0), np.nan) if return_scores else None)

    sparse_in = not is_callable and sp.issparse(scores)
    if sparse_in:
        scores = sp.csr_matrix(scores)

    def _bsize(n_cols: int) -> int:
        if block_users is not None:
            if int(block_users) < 1:
                raise InputError(f"block_users must be >= 1; got {block_users}.")
            return int(block_users)
        return max(1, BLOCK_ELEMENTS // max(1, n_cols))

    if n_items is None:  # callable: learn the number of items from a one-user probe
        probe = _numeric_block(scores(user_rows[:1]), "score_fn(user_rows)")
        n_items = int(probe.shape[1])
        in_dtype = getattr(probe, "dtype", None)
    else:
        in_dtype = getattr(scores, "dtype", None)
    # a list never holds more than n_items items: clamp k (no padding columns beyond that)
    k = max(1, min(k, n_items))
    items_out = np.full((m, k), -1, dtype=np.int64)
    float32_in = str(in_dtype) in ("float32", "torch.float32")
    # scores keep float32 precision when that is what came in (half the memory)
    scores_out = (
        np.full((m, k), np.nan, dtype=np.float32 if float32_in else np.float64)
        if return_scores
        else None
    )
    if excl is not None and excl.shape[1] != n_items:
        raise InputError(
            f"exclude has {excl.shape[1]} item columns but score_fn returned {n_items}."
        )
    step = _bsize(n_items)
    if isinstance(n_threads, bool) or not isinstance(n_threads, (int, np.integer)) or n_threads < 1:
        raise InputError(f"n_threads must be a positive integer; got {n_threads!r}.")

    def run_block(start: int) -> None:
        stop = min(m, start + step)
        rows = user_rows[start:stop]
        b = rows.size

        if sparse_in and missing == "skip":
            sub = scores[rows]
            sub.sum_duplicates()
            lrow = np.repeat(np.arange(b), np.diff(sub.indptr))
            data = sub.data.astype(np.float64)
            ind = sub.indices.astype(np.int64)
            bad = np.isnan(data) | np.isposinf(data)
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"scores contain NaN or +inf (user row {int(rows[lrow[j]])}, item column "
                    f"{int(ind[j])}). Replace them with finite scores or -inf."
                )
            keep = ~np.isneginf(data)
            if excl is not None:
                ex = excl[start:stop] if users is None else excl[rows]
                ex_keys = np.repeat(np.arange(b), np.diff(ex.indptr)) * n_items + ex.indices
                keep &= ~np.isin(lrow * n_items + ind, ex_keys)
            bi, bs = _block_topk_sparse(data[keep], ind[keep], lrow[keep], b, k)
            items_out[start:stop] = bi
            if scores_out is not None:
                scores_out[start:stop] = bs
            return

        if is_callable:
            block = _numeric_block(scores(rows), "score_fn(user_rows)")
            if tuple(block.shape) != (b, n_items):
                raise InputError(
                    f"score_fn returned shape {tuple(block.shape)} for {b} users; expected "
                    f"({b}, {n_items})."
                )
        elif sparse_in:
            block = scores[rows].toarray()
        elif users is None:
            block = scores[start:stop]
        elif _is_torch_tensor(scores):  # pragma: no cover - needs torch
            import torch as _torch

            block = scores[_torch.as_tensor(rows, device=scores.device)]
        else:
            block = scores[rows]

        if use_torch:  # pragma: no cover - needs torch
            given = block if _is_torch_tensor(block) else torch.as_tensor(np.asarray(block))
            t = given if given.is_floating_point() else given.double()
            t = t.to(device)
            ex_keys = None
            ex_max = 0
            # copy=False: the block itself takes the -inf (the caller's tensor when the block
            # is a view of it), no pass that copies it
            in_place = not copy and t.data_ptr() == given.data_ptr()
            if mask is not None:  # one pass that writes a new block: the caller's stays
                ex_mask = (mask[start:stop] if users is None else mask[
                    torch.as_tensor(rows, device=mask.device)]).to(t.device)
                t = t.masked_fill_(ex_mask, float("-inf")) if in_place else \
                    t.masked_fill(ex_mask, float("-inf"))
            elif excl is not None:
                ex = excl[start:stop] if users is None else excl[rows]
                counts = np.diff(ex.indptr)
                r = np.repeat(np.arange(b, dtype=np.int64), counts)
                ex_max = int(counts.max()) if b else 0
                if in_place:
                    t[torch.as_tensor(r, device=t.device),
                      torch.as_tensor(ex.indices.astype(np.int64), device=t.device)] = \
                        float("-inf")
                    ex_max = 0
                elif ex_max <= max(8, k // 2):  # few per row: rank past them, write nothing
                    ex_keys = torch.as_tensor(r * n_items + ex.indices, device=t.device)
                else:  # many: mask a copy (never the caller's tensor)
                    if t.data_ptr() == given.data_ptr() and (copy or not is_callable):
                        t = t.clone()
                    t[torch.as_tensor(r, device=t.device),
                      torch.as_tensor(ex.indices.astype(np.int64), device=t.device)] = \
                        float("-inf")
                    ex_max = 0
            idx, vals = _block_topk_torch(t, k, torch, ex_keys, ex_max)
            # torch.topk ranks NaN, then +inf, above every number: a row holding either has it
            # first, so the k columns tell (no pass over the whole block)
            if len(vals) and not bool(np.all(vals[:, 0] < np.inf)):
                _check_finite_block(t.double().cpu().numpy(), rows)
        else:
            if _is_torch_tensor(block):
                block = block.detach().cpu().numpy()
            block = np.asarray(block)
            dtype = np.float32 if block.dtype == np.float32 else np.float64
            # copy only when the block must be written to (masking) or converted
            writable = not copy and block.flags.writeable
            s = np.array(
                block, dtype=dtype, copy=(excl is not None and not writable) or block.dtype != dtype
            )
            if excl is not None:
                ex = excl[start:stop] if users is None else excl[rows]
                s[np.repeat(np.arange(b), np.diff(ex.indptr)), ex.indices] = -np.inf
            try:
                idx, vals = _block_topk_dense(s, k)
            except _NonFinite:
                _check_finite_block(s, rows)
                raise  # pragma: no cover - _check_finite_block always raises here
        bi, bs = _finish(idx, vals, k)
        items_out[start:stop] = bi
        if scores_out is not None:
            scores_out[start:stop] = bs

    starts = range(0, m, step)
    if n_threads == 1 or use_torch or len(starts) == 1:
        for start in starts:
            run_block(start)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=int(n_threads)) as pool:
            list(pool.map(run_block, starts))  # blocks write disjoint rows of the output
    return TopK(items_out, scores_out)
