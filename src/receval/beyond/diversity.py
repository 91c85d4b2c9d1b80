"""Similarity-based metrics: intra-list similarity / diversity, similarity-based novelty.

Notation for one list ``R`` (cut at k) of ``L`` items with feature vectors ``x_i``:

- ``ILS(R) = 2 / (L (L - 1)) * sum_{i<j} sim(i, j)``: mean similarity over the ``L(L-1)/2``
  unordered pairs (Ziegler et al. 2005);
- ``ILD(R) = 2 / (L (L - 1)) * sum_{i<j} (1 - sim(i, j)) = 1 - ILS(R)``: mean pairwise distance
  (Smyth & McClave 2001 ILD; some texts write the sum over i != j, which read over
  *ordered* pairs would double the value; receval uses each unordered pair once, so a list of
  mutually orthogonal items has ILD = 1). Overall diversity is the mean over users (Smyth & McClave 2001);
- ``Novelty_i = 1 / (L - 1) * sum_{j != i} (1 - sim(i, j))`` (Vargas & Castells 2011), whose mean over the
  list equals ILD(R).

Lists with fewer than 2 items have no pair: their value is NaN and they are left out of means.

Similarity ``sim``:

- ``"cosine"`` (default): ``x_i . x_j / (|x_i| |x_j|)``, 0 when either vector is zero;
- ``"dot"``: ``x_i . x_j`` (for embeddings already normalized);
- ``"jaccard"``: ``|A_i & A_j| / |A_i | A_j|`` over the sets of non-zero features (tags), 0 when
  both sets are empty;
- a callable ``fn(Xa, Xb) -> array``: similarity of row pairs, ``Xa[p]`` with ``Xb[p]`` (numpy
  rows, or scipy.sparse rows when the features are sparse), vectorized.

Computation: for cosine and dot, the identity
``sum_{i<j} x_i . x_j = (|sum_i x_i|^2 - sum_i |x_i|^2) / 2`` gives every pair sum exactly in
O(L d) per list (one sparse (users x items) by (items x d) product per block of users). For
Jaccard and callables, the ``L(L-1)/2`` pairs of each list are generated with array operations
and evaluated in blocks of pairs; there is never a Python loop over users or pairs.
``method="pairs"`` forces the pairwise route for cosine / dot (identical up to rounding).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import (
    beyond_metric,
    key_with,
    per_vocab,
    top_k,
    train_of,
    train_users,
    undefined_info,
)
from ._lists import as_csr, blocks, ranges, select, truncate, user_of_position
from .inputs import ItemFeatures, as_item_features, cooccurrence_features
from .popularity import list_mean

SIMS = ("cosine", "dot", "jaccard")
BLOCK_ELEMENTS = 1 << 23  # floats held at once by a block (~64 MB)


class Similarity:
    """Pairwise similarity of feature rows: the prepared matrix and a vectorized pair function."""

    def __init__(self, features: ItemFeatures, sim: str | Callable = "cosine") -> None:
        self.callable = callable(sim)
        if not self.callable and sim not in SIMS:
            raise InputError(f"sim={plain(sim)}: choose one of {list(SIMS)} or pass a function.")
        self.name = getattr(sim, "__name__", "custom") if self.callable else sim
        self.fn = sim if self.callable else None
        m = features.matrix
        self.sparse = sp.issparse(m)
        if sim == "cosine":
            norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel()) if self.sparse \
                else np.sqrt(np.einsum("ij,ij->i", m, m))
            inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            m = sp.csr_matrix(sp.diags(inv) @ m) if self.sparse else m * inv[:, None]
        elif sim == "jaccard":
            if self.sparse:
                m = sp.csr_matrix(m, copy=True)
                m.eliminate_zeros()
                m.data[:] = 1.0
            else:
                m = (m != 0).astype(np.float64)
        self.matrix = m
        self.dims = int(m.shape[1])
        self.sq = (np.asarray(m.multiply(m).sum(axis=1)).ravel() if self.sparse
                   else np.einsum("ij,ij->i", m, m))  # |x|^2, or |A| for Jaccard
        self.linear = sim in ("cosine", "dot")

    def _dots(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        m = self.matrix
        if self.sparse:
            return np.asarray(m[a].multiply(m[b]).sum(axis=1)).ravel()
        return np.einsum("ij,ij->i", m[a], m[b])

    def pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Similarity of the row pairs ``(a[p], b[p])``."""
        if self.callable:
            out = np.asarray(self.fn(self.matrix[a], self.matrix[b]), dtype=np.float64)
            out = out.ravel()
            if out.shape != (len(a),) or not np.isfinite(out).all():
                raise InputError(
                    f"sim function {plain(self.name)} must return one finite similarity per row pair "
                    f"({len(a)}), got shape {out.shape}."
                )
            return out
        d = self._dots(a, b)
        if self.name == "jaccard":
            union = self.sq[a] + self.sq[b] - d
            return np.divide(d, union, out=np.zeros_like(d), where=union > 0)
        return d

    def pair_block(self) -> int:
        """Pairs to evaluate at once so that gathered rows stay within the block budget."""
        if self.sparse:
            return 1 << 18
        return max(BLOCK_ELEMENTS // max(2 * self.dims, 1), 1024)


def _map_items(indptr: np.ndarray, items: np.ndarray, features: ItemFeatures,
               missing: str) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of the list positions; ``missing`` = 'error' | 'skip' for unknown items."""
    rows = features.rows(items)
    bad = rows < 0
    if bad.any():
        if missing == "error":
            ex = list(dict.fromkeys(np.asarray(items)[bad][:50].tolist()))[:3]
            raise InputError(
                f"item_features: {int(bad.sum())} recommended position(s) hold items without "
                f"features, e.g. {plain(ex)}. Add their features, or pass missing='skip' to leave "
                "those items out of the lists before comparing."
            )
        indptr = select(indptr, ~bad)
        rows = rows[~bad]
    return indptr, rows


def pair_sums(indptr: np.ndarray, rows: np.ndarray, sim: Similarity, *,
              per_position: bool = False, method: str = "auto",
              block_users: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Per list ``sum_{i<j} sim(i, j)`` and, optionally, per position ``sum_{j != i} sim(i, j)``.

    ``rows``: feature row of each position (lists in CSR by ``indptr``).
    """
    n = len(indptr) - 1
    lens = np.diff(indptr)
    per_user = np.zeros(n, dtype=np.float64)
    per_pos = np.zeros(len(rows), dtype=np.float64) if per_position else None
    if sim.linear and method == "auto":
        size = block_users or max(BLOCK_ELEMENTS // max(sim.dims * max(int(lens.max(initial=1)),
                                                                       1), 1), 1)
        for lo, hi in blocks(n, size):
            p0, p1 = int(indptr[lo]), int(indptr[hi])
            ip = indptr[lo:hi + 1] - p0
            r = rows[p0:p1]
            a = sp.csr_matrix((np.ones(len(r)), r, ip), shape=(hi - lo, sim.matrix.shape[0]))
            s = a @ sim.matrix
            if sp.issparse(s):
                s = sp.csr_matrix(s)
                ss = np.asarray(s.multiply(s).sum(axis=1)).ravel()
            else:
                ss = np.einsum("ij,ij->i", s, s)
            self_sq = np.bincount(user_of_position(ip), weights=sim.sq[r], minlength=hi - lo)
            per_user[lo:hi] = (ss - self_sq) / 2.0
            if per_position and len(r):
                u = user_of_position(ip)
                if sp.issparse(s):
                    dot = np.asarray(sim.matrix[r].multiply(s[u]).sum(axis=1)).ravel()
                else:
                    dot = np.einsum("ij,ij->i", sim.matrix[r], s[u])
                per_pos[p0:p1] = dot - sim.sq[r]
        return per_user, per_pos
    if method not in ("auto", "pairs"):
        raise InputError(f"method={plain(method)}: choose 'auto' or 'pairs'.")
    for length in np.unique(lens[lens >= 2]):
        length = int(length)
        users = np.flatnonzero(lens == length)
        iu, ju = np.triu_indices(length, 1)
        n_pairs = len(iu)
        chunk = block_users or max(sim.pair_block() // n_pairs, 1)
        for lo, hi in blocks(len(users), chunk):
            sel = users[lo:hi]
            base = indptr[sel][:, None]
            pi, pj = (base + iu).ravel(), (base + ju).ravel()
            s = sim.pairs(rows[pi], rows[pj]).reshape(len(sel), n_pairs)
            per_user[sel] = s.sum(axis=1)
            if per_position:
                full = np.zeros((len(sel), length, length))
                full[:, iu, ju] = s
                full[:, ju, iu] = s
                per_pos[ranges(indptr[sel], np.full(len(sel), length))] = full.sum(axis=2).ravel()
    return per_user, per_pos


def _prepare(lists: Any, features: Any, k: int | None, missing: str
             ) -> tuple[np.ndarray, np.ndarray, ItemFeatures]:
    feats = as_item_features(features)
    indptr, items = truncate(*as_csr(lists, ids=feats.ids is not None), k)
    indptr, rows = _map_items(indptr, items, feats, missing)
    return indptr, rows, feats


def intra_list_similarity(lists: Any, features: Any, *, k: int | None = None,
                          sim: str | Callable = "cosine", missing: str = "error",
                          method: str = "auto", block_users: int | None = None) -> np.ndarray:
    """ILS per list: mean similarity over the unordered pairs of its first k items (see module).

    ``lists``: item ids per user (row numbers of ``features`` for a numpy / sparse matrix, the
    index for a DataFrame); ``features``: see :mod:`receval.beyond.inputs`. NaN for lists of
    fewer than 2 items. Lower = more diverse.

    >>> f = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]])
    >>> float(intra_list_similarity([[0, 1, 2]], f)[0])   # pairs 0, 1, 0: 1/3
    0.3333333333333333
    """
    indptr, rows, feats = _prepare(lists, features, k, missing)
    s = Similarity(feats, sim)
    total, _ = pair_sums(indptr, rows, s, method=method, block_users=block_users)
    lens = np.diff(indptr).astype(np.float64)
    npairs = lens * (lens - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(npairs > 0, total / np.maximum(npairs, 1), np.nan)


def intra_list_diversity(lists: Any, features: Any, **kwargs: Any) -> np.ndarray:
    """ILD per list: ``1 - ILS`` = mean pairwise distance ``1 - sim`` (Smyth & McClave 2001).

    >>> f = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> intra_list_diversity([[0, 1], [0]], f).tolist()   # orthogonal pair; one-item list
    [1.0, nan]
    """
    return 1.0 - intra_list_similarity(lists, features, **kwargs)


def similarity_novelty(lists: Any, features: Any, *, k: int | None = None,
                       sim: str | Callable = "cosine", missing: str = "error",
                       method: str = "auto", block_users: int | None = None,
                       per_item: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Distance-based novelty of each list item (Vargas & Castells 2011): ``Novelty_i = 1/(L-1) sum_{j != i} (1 - sim(i, j))``.

    Returns the per-list mean (equal to ILD), or with ``per_item=True`` the pair
    ``(indptr, novelty per position)`` of the kept positions.

    >>> f = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> similarity_novelty([[0, 1, 2]], f, per_item=True)[1].tolist()
    [0.5, 1.0, 0.5]
    """
    indptr, rows, feats = _prepare(lists, features, k, missing)
    s = Similarity(feats, sim)
    _, per_pos = pair_sums(indptr, rows, s, per_position=True, method=method,
                           block_users=block_users)
    lens = np.diff(indptr)
    denom = np.repeat(lens - 1, lens).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(denom > 0, 1.0 - per_pos / np.maximum(denom, 1), np.nan)
    if per_item:
        return indptr, values
    from .popularity import list_mean

    return list_mean(indptr, values)


def history_similarity(indptr: np.ndarray, rows: np.ndarray, h_indptr: np.ndarray,
                       h_rows: np.ndarray, sim: Similarity, *,
                       block_users: int | None = None) -> np.ndarray:
    """Per list position: mean similarity of the item to the user's history items.

    ``(indptr, rows)``: the lists; ``(h_indptr, h_rows)``: each user's history (same users).
    NaN for positions of users with an empty history.
    """
    n = len(indptr) - 1
    hlens = np.diff(h_indptr)
    out = np.full(len(rows), np.nan)
    if sim.linear:
        size = block_users or max(BLOCK_ELEMENTS // max(sim.dims * 8, 1), 1)
        for lo, hi in blocks(n, size):
            p0, p1 = int(indptr[lo]), int(indptr[hi])
            if p1 == p0:
                continue
            h0, h1 = int(h_indptr[lo]), int(h_indptr[hi])
            hp = h_indptr[lo:hi + 1] - h0
            a = sp.csr_matrix((np.ones(h1 - h0), h_rows[h0:h1], hp),
                              shape=(hi - lo, sim.matrix.shape[0]))
            prof = a @ sim.matrix
            u = user_of_position(indptr[lo:hi + 1] - p0)
            r = rows[p0:p1]
            if sp.issparse(prof):
                dot = np.asarray(sim.matrix[r].multiply(sp.csr_matrix(prof)[u]).sum(axis=1))
                dot = dot.ravel()
            else:
                dot = np.einsum("ij,ij->i", sim.matrix[r], prof[u])
            hl = hlens[lo:hi][u].astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[p0:p1] = np.where(hl > 0, dot / np.maximum(hl, 1), np.nan)
        return out
    # generic: every (list position, history item) pair, in blocks of positions
    pos_user = user_of_position(indptr)
    per_pos_pairs = hlens[pos_user]
    budget = sim.pair_block()
    cum = np.concatenate([[0], np.cumsum(per_pos_pairs)])
    start = 0
    while start < len(rows):
        stop = int(np.searchsorted(cum, cum[start] + budget, side="right")) - 1
        stop = min(max(stop, start + 1), len(rows))
        pos = np.arange(start, stop)
        cnt = per_pos_pairs[pos]
        a = np.repeat(rows[pos], cnt)
        b = h_rows[ranges(h_indptr[pos_user[pos]], cnt)]
        s = sim.pairs(a, b) if len(a) else np.zeros(0)
        sums = np.bincount(np.repeat(np.arange(len(pos)), cnt), weights=s, minlength=len(pos))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[pos] = np.where(cnt > 0, sums / np.maximum(cnt, 1), np.nan)
        start = stop
    return out

# -------------------------------------------------------------------------------------------------
# Intra-list similarity and diversity, similarity novelty:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

SIM = Param("sim", "cosine",
            "item similarity: cosine (default) | dot | jaccard (sets of non-zero features) | "
            "custom (the function passed as evaluate(..., similarity=fn), fn(Xa, Xb) -> one "
            "similarity per row pair)", ("cosine", "dot", "jaccard", "custom"))


SOURCE = Param("source", "features",
               "where item vectors come from: features = item_features=...; cooccurrence = the "
               "item's column of the binary training user x item matrix (cosine = shared users "
               "/ sqrt(users_i users_j))", ("features", "cooccurrence"))


MISSING = Param("missing", "error",
                "recommended items without features: error | skip (left out of the list before "
                "comparing)", ("error", "skip"))


PAIR_MISSING = Param("missing", "error",
                     "recommended items without features: error | skip (left out of the list "
                     "before comparing) | nan (a pair holding such an item has no similarity: "
                     "the list's value is the mean over its other pairs, NaN and left out of "
                     "the mean when every pair holds one; RecTools IntraListDiversity, whose "
                     "distance of such a pair is NaN and skipped by the pandas mean)",
                     ("error", "skip", "nan"))


SHORT = Param("short", "skip",
              "lists with fewer than two items (after missing=skip): skip = no value (NaN, left "
              "out of the mean) | one_item = a one-item list scores ILD 0 / ILS 1 and an empty "
              "list is left out (RecTools IntraListDiversity, LensKit ILS) | zero = one-item "
              "and empty lists score ILD 0 / ILS 1 (RecPack IntraListDiversityK)",
              ("skip", "one_item", "zero"))


def context_features(context: Context, spec: MetricSpec) -> ItemFeatures:
    if spec.get("source") == "cooccurrence":
        tr = train_of(context, spec.key)
        return context.memo("cooccurrence", (tr,), lambda: cooccurrence_features(tr))
    raw = context.require("item_features", spec.key)
    return context.memo("item_features", (raw,), lambda: as_item_features(raw))


def context_similarity(context: Context, spec: MetricSpec, feats: ItemFeatures) -> Similarity:
    sim: Any = spec.get("sim")
    if sim == "custom":
        sim = context.options.get("similarity")
        if not callable(sim):
            raise InputError(
                f"{spec.key} needs a similarity function: pass evaluate(..., similarity=fn) "
                "with fn(Xa, Xb) returning one similarity per row pair."
            )
    return context.memo(("sim", sim if isinstance(sim, str) else id(sim)), (feats,),
                        lambda: Similarity(feats, sim))


def feature_rows(context: Context, packed: Packed, spec: MetricSpec, feats: ItemFeatures
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, feature rows, packed positions) of the top-k lists, per the missing policy."""
    indptr, pos = top_k(packed, spec.k)
    vocab_rows = per_vocab(context, packed, ("rows", id(feats)),
                            lambda: feats.rows(packed.item_vocab))
    rows = vocab_rows[packed.items[pos]]
    bad = rows < 0
    if bad.any():
        if spec.get("missing") == "error":
            ex = list(dict.fromkeys(packed.item_vocab[packed.items[pos[bad]]][:50].tolist()))
            raise InputError(
                f"{spec.key}: {int(bad.sum())} recommended position(s) hold items without "
                f"features, e.g. {plain(ex[:3])}. Add their features, or use "
                f"{plain(key_with(spec, missing='skip'))} to leave them out of the lists."
            )
        indptr = select(indptr, ~bad)
        rows, pos = rows[~bad], pos[~bad]
    return indptr, rows, pos


def history_rows(context: Context, packed: Packed, spec: MetricSpec, feats: ItemFeatures
             ) -> tuple[np.ndarray, np.ndarray]:
    """Each evaluated user's training items as feature rows, CSR aligned with packed users."""
    tr = train_of(context, spec.key)
    code = train_users(tr, packed, spec.key)
    hl = np.where(code >= 0, np.diff(tr.indptr)[np.maximum(code, 0)] if tr.n_users else 0, 0)
    h = tr.hist[ranges(np.where(code >= 0, tr.indptr[:-1][np.maximum(code, 0)]
                                if tr.n_users else 0, 0), hl)]
    h_indptr = np.zeros(len(hl) + 1, dtype=np.int64)
    np.cumsum(hl, out=h_indptr[1:])
    rows = feats.rows(tr.items)[h] if len(h) else np.zeros(0, dtype=np.int64)
    bad = rows < 0
    if bad.any():
        if spec.get("missing") == "error":
            raise InputError(
                f"{spec.key}: {int(bad.sum())} training interaction(s) are with items without "
                f"features, e.g. {tr.items[h[bad]][:3].tolist()}; add their features or use "
                f"{plain(key_with(spec, missing='skip'))}."
            )
        h_indptr = select(h_indptr, ~bad)
        rows = rows[~bad]
    return h_indptr, rows


def _ils_values(spec: MetricSpec, packed: Packed, context: Context, short: str = "skip"
                ) -> np.ndarray:
    """ILS per list; ``short``: the value of lists with fewer than two items (``SHORT``)."""
    feats = context_features(context, spec)
    sim = context_similarity(context, spec, feats)
    indptr, rows, _ = feature_rows(context, packed, spec, feats)
    total, _ = pair_sums(indptr, rows, sim)
    lens = np.diff(indptr).astype(np.float64)
    npairs = lens * (lens - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(npairs > 0, total / np.maximum(npairs, 1), np.nan)
    if spec.get("missing") == "nan":
        # pairs with a featureless item are left out; the list's length is as recommended
        lens = np.diff(top_k(packed, spec.k)[0]).astype(np.float64)
    if short != "skip":  # no pair: the ILS of an item with itself, 1 (ILD 0)
        values[(lens == 1) | ((lens == 0) & (short == "zero"))] = 1.0
    return values


def _ils(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    values = _ils_values(spec, packed, context, spec.get("short"))
    return MetricValues(values, info=undefined_info(values))


def _ild(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    values = 1.0 - _ils_values(spec, packed, context, spec.get("short"))
    return MetricValues(values, info=undefined_info(values))


def _sim_novelty(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    feats = context_features(context, spec)
    sim = context_similarity(context, spec, feats)
    indptr, rows, _ = feature_rows(context, packed, spec, feats)
    if spec.get("reference") == "list":
        # mean_i 1/(L-1) sum_{j != i} (1 - sim_ij) = 1 - 2/(L(L-1)) sum_{i<j} sim_ij = ILD
        values = 1.0 - _ils_values(spec, packed, context)
        return MetricValues(values, info=undefined_info(values))
    else:
        h_indptr, h_rows = history_rows(context, packed, spec, feats)
        nov = 1.0 - history_similarity(indptr, rows, h_indptr, h_rows, sim)
    values = list_mean(indptr, nov)
    return MetricValues(values, info=undefined_info(values))


_SIM_DOC = (" Pairs are the L(L-1)/2 unordered pairs of the top-k list; lists with fewer than "
            "two items (after missing=skip) are NaN and left out of the mean. Needs "
            "item_features=... (source=features) or train=... (source=cooccurrence).")


register(beyond_metric(
    "ils", "Intra-list similarity@k", "ILS = 2/(L(L-1)) sum_{i<j} sim(i, j)",
    "Mean pairwise similarity of the items of a list (Ziegler et al. 2005); lower = "
    "more diverse." + _SIM_DOC,
    _ils, (SIM, SOURCE, PAIR_MISSING, SHORT), higher_is_better=False, bounds=(-1.0, None),
    reference="Ziegler et al., WWW 2005",
), ("intra_list_similarity",))


register(beyond_metric(
    "ild", "Intra-list diversity@k", "ILD = 2/(L(L-1)) sum_{i<j} (1 - sim(i, j)) = 1 - ILS",
    "Mean pairwise distance 1 - sim of the items of a list (Smyth & McClave 2001 ILD; "
    "each unordered pair counted once); overall diversity = mean over users." + _SIM_DOC,
    _ild, (SIM, SOURCE, PAIR_MISSING, SHORT), bounds=(0.0, None),
    reference="Smyth & McClave 2001; Ziegler et al. 2005",
    example="two orthogonal items: 1",
), ("diversity", "intra_list_diversity"))


register(beyond_metric(
    "sim_novelty", "Similarity-based novelty@k",
    "list: mean_i 1/(L-1) sum_{j != i} (1 - sim(i, j)); history: mean_i mean_{h in H(u)} "
    "(1 - sim(i, h))",
    "The distance-based Novelty_i (Vargas & Castells 2011) averaged over the list (reference=list, equal to ILD), or the distance of "
    "each recommended item to the user's training history (reference=history, Vargas & "
    "Castells 2011; needs train=...)." + _SIM_DOC,
    _sim_novelty, (SIM, SOURCE, MISSING,
                   Param("reference", "list", "compare with: list | history",
                         ("list", "history"))),
    bounds=(0.0, None), reference="Vargas & Castells, RecSys 2011",
))
