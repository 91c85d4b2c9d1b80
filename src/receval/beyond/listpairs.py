"""Agreement between two ranked lists per user: overlap, rank-biased overlap, Kendall's tau.

Both collections are CSR arrays over the same users (``indptr_a, items_a`` and ``indptr_b,
items_b``, items as integer codes of one shared vocabulary, each list in rank order without
repeated items). Every function returns one float per user, NaN where the measure is undefined
(both lists empty; Kendall's tau with fewer than two items to compare).

For a user, ``S`` and ``L`` are the shorter and the longer list (lengths ``s <= l``) and ``X_d``
the number of items the two lists share within their first ``d`` positions (for ``d > s`` the
whole shorter list), so that ``A_d = X_d / d`` is the agreement at depth ``d`` (Webber, Moffat &
Zobel 2010, "A similarity measure for indefinite rankings", ACM TOIS 28(4), section 2).
"""

from __future__ import annotations

import numpy as np

from ._lists import ranges

#: pairs of items enumerated at once by :func:`kendall_tau` (memory bound)
PAIR_CHUNK = 1 << 22


def _common(indptr_a: np.ndarray, items_a: np.ndarray, indptr_b: np.ndarray,
            items_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(user, 1-based position in a, 1-based position in b) of every item in both lists."""
    n = len(indptr_a) - 1
    ua = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr_a))
    ub = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr_b))
    width = int(max(items_a.max(initial=-1), items_b.max(initial=-1))) + 1
    key_a = ua * width + items_a
    key_b = ub * width + items_b
    order = np.argsort(key_b, kind="stable")
    sorted_b = key_b[order]
    at = np.searchsorted(sorted_b, key_a)
    at_ok = np.minimum(at, max(len(sorted_b) - 1, 0))
    hit = (at < len(sorted_b)) & (sorted_b[at_ok] == key_a) if len(sorted_b) else \
        np.zeros(len(key_a), dtype=bool)
    pos_a = np.arange(len(items_a), dtype=np.int64) - indptr_a[ua] + 1
    jb = order[at_ok[hit]]
    pos_b = jb - indptr_b[ub[jb]] + 1
    return ua[hit], pos_a[hit], pos_b


def _depth_counts(indptr_a, items_a, indptr_b, items_b):
    """Per user: s, l, and X_d for d = 1..l as CSR (``xptr``, ``x``)."""
    la = np.diff(indptr_a)
    lb = np.diff(indptr_b)
    s = np.minimum(la, lb)
    big = np.maximum(la, lb)
    xptr = np.zeros(len(la) + 1, dtype=np.int64)
    np.cumsum(big, out=xptr[1:])
    user, pa, pb = _common(indptr_a, items_a, indptr_b, items_b)
    # a shared item counts from depth max(pos_a, pos_b) on
    first = np.bincount(xptr[user] + np.maximum(pa, pb) - 1, minlength=int(xptr[-1]))
    x = np.cumsum(first)
    x -= np.repeat(np.concatenate([[0], x])[xptr[:-1]], big)  # restart at each user
    return s, big, xptr, x.astype(np.float64)


def overlap(indptr_a, items_a, indptr_b, items_b) -> np.ndarray:
    """Jaccard overlap ``|A & B| / |A | B|`` of the two lists (NaN when both are empty)."""
    user, _, _ = _common(indptr_a, items_a, indptr_b, items_b)
    n = len(indptr_a) - 1
    inter = np.bincount(user, minlength=n).astype(np.float64)
    union = np.diff(indptr_a) + np.diff(indptr_b) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.maximum(union, 1), np.nan)


def shared(indptr_a, items_a, indptr_b, items_b) -> np.ndarray:
    """``|A & B|`` per user."""
    user, _, _ = _common(indptr_a, items_a, indptr_b, items_b)
    return np.bincount(user, minlength=len(indptr_a) - 1).astype(np.float64)


def rbo(indptr_a, items_a, indptr_b, items_b, *, p: float, form: str = "ext") -> np.ndarray:
    """Rank-biased overlap of each pair of lists (Webber, Moffat & Zobel 2010).

    ``form="ext"``: the extrapolated RBO_ext (their eq. 32; eq. 30 when ``s = l``)::

        (1-p)/p [ sum_{d=1}^{l} X_d/d p^d + sum_{d=s+1}^{l} X_s (d-s)/(s d) p^d ]
            + [ (X_l - X_s)/l + X_s/s ] p^l

    which is 1 for identical lists and assumes the agreement seen at the end of the lists
    continues. ``form="sum"``: the prefix sum ``(1-p) sum_{d=1}^{s} p^(d-1) A_d`` to the depth of
    the shorter list (their eq. 7 truncated at ``s``; a lower bound that leaves the residual
    unattributed). One empty list: 0; both empty: NaN.
    """
    s, big, xptr, x = _depth_counts(indptr_a, items_a, indptr_b, items_b)
    n = len(s)
    user = np.repeat(np.arange(n, dtype=np.int64), big)
    d = (np.arange(len(x), dtype=np.int64) - xptr[user] + 1).astype(np.float64)
    pd_ = np.power(p, d)
    out = np.full(n, np.nan)
    if form == "sum":
        keep = d <= s[user]
        terms = (1.0 - p) * np.power(p, d - 1.0) * x / d
        total = np.bincount(user[keep], weights=terms[keep], minlength=n)
        out = np.where(big > 0, np.where(s > 0, total, 0.0), np.nan)
        return out
    s_u = s[user].astype(np.float64)
    x_s = np.zeros(n)
    x_l = np.zeros(n)
    has = s > 0
    x_s[has] = x[xptr[:-1][has] + s[has] - 1]
    nz = big > 0
    x_l[nz] = x[xptr[1:][nz] - 1]
    first = np.bincount(user, weights=x / d * pd_, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        tail_terms = np.where(d > s_u, x_s[user] * (d - s_u) / (s_u * d) * pd_, 0.0)
    second = np.bincount(user, weights=np.where(d > s_u, tail_terms, 0.0), minlength=n)
    lf = big.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        last = ((x_l - x_s) / np.maximum(lf, 1) + np.where(has, x_s / np.maximum(s, 1), 0.0)) \
            * np.power(p, lf)
        value = (1.0 - p) / p * (first + second) + last
    out = np.where(nz, np.where(has, value, 0.0), np.nan)
    return out


def kendall_tau(indptr_a, items_a, indptr_b, items_b, *, over: str = "intersection"
                ) -> np.ndarray:
    """Kendall's tau-b between the two lists' orders of the items compared.

    ``over="intersection"``: the items in both lists, ranked by their positions (no ties, so
    tau-b = tau-a = (concordant - discordant) / (n(n-1)/2)). ``over="union"``: every item of
    either list; an item missing from a list of length ``L`` is placed at position ``L + 1``,
    tied with the other missing items (the location-parameter approach to top-k lists of Fagin,
    Kumar & Sivakumar 2003, "Comparing top k lists", SIAM J. Discrete Math. 17(1)), and tau-b
    corrects for those ties: ``sum sx sy / sqrt(sum |sx| sum |sy|)`` over item pairs, ``sx``
    and ``sy`` the signs of the position differences (Kendall 1945). NaN with fewer than two
    items or when one list orders no pair.
    """
    n = len(indptr_a) - 1
    la = np.diff(indptr_a)
    lb = np.diff(indptr_b)
    user, pa, pb = _common(indptr_a, items_a, indptr_b, items_b)
    if over == "union":
        # items of a not in b, and of b not in a, at position L + 1 of the other list
        ua = np.repeat(np.arange(n, dtype=np.int64), la)
        ub = np.repeat(np.arange(n, dtype=np.int64), lb)
        pos_a = np.arange(len(items_a), dtype=np.int64) - indptr_a[ua] + 1
        pos_b = np.arange(len(items_b), dtype=np.int64) - indptr_b[ub] + 1
        in_b = np.zeros(len(items_a), dtype=bool)
        in_a = np.zeros(len(items_b), dtype=bool)
        in_b[indptr_a[user] + pa - 1] = True
        in_a[indptr_b[user] + pb - 1] = True
        user = np.concatenate([user, ua[~in_b], ub[~in_a]])
        pa = np.concatenate([pa, pos_a[~in_b], la[ub[~in_a]] + 1])
        pb = np.concatenate([pb, lb[ua[~in_b]] + 1, pos_b[~in_a]])
    order = np.argsort(user, kind="stable")
    user, pa, pb = user[order], pa[order].astype(np.int32), pb[order].astype(np.int32)
    cnt = np.bincount(user, minlength=n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(cnt, out=ptr[1:])
    num = np.zeros(n)
    den_a = np.zeros(n)
    den_b = np.zeros(n)
    n_pairs = cnt * (cnt - 1) // 2
    cum_pairs = np.cumsum(n_pairs)
    lo = 0
    while lo < n:  # chunks of whole users with at most PAIR_CHUNK pairs (at least one user)
        before = cum_pairs[lo - 1] if lo else 0
        hi = max(lo + 1, int(np.searchsorted(cum_pairs, before + PAIR_CHUNK, side="right")))
        us = np.arange(lo, hi)
        c = cnt[us]
        # every pair (i, j), i < j, of items within a user; pairs come grouped by user
        ii = ranges(ptr[us], c)
        reps = np.repeat(c, c) - (ii - np.repeat(ptr[us], c)) - 1
        first = np.repeat(ii, reps)
        second = first + 1 + (np.arange(len(first)) - np.repeat(np.cumsum(reps) - reps, reps))
        da = pa[second] - pa[first]
        db = pb[second] - pb[first]
        sx = (da > 0).astype(np.int8) - (da < 0)
        sy = (db > 0).astype(np.int8) - (db < 0)
        bounds = np.concatenate([[0], np.cumsum(n_pairs[us])])
        for total, part in ((num, sx * sy), (den_a, np.abs(sx)), (den_b, np.abs(sy))):
            cs = np.concatenate([[0], np.cumsum(part, dtype=np.int64)])
            total[us] = cs[bounds[1:]] - cs[bounds[:-1]]
        lo = hi
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = num / np.sqrt(den_a * den_b)
    return np.where((cnt >= 2) & (den_a > 0) & (den_b > 0), tau, np.nan)
