"""Array code of the propensity-scored metrics (no registration here).

Jain, Prabhu & Varma, "Extreme multi-label loss functions for recommendation, tagging, ranking
and other missing label applications" (KDD 2016): the propensity of item l is

    p_l = 1 / (1 + C exp(-A log(N_l + B))),   C = (log N - 1) (B + 1)^A,

with N the number of training instances (users) and N_l the number of them that have item l;
A = 0.55, B = 1.5 by default. pyxclib (``xclib/evaluation/xc_metrics.py``,
``compute_inv_propesity``) computes the inverse 1 / p_l = 1 + C (N_l + B)^(-A), as here.

Weights are 1 / p, scaled by an exact power of two where given propensities are so small
that their sums would overflow (:func:`_exponent`); every value is a ratio of sums, unchanged.

The domain rule, one for given and estimated propensities: every propensity a metric reads lies
in (0, 1]; a value outside is refused (never clipped), with the count and the first culprit.
The formula stays inside only for N >= 3 training users (C = (ln N - 1) (B + 1)^A > 0; with
N = 1 or 2, C < 0 and p_l >= 1, or infinite, or negative) and, for an item no training user has
(N_l = 0), B > 0 (B = 0 gives p_l = 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, plain


def jain_propensities(n_users: int, counts: np.ndarray, A: float = 0.55,
                      B: float = 1.5) -> np.ndarray:
    """Propensities p_l of items with training counts ``counts`` (N_l) out of ``n_users`` (N).

    >>> jain_propensities(100, np.array([0, 10]))  # doctest: +ELLIPSIS
    array([0.17317032, 0.39101731])
    """
    if n_users < 1:
        raise InputError("propensities from train=...: the training data has no users.")
    C = (np.log(n_users) - 1.0) * (B + 1.0) ** A
    with np.errstate(divide="ignore", over="ignore"):
        inv = 1.0 + C * np.power(np.asarray(counts, dtype=np.float64) + B, -A)
        return 1.0 / inv


def check_propensities(p: np.ndarray, ids: np.ndarray, key: str, source: str,
                       advice: str = "") -> None:
    """Refuse propensities outside (0, 1] (NaN included): the module's one domain rule.

    ``source`` says where they came from and ``advice`` how to fix them, for the message."""
    bad = ~((p > 0) & (p <= 1))
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    raise InputError(
        f"{key}: {int(bad.sum())} of {len(p)} propensities {source} lie outside (0, 1] "
        f"(item {plain(ids[i])}: p = {plain(p[i])}); a propensity is a probability of "
        "exposure, so it is refused rather than clipped." + advice
    )


def train_counts(train: Any) -> tuple[int, Any, np.ndarray]:
    """(N, item ids, N_l): distinct training users, and per item the users that have it."""
    import pandas as pd

    from ..io.frames import column_values, read_columns

    cols = read_columns(train, role="truth")
    users = pd.Series(column_values(cols.user))
    items = pd.Series(column_values(cols.item))
    pairs = pd.DataFrame({"u": users, "i": items}).drop_duplicates()
    counts = pairs["i"].value_counts(sort=False)
    return int(pairs["u"].nunique()), counts.index.to_numpy(), counts.to_numpy(np.float64)


def inverse_weights(vocab: np.ndarray, given: Any, train: tuple | None, A: float, B: float,
                    key: str) -> np.ndarray:
    """1 / p for each item id of ``vocab``: from ``propensities=`` or from training counts."""
    import pandas as pd

    index = pd.Index(vocab)
    if given is not None:
        series = pd.Series(given, dtype=np.float64) if not isinstance(given, pd.Series) \
            else given.astype(np.float64)
        pos = pd.Index(series.index).get_indexer(index)
        if len(index) and (pos < 0).any():
            missing = vocab[np.flatnonzero(pos < 0)[0]]
            raise InputError(
                f"{key}: item {plain(missing)} has no propensity in propensities=...; give one for "
                "every recommended and held-out item, or pass train=... to estimate them."
            )
        p = series.to_numpy()[pos] if len(index) else np.zeros(0)
        check_propensities(p, vocab, key, "given in propensities=...")
        return 1.0 / np.ldexp(p, _exponent(series.to_numpy()))
    if train is None:
        raise InputError(f"{key} needs propensities={{item: p}} or train=... to estimate them.")
    n_users, items, counts = train
    pos = pd.Index(items).get_indexer(index)
    n_l = np.where(pos >= 0, counts[np.maximum(pos, 0)] if len(counts) else 0.0, 0.0)
    p = jain_propensities(n_users, n_l, A, B)
    C = (np.log(n_users) - 1.0) * (B + 1.0) ** A
    check_propensities(
        p, vocab, key, "estimated from train=",
        f" Jain et al.'s formula with N = {n_users} training users, A = {plain(A)}, "
        f"B = {plain(B)} has C = (ln N - 1)(B + 1)^A = {plain(float(C))}; it stays in (0, 1] "
        "only with N >= 3 (C > 0) and, for items no training user has, B > 0. Use a larger "
        "train=, or pass propensities={item: p}.")
    return 1.0 / p


#: weights 1/p stay below 2^WEIGHT_EXP, so that no sum of them overflows
WEIGHT_EXP = 960


def _exponent(given: np.ndarray) -> int:
    """The power of two s that the given propensities are multiplied by before 1/p is taken.

    0 unless the smallest valid propensity is below 2^-WEIGHT_EXP (then 1/p, or a sum of a
    few, would overflow to inf and a ratio to NaN). Every metric here is a ratio of weight sums,
    so an exact power-of-two scale leaves each value bit for bit unchanged; it depends only on
    the whole ``propensities=`` mapping, so the blocks of one run share it.
    """
    valid = given[(given > 0) & (given <= 1)]
    if not len(valid):
        return 0
    return max(0, -(WEIGHT_EXP - 1) - int(np.frexp(valid.min())[1]))


def ps_values(kind: str, k: int | None, thr: float, indptr: np.ndarray, rel: np.ndarray,
              w_pos: np.ndarray, t_indptr: np.ndarray, t_rel: np.ndarray,
              w_truth: np.ndarray, list_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-user numerators and denominators of psp / psndcg / ips_hit_rate at cutoff k."""
    n = len(indptr) - 1
    num = np.zeros(n)
    den = np.zeros(n)
    for u in range(n):
        s, e = indptr[u], indptr[u + 1]
        kk = k if k is not None else int(list_len[u])
        e = min(e, s + kk)
        hit = rel[s:e] >= thr
        ts, te = t_indptr[u], t_indptr[u + 1]
        relevant = t_rel[ts:te] >= thr
        best = np.sort(w_truth[ts:te][relevant])[::-1]
        R = len(best)
        if kind == "ips_hit_rate":
            num[u] = float(np.sum(w_pos[s:e][hit]))
            den[u] = float(np.sum(best))
            continue
        m = min(kk, R)
        if kind == "psp":
            num[u] = float(np.sum(w_pos[s:e][hit]))
            den[u] = float(np.sum(best[:m]))
        else:  # psndcg: both sides over the binary ideal DCG of min(R, k) items
            disc = 1.0 / np.log2(np.arange(2, max(e - s, m) + 2))
            z = float(np.sum(disc[:m]))
            if z > 0:
                num[u] = float(np.sum((w_pos[s:e] * disc[: e - s])[hit])) / z
                den[u] = float(np.sum(best[:m] * disc[:m])) / z
    return num, den
