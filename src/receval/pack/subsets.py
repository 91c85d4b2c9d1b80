"""One packed block narrowed to some of its users (the users of one group).

:func:`take_users` keeps the chosen users' rows of every per-user and per-position array of a
:class:`~receval.pack.packed.Packed` block, so that a metric evaluated on the result sees
exactly those users' lists and truth, as if they had been packed alone: positions, tie
groups, truth rows and the kernel's output (when the lists were measured as they were joined,
or by the caller: ``kernel_out=``) move with their users.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

#: a :class:`receval.pack.packed.Packed` block
Packed = Any


def _ranges(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, new indptr)``: the positions of ``rows``' segments of a CSR ``indptr``,
    in the order of ``rows``."""
    lens = (indptr[rows + 1] - indptr[rows]).astype(np.int64)
    new = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=new[1:])
    total = int(new[-1])
    if total == 0:
        return np.zeros(0, dtype=np.int64), new
    pos = np.arange(total, dtype=np.int64) + np.repeat(indptr[rows] - new[:-1], lens)
    return pos, new


def take_users(packed: Packed, rows: np.ndarray,
               kernel_out: np.ndarray | None = None) -> Packed:
    """The block holding only the users at ``rows`` (indices into ``packed.user_ids``,
    ascending), each with its whole list and truth. ``kernel_out``: the kernel's (users x
    requests) output of the whole block, whose rows then come along (the kernel is not run
    again). Counts of rows (``packed.counts``) are not split by user and are left out; the
    block's ``missing_from_run`` is recounted (its truth users without run rows)."""
    p = packed
    rows = np.asarray(rows, dtype=np.int64)
    pos, indptr = _ranges(p.indptr, rows)

    def at(a: np.ndarray) -> np.ndarray:
        return a[pos] if len(a) else a

    grp_end = p.grp_end
    if len(grp_end):
        shift = np.repeat(indptr[:-1] - p.indptr[rows], np.diff(indptr))
        grp_end = grp_end[pos] + shift
    t_pos, t_indptr = _ranges(p.t_indptr, rows)
    parent = p

    def truth_codes() -> tuple[np.ndarray, np.ndarray]:
        items = parent.t_items
        return (items[t_pos] if len(items) else items), parent.truth_item_vocab

    out = kernel_out if kernel_out is not None else p.kernel_out
    in_truth, in_run = p.in_truth[rows], p.in_run[rows]
    return dataclasses.replace(
        p, user_ids=p.user_ids[rows], indptr=indptr, rel=at(p.rel), judged=at(p.judged),
        **p.items_at(pos), scores=at(p.scores), list_len=p.list_len[rows], grp_end=grp_end,
        t_indptr=t_indptr, t_rel_desc=p.t_rel_desc[t_pos] if len(p.t_rel_desc) else
        p.t_rel_desc, t_rel=p.t_rel[t_pos] if len(p.t_rel) else p.t_rel,
        in_truth=in_truth, in_run=in_run,
        counts={"missing_from_run": int(np.count_nonzero(in_truth & ~in_run))},
        truth_index=p.truth_index[rows] if len(p.truth_index) else p.truth_index,
        run_only=p.run_only[:0], block_rows=(0, len(rows)),
        truth_codes=truth_codes, _t_items=None, _truth_item_vocab=None,
        kernel_out=out[rows] if out is not None else None)
