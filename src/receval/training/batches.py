"""Batches of model output as run blocks: top-k ids per user, or scores to rank first.

A training loop holds tensors: ``users`` (B), the top-k item ids (B x k) or the scores of every
item (B x n_items), on any device. Only the ``k`` ids (and their scores) per user cross to the
host; a score matrix is ranked on its own device (:func:`receval.topk.topk_from_scores`, which
breaks ties by item column ascending).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..io.frames import read_columns
from ..pack.packed import RunCodes, run_codes
from ..topk import topk_from_scores

__all__ = ["ids_block", "scores_block", "to_numpy"]


def _is_torch(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "torch"


def to_numpy(x: Any, what: str) -> np.ndarray:
    """A numpy array of a numpy array, a list or a torch tensor (moved to the host)."""
    if _is_torch(x):
        x = x.detach()
        if str(getattr(x, "dtype", "")) in ("torch.bfloat16", "torch.float16"):
            x = x.float()
        return x.cpu().numpy()
    try:
        return np.asarray(x)
    except Exception as exc:  # noqa: BLE001 - any container numpy cannot read
        raise InputError(f"{what}: expected a numpy array or a torch tensor, got "
                         f"{type(x).__name__} ({exc}).") from None


def ids_block(users: Any, items: Any, scores: Any = None, *,
              item_ids: np.ndarray | None = None) -> RunCodes:
    """A run block from ``users`` (B ids) and ``items`` (B x k item ids in rank order; a
    negative id is padding and is left out). ``scores`` (B x k): their scores (else the
    column is the rank: 1 for the first). ``item_ids``: the item id of each column index when
    ``items`` holds column indices (``item_ids[items]``)."""
    u = to_numpy(users, "users")
    it = to_numpy(items, "items")
    if u.ndim != 1:
        raise InputError(f"users: expected one id per row (1-D), got shape {u.shape}.")
    if it.ndim != 2 or it.shape[0] != len(u):
        raise InputError(f"items: expected {len(u)} rows of item ids (users x k), got shape "
                         f"{it.shape}.")
    if it.dtype.kind not in "iu":
        raise InputError(f"items: expected integer item ids (or column indices with "
                         f"item_ids=), got dtype {it.dtype}.")
    b, k = it.shape
    keep = (it >= 0).ravel()
    user_col = np.repeat(u, k)[keep]
    flat = it.ravel()[keep]
    if item_ids is not None:
        if len(flat) and int(flat.max()) >= len(item_ids):
            raise InputError(f"items: column index {int(flat.max())} is outside item_ids "
                             f"({len(item_ids)} items).")
        flat = item_ids[flat]
    cols: dict[str, Any] = {"user": user_col, "item": flat}
    if scores is None:
        cols["rank"] = np.tile(np.arange(1, k + 1, dtype=np.int64), b)[keep]
    else:
        s = to_numpy(scores, "scores")
        if s.shape != it.shape:
            raise InputError(f"scores: expected the shape of items {it.shape}, got {s.shape}.")
        cols["score"] = s.ravel()[keep]
    return run_codes(read_columns(cols, role="run"))


def scores_block(users: Any, scores: Any, k: int, *, exclude: Any = None,
                 item_ids: np.ndarray | None = None, copy: bool = True) -> RunCodes:
    """A run block from the scores of every item (B x n_items, numpy or a torch tensor on any
    device): each row's top ``k`` items, ``exclude`` masked first (a boolean tensor or array
    of the scores' shape, or a scipy.sparse matrix whose stored entries are masked: the
    users' training items). The ranking runs on the scores' device. ``copy=False`` writes
    the masked items as ``-inf`` into ``scores`` itself (no copy of the block)."""
    if exclude is not None and not hasattr(exclude, "tocsr") and \
            not (_is_torch(scores) and _is_torch(exclude)):
        mask = to_numpy(exclude, "exclude")
        if mask.dtype != bool or mask.shape != tuple(scores.shape):
            raise InputError(f"exclude: expected a boolean mask of the scores' shape "
                             f"{tuple(scores.shape)} or a scipy.sparse matrix, got "
                             f"{mask.dtype} {mask.shape}.")
        import scipy.sparse as sp

        exclude = sp.csr_matrix(mask)
    device = str(scores.device) if _is_torch(scores) else None
    top = topk_from_scores(scores, k, exclude=exclude, device=device, copy=copy)
    return ids_block(users, top.items, top.scores, item_ids=item_ids)
