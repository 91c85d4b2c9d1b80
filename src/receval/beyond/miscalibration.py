"""Calibration of the lists to the users' tastes, and popularity lift against the profile.

**Miscalibration** (Steck, "Calibrated recommendations", RecSys 2018). Each item i has a
distribution over its categories, ``p(c|i) = 1 / |C(i)|`` for each of its categories (Steck,
Sec. 2). The profile distribution of user u is the mean over the user's distinct training items
``H(u)`` (each weighted 1, as Steck's ``w_{u,i} = 1``)::

    p(c|u) = sum_{i in H(u)} p(c|i) / |H_c(u)|

and the list distribution of the top-k list ``R(u)`` weights position r (1-based) by ``w_r``::

    q(c|u) = sum_{r} w_r p(c|i_r) / sum_{r} w_r

(``weight=uniform``: ``w_r = 1``; ``log``: ``1 / log2(r + 1)``; ``geometric``: ``p^(r-1)``: the
attention models of :mod:`receval.beyond.attention`).
Sums run over items with at least one category (``H_c``: the categorised profile items); items
without categories are left out and counted. Steck's smoothing ``q~ = (1 - alpha) q + alpha p``
(``alpha=0.01``, Steck Eq. 5) keeps the KL divergence finite. The per-user value is a distance
between p and q~ (``distance=``):

- ``kl`` (default): ``sum_c p(c) log(p(c) / q~(c))`` (Steck Eq. 4, natural logarithm, terms with
  p(c) = 0 are 0);
- ``js``: Jensen-Shannon ``(KL(p || m) + KL(q~ || m)) / 2``, ``m = (p + q~) / 2`` (natural log,
  in [0, ln 2]);
- ``hellinger``: ``sqrt(sum_c (sqrt p(c) - sqrt q~(c))^2) / sqrt 2`` (in [0, 1]).

The smoothing applies to every distance (scikit_pierre computes q~ before any divergence:
``scikit_pierre/metrics/evaluation.py``, ``mrmc``). 0 = perfectly calibrated.

**MACE** (mean average calibration error; Silva, Manzato & Durão, "Exploiting personalized
calibration and metrics for fairness recommendation", Expert Systems with Applications 181,
2021, doi:10.1016/j.eswa.2021.115112; scikit_pierre ``mace``). For each prefix length n = 1..L of
the list, the calibration error ``CE_n = (1/|C|) sum_{c in C} |p(c|u) - q_n(c|u)|`` (q_n: the
list distribution of the top n, unsmoothed; C: every category of ``item_categories``), and the
user's value ``ACE(u) = (1/L) sum_n CE_n``; MACE is the mean over users. Prefixes whose items have
no category yet have no q_n and are left out of the user's mean (counted).

**Popularity lift / Delta GAP** (Abdollahpouri, Mansoury, Burke & Mobasher, "The unfairness of
popularity bias in recommendation", RMSE workshop at RecSys 2019; "The connection between
popularity bias, calibration, and fairness in recommendation", RecSys 2020). With ``phi(i)`` the
training popularity of i, ``GAP_p(u) = mean_{i in H(u)} phi(i)`` (the profile) and
``GAP_r(u) = mean_{i in R(u)} phi(i)`` (the list); for a group g of users,
``Delta GAP(g) = (GAP_r(g) - GAP_p(g)) / GAP_p(g)`` with ``GAP(g) = mean_{u in g} GAP(u)``.
The per-user value is the user's lift ``(GAP_r(u) - GAP_p(u)) / GAP_p(u)``; the summary
(``average=micro``, default) is ``sum_u (GAP_r(u) - GAP_p(u)) / sum_u GAP_p(u)``, which equals
Delta GAP of the evaluated users exactly (the ``1/|g|`` of both means cancels), merged exactly
over blocks as a ratio of sums. ``rv.evaluate(..., groups=...)`` gives that summary per user
group: Delta GAP of each group. ``average=macro`` averages the users' lifts instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..kernels import kl_sums, profile_cells
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from . import _lists
from ._context import (
    beyond_metric,
    context_cache,
    key_with,
    per_vocab,
    popularity_of,
    top_k,
    train_of,
    train_users,
)
from ._listpass import category_tables, list_pass
from ._lists import ranges, user_of_position
from .attention import Uniform, attention
from .categories import ItemCategories, _categories, _category_rows, vocab_category_rows
from .exposure import _cut, _row_starts
from .inputs import TrainData
from .popularity import list_mean

DISTANCES = ("kl", "js", "hellinger")
WEIGHTS = ("uniform", "log", "geometric")


def rank_weights(ranks: np.ndarray, weight: str, p: float = 0.85) -> np.ndarray:
    """Weight of 1-based ranks, the attention of :mod:`receval.beyond.attention`: uniform = 1,
    log = 1 / log2(r + 1), geometric = p^(r-1).

    >>> rank_weights(np.array([1, 2, 3]), "log").tolist()
    [1.0, 0.6309297535714575, 0.5]
    """
    if weight not in WEIGHTS:
        raise InputError(f"weight={plain(weight)}: choose one of {list(WEIGHTS)}.")
    return attention(weight, p).at(np.asarray(ranks))


def _category_matrix(cats: ItemCategories) -> sp.csr_matrix:
    """(category-table rows x categories) with ``p(c|i) = 1 / |C(i)|`` for each category of i."""
    lens = np.diff(cats.indptr)
    data = np.repeat(1.0 / np.maximum(lens, 1), lens)
    return sp.csr_matrix((data, cats.codes, cats.indptr),
                         shape=(len(cats.items), max(cats.n_categories, 1)))


def category_mass(user: np.ndarray, rows: np.ndarray, weights: np.ndarray, cats: ItemCategories,
                  n_users: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unnormalised category distributions as sorted (user * |C| + category) keys.

    ``user``: ascending user of each entry; ``rows``: its category-table row (-1: unknown
    item); each entry adds ``weight * p(c|i)`` to each of its categories. One sparse product
    (users x items) by (items x categories): each user's sums run over its own entries in
    order, whatever other users are in the block. Returns ``(keys, mass, total)`` with
    ``total`` per user the summed weight of its entries that have a category.
    """
    ok = rows >= 0
    user, rows, weights = user[ok], rows[ok], weights[ok]
    has = (cats.indptr[rows + 1] - cats.indptr[rows]) > 0
    total = np.bincount(user[has], weights=weights[has], minlength=n_users)
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(user, minlength=n_users), out=indptr[1:])
    a = sp.csr_matrix((weights, rows, indptr), shape=(n_users, len(cats.items)))
    m = sp.csr_matrix(a @ _category_matrix(cats))
    m.sort_indices()
    width = max(cats.n_categories, 1)
    keys = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(m.indptr)) * width + m.indices
    return keys, np.asarray(m.data, dtype=np.float64), total


#: users x categories up to which the distributions are dense arrays (else sorted sparse keys);
#: both give the same bits (tests/beyond/test_fairness_speed.py)
DENSE_CELLS = 1 << 25


def _dense(n_users: int, cats: ItemCategories, entries: int) -> bool:
    """Whether a block's distributions are kept as dense (users x categories) arrays: when
    they are not much larger than the entries they are built from."""
    cells = n_users * max(cats.n_categories, 1)
    return cells <= min(DENSE_CELLS, 4 * entries + (1 << 16))


def dense_category_mass(user: np.ndarray, rows: np.ndarray, weights: np.ndarray,
                        cats: ItemCategories, n_users: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`category_mass` as a dense (users x categories) array, and ``total``.

    Each cell adds ``weight * p(c|i)`` over the user's entries in order (one ``np.bincount``
    over the (entry, category) pairs in entry order), as the sparse product does: the same
    bits in every non-zero cell."""
    width = max(cats.n_categories, 1)
    ok = rows >= 0
    if not ok.all():
        user, rows, weights = user[ok], rows[ok], weights[ok]
    lens = cats.indptr[rows + 1] - cats.indptr[rows]
    has = lens > 0
    total = np.bincount(user[has], weights=weights[has], minlength=n_users) \
        if not has.all() else np.bincount(user, weights=weights, minlength=n_users)
    if len(lens) and (lens == 1).all():  # one category each: p(c|i) = 1, w * 1.0 = w
        cells = user * width + cats.codes[cats.indptr[rows]]
        vals = weights
    else:
        entry = np.repeat(np.arange(len(rows), dtype=np.int64), lens)
        cells = user[entry] * width + cats.codes[ranges(cats.indptr[rows], lens)]
        vals = weights[entry] * (1.0 / np.maximum(lens, 1))[entry]
    mass = np.bincount(cells, weights=vals, minlength=n_users * width)
    return mass.reshape(n_users, width), total


def _row_sums(terms: np.ndarray) -> np.ndarray:
    """Sum of each row, the columns added in order (as ``np.bincount`` over sorted keys adds
    a user's cells; absent cells there are the zero terms here)."""
    out = np.zeros(terms.shape[0])
    for c in range(terms.shape[1]):
        out = out + terms[:, c]
    return out


def sorted_union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted distinct values of two integer arrays (a plain sort: ``np.union1d`` hashes,
    which is far slower on millions of keys)."""
    c = np.concatenate([a, b]).astype(np.int64, copy=False)
    c.sort(kind="stable")
    if not len(c):
        return c
    return c[np.concatenate([[True], c[1:] != c[:-1]])]


def _on(keys: np.ndarray, src_keys: np.ndarray, src_vals: np.ndarray) -> np.ndarray:
    """Values of ``src`` at ``keys`` (0 where absent); ``src_keys`` sorted and unique."""
    if not len(src_keys):
        return np.zeros(len(keys))
    at = np.minimum(np.searchsorted(src_keys, keys), len(src_keys) - 1)
    return np.where(src_keys[at] == keys, src_vals[at], 0.0)


def _xlogy_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a log(a / b)`` with 0 where a = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0) / np.where(b > 0, b, 1.0)), 0.0)


def distance_terms(p: np.ndarray, q: np.ndarray, distance: str) -> np.ndarray:
    """Per-category terms whose sum over categories is the distance (Hellinger: before the root)."""
    if distance == "kl":
        with np.errstate(divide="ignore"):
            return np.where(p > 0, _xlogy_ratio(p, q) + np.where(q > 0, 0.0, np.inf), 0.0)
    if distance == "js":
        m = (p + q) / 2.0
        return (_xlogy_ratio(p, m) + _xlogy_ratio(q, m)) / 2.0
    if distance == "hellinger":
        return (np.sqrt(p) - np.sqrt(q)) ** 2
    raise InputError(f"distance={plain(distance)}: choose one of {list(DISTANCES)}.")


@dataclass
class _ProfileRows:
    """The block's profile entries: each evaluated user's distinct training items (``hl`` per
    user, their training item codes ``hist``), the category row of each training item
    (``rows_of``: -1 absent from item_categories) and the single category of each (``single_of``:
    -1 unless exactly one), and the counts for ``info``. The per-entry ``rows`` and ``user``
    are made when a path reads them."""

    hl: np.ndarray
    hist: np.ndarray
    rows_of: np.ndarray
    single_of: np.ndarray
    info: dict
    _rows: np.ndarray | None = None
    _user: np.ndarray | None = None

    @property
    def rows(self) -> np.ndarray:
        """Category row of each entry."""
        if self._rows is None:
            self._rows = self.rows_of[self.hist] if len(self.hist) \
                else np.zeros(0, dtype=np.int64)
        return self._rows

    @property
    def user(self) -> np.ndarray:
        """Block user of each entry (ascending)."""
        if self._user is None:
            self._user = np.repeat(np.arange(len(self.hl), dtype=np.int64), self.hl)
        return self._user


def _profile_rows(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories
                  ) -> _ProfileRows:
    """The evaluated users' profile entries (:class:`_ProfileRows`); once per block (every
    calibration metric of an evaluation reads the same profiles)."""
    tr = train_of(context, spec.key)
    cache = packed.__dict__.setdefault("_profile_rows", {})
    entry = cache.get((id(cats), id(tr)))
    if entry is None or entry[0] is not cats or entry[1] is not tr:
        entry = (cats, tr, _rows_of_profiles(context, packed, tr, cats, spec.key))
        cache[(id(cats), id(tr))] = entry
    prof: _ProfileRows = entry[2]
    missing = prof.info["profile_items_without_categories"]
    if missing and spec.get("missing") == "error":
        ex = list(dict.fromkeys(tr.items[prof.hist[prof.rows < 0]][:50].tolist()))[:3]
        raise InputError(
            f"{spec.key}: {missing} training interaction(s) of evaluated users are with items "
            f"absent from item_categories, e.g. {plain(ex)}. Add them (an empty list for an item "
            f"without any), or use {plain(key_with(spec, missing='skip'))} to leave them out "
            "of the profiles."
        )
    return prof


def _same_ids(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two id arrays hold the same ids in the same order (one dtype)."""
    return a.dtype == b.dtype and len(a) == len(b) and bool(np.array_equal(a, b))


def _rows_of_profiles(context: Context, packed: Packed, tr: TrainData, cats: ItemCategories,
                      key: str) -> _ProfileRows:
    """The block's profile entries (:class:`_ProfileRows`)."""
    if tr.n_users and _same_ids(tr.users, packed.user_ids):
        # the block's users are the training users, in order: their histories as they lie
        hl, hist, without = np.diff(tr.indptr), tr.hist, 0
    else:
        code = train_users(tr, packed, key)
        hl = np.where(code >= 0, np.diff(tr.indptr)[np.maximum(code, 0)] if tr.n_users else 0,
                      0)
        starts = np.where(code >= 0, tr.indptr[:-1][np.maximum(code, 0)] if tr.n_users else 0,
                          0)
        hist, without = tr.hist[ranges(starts, hl)], int((code < 0).sum())
    cache_key = ("train_cat_rows", id(cats), id(tr))
    per_item = context_cache(context).get(cache_key)
    if per_item is None or per_item[0] is not cats or per_item[1] is not tr:
        rows_of = cats.rows(tr.items)
        per_item = (cats, tr, rows_of, _single_codes(cats, rows_of))
        context_cache(context)[cache_key] = per_item
    prof = _ProfileRows(hl, hist, per_item[2], per_item[3], {})
    missing = 0 if not len(prof.rows_of) or int(prof.rows_of.min()) >= 0 \
        else int(np.count_nonzero(prof.rows < 0))
    prof.info = {"users_without_train": without, "profile_items_without_categories": missing}
    return prof


def _list_rows(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(indptr, category row, 1-based rank) of the top-k positions; count of unknown items."""
    indptr, rows, _ = _category_rows(
        spec, packed, context, skip="to leave them out of the lists' distributions")
    return indptr, rows, _cut(packed, spec.k).rank + 1, int(np.count_nonzero(rows < 0))


def _profile(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Normalised profile distributions: sorted keys, p values, and whether each user has one."""
    n = len(packed.user_ids)
    prof = _profile_rows(context, packed, spec, cats)
    user, rows, info = prof.user, prof.rows, dict(prof.info)
    keys, mass, total = category_mass(user, rows, np.ones(len(user)), cats, n)
    width = max(cats.n_categories, 1)
    p = mass / total[keys // width] if len(keys) else mass
    return keys, p, total > 0, info


def _single_codes(cats: ItemCategories, rows: np.ndarray) -> np.ndarray:
    """The category code of each row's item when it has exactly one category, else -1
    (-1 also for an unknown item, row -1: the last entry of the table)."""
    lens = np.diff(cats.indptr)
    one = np.full(len(lens) + 1, -1, dtype=np.int64)
    single = np.flatnonzero(lens == 1)
    one[single] = cats.codes[cats.indptr[single]]
    return one[rows]


@dataclass
class _Profiles:
    """The block's profile distributions: the flat (user * |C| + category) index of each
    non-zero cell (ascending), where each user's cells start (CSR offsets) and their
    ``p(c|u)``, whether each user has a profile, and the counts for ``info``."""

    cells: np.ndarray
    starts: np.ndarray
    p: np.ndarray
    has: np.ndarray
    info: dict

    @property
    def user(self) -> np.ndarray:
        """The user of each cell."""
        n = len(self.starts) - 1
        return np.repeat(np.arange(n, dtype=np.int64), np.diff(self.starts))

    def dense(self, n: int, width: int) -> np.ndarray:
        """``p(c|u)`` as a (users x categories) array (0 outside the cells)."""
        out = np.zeros(n * width)
        out[self.cells] = self.p
        return out.reshape(n, width)


def _dense_profile(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories
                   ) -> _Profiles:
    """The profile distributions of the block's users; once per block (the profiles do not
    depend on the list, so every calibration metric of an evaluation reads the same)."""
    rows_prof = _profile_rows(context, packed, spec, cats)
    info = dict(rows_prof.info)
    tr = train_of(context, spec.key)
    cache = packed.__dict__.setdefault("_profiles", {})
    key = (id(cats), id(tr), spec.get("missing"))
    entry = cache.get(key)
    if (entry is None or entry[0] is not cats or entry[1] is not tr) and _lists.COMPILED:
        starts = np.zeros(len(rows_prof.hl), dtype=np.int64)
        np.cumsum(rows_prof.hl[:-1], out=starts[1:])
        length, one, start = category_tables(cats, rows_prof.rows_of)
        cells, offsets, p, total = profile_cells(
            starts, np.ascontiguousarray(rows_prof.hl, dtype=np.int64),
            np.ascontiguousarray(rows_prof.hist, dtype=np.int64), length, one, start,
            np.ascontiguousarray(cats.codes, dtype=np.int64), max(cats.n_categories, 1))
        entry = (cats, tr, _Profiles(cells, offsets, p, total > 0, {}))
        cache[key] = entry
    if entry is None or entry[0] is not cats or entry[1] is not tr:
        n = len(packed.user_ids)
        width = max(cats.n_categories, 1)
        hist = rows_prof.hist
        code = rows_prof.single_of[hist] if len(hist) else np.zeros(0, dtype=np.int64)
        if not len(code) or int(code.min()) >= 0:  # one category per entry: p(c|i) = 1
            # counts of 1.0 are exact: the same bits as the weighted sums
            lens = rows_prof.hl  # (user ascending: its entries' rows)
            cells = np.repeat(np.arange(n, dtype=np.int64) * width, lens)
            cells += code
            mass = np.bincount(cells, minlength=n * width).astype(np.float64)
            total = lens.astype(np.float64)
        else:
            dense, total = dense_category_mass(rows_prof.user, rows_prof.rows,
                                               np.ones(int(rows_prof.hl.sum())), cats, n)
            mass = dense.ravel()
        cells = np.flatnonzero(mass != 0)  # (a boolean mask: far faster than floats)
        owner = cells // width
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=n), out=offsets[1:])
        entry = (cats, tr, _Profiles(cells, offsets, mass[cells] / total[owner], total > 0,
                                     {}))
        cache[key] = entry
    prof: _Profiles = entry[2]
    return _Profiles(prof.cells, prof.starts, prof.p, prof.has, info)


def _list_mass(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(users x categories) rank-weighted category mass of the top-k lists, each list's
    total weight of categorised positions, the cut indptr, and the unknown positions."""
    model = attention(spec.get("weight"), float(spec.get("p")))
    vocab_rows = vocab_category_rows(context, packed, cats)
    if _lists.COMPILED:
        lp = list_pass(context, packed, spec.k)
        tab = lp.categories(cats, vocab_rows, (model,))[0]
        if tab.unknown and spec.get("missing") == "error":
            _list_rows(context, packed, spec, cats)  # refuses them, naming the items
        return tab.mass, tab.total, lp.cut_indptr(), tab.unknown
    c = _cut(packed, spec.k)
    n = len(c.lens)
    width = max(cats.n_categories, 1)
    weights = model.weights(c.width)  # type: ignore[call-arg]
    single = per_vocab(context, packed, ("cat_single", id(cats)),
                       lambda: _single_codes(cats, vocab_rows))
    if len(single) and int(single.min()) >= 0:  # every item has one category: p(c|i) = 1
        # w * 1.0 = w; a list's total is its weights added in rank order (the prefix sum)
        cells = _row_starts(c, width)
        cells += single[c.items]
        if isinstance(model, Uniform):  # sums of 1.0 are exact counts: the same bits
            mass = np.bincount(cells, minlength=n * width).astype(np.float64).reshape(n, width)
        else:
            mass = np.bincount(cells, weights=weights[c.rank],
                               minlength=n * width).reshape(n, width)
        return mass, np.concatenate([[0.0], np.cumsum(weights)])[c.lens], c.indptr, 0
    indptr, rows, rank, unknown = _list_rows(context, packed, spec, cats)
    mass, total = dense_category_mass(c.user, rows, weights[rank - 1], cats, n)
    return mass, total, indptr, unknown


def _dense_distances(prof: _Profiles, qmass: np.ndarray, qtotal: np.ndarray, distance: str,
                     alpha: float, n: int, width: int) -> np.ndarray:
    """Each user's ``C(p, q~)`` from the profile's cells and the lists' (users x categories)
    mass, by numpy (the oracle of the compiled KL path)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if distance == "kl":  # the terms with p(c|u) = 0 are 0: the profile's cells
            user = prof.user
            q = qmass.ravel()[prof.cells] / qtotal[user]
            qs = (1.0 - alpha) * q + alpha * prof.p
            if alpha > 0:  # q~ >= alpha p > 0 on these cells (NaN: a list without one)
                terms = prof.p * np.log(prof.p / qs)
            else:
                terms = np.where(qs > 0, prof.p * np.log(prof.p / np.where(qs > 0, qs, 1.0)),
                                 np.inf)
            return np.bincount(user, weights=terms, minlength=n)
        pv = prof.dense(n, width)
        qs = (1.0 - alpha) * (qmass / qtotal[:, None]) + alpha * pv
        return _row_sums(distance_terms(pv, qs, distance))


def _kl_ratios(context: Context, packed: Packed, spec: MetricSpec, cats: ItemCategories,
               prof: _Profiles, alpha: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Steck's ``p / q~`` on the profile's cells from the compiled list pass (the bits of
    :func:`_list_mass` then the numpy formula's ratios), each list's weight over its
    categorised places, the cut indptr, and the unknown positions."""
    model = attention(spec.get("weight"), float(spec.get("p")))
    vocab_rows = vocab_category_rows(context, packed, cats)
    lp = list_pass(context, packed, spec.k)
    ratios, total, unknown = lp.kl_ratios(cats, vocab_rows, model, prof.starts, prof.cells,
                                          prof.p, alpha)
    if unknown and spec.get("missing") == "error":
        _list_rows(context, packed, spec, cats)  # refuses them, naming the items
    return ratios, total, lp.cut_indptr(), int(unknown)


def _miscalibration(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    cats = _categories(context, spec.key)
    n = len(packed.user_ids)
    width = max(cats.n_categories, 1)
    alpha = float(spec.get("alpha"))
    distance = spec.get("distance")
    listed = list_pass(context, packed, spec.k).size if _lists.COMPILED \
        else len(_cut(packed, spec.k).pos)
    if _dense(n, cats, listed + int(_profile_rows(context, packed, spec, cats).hl.sum())):
        prof = _dense_profile(context, packed, spec, cats)
        has_profile, info = prof.has, prof.info
        if distance == "kl" and alpha > 0 and _lists.COMPILED:
            # p log(p / q~) on the profile's cells, each list's category mass made per user
            # (no users x categories table), the logarithms taken by numpy
            logs, qtotal, indptr, unknown = _kl_ratios(context, packed, spec, cats, prof,
                                                       alpha)
            with np.errstate(invalid="ignore", divide="ignore"):
                np.log(logs, out=logs)
            values = kl_sums(prof.p, logs, prof.starts)
        else:
            qmass, qtotal, indptr, unknown = _list_mass(context, packed, spec, cats)
            values = _dense_distances(prof, qmass, qtotal, distance, alpha, n, width)
    else:
        indptr, rows, rank, unknown = _list_rows(context, packed, spec, cats)
        w = attention(spec.get("weight"), float(spec.get("p"))).weights(
            int(rank.max(initial=0)))[rank - 1]  # type: ignore[call-arg]
        pk, p, has_profile, info = _profile(context, packed, spec, cats)
        qk, qmass, qtotal = category_mass(user_of_position(indptr), rows, w, cats, n)
        q = qmass / qtotal[qk // width] if len(qk) else qmass
        keys = sorted_union(pk, qk)
        pv, qv = _on(keys, pk, p), _on(keys, qk, q)
        qs = (1.0 - alpha) * qv + alpha * pv
        terms = distance_terms(pv, qs, distance)
        values = np.bincount(keys // width, weights=terms, minlength=n) if len(keys) \
            else np.zeros(n)
    if distance == "hellinger":
        values = np.sqrt(values) / np.sqrt(2.0)
    lens = np.diff(indptr)
    has_list = qtotal > 0
    values = np.where(has_profile & has_list, values + 0.0, np.nan)
    info.update({
        "users_without_profile": int((~has_profile).sum()),
        "empty_lists": int((lens == 0).sum()),
        "lists_without_categories": int(((lens > 0) & ~has_list).sum()),
        "listed_items_without_categories": unknown,
        "undefined_users": int(np.isnan(values).sum()),
    })
    return MetricValues(values, info=info)


def _mace(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    cats = _categories(context, spec.key)
    n = len(packed.user_ids)
    width = max(cats.n_categories, 1)
    pk, p, has_profile, info = _profile(context, packed, spec, cats)
    indptr, rows, rank, unknown = _list_rows(context, packed, spec, cats)
    w = rank_weights(rank, spec.get("weight"), float(spec.get("p")))
    user = user_of_position(indptr)
    # the (user, category) cells that can be non-zero: profile or list categories of the user
    ok = rows >= 0
    lens_c = np.where(ok, cats.indptr[np.maximum(rows, 0) + 1] - cats.indptr[np.maximum(rows, 0)],
                      0)
    pos_codes = cats.codes[ranges(np.where(ok, cats.indptr[np.maximum(rows, 0)], 0), lens_c)]
    pos_of_code = np.repeat(np.arange(len(rows), dtype=np.int64), lens_c)
    pos_keys = user[pos_of_code] * width + pos_codes
    keys = sorted_union(pk, pos_keys)
    cell_p = _on(keys, pk, p)
    cell_user = keys // width
    cell_of_pos = np.searchsorted(keys, pos_keys)
    share = (w[pos_of_code] / np.maximum(lens_c[pos_of_code], 1))
    acc = np.zeros(len(keys))          # category mass of the prefix, per cell
    total = np.zeros(n)                # weight of the categorised prefix items, per user
    err_sum = np.zeros(n)
    err_n = np.zeros(n, dtype=np.int64)
    lens = np.diff(indptr)
    rank_of_code = rank[pos_of_code]
    for r in range(1, int(lens.max(initial=0)) + 1):
        at = rank == r
        at_code = rank_of_code == r
        # one position per user and rank, distinct categories per item: one addition per cell
        acc += np.bincount(cell_of_pos[at_code], weights=share[at_code], minlength=len(keys))
        has = at & (lens_c > 0)
        total += np.bincount(user[has], weights=w[has], minlength=n)
        active = (lens >= r) & (total > 0)
        q_cell = np.where(total[cell_user] > 0, acc / np.where(total[cell_user] > 0,
                                                               total[cell_user], 1.0), 0.0)
        diff = np.abs(cell_p - q_cell)
        ce = np.bincount(cell_user, weights=diff, minlength=n)
        err_sum = np.where(active, err_sum + ce / float(width), err_sum)
        err_n = err_n + active
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(has_profile & (err_n > 0), err_sum / np.maximum(err_n, 1), np.nan)
    info.update({
        "users_without_profile": int((~has_profile).sum()),
        "empty_lists": int((lens == 0).sum()),
        "prefixes_without_categories": int((lens - np.minimum(err_n, lens))[has_profile].sum()),
        "listed_items_without_categories": unknown,
        "categories": cats.n_categories,
        "undefined_users": int(np.isnan(values).sum()),
    })
    return MetricValues(values, info=info)


def _popularity_lift(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tr = train_of(context, spec.key)
    pop_name = spec.get("pop")
    n = len(packed.user_ids)
    phi = popularity_of(context, packed, spec.key, pop_name).astype(np.float64)
    indptr, pos = top_k(packed, spec.k)
    gap_r = list_mean(indptr, phi[packed.items[pos]])
    code = train_users(tr, packed, spec.key)
    hl = np.where(code >= 0, np.diff(tr.indptr)[np.maximum(code, 0)] if tr.n_users else 0, 0)
    starts = np.where(code >= 0, tr.indptr[:-1][np.maximum(code, 0)] if tr.n_users else 0, 0)
    hist = tr.hist[ranges(starts, hl)]
    h_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(hl, out=h_indptr[1:])
    train_phi = tr.popularity(pop_name).astype(np.float64)
    gap_p = list_mean(h_indptr, train_phi[hist] if len(hist) else np.zeros(0))
    ok = ~np.isnan(gap_r) & ~np.isnan(gap_p) & (np.nan_to_num(gap_p) > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(ok, (gap_r - gap_p) / np.where(ok, gap_p, 1.0), np.nan)
    info = {"users_without_train": int((code < 0).sum()),
            "empty_lists": int((np.diff(indptr) == 0).sum()),
            "undefined_users": int(np.isnan(values).sum())}
    if spec.get("average") == "macro":
        return MetricValues(values, info=info)
    num = np.where(ok, gap_r - gap_p, 0.0)
    den = np.where(ok, gap_p, 0.0)
    return MetricValues(values, info=info, num=num, den=den)

# -------------------------------------------------------------------------------------------------
# Registration.

_MISSING = Param("missing", "error",
                 "items (recommended, or in an evaluated user's training profile) absent from "
                 "item_categories: error | skip (left out of the distributions, counted in "
                 "info)", ("error", "skip"))
_WEIGHT = Param("weight", "uniform",
                "rank weight w_r of the list distribution q(c|u), an attention model "
                "(receval.beyond.attention): uniform = 1 (Steck's unweighted list) | log = 1 / "
                "log2(r + 1) | geometric = p^(r - 1)",
                WEIGHTS)
_PATIENCE = Param("p", 0.85, "the geometric attention's patience, w_r = p^(r - 1), as rbp's "
                  "and exposure's p (not the profile distribution p(c|u))",
                  kind=float, low=0.0, high=1.0, low_open=True, high_open=True)
_CAL_DOC = (" p(c|u): the user's distinct training items (train=...), each split evenly over "
            "its categories (item_categories=...); users without a categorised profile, and "
            "lists without a categorised item, are NaN (counted in info).")


register(beyond_metric(
    "miscalibration", "Miscalibration (Steck calibration KL)@k",
    "C(p, q~) with q~ = (1 - alpha) q + alpha p; kl: sum_c p log(p / q~)",
    "Distance between the category distribution of the user's training profile p(c|u) and of "
    "the top-k list q(c|u) (Steck, RecSys 2018; scikit_pierre miscalibration): distance=kl "
    "(Steck), js (Jensen-Shannon, natural log) or hellinger; alpha: Steck's smoothing of q "
    "toward p (0.01). 0 = calibrated; lower is better." + _CAL_DOC,
    _miscalibration,
    (Param("distance", "kl", "kl (Steck) | js (Jensen-Shannon) | hellinger", DISTANCES),
     Param("alpha", 0.01, "smoothing q~ = (1 - alpha) q + alpha p (Steck: 0.01)",
           kind=float, low=0.0, high=1.0, high_open=True),
     _WEIGHT, _PATIENCE, _MISSING),
    needs=("train",), bounds=(0.0, None), higher_is_better=False,
    reference="Steck, Calibrated recommendations, RecSys 2018", reads_scores=False,
    reads_relevance=False,
    example="p = (1/2, 1/2), list all in the first category, alpha = 0: KL = inf; "
            "alpha = 1/2: q~ = (3/4, 1/4), KL = (1/2) ln(2/3) + (1/2) ln 2",
), ("calibration_kl", "steck_miscalibration"))


register(beyond_metric(
    "mace", "Mean average calibration error@k",
    "mean_{n=1..L} (1/|C|) sum_c |p(c|u) - q_n(c|u)|",
    "Silva, Manzato & Durão (Expert Systems with Applications 2021; scikit_pierre mace): "
    "per user, the mean over the list's prefixes of the mean absolute difference between the "
    "profile's and the prefix's category distributions, over all |C| categories of "
    "item_categories (unsmoothed). Lower is better." + _CAL_DOC,
    _mace, (_WEIGHT, _PATIENCE, _MISSING), needs=("train",), bounds=(0.0, 1.0),
    higher_is_better=False, reference="Silva, Manzato & Durão, ESWA 2021", reads_scores=False,
    reads_relevance=False,
    example="|C| = 2, p = (1/2, 1/2), list [a {c1}, b {c2}]: (1/2 + 0) / 2 = 1/4",
))


register(beyond_metric(
    "popularity_lift", "Popularity lift (Delta GAP)@k",
    "(GAP_r - GAP_p) / GAP_p; GAP(u) = mean phi(i) over the list / the training profile",
    "Abdollahpouri et al. (2019, 2020): relative change of the mean training popularity phi "
    "of the recommended items against the user's training profile. Per user: the user's lift; "
    "average=micro (default): sum_u (GAP_r(u) - GAP_p(u)) / sum_u GAP_p(u), which is Delta GAP "
    "of the evaluated users (with groups=...: Delta GAP of each user group); average=macro: "
    "the mean of the users' lifts. > 0: the lists are more popular than the profiles. Users "
    "without training rows or with an empty list are NaN (counted).",
    _popularity_lift,
    (Param("pop", "users", "phi(i): users = distinct training users of i (Abdollahpouri: "
           "the share of users who rated i; the scale cancels) | rows = interactions",
           ("users", "rows")),
     Param("average", "micro", "micro = Delta GAP (ratio of sums) | macro = mean user lift",
           ("micro", "macro"))),
    needs=("train",), bounds=(-1.0, None), higher_is_better=False,
    reference="Abdollahpouri, Mansoury, Burke & Mobasher, RMSE@RecSys 2019", reads_scores=False,
    reads_relevance=False,
    example="profile phi (4, 2), list phi (6, 6): (6 - 3) / 3 = 1",
), ("delta_gap",))
