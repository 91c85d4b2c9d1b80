"""Array code of the AUC family: per-user counts of correctly ordered (positive, negative) pairs
and the user weights of GAUC. No ids, no frames: arrays in, arrays out."""

from __future__ import annotations

import numpy as np

from ._common import check_choice, tie_groups


def pair_counts(indptr: np.ndarray, scores: np.ndarray, pos: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group (user) of a CSR layout whose positions are sorted by score descending within
    each group: the number of positives ``P``, of negatives ``N`` and of correctly ordered
    (positive, negative) pairs ``C = sum_n (#positives scored above n + 1/2 #positives tied with
    n)``. Vectorized over all groups; ``C / (P N)`` is each group's AUC."""
    indptr = np.asarray(indptr, dtype=np.int64)
    n_groups = len(indptr) - 1
    lens = np.diff(indptr)
    n = int(indptr[-1]) if n_groups else 0
    user = np.repeat(np.arange(n_groups, dtype=np.int64), lens)
    posf = np.asarray(pos, dtype=np.float64)[:n]
    npos = np.bincount(user, weights=posf, minlength=n_groups)
    nneg = lens.astype(np.float64) - npos
    if n == 0:
        return npos, nneg, np.zeros(n_groups)
    gid = tie_groups(scores[:n], indptr[:-1][lens > 0])
    n_tie = int(gid[-1]) + 1
    gpos = np.bincount(gid, weights=posf, minlength=n_tie)
    before = np.cumsum(posf) - posf  # positives at earlier positions (all groups)
    gstart = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    above = before[gstart] - before[indptr[user[gstart]]]
    contrib = (above[gid] + 0.5 * gpos[gid]) * (1.0 - posf)
    correct = np.bincount(user, weights=contrib, minlength=n_groups)
    return npos, nneg, correct


# ---- tables: (user, item, score) runs against (user, item[, relevance]) truth ---------------


def _weights(kind: str, npos: np.ndarray, nneg: np.ndarray) -> np.ndarray:
    check_choice("weight", kind, ("none", "positives", "impressions"))
    if kind == "none":
        return np.ones_like(npos)
    return npos if kind == "positives" else npos + nneg
