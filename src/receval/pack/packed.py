"""The packing step: truth and run to contiguous per-user arrays (the kernels' contract).

``TruthPack`` is built once per truth (an :class:`~receval.Evaluator` reuses it). ``pack_run``
orders each user's list (score descending, deterministic tie key on raw ids), looks up each
recommended item's relevance, cuts at the deepest cutoff needed and returns a :class:`Packed`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, PolicyError
from ..io.frames import Columns
from ..kernels import pack_lists
from ..policies import Policies
from .vocab import CODE, factorize, factorize_grouped, kind_of, lookup, order_keys


@dataclass
class TruthPack:
    """Per-user truth, CSR by user: items sorted by code, relevances, and sorted-desc relevances."""

    users: np.ndarray          # raw user ids (code -> id)
    items: np.ndarray          # raw item ids (code -> id)
    indptr: np.ndarray         # (n_users + 1,)
    item_codes: np.ndarray     # per user, ascending
    rel: np.ndarray            # aligned with item_codes
    rel_desc: np.ndarray       # per user, descending (for the ideal list)
    n_rows: int
    max_rel: float
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def n_users(self) -> int:
        return len(self.users)


@dataclass
class Packed:
    """Everything the kernels need for one run, users in a fixed order (``user_ids``)."""

    user_ids: np.ndarray       # raw ids of the evaluated users, row order of every array
    indptr: np.ndarray         # positions of user u: indptr[u]:indptr[u+1] (cut at depth)
    rel: np.ndarray            # truth relevance at each position (0 = not relevant / unjudged)
    judged: np.ndarray         # int8: item is in the user's truth
    items: np.ndarray          # run-vocabulary item code at each position (empty if not kept)
    scores: np.ndarray         # score at each position, -rank for rank inputs (empty if not kept)
    list_len: np.ndarray       # full list length per user (before the depth cut)
    grp_end: np.ndarray        # tie-group end per position (ties="average"), else empty
    t_indptr: np.ndarray       # truth CSR aligned with user_ids
    t_rel_desc: np.ndarray
    t_items: np.ndarray        # truth item codes (truth vocabulary), ascending per user
    t_rel: np.ndarray
    item_vocab: np.ndarray     # run-vocabulary code -> raw item id
    truth_item_vocab: np.ndarray
    in_truth: np.ndarray       # bool per user: has truth rows
    in_run: np.ndarray         # bool per user: has run rows
    counts: dict[str, int]
    max_rel: float
    truth_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # per user: its row in the truth (-1: a run-only user)
    run_only: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # raw ids of the run's users that have no truth rows (evaluated or not)


def _dedupe_mode(policy: str) -> int:
    return {"error": 0, "max": 1, "first": 2}[policy]


def _order(group: np.ndarray, n_groups: int, score: np.ndarray, key: np.ndarray,
           dedupe: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows grouped by ``group``, each group by score descending then ``key`` ascending.

    ``key`` holds non-negative codes (equal keys in a group are duplicates, see
    :func:`receval.kernels.pack_lists`). Returns ``(indptr, rows, n_dup)``.
    """
    n_keys = int(key.max()) + 1 if len(key) else 1
    none = np.full(n_keys, -1, dtype=np.int64)
    out = pack_lists(group.astype(CODE, copy=False), np.arange(n_groups, dtype=np.int64),
                     n_groups, np.ascontiguousarray(score, dtype=np.float64),
                     key.astype(CODE, copy=False), np.arange(n_keys, dtype=np.int64), none,
                     np.zeros(n_groups + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                     np.zeros(0, dtype=np.float64), 0, dedupe, 0, 0, 0, 0, None, 1)
    return out[0], out[9], out[6]


def pack_truth(cols: Columns, policies: Policies) -> TruthPack:
    """Factorize, validate and group the truth."""
    if cols.n_rows == 0:
        raise InputError(
            "truth: the table has no rows; evaluation needs held-out (user, item[, relevance]) "
            "rows for at least one user."
        )
    u_codes, users = factorize_grouped(cols.user, what="truth user column")
    i_codes, items = factorize(cols.item, what="truth item column")
    n = len(u_codes)
    rel = np.ones(n, dtype=np.float64) if cols.value is None else cols.value
    relname = cols.names.get("relevance", "relevance")
    bad = ~np.isfinite(rel)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"truth: column {relname!r} has {int(bad.sum())} NaN/infinite value(s) (first at row "
            f"{i}: {rel[i]!r}); fill or drop them."
        )
    neg = rel < 0
    if neg.any():
        if policies.negative_rel == "error":
            i = int(np.flatnonzero(neg)[0])
            raise PolicyError(
                f"truth: column {relname!r} has {int(neg.sum())} negative relevance value(s) "
                f"(first at row {i}: {rel[i]!r}). Pass negative_rel='zero' to treat them as judged "
                "non-relevant, negative_rel='drop' to remove them (unjudged), or fix the data."
            )
        if policies.negative_rel == "drop":
            keep = ~neg
            u_codes, i_codes, rel = u_codes[keep], i_codes[keep], rel[keep]
            n = len(rel)
        else:
            rel = np.where(neg, 0.0, rel)
    # per user ascending item code; duplicates -> policy
    mode = _dedupe_mode(policies.duplicates)
    zero = np.zeros(n, dtype=np.float64)
    key_rel = rel if mode == 1 else zero  # 'max' keeps the highest relevance
    indptr, perm, ndup = _order(u_codes, len(users), key_rel, i_codes, mode)
    n_dup = int(ndup.sum())
    if n_dup and mode == 0:
        u = int(np.flatnonzero(ndup)[0])
        raise InputError(
            f"truth: {n_dup} duplicate (user, item) row(s), e.g. for user {users[u]!r}. Pass "
            "duplicates='max' (keep the highest relevance) or duplicates='first', or drop them."
        )
    # the kernel ordered by (rel desc, item asc) when mode == 1; re-sort by item within users
    grp = np.repeat(np.arange(len(users), dtype=CODE), np.diff(indptr))
    if mode == 1:
        perm = perm[_order(grp, len(users), zero[: len(perm)], i_codes[perm])[1]]
    item_sorted = i_codes[perm].astype(np.int64)
    rel_sorted = rel[perm]
    perm_desc = _order(grp, len(users), rel_sorted, item_sorted)[1]
    return TruthPack(
        users=users, items=items, indptr=indptr, item_codes=item_sorted, rel=rel_sorted,
        rel_desc=rel_sorted[perm_desc], n_rows=n,
        max_rel=float(rel.max()) if n else 0.0, counts={"truth_duplicates": n_dup},
    )


def truth_from_sparse(matrix: Any) -> TruthPack:
    """Truth from a scipy.sparse (users x items) relevance matrix, or a list of item arrays."""
    import scipy.sparse as sp

    if isinstance(matrix, list):
        lens = np.fromiter((len(a) for a in matrix), dtype=np.int64, count=len(matrix))
        indptr = np.zeros(len(matrix) + 1, dtype=np.int64)
        np.cumsum(lens, out=indptr[1:])
        indices = np.concatenate([np.asarray(a, dtype=np.int64) for a in matrix]) if len(matrix) \
            else np.zeros(0, dtype=np.int64)
        n_items = int(indices.max()) + 1 if len(indices) else 0
        csr = sp.csr_matrix((np.ones(len(indices)), indices, indptr),
                            shape=(len(matrix), n_items))
    elif sp.issparse(matrix):
        csr = sp.csr_matrix(matrix)
    else:
        raise InputError(
            "truth: with a numpy top-k matrix as run, the truth must be a scipy.sparse "
            f"(users x items) matrix or a list of item-id arrays, got {type(matrix).__name__}."
        )
    if csr.has_canonical_format is False:
        csr.sum_duplicates()
    csr.sort_indices()
    rel = np.asarray(csr.data, dtype=np.float64)
    if (rel < 0).any() or not np.isfinite(rel).all():
        raise InputError("truth: the sparse matrix holds negative or non-finite relevances.")
    n_users = csr.shape[0]
    indptr = csr.indptr.astype(np.int64)
    items = csr.indices.astype(np.int64)
    grp = np.repeat(np.arange(n_users, dtype=CODE), np.diff(indptr))
    perm_desc = _order(grp, n_users, rel, items)[1]
    return TruthPack(
        users=np.arange(n_users, dtype=np.int64), items=np.arange(csr.shape[1], dtype=np.int64),
        indptr=indptr, item_codes=items, rel=rel, rel_desc=rel[perm_desc], n_rows=len(rel),
        max_rel=float(rel.max()) if len(rel) else 0.0, counts={"truth_duplicates": 0},
    )


@dataclass
class RunCodes:
    """A run reduced to codes: per row a user code (run vocab), an item code and a score."""

    user_codes: np.ndarray
    users: np.ndarray
    item_codes: np.ndarray
    items: np.ndarray
    score: np.ndarray
    kind: str  # "score" or "rank"
    score_name: str
    ordered: bool = False  # rows already in rank order within each user (matrix input)

    @classmethod
    def empty(cls, truth: TruthPack) -> RunCodes:
        """A run without rows (truth users evaluated with it have empty lists)."""
        none = np.zeros(0, dtype=CODE)
        return cls(none, truth.users[:0], none, truth.items[:0], np.zeros(0, dtype=np.float64),
                   "score", "score")


def run_codes(cols: Columns) -> RunCodes:
    """Factorize a run's ids; ranks become scores (-rank) so that higher is better."""
    u_codes, users = factorize_grouped(cols.user, what="run user column")
    i_codes, items = factorize(cols.item, what="run item column")
    assert cols.value is not None
    score = -cols.value if cols.value_kind == "rank" else cols.value
    return RunCodes(u_codes, users, i_codes, items, score, cols.value_kind,
                    cols.names.get(cols.value_kind, cols.value_kind))


def run_from_matrix(matrix: np.ndarray) -> RunCodes:
    """Run from a (users x k) array of item ids in rank order; -1 marks padding."""
    arr = np.asarray(matrix)
    if arr.ndim != 2 or arr.dtype.kind not in "iu":
        raise InputError(
            "run: a numpy run must be a 2-D integer (users x k) array of item ids in rank order "
            f"(-1 = padding), got shape {arr.shape} dtype {arr.dtype}."
        )
    n_users, k = arr.shape
    if arr.size and int(arr.max()) >= 2**31 - 1:
        raise InputError("run: item ids of a numpy run must be below 2**31 - 1.")
    flat = arr.astype(CODE, copy=False).ravel()
    user = np.repeat(np.arange(n_users, dtype=CODE), k)
    score = -np.tile(np.arange(1, k + 1, dtype=np.float64), n_users)
    keep = flat >= 0
    if not keep.all():
        user = np.where(keep, user, -1)
    n_items = int(flat.max()) + 1 if flat.size else 0
    return RunCodes(user, np.arange(n_users, dtype=np.int64), flat,
                    np.arange(n_items, dtype=np.int64), score, "rank", "rank", ordered=True)


def pack_run(run: RunCodes, truth: TruthPack, policies: Policies, *, depth: int,
             keep_items: bool = True, keep_scores: bool = True,
             cutoffs: tuple[int, ...] = (), only_truth: np.ndarray | None = None) -> Packed:
    """Order, deduplicate, cut and join one run with the packed truth.

    ``keep_items`` / ``keep_scores``: also return the item code / score at each position
    (needed by catalogue and curve metrics, and by ``ties="average"``).
    ``cutoffs``: ranks at which tied scores are counted (``counts["users_tied_at_cutoff"]``:
    users whose value at one of these cutoffs depends on the tie policy).
    ``only_truth``: evaluate exactly these truth users (row numbers in the truth), whatever the
    ``users`` policy (block executors use it for truth users that no block holds).
    """
    if run.users.dtype.kind != truth.users.dtype.kind and len(run.users) and len(truth.users):
        if kind_of(run.users) != kind_of(truth.users):
            overlap = lookup(run.users[:1000], truth.users)
            if (overlap < 0).all():
                raise InputError(
                    f"run user ids are {kind_of(run.users)} but truth user ids are "
                    f"{kind_of(truth.users)}, and none match; convert one of them, e.g. "
                    "df['user'] = df['user'].astype(str)."
                )
    run_to_truth_user = lookup(run.users, truth.users)
    in_run_t = np.zeros(truth.n_users, dtype=bool)
    in_run_t[run_to_truth_user[run_to_truth_user >= 0]] = True
    run_only = np.flatnonzero(run_to_truth_user < 0)

    # evaluated users: truth users (some maybe without run rows) + run-only users per policy
    if only_truth is not None:
        t_sel, extra = np.asarray(only_truth, dtype=np.int64), run_only[:0]
    elif policies.users == "truth":
        t_sel, extra = np.arange(truth.n_users), run_only[:0]
    elif policies.users == "intersection":
        t_sel, extra = np.flatnonzero(in_run_t), run_only[:0]
    elif policies.users == "run":
        t_sel, extra = np.flatnonzero(in_run_t), run_only
    else:  # union
        t_sel, extra = np.arange(truth.n_users), run_only
    n_eval = len(t_sel) + len(extra)
    # run user code -> evaluated row
    t_row = np.full(truth.n_users, -1, dtype=np.int64)
    t_row[t_sel] = np.arange(len(t_sel))
    run_row = np.where(run_to_truth_user >= 0, t_row[np.maximum(run_to_truth_user, 0)], -1) \
        if truth.n_users else np.full(len(run_to_truth_user), -1, dtype=np.int64)
    run_row[extra] = len(t_sel) + np.arange(len(extra))

    score = run.score
    bad = ~np.isfinite(score)
    n_bad = int(bad.sum())
    if n_bad and policies.nan_scores == "error":
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"run: column {run.score_name!r} has {n_bad} NaN/infinite value(s) (first at row "
            f"{i}: {run.score[i]!r}). Pass nan_scores='drop' (remove them, counted) or "
            "nan_scores='last' (rank them after every finite score), or fix the data."
        )
    nan_mode = {"error": 0, "drop": 1, "last": 2}[policies.nan_scores]

    if run.ordered:
        item_key = np.arange(len(run.items), dtype=np.int64)
        item_to_truth = np.where(run.items < len(truth.items), run.items, -1)
    else:
        item_key = order_keys(run.items, what="run item column",
                              as_text=policies.ties == "trec_eval")
        item_to_truth = lookup(run.items, truth.items)
    if policies.ties == "trec_eval":
        item_key = -item_key

    # truth CSR aligned with evaluated users (run-only users have empty truth)
    t_counts = np.zeros(n_eval, dtype=np.int64)
    t_counts[: len(t_sel)] = np.diff(truth.indptr)[t_sel]
    t_indptr = np.zeros(n_eval + 1, dtype=np.int64)
    np.cumsum(t_counts, out=t_indptr[1:])
    if len(t_sel) == truth.n_users:
        t_items, t_rel, t_rel_desc = truth.item_codes, truth.rel, truth.rel_desc
    else:
        idx = _ranges(truth.indptr[t_sel], t_counts[: len(t_sel)])
        t_items, t_rel, t_rel_desc = truth.item_codes[idx], truth.rel[idx], truth.rel_desc[idx]

    mode = _dedupe_mode(policies.duplicates)
    cut_arr = np.array(sorted({int(c) for c in cutoffs if c and c > 0}), dtype=np.int64)
    indptr, items, pos_scores, rel, judged, list_len, ndup, n_dropped, tied, _ = pack_lists(
        run.user_codes, run_row, n_eval, score, run.item_codes, item_key, item_to_truth,
        t_indptr, t_items, t_rel, depth, mode, nan_mode, int(policies.ties == "trec_eval"),
        int(keep_items), int(keep_scores or policies.ties == "average"), cut_arr)
    n_dup = int(ndup.sum())
    if n_dup and mode == 0:
        u = int(np.flatnonzero(ndup)[0])
        uid = truth.users[t_sel[u]] if u < len(t_sel) else run.users[extra[u - len(t_sel)]]
        raise InputError(
            f"run: {n_dup} duplicate (user, item) row(s), e.g. for user {uid!r}. Pass "
            "duplicates='max' (keep the highest score) or duplicates='first' (first row), or "
            "drop them."
        )

    grp_end = np.zeros(0, dtype=np.int64)
    if policies.ties == "average":
        grp_end = _group_ends(indptr, pos_scores)

    user_ids = np.concatenate([truth.users[t_sel], run.users[extra]]) if len(extra) \
        else truth.users[t_sel]
    in_truth = np.concatenate([np.ones(len(t_sel), bool), np.zeros(len(extra), bool)])
    in_run = np.concatenate([in_run_t[t_sel], np.ones(len(extra), bool)])
    counts = {
        "truth_users": int(truth.n_users),
        "run_users": int(len(run.users)),
        "missing_from_run": int((~in_run_t[t_sel]).sum()) if policies.users != "run" else 0,
        "missing_from_truth": int(len(run_only)),
        "truth_rows": int(truth.n_rows),
        "run_rows": int(len(run.user_codes)),
        "dropped_nan_scores": int(n_dropped),
        "duplicates_removed": n_dup if mode else 0,
        "users_tied_at_cutoff": int(tied.sum()),
    }
    return Packed(
        user_ids=user_ids, indptr=indptr, rel=rel, judged=judged, items=items,
        scores=pos_scores, list_len=list_len, grp_end=grp_end, t_indptr=t_indptr,
        t_rel_desc=t_rel_desc, t_items=t_items, t_rel=t_rel, item_vocab=run.items,
        truth_item_vocab=truth.items, in_truth=in_truth, in_run=in_run, counts=counts,
        max_rel=truth.max_rel,
        truth_index=np.concatenate([t_sel, np.full(len(extra), -1, dtype=np.int64)]),
        run_only=run.users[run_only],
    )


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate arange(s, s + n) for each (s, n), vectorized."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return np.arange(total, dtype=np.int64) + offsets


def _group_ends(indptr: np.ndarray, scores: np.ndarray) -> np.ndarray:
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
