"""The lists the metrics read: condensed lists, absolute ranks and unretrieved truth items.

A packed block holds each user's rows in rank order. Three policies change the lists read
from it (:mod:`receval.policies`); packing records them on the block
(:attr:`~receval.pack.packed.Packed.options`), and :func:`metric_lists` /
:func:`kernel_lists` apply them, so that an executor reads final lists and no policy:

``unjudged="remove"``
    :func:`condense` removes every item without a truth row (Sakai's condensed lists), for
    every metric.

``ranks="position"``
    A rank column is read as the absolute position of each row (RecTools): a row with rank
    ``r`` sits at position ``r`` whatever the other rows. :func:`fill_positions` turns a packed
    block (rows in rank order, ``scores = -rank``) into lists of positions ``1 .. L_u``, where
    every rank without a row holds a placeholder: not relevant, not judged. ``L_u`` is the
    user's largest rank, read up to the deepest cutoff needed (the plan's ``rank_depth``; the
    whole list when a metric has no cutoff). The placeholders are read by the ranking kernel only: metrics
    on the recommended items themselves (coverage, novelty, diversity ...) see the user's rows
    with rank <= k (:func:`rank_view`), and a list's length at k is the number of those rows.

    Shared ranks (two rows of one user at one rank) mean that each row sits at that rank: at
    cutoff k every row with rank <= k is in the top k (RecTools filters ``rank <= k``). The
    layout gives each row a slot of its rank (a rank without a row one placeholder slot) and
    :func:`slot_ranks` hands the kernel each slot's rank, which every ranking metric then
    reads: with h the hits among the rows with rank <= k, hit j at rank r_j, precision is
    h / k (both rows count: it may exceed 1), recall h / R, hit rate [h > 0], NDCG sums
    g_j / log2(r_j + 1), MRR is 1 / min r_j, MAP adds (hits at ranks <= r) / r once for each
    rank r holding a hit, RBP (1 - p) sum p^(r_j - 1), ERR reads the rows of a rank in any
    order (its sum does not depend on it), and counts of positions (num_ret, the ``list``
    denominators, Judged, NCRR's ideal) count the slots. The metrics that need a strict order
    of the rows (bpref, infAP, interpolated precision, PartialAUC / PAP, percentile ranking,
    the C/W/L models: ``SHARED_RANK_REFUSED`` of the kernel) refuse shared ranks, naming
    themselves, the user and the rank. Lists are packed whole under absolute ranks (the
    plan's depth is 0), so that any number of rows sharing a rank within a cutoff are read.
    Without shared ranks slot ``i`` is rank ``i + 1`` and the kernel reads positions, as it
    always has (the same bits).

``unretrieved="bottom"``
    Every truth item that is not in the user's list is appended after the list, all tied with
    each other below every retrieved item (scikit-learn's ``ndcg_score`` on arrays built over
    the union of recommended and judged items, the unretrieved ones scored below every
    recommended item). :func:`append_unretrieved` adds that block in the ``ties`` order: one
    tie group under ``ties="average"`` (its positions share the block's mean gain), raw item
    id ascending under ``"id"``, item id text descending under ``"trec_eval"``. The block
    follows the whole list, so it changes a value at cutoff k only when the list is shorter
    than k; metrics on the recommended items never see it.

Every step acts on a :class:`~receval.pack.packed.Packed` block, one user at a time, so that
the block size and the packing route never change a value.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..errors import InputError, PolicyError
from .options import NAN_MODE, KernelOptions
from .vocab import lookup, order_keys

#: a :class:`receval.pack.packed.Packed` block (that module imports this one)
Packed = Any

#: the most positions a filled block may have (16 bytes each, for relevance, score, ...)
MAX_FILLED = 1 << 28


def check_rank_run(score: np.ndarray, name: str, options: KernelOptions) -> None:
    """Refuse a rank column that ``ranks="position"`` cannot read: ranks that are not integers
    >= 1, and NaN ranks placed last (they have no position). ``score`` is the run's ``-rank``
    column; ``name`` the rank column's name."""
    rank = -np.asarray(score, dtype=np.float64)
    finite = np.isfinite(rank)
    if not finite.all() and options.nan_mode == NAN_MODE["last"]:
        i = int(np.flatnonzero(~finite)[0])
        raise PolicyError(
            f"ranks='position': column {name!r} has {int((~finite).sum())} NaN/infinite "
            f"rank(s) (first at row {i}), which have no position; nan_scores='last' cannot "
            "place them. Use nan_scores='drop' (remove them, counted) or fix the data."
        )
    bad = finite & ((rank < 1) | (rank != np.floor(rank)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"ranks='position': column {name!r} must hold integer ranks >= 1 (the position of "
            f"each row), but row {i} holds {float(rank[i])!r} ({int(bad.sum())} such row(s)). "
            "Fix the ranks, or use ranks='order' to order the rows by rank and number them "
            "1, 2, ..."
        )


def _segments(indptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))


def fill_positions(packed: Packed, depth: int,
                   strict_order: tuple[str, ...] | None = None) -> Packed:
    """The block with each list laid out at its ranks (``ranks="position"``).

    For user ``u`` with rows at ranks ``r_1 <= r_2 <= ...`` (largest ``r_max``), the list
    covers the ranks ``1 .. L_u``, ``L_u = r_max`` (``min(depth, r_max)`` with ``depth > 0``;
    ``depth`` when rows past the depth were cut): each rank holds its rows, or one
    placeholder (relevance 0, not judged) when no row has it. The list length the kernel reads
    (``list_len``: num_ret, the ``min(k, L)`` denominators) is ``r_max``; ``scores`` is
    ``-rank`` at each slot.

    Without shared ranks, slot ``i`` of a list is rank ``i + 1``. Two rows of a user at one
    rank within the ranks laid out (shared ranks) each take a slot of that rank, in their
    packed order (:func:`slot_ranks` reads the rank of each slot for the kernel), unless
    ``strict_order`` is None (every metric refuses them) or names metrics, which need a
    strict order of the rows and refuse them: an :class:`~receval.errors.InputError` naming
    the metrics, the user and the rank.
    """
    p = packed
    n_users = len(p.user_ids)
    n = np.diff(p.indptr)
    seg = _segments(p.indptr)
    rank = (-p.scores).astype(np.int64) if len(p.scores) else np.zeros(0, dtype=np.int64)
    rmax = np.zeros(n_users, dtype=np.int64)
    has = n > 0
    if has.any():
        rmax[has] = np.maximum.reduceat(rank, p.indptr[:-1][has])
    cut = p.list_len > n  # rows past the depth exist: the list reaches past the depth
    if depth > 0:
        length = np.where(cut | (rmax > depth), depth, rmax)
        list_len = np.where(cut, np.maximum(np.maximum(p.list_len, rmax), depth + 1), rmax)
    else:
        length, list_len = rmax, rmax
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(length, out=indptr[1:])
    total = int(indptr[-1])
    if total > max(MAX_FILLED, 4 * len(rank)):
        u = int(np.argmax(length))
        raise PolicyError(
            f"ranks='position' would lay out {total} positions for {n_users} user(s) (user "
            f"{p.user_ids[u]!r} has a row at rank {int(rmax[u])}): give every metric a cutoff "
            "(ndcg@10, not ndcg) so that only the ranks up to it are read, or use ranks='order'."
        )
    keep = rank <= length[seg]
    dest = indptr[seg[keep]] + rank[keep] - 1
    slot_rank = None
    if len(dest):
        occupied = np.bincount(dest, minlength=total)
        if (occupied > 1).any():
            if strict_order is None or strict_order:
                q = int(np.flatnonzero(occupied > 1)[0])
                u = int(np.searchsorted(indptr, q, side="right") - 1)
                _refuse_shared(p.user_ids[u], int(occupied[q]), q - int(indptr[u]) + 1,
                               strict_order)
            dest, indptr, slot_rank = _shared_slots(dest, occupied, indptr, length)
            total = int(indptr[-1])
    rel = np.zeros(total, dtype=np.float64)
    rel[dest] = p.rel[keep]
    judged = np.zeros(total, dtype=p.judged.dtype)
    judged[dest] = p.judged[keep]
    if slot_rank is None:
        slot_rank = np.arange(total, dtype=np.int64) - np.repeat(indptr[:-1], length) + 1
    grp_end = np.arange(1, total + 1, dtype=np.int64) if len(p.grp_end) \
        else np.zeros(0, dtype=np.int64)  # one slot per tie group: a rank's rows each hold it
    return dataclasses.replace(
        p, indptr=indptr, rel=rel, judged=judged, **p.items_at(slice(0, 0)),
        scores=-slot_rank.astype(np.float64), list_len=list_len.astype(np.int64),
        grp_end=grp_end)


def _refuse_shared(user: object, rows: int, rank: int,
                   strict_order: tuple[str, ...] | None) -> None:
    if strict_order is None:
        raise InputError(
            f"ranks='position': user {_plain(user)!r} has {rows} rows at rank {rank} (shared "
            "rank); the ranking metrics read one item per position and cannot place both. "
            "Give each row of a user its own rank, or use ranks='order' (rows of equal rank "
            "are then tied and ordered by the ties policy)."
        )
    raise InputError(
        f"ranks='position': user {_plain(user)!r} has {rows} rows at rank {rank} (shared "
        f"rank), and {', '.join(strict_order)} {'needs' if len(strict_order) == 1 else 'need'}"
        " a strict order of the rows (which of "
        "two rows at one rank comes first; RecTools orders them arbitrarily in PartialAUC and "
        "PAP). Evaluate the other metrics without them, give each row of a user its own rank, "
        "or use ranks='order' (rows of equal rank are then tied and ordered by the ties "
        "policy)."
    )


def _shared_slots(dest: np.ndarray, occupied: np.ndarray, indptr: np.ndarray,
                  length: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slots of a layout with shared ranks: position ``q`` (one rank of one user) gets
    ``max(occupied[q], 1)`` slots; the rows of ``dest`` (positions, ascending) take their
    position's slots in order. Returns (each row's slot, the slots' indptr, each slot's
    rank)."""
    if len(dest) > 1 and (np.diff(dest) < 0).any():
        raise RuntimeError("ranks='position': packed rows out of rank order")
    slots = np.maximum(occupied, 1)
    start = np.cumsum(slots) - slots  # the first slot of each position
    within = np.arange(len(dest), dtype=np.int64) - np.searchsorted(dest, dest, side="left")
    pos_rank = np.arange(len(occupied), dtype=np.int64) - np.repeat(indptr[:-1], length) + 1
    seg = np.repeat(np.arange(len(length), dtype=np.int64), length)
    new_indptr = np.zeros(len(indptr), dtype=np.int64)
    np.cumsum(np.bincount(seg, weights=slots, minlength=len(length)).astype(np.int64),
              out=new_indptr[1:])
    return start[dest] + within, new_indptr, np.repeat(pos_rank, slots)


def slot_ranks(lists: Packed) -> np.ndarray:
    """The rank of each slot of lists laid out by :func:`fill_positions` (and
    :func:`append_unretrieved`), for the kernel's ``slot_rank``; empty when slot ``i`` of each
    list is rank ``i + 1`` (no shared rank: the kernel then reads positions, as it always
    has). Appended unretrieved items follow the list's last rank ``L``: ``L + 1, L + 2, ...``."""
    s = lists.scores
    if not lists.absolute_ranks or len(s) < 2:
        return np.zeros(0, dtype=np.int64)
    fin = np.isfinite(s)
    same = (s[1:] == s[:-1]) & fin[1:]
    b = lists.indptr[1:-1]
    same[b[(b > 0) & (b < len(s))] - 1] = False  # never across users
    if not same.any():
        return np.zeros(0, dtype=np.int64)
    rank = np.where(fin, -s, 0).astype(np.int64)
    if not fin.all():  # the appended block: after the list's last rank
        seg = _segments(lists.indptr)
        last = np.zeros(len(lists.user_ids), dtype=np.int64)
        np.maximum.at(last, seg, rank)
        tail = np.flatnonzero(~fin)
        first = np.searchsorted(tail, lists.indptr[:-1][seg[tail]] if len(tail) else tail)
        rank[tail] = last[seg[tail]] + np.arange(len(tail), dtype=np.int64) - first + 1
    return rank


def rank_view(packed: Packed, k: int | None) -> Packed:
    """The rows of each list with rank <= k (all rows when ``k`` is None), for metrics on the
    recommended items under ``ranks="position"``: a row with rank 9 is outside the top 3, and
    the list's length (``list_len``) is its number of rows with rank <= k (RecTools
    ``SufficientReco`` counts those rows)."""
    p = packed
    if k is None or not len(p.scores):
        return p
    keep = -p.scores <= k
    lens = np.bincount(_segments(p.indptr)[keep], minlength=len(p.user_ids)).astype(np.int64)
    if keep.all():
        return dataclasses.replace(p, list_len=lens)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    grp_end = p.grp_end
    if len(grp_end):
        grp_end = np.arange(1, int(indptr[-1]) + 1, dtype=np.int64)
    return dataclasses.replace(
        p, indptr=indptr, rel=p.rel[keep], judged=p.judged[keep],
        **p.items_at(keep), scores=p.scores[keep],
        grp_end=grp_end, list_len=lens)


def append_unretrieved(lists: Packed, source: Packed, depth: int | None = None) -> Packed:
    """``lists`` with each user's unretrieved truth items appended (``unretrieved="bottom"``).

    ``source`` is the block as packed (its item at each position tells which truth items were
    retrieved); ``lists`` the same users' lists as the kernel reads them (``source`` itself, or
    its :func:`fill_positions` layout). A user's block follows the whole list (users whose list
    was cut at the depth reach past every cutoff, and get none; a user without run rows has no
    list to append to, and gets none either: ``users="truth"`` scores it 0); with a depth
    (``source.depth > 0``) it is cut at the depth. The appended items are judged, carry their
    truth relevance, score ``-inf`` and, under ``ties="average"``, form one tie group.
    ``list_len`` grows by the block's size. ``depth``: the depth the lists were laid out at
    (the source's packing depth when None); the block fills the ranks after the list's last
    one (``list_len``) up to it.
    """
    s, q = source, lists
    depth, opts = s.depth if depth is None else depth, s.options
    n_users = len(s.user_ids)
    if not len(s.t_items):
        return q
    # users whose whole list is held, and who have a list at all: a user without run rows
    # keeps the value the ``users`` policy gives it (0), whatever is appended to others
    whole = (s.list_len == np.diff(s.indptr)) & s.in_run
    # the truth items each user's list holds, as (user, truth code) keys
    n_codes = max(len(s.truth_item_vocab), 1)
    seg = _segments(s.indptr)
    pos = np.flatnonzero(s.judged == 1)
    if len(pos) and not len(s.items):
        raise RuntimeError("unretrieved='bottom' needs the item at each position")
    to_truth = lookup(s.item_vocab, s.truth_item_vocab) if len(pos) else np.zeros(0, np.int64)
    held = seg[pos] * n_codes + to_truth[s.items[pos]] if len(pos) \
        else np.zeros(0, dtype=np.int64)
    tseg = _segments(s.t_indptr)
    missing = ~np.isin(tseg * n_codes + s.t_items, held) & whole[tseg]
    cand = np.flatnonzero(missing)
    n_missing = np.bincount(tseg[cand], minlength=n_users).astype(np.int64)
    # the block's order: the ties rule (one group under "average": any order)
    key = order_keys(s.truth_item_vocab, what="truth item column",
                     as_text=bool(opts.desc_ids))[s.t_items[cand]]
    if opts.desc_ids:
        key = -key
    cand = cand[np.lexsort((key, tseg[cand]))]
    cur = np.diff(q.indptr)
    # (a user with missing items holds its whole list: its last rank is list_len, which is
    # its number of slots unless rows share a rank)
    room = n_missing if depth <= 0 else np.minimum(n_missing,
                                                   np.maximum(depth - q.list_len, 0))
    first = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(n_missing, out=first[1:])
    j = np.arange(len(cand), dtype=np.int64) - first[tseg[cand]]
    cand = cand[j < room[tseg[cand]]]
    if not len(cand) and not n_missing.any():
        return q
    add = np.bincount(tseg[cand], minlength=n_users).astype(np.int64)
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(cur + add, out=indptr[1:])
    total = int(indptr[-1])
    qseg = _segments(q.indptr)
    old = np.arange(len(q.rel), dtype=np.int64) + (indptr[:-1] - q.indptr[:-1])[qseg]
    cu = tseg[cand]
    new = indptr[cu] + cur[cu] + (np.arange(len(cand), dtype=np.int64)
                                  - np.repeat(np.cumsum(add) - add, add))
    rel = np.zeros(total, dtype=np.float64)
    rel[old], rel[new] = q.rel, s.t_rel[cand]
    judged = np.zeros(total, dtype=q.judged.dtype)
    judged[old], judged[new] = q.judged, 1
    scores = q.scores
    if len(scores):
        scores = np.full(total, -np.inf, dtype=np.float64)
        scores[old] = q.scores
    grp_end = q.grp_end
    if opts.tie_groups:  # (a block without positions has an empty grp_end: made here)
        grp_end = np.empty(total, dtype=np.int64)
        grp_end[old] = q.grp_end + (indptr[:-1] - q.indptr[:-1])[qseg]
        grp_end[new] = indptr[cu + 1]
    return dataclasses.replace(
        q, indptr=indptr, rel=rel, judged=judged, **q.items_at(slice(0, 0)), scores=scores,
        list_len=q.list_len + n_missing, grp_end=grp_end)


def condense(packed: Packed) -> Packed:
    """The packed lists without their unjudged items (the ``unjudged="remove"`` policy).

    Sakai's condensed lists (SIGIR 2007; ir_measures ``judged_only``, trec_eval ``-J``): every
    recommended item without a truth row is removed, and the judged items move up. Packing
    keeps whole lists under this policy (the plan's depth is 0), so nothing judged is lost to a
    cutoff; tie groups are recomputed on the condensed lists.
    """
    keep = packed.judged == 1
    if keep.all():
        return packed
    lens = np.bincount(_segments(packed.indptr)[keep],
                       minlength=len(packed.user_ids)).astype(np.int64)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    scores = packed.scores[keep] if len(packed.scores) else packed.scores
    grp_end = packed.grp_end
    if len(grp_end):
        grp_end = group_ends(indptr, scores)
    return dataclasses.replace(
        packed, indptr=indptr, rel=packed.rel[keep], judged=packed.judged[keep],
        **packed.items_at(keep), scores=scores,
        list_len=lens, grp_end=grp_end)


def group_ends(indptr: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Absolute end of the tie group of each position (ties never cross users)."""
    n = len(scores)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    brk = np.ones(n + 1, dtype=bool)  # brk[p]: a new group starts at p (p == n: end)
    brk[1:n] = scores[1:] != scores[:-1]
    brk[indptr] = True
    starts = np.flatnonzero(brk)  # includes n
    group_idx = np.cumsum(brk[:n]) - 1
    return starts[group_idx + 1].astype(np.int64)


def metric_lists(packed: Packed) -> Packed:
    """The lists every metric reads: the block as packed, condensed under
    ``unjudged="remove"``. Metrics on the recommended items read its :func:`top_rows`, the
    ranking kernel its :func:`kernel_lists`."""
    return condense(packed) if packed.options.condense else packed


def kernel_lists(lists: Packed, strict_order: tuple[str, ...] | None = None,
                 depth: int | None = None) -> Packed:
    """The lists the ranking kernel reads: :func:`metric_lists`' lists laid out at their ranks
    (``ranks="position"`` on a rank run, up to ``depth``: the plan's ``rank_depth``, the
    packing depth when None) and with the unretrieved truth items appended
    (``unretrieved="bottom"``). ``strict_order``: the metrics that refuse shared ranks (the
    plan's ``strict_order``; None: every metric refuses them), see :func:`fill_positions`;
    the kernel reads the slots' ranks with :func:`slot_ranks`."""
    depth = lists.depth if depth is None else depth
    out = fill_positions(lists, depth, strict_order) if lists.absolute_ranks else lists
    if lists.append_unretrieved:
        if lists.absolute_ranks and lists.options.tie_groups and len(slot_ranks(out)):
            raise PolicyError(
                "ranks='position' with rows of a user sharing a rank reads each row at its "
                "rank, not as a tie group, while unretrieved='bottom' under ties='average' "
                "appends the missing truth items as one tie group: the kernel cannot read "
                "both. Use ties='id' (the appended items by id), or give each row its own rank."
            )
        out = append_unretrieved(out, lists, depth)
    return out


def top_rows(lists: Packed, k: int | None) -> Packed:
    """The rows a metric on the recommended items reads at cutoff ``k``: every row (it cuts
    at ``k`` itself), or under absolute ranks the rows with rank <= k (:func:`rank_view`),
    never a placeholder or an appended unretrieved item."""
    return rank_view(lists, k) if lists.absolute_ranks else lists


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value
