"""Exposure and provider fairness: who gets the readers' attention.

Every metric here weighs the positions of a list by an attention model
(:mod:`receval.beyond.attention`, named by ``weight=`` and ``p=``): rank r of a list gets
``w_r``, and an item's *exposure* is the sum of the weights of the positions it holds.

- ``exposure_share@k(group=g)``: ``sum_{i in g} e_i / sum_i e_i``, the share of all attention
  that the items of group ``g`` (``item_groups=``) receive over the run (per user: the share of
  the user's own list).
- ``exposure_gini@k``: the Gini coefficient of the items' exposure over the catalogue
  (LensKit ``ExposureGini``, ``lenskit/metrics/ranking/_gini.py``).
- ``rank_biased_entropy@k``: per list, the entropy of the rank-weighted category totals
  (LensKit ``rank_biased_entropy``, ``lenskit/metrics/ranking/_entropy.py``).
- ``awrf@k``: attention-weighted rank fairness, ``1 - D(a, t)`` between the attention
  distribution over item groups and a target distribution (TREC Fair Ranking 2022,
  ``wptrec/metrics/awrf.py``; Sapiezynski, Zeng, Robertson, Mislove & Wilson, WWW 2019);
  with ``membership=alignment`` each item has weights over several groups
  (``item_alignment=``, :mod:`receval.beyond.alignment`), and ``target=given`` reads the target
  from ``group_target=``.
- ``ee_loss`` / ``ee_disparity`` / ``ee_relevance``: expected exposure (Diaz, Mitra,
  Ekstrand, Biega & Carterette, CIKM 2020) of the run's ranking against the exposure an ideal
  stochastic policy gives equally relevant items: per item or per item group (``level=``),
  for the run's ranking as a deterministic policy or for a Plackett-Luce policy over each
  list's items from its scores (``policy=``, exact, no sampling), under RBP's geometric
  attention or ERR's cascade (``weight=cascade``, Diaz et al.'s GERR), or for a stochastic
  policy given by rankings drawn from it (``policy=samples``, the ``rankings=`` table of
  :mod:`receval.beyond.rankings`: each item's exposure is its mean attention over the user's
  samples, as Diaz et al.'s ``expeval`` and TREC Fair 2022's sequences of rankings);
  ``normalize=bounds`` places each value between the least and greatest of any policy
  (:func:`ee_bounds`).

The metrics of one evaluation share their per-block work (:func:`_cut`, :func:`_grouped`,
:func:`_group_attention`, the counts per (item, rank)): each is built once per block of users
and cutoff, and every metric reads its own parameters from it.

The run-wide values (``exposure_share`` and ``exposure_gini``) come from :class:`ExposureCounts`:
how many lists hold each item (by raw id) at each rank, integers that merge exactly over blocks
of users; the float weights are applied only in :meth:`ExposureCounts.value`, with exact sums
(``math.fsum``), so a run gives the same bits in memory, in blocks and on a cluster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..io.groups import Membership
from ..kernels import xlogy_ratios, xlogy_row_sums
from ..metrics.catalogue import check_catalogue
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ..pack.vocab import kind_of
from . import _lists
from ._context import (
    beyond_metric,
    catalog_of,
    context_cache,
    key_with,
    list_places,
    per_vocab,
    top_k,
    undefined_info,
)
from ._listpass import list_pass
from ._lists import ranges, user_of_position
from .alignment import Alignment, as_alignment, as_group_target
from .attention import Cascade, Geometric, RankWeight, Uniform, attention
from .rankings import OPTION as RANKINGS
from .rankings import RankingSamples, as_rankings

WEIGHT = Param("weight", "geometric",
               "attention of rank r: geometric = p^(r-1) (RBP) | log = 1/log2(r+1) (DCG) | "
               "log_clip = 1/log2(max(r, 2)) (LensKit LogRankWeight, TREC Fair 2022) | "
               "uniform = 1", ("geometric", "log", "log_clip", "uniform"))


def _patience(default: float) -> Param:
    return Param("p", default, "patience of the geometric attention (weight=geometric)",
                 kind=float, low=0.0, high=1.0, low_open=True, high_open=True)


def weight_of(spec: MetricSpec, max_rel: float = 1.0) -> RankWeight:
    """The attention model of a key (``weight=``, ``p=``; the cascade's ``max_grade``, else
    ``max_rel``: the truth's largest relevance)."""
    w = spec.get("weight")
    if w == "log_clip":
        return attention("log", offset="clip")
    if w == "cascade":
        top = spec.get("max_grade")
        return Cascade(float(spec.get("p")), float(max_rel if top is None else top))
    return attention(w, spec.get("p"))


def _ranks(indptr: np.ndarray) -> np.ndarray:
    """0-based rank of every position of CSR lists."""
    lens = np.diff(indptr)
    return np.arange(int(indptr[-1]), dtype=np.int64) - np.repeat(indptr[:-1], lens)


class _Cut:
    """A block's lists cut at k, as every exposure metric of one evaluation reads them:
    ``indptr`` and ``pos`` (:func:`top_k`), the ``user`` (made when first read), 0-based
    ``rank`` and item code (``items``) of each position, the list lengths ``lens`` and the
    deepest list ``width``."""

    def __init__(self, indptr: np.ndarray, pos: np.ndarray, rank: np.ndarray,
                 lens: np.ndarray, width: int, items: np.ndarray) -> None:
        self.indptr, self.pos, self.rank = indptr, pos, rank
        self.lens, self.width, self.items = lens, width, items
        self._user: np.ndarray | None = None

    @property
    def user(self) -> np.ndarray:
        """The list (block user) of each position."""
        if self._user is None:
            self._user = np.repeat(np.arange(len(self.lens), dtype=np.int64), self.lens)
        return self._user


def _cut(packed: Packed, k: int | None) -> _Cut:
    """The block's :class:`_Cut` at k, built once per block and cutoff (kept with the block
    as :func:`top_k` keeps its cut)."""
    cache = packed.__dict__.setdefault("_exposure_cut", {})
    if k not in cache:
        indptr, pos = top_k(packed, k)
        lens = np.diff(indptr)
        rank = list_places(packed, indptr, pos)
        whole = not len(pos) or int(pos[-1]) - int(pos[0]) + 1 == len(pos)  # no gather
        items = packed.items[int(pos[0]):int(pos[0]) + len(pos)] if len(pos) and whole \
            else packed.items[pos]
        cache[k] = _Cut(indptr, pos, rank, lens, int(lens.max(initial=0)), items)
    return cache[k]


def _row_starts(c: _Cut, width: int) -> np.ndarray:
    """``user * width`` of each position (the first cell of its user's row in a (users x
    width) table), repeated from the users rather than multiplied per position."""
    return np.repeat(np.arange(len(c.lens), dtype=np.int64) * width, c.lens)


def _attention(packed: Packed, k: int | None, model: RankWeight
               ) -> tuple[np.ndarray, np.ndarray]:
    """(attention ``w_r`` of each position of the block's lists cut at k, each list's total
    attention). A list's total is the sum of its weights in rank order: the prefix sum of
    ``w_1..w_len`` (``np.cumsum`` adds in order, as a per-list ``np.bincount`` over the
    positions does, so the bits are the same)."""
    c = _cut(packed, k)
    weights = model.weights(c.width)  # type: ignore[call-arg]
    return weights[c.rank], np.concatenate([[0.0], np.cumsum(weights)])[c.lens]


def _list_totals(packed: Packed, k: int | None, model: RankWeight) -> np.ndarray:
    """Each list's total attention (:func:`_attention`'s second part, without the weights
    of the positions)."""
    c = _cut(packed, k)
    weights = model.weights(c.width)  # type: ignore[call-arg]
    return np.concatenate([[0.0], np.cumsum(weights)])[c.lens]


def _fsum(x: np.ndarray) -> float:
    return math.fsum(np.asarray(x, dtype=np.float64).tolist())


# -------------------------------------------------------------------------------------------------
# The pooled state: lists per (item raw id, rank)


@dataclass
class ExposureCounts:
    """Lists that hold each item at each rank: ``counts[i, r]`` for raw id ``items[i]`` at rank
    ``r + 1``. Exactly mergeable (integer counts keyed by raw ids); ``which`` names the value
    (``"share"`` or ``"gini"``), ``weights`` the attention of ranks 1.. (applied in
    :meth:`value` only), ``group`` / ``groups`` the share's group and the item groups,
    ``catalog_ids`` / ``catalog_size`` the catalogue of the Gini."""

    items: np.ndarray
    counts: np.ndarray
    which: str
    model: RankWeight
    group: str = ""
    groups: Membership | None = None
    missing: str = "error"
    catalog_ids: pd.Index | None = None
    catalog_size: int = 0
    denominator: str = "n"

    @classmethod
    def of(cls, packed: Packed, k: int | None, context: Context | None = None,
           **kw: Any) -> ExposureCounts:
        """The counts of a block's lists cut at k (cached per run and cutoff)."""
        items, counts, _ = _count_table(packed, k, context)
        return cls(items, counts, **kw)

    def merge(self, other: ExposureCounts) -> ExposureCounts:
        width = max(self.counts.shape[1], other.counts.shape[1])
        ids = pd.Index(np.concatenate([np.asarray(self.items, dtype=object),
                                       np.asarray(other.items, dtype=object)]))
        code, uniq = pd.factorize(ids)
        both = np.zeros((len(ids), width), dtype=np.int64)
        both[: len(self.items), : self.counts.shape[1]] = self.counts
        both[len(self.items):, : other.counts.shape[1]] = other.counts
        out = np.zeros((len(uniq), width), dtype=np.int64)
        np.add.at(out, code, both)
        cat = self.catalog_ids
        if cat is not None and other.catalog_ids is not None:
            cat = cat.union(other.catalog_ids)
        size = len(cat) if cat is not None else max(self.catalog_size, other.catalog_size)
        return ExposureCounts(np.asarray(uniq, dtype=object), out, self.which, self.model,
                              self.group, self.groups, self.missing, cat, size,
                              self.denominator)

    def exposure(self) -> np.ndarray:
        """Exposure of each item: ``sum_r counts[i, r] w_r``, ranks added in order."""
        w = self.model.weights(self.counts.shape[1])  # type: ignore[call-arg]
        e = np.zeros(len(self.items), dtype=np.float64)
        for r in range(self.counts.shape[1]):
            e = e + self.counts[:, r] * w[r]
        return e

    def value(self) -> float:
        e = self.exposure()
        if self.which == "gini":
            return exposure_gini(e, self.catalog_size, denominator=self.denominator)
        assert self.groups is not None
        g = _group_codes(self.groups, self.items)
        label = self.groups.labels.index(self.group) if self.group in self.groups.labels else -1
        counted = g >= 0 if self.missing == "skip" else np.ones(len(g), dtype=bool)
        total = _fsum(e[counted])
        return _fsum(e[g == label]) / total if total > 0 else float("nan")

    def info(self) -> dict[str, Any]:
        return {"items_exposed": int(len(self.items))}


def _count_table(packed: Packed, k: int | None, context: Context | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(raw ids of the items the block's lists hold in their top k, their lists per rank,
    their vocabulary codes), once per block and cutoff (cached through the context)."""
    def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if context is not None and _lists.COMPILED:
            counts = list_pass(context, packed, k).counts()
        else:
            c = _cut(packed, k)
            n_vocab = len(packed.item_vocab)
            key = c.items.astype(np.int64, copy=False) * c.width
            key += c.rank
            counts = np.bincount(key, minlength=n_vocab * c.width).reshape(n_vocab, c.width)
        width = counts.shape[1]
        seen = np.flatnonzero(counts.any(axis=1)) if width else np.zeros(0, np.int64)
        return packed.item_vocab[seen], counts[seen].astype(np.int64), seen

    if context is None:
        return make()
    # one entry per block and cutoff: share and gini share it
    return context.memo(("exposure_counts", k), (packed.items,), make)


def exposure_gini(exposure: Any, n_items: int | None = None, *, denominator: str = "n") -> float:
    """Gini coefficient of exposure: ``sum_j (2j - n - 1) e_(j) / (n sum_j e_j)``, ``e``
    ascending over the n catalogue items (those without exposure are zeros), as LensKit's
    ``lenskit.stats.gini`` (``denominator="n-1"`` divides by ``n - 1`` instead, receval's
    ``gini``). 0 = equal exposure; NaN without exposure.

    >>> exposure_gini([1.0, 0.0, 0.0, 1.0])   # (1 * 1 + 3 * 1) / (4 * 2)
    0.5
    """
    e = np.sort(np.asarray(exposure, dtype=np.float64))
    n = len(e) if n_items is None else int(n_items)
    if n < len(e):
        raise InputError(f"n_items={n}: fewer catalogue items than items with exposure "
                         f"({len(e)}).")
    total = _fsum(e)
    if total <= 0 or n == 0 or (denominator == "n-1" and n == 1):
        return float("nan")
    j = np.arange(n - len(e) + 1, n + 1, dtype=np.float64)
    num = _fsum((2 * j - n - 1) * e)
    return max(num / ((n - 1 if denominator == "n-1" else n) * total), 0.0)


def _group_codes(groups: Membership, items: np.ndarray) -> np.ndarray:
    """Group code of each raw item id (-1: not in item_groups)."""
    if not len(items):
        return np.zeros(0, dtype=np.int64)
    idx = pd.Index(groups.users).get_indexer(pd.Index(items))
    return np.where(idx >= 0, np.asarray(groups.codes)[np.maximum(idx, 0)], -1).astype(np.int64)


def _item_groups(context: Context, key: str) -> Membership:
    groups = context.options.get("item_groups")
    if groups is None:
        raise InputError(
            f"{key} needs the items' groups: pass item_groups={{item: group}} (or a table with "
            f"an item column and group_col=) to evaluate(), e.g. rv.evaluate(run, truth, "
            f"[{plain(key)}], item_groups=providers).")
    if not isinstance(groups, Membership):
        raise InputError(f"{key}: item_groups must be read as a Membership by evaluate().")
    return groups


def _unknown_error(spec: MetricSpec, packed: Packed, pos: np.ndarray, g: np.ndarray) -> InputError:
    bad = g < 0
    ex = list(dict.fromkeys(packed.item_vocab[packed.items[pos[bad]]][:50].tolist()))
    return InputError(
        f"{spec.key}: {int(bad.sum())} listed position(s) hold items without a group in "
        f"item_groups, e.g. {plain(ex[:3])}. Give them a group, or use "
        f"{plain(key_with(spec, missing='skip'))} to leave them out (with their attention)"
        + (f" or {plain(key_with(spec, missing='other'))} to count their attention in no "
           "group." if "other" in (spec.definition.param("missing").choices or ())
           else "."))


@dataclass(frozen=True)
class _Grouped:
    """The item groups of a block's lists cut at k: ``g`` the group of each position (-1: no
    group), ``unknown`` how many positions have none, ``known`` which do (None: all), and
    ``cells`` the (user * G + group) cell of each position with a group, in list order."""

    groups: Membership
    g: np.ndarray
    unknown: int
    known: np.ndarray | None
    cells: np.ndarray


def _grouped(spec: MetricSpec, packed: Packed, context: Context, missing: str
             ) -> tuple[_Cut, _Grouped]:
    """The block's cut at k and its :class:`_Grouped` state, once per block, cutoff and
    groups; ``missing="error"`` refuses a listed item without a group."""
    groups = _item_groups(context, spec.key)
    c = _cut(packed, spec.k)
    cache = packed.__dict__.setdefault("_exposure_groups", {})
    state = cache.get((spec.k, id(groups)))
    if state is None or state.groups is not groups:
        vocab = per_vocab(context, packed, ("item_group", id(groups)),
                          lambda: _group_codes(groups, packed.item_vocab))
        g = vocab[c.items]
        n_g = groups.n_groups
        if len(vocab) and int(vocab.min()) >= 0:  # every item of the block has a group
            cells = _row_starts(c, n_g)
            cells += g
            state = _Grouped(groups, g, 0, None, cells)
        else:
            known = g >= 0
            unknown = int(len(g) - np.count_nonzero(known))
            state = _Grouped(groups, g, unknown, known if unknown else None,
                             c.user[known] * n_g + g[known] if unknown else c.user * n_g + g)
        cache[(spec.k, id(groups))] = state
    if state.unknown and missing == "error":
        raise _unknown_error(spec, packed, c.pos, state.g)
    return c, state


def _vocab_groups(context: Context, packed: Packed, groups: Membership) -> np.ndarray:
    """The group code of each vocabulary item (-1: none), once per run and groups."""
    return per_vocab(context, packed, ("item_group", id(groups)),
                     lambda: _group_codes(groups, packed.item_vocab))


def _group_attention(packed: Packed, k: int | None, state: _Grouped,
                     model: RankWeight) -> np.ndarray:
    """(users x groups) attention ``a[u, g] = sum_{r: i_r in g} w_r`` of the block's lists
    cut at k, each cell summed in rank order; once per block, cutoff, groups and model (the
    exposure_share and awrf of one attention model share it)."""
    cache = packed.__dict__.setdefault("_exposure_group_attention", {})
    key = (k, id(state.groups), model)
    entry = cache.get(key)
    if entry is None or entry[0] is not state.groups:
        n, n_g = len(_cut(packed, k).lens), state.groups.n_groups
        w, _ = _attention(packed, k, model)
        if state.known is not None:
            w = w[state.known]
        entry = (state.groups, np.bincount(state.cells, weights=w,
                                           minlength=n * n_g).reshape(n, n_g))
        cache[key] = entry
    return entry[1]


def _listed_groups(spec: MetricSpec, packed: Packed, context: Context,
                   missing: str, whole: bool = False) -> tuple[np.ndarray, np.ndarray, Membership]:
    """(cut indptr, group code of each listed position, groups); ``missing="error"`` refuses
    a listed item without a group. ``whole``: every position when the metric reads the whole
    list (a Plackett-Luce policy)."""
    if not (whole and spec.get("policy") == "plackett_luce"):
        c, state = _grouped(spec, packed, context, missing)
        return c.indptr, state.g, state.groups
    groups = _item_groups(context, spec.key)
    indptr = np.asarray(packed.indptr, dtype=np.int64)
    pos = np.arange(int(indptr[-1]), dtype=np.int64)
    vocab = per_vocab(context, packed, ("item_group", id(groups)),
                      lambda: _group_codes(groups, packed.item_vocab))
    g = vocab[packed.items[pos]]
    if missing == "error" and (g < 0).any():
        raise _unknown_error(spec, packed, pos, g)
    return indptr, g, groups


# -------------------------------------------------------------------------------------------------
# exposure_share and exposure_gini


def _share(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    missing = spec.get("missing")
    model = weight_of(spec)
    if _lists.COMPILED:
        groups = _item_groups(context, spec.key)
        lp = list_pass(context, packed, spec.k)
        tab = lp.groups(groups, _vocab_groups(context, packed, groups), (model,),
                        counts=True)[0]
        unknown = tab.unknown
        if unknown and missing == "error":
            _grouped(spec, packed, context, missing)  # refuses them, naming the items
    else:
        c, state = _grouped(spec, packed, context, missing)
        groups, unknown = state.groups, state.unknown
    label = spec.get("group")
    if label is None or str(label) not in groups.labels:
        raise InputError(
            f"{spec.key}: name the item group with group=, one of "
            f"{plain(list(groups.labels)[:20])}, e.g. exposure_share@10(group="
            f"{plain(groups.labels[0] if groups.labels else 'A')}).")
    label = str(label)
    # the group's cell of the attention table adds the same weights in the same order as a
    # sum over the list with 0 for the other positions
    if _lists.COMPILED:
        num = tab.attention[:, groups.labels.index(label)]
        den = tab.known if missing == "skip" and unknown else lp.totals(model)
    else:
        num = _group_attention(packed, spec.k, state, model)[:, groups.labels.index(label)]
        if missing == "skip" and state.known is not None:
            w, _ = _attention(packed, spec.k, model)
            den = np.bincount(c.user[state.known], weights=w[state.known],
                              minlength=len(c.lens))
        else:
            den = _list_totals(packed, spec.k, model)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_user = np.where(den > 0, num / den, np.nan)
    pooled = ExposureCounts.of(packed, spec.k, context, which="share", model=model,
                               group=label, groups=groups, missing=missing)
    info = {**undefined_info(per_user), "positions_without_group": unknown}
    return MetricValues(per_user, None, info, pooled=pooled)


def _gini(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = ExposureCounts.of(packed, spec.k, context, which="gini", model=weight_of(spec),
                              denominator=spec.get("denominator"))
    counts = np.zeros(len(packed.item_vocab), dtype=np.int64)
    counts[_count_table(packed, spec.k, context)[2]] = 1
    cat = catalog_of(context, packed, counts, key=spec.key)
    state.catalog_ids, state.catalog_size = cat.ids, cat.size
    return MetricValues(np.full(len(packed.user_ids), np.nan), None,
                        {"catalog": cat.source}, pooled=state)


_MISSING = Param("missing", "error",
                 "listed items without a group in item_groups: error | skip = left out with "
                 "their attention | other = their attention counts in the total, in no group",
                 ("error", "skip", "other"))


register(beyond_metric(
    "exposure_share", "Exposure share of an item group@k",
    "sum_u sum_{r: i_r in g} w_r / sum_u sum_r w_r",
    "Share of the run's attention (rank weights w_r, weight= and p=) that goes to the items of "
    "group g of item_groups= (providers, a protected attribute); per user, the share of that "
    "user's list. The summary is the run-wide share (a ratio of sums over every list, exactly "
    "mergeable over blocks), not the mean of the users' shares. Singh & Joachims, KDD 2018 "
    "(exposure of groups); rank weights as RBP (Moffat & Zobel 2008).",
    _share, (Param("group", None, "the item group's label (required)"), WEIGHT,
             _patience(0.85), _MISSING),
    reference="Singh & Joachims, KDD 2018", aggregate="pooled", reads_scores=False,
    reads_relevance=False,
    example="lists [a, b], groups a: A, b: B, geometric p=1/2: share of A = 1 / (1 + 1/2) = 2/3",
), ("group_exposure",))

register(beyond_metric(
    "exposure_gini", "Gini index of rank-weighted exposure@k",
    "sum_j (2j - n - 1) e_(j) / (n sum_j e_j), e_i = sum_u sum_{r: i_r = i} w_r, e ascending",
    "Inequality of the items' exposure over the n catalogue items (evaluate(catalog=...); items "
    "without exposure count as zeros), each position weighted by its attention w_r: LensKit "
    "ExposureGini (lenskit/metrics/ranking/_gini.py, lenskit.stats.gini), whose default is "
    "weight=geometric, p=0.85, denominator n. denominator=n-1 divides by n - 1 (receval's gini). "
    "0 = equal exposure; lower is fairer.",
    _gini, (WEIGHT, _patience(0.85),
            Param("denominator", "n", "n (LensKit) | n-1 (maximum 1)", ("n", "n-1"))),
    higher_is_better=False, reference="LensKit ExposureGini; Shani & Gunawardana 2011",
    aggregate="pooled", reads_scores=False, reads_relevance=False,
    example="exposure [1, 0, 0, 1]: (1 + 3) / (4 * 2) = 0.5",
))


# -------------------------------------------------------------------------------------------------
# rank_biased_entropy


def _rb_entropy(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    from .categories import _category_rows

    indptr, rows, cats = _category_rows(spec, packed, context)
    rank = list_places(packed, indptr, top_k(packed, spec.k)[1])
    width = int(rank.max()) + 1 if len(rank) else 0
    w = weight_of(spec).weights(width)[rank]  # type: ignore[call-arg]
    n = len(indptr) - 1
    n_cat = cats.n_categories
    user = user_of_position(indptr)
    ok = rows >= 0
    lens = cats.indptr[rows[ok] + 1] - cats.indptr[rows[ok]]
    codes = cats.codes[ranges(cats.indptr[rows[ok]], lens)]
    pair_user = np.repeat(user[ok], lens)
    pair_w = np.repeat(w[ok], lens)
    key, inv = np.unique(pair_user * max(n_cat, 1) + codes, return_inverse=True)
    tot = np.bincount(inv, weights=pair_w, minlength=len(key))
    cell_user = key // max(n_cat, 1)
    s = float(spec.get("smooth"))
    base = {"2": 2.0, "e": math.e, "10": 10.0}[spec.get("base")]
    tot = tot + s
    z = np.bincount(cell_user, weights=tot, minlength=n) + s * (n_cat - np.bincount(
        cell_user, minlength=n))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tot / z[cell_user]
        terms = np.where(p > 0, -p * np.log(p), 0.0)
        h = np.bincount(cell_user, weights=terms, minlength=n)
        if s > 0:
            q = s / z
            h = h + (n_cat - np.bincount(cell_user, minlength=n)) * np.where(
                q > 0, -q * np.log(q), 0.0)
        h = h / math.log(base)
    lens_u = np.diff(indptr)
    values = np.where((lens_u > 0) & (z > 0), h + 0.0, np.nan)
    return MetricValues(values, info={**undefined_info(values), "categories": n_cat})


register(beyond_metric(
    "rank_biased_entropy", "Rank-biased category entropy@k",
    "H = -sum_c q_c log_b q_c, q_c = (T_c + s) / sum_c' (T_c' + s), T_c = sum_{r: c in C(i_r)} w_r",
    "Entropy of the categories of one list (item_categories=), each item weighted by the "
    "attention of its rank (weight=geometric, p=0.85 by default): LensKit rank_biased_entropy "
    "(lenskit/metrics/ranking/_entropy.py, matrix_column_entropy), over every category of "
    "item_categories. smooth=s adds s to every category's total (LensKit adds 1e-6); base=2 "
    "as LensKit. Higher = the list's attention spread over more categories. NaN for an empty "
    "list (or one without categories when s = 0).",
    _rb_entropy, (WEIGHT, _patience(0.85),
                  Param("smooth", 0.0, "added to every category's weighted total (LensKit: "
                        "1e-6)", kind=float, low=0.0),
                  Param("base", "2", "logarithm base: 2 | e | 10", ("2", "e", "10")),
                  Param("missing", "error", "listed items absent from item_categories: error | "
                        "skip (items without a category)", ("error", "skip"))),
    bounds=(0.0, None), reference="LensKit rank_biased_entropy", reads_scores=False,
    reads_relevance=False,
    example="top 2 of categories {x}, {y}, p = 1/2: q = 2/3, 1/3, H = 0.918 bits",
))


# -------------------------------------------------------------------------------------------------
# AWRF


def _alignment(context: Context, spec: MetricSpec) -> Alignment:
    given = context.options.get("item_alignment")
    if given is None:
        raise InputError(
            f"{spec.key} reads each item's weights over groups: pass item_alignment={{item: "
            f"{{group: weight}}}} (or a DataFrame indexed by item with one column per group) "
            f"to evaluate(), or use {plain(key_with(spec, membership='groups'))} with "
            "item_groups=.")
    return context.memo("item_alignment", (given,), lambda: as_alignment(given))


def _aligned_attention(spec: MetricSpec, packed: Packed, context: Context, missing: str,
                       model: RankWeight) -> tuple[np.ndarray, Alignment, int]:
    """((users x groups) attention ``A[u, g] = sum_r w_r x_{i_r}(g)`` of the block's lists
    cut at k, the alignment, the positions without an alignment)."""
    align = _alignment(context, spec)
    c = _cut(packed, spec.k)
    vocab = per_vocab(context, packed, ("align_rows", id(align)),
                      lambda: align.rows(packed.item_vocab))
    rows = vocab[c.items]
    ok = rows >= 0
    unknown = int(len(rows) - np.count_nonzero(ok))
    if unknown and missing == "error":
        ex = list(dict.fromkeys(packed.item_vocab[c.items[~ok]][:50].tolist()))
        raise InputError(
            f"{spec.key}: {unknown} listed position(s) hold items without weights in "
            f"item_alignment, e.g. {plain(ex[:3])}. Give them weights, or use "
            f"{plain(key_with(spec, missing='skip'))} to leave them out (with their "
            "attention).")
    w, _ = _attention(packed, spec.k, model)
    r, w, user = rows[ok], w[ok], c.user[ok]
    lens = align.indptr[r + 1] - align.indptr[r]
    entry = np.repeat(np.arange(len(r), dtype=np.int64), lens)
    at = ranges(align.indptr[r], lens)
    n, n_g = len(c.lens), align.n_groups
    a = np.bincount(user[entry] * n_g + align.codes[at], weights=w[entry] * align.weights[at],
                    minlength=n * n_g).reshape(n, n_g)
    return a, align, unknown


def _awrf(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    missing = spec.get("missing")
    n = len(packed.indptr) - 1
    aligned = spec.get("membership") == "alignment"
    if aligned:
        a, align, unknown = _aligned_attention(spec, packed, context, missing,
                                               weight_of(spec))
        labels = align.labels
    elif _lists.COMPILED:
        groups = _item_groups(context, spec.key)
        tab = list_pass(context, packed, spec.k).groups(
            groups, _vocab_groups(context, packed, groups), (weight_of(spec),))[0]
        unknown = tab.unknown
        if unknown and missing == "error":
            _grouped(spec, packed, context, missing)  # refuses them, naming the items
        a = tab.attention
        labels = groups.labels
    else:
        _, state = _grouped(spec, packed, context, missing)
        groups, unknown = state.groups, state.unknown
        a = _group_attention(packed, spec.k, state, weight_of(spec))
        labels = groups.labels
    n_g = len(labels)
    total = _row_sums(a)
    values = np.full(n, np.nan)
    has = total > 0
    which = spec.get("target")
    info: dict[str, Any] = {"groups": n_g, "positions_without_group": unknown}
    if which in ("uniform", "population", "given"):  # one target for every list
        if which == "uniform":
            row = np.full(n_g, 1.0 / n_g)
        elif which == "given":
            target = context.options.get("group_target")
            if target is None:
                raise InputError(
                    f"{spec.key} needs the target distribution: pass group_target={{group: "
                    f"weight}} to evaluate(), e.g. group_target={{"
                    f"{plain(labels[0] if labels else 'A')}: 0.5, ...}}, or use "
                    f"{plain(key_with(spec, target='uniform'))}.")
            row = as_group_target(target, labels, spec.key)
        elif aligned:  # the mean alignment of the items of item_alignment
            with_weight = int(np.count_nonzero(np.diff(align.indptr)))
            row = np.bincount(align.codes, weights=align.weights, minlength=n_g) / float(
                max(with_weight, 1))
        else:  # the share of the items of item_groups in each group
            row = np.bincount(np.asarray(groups.codes), minlength=n_g) / float(
                len(groups.codes))
        t = row / row.sum()  # (as a row of the (users x groups) table would be normalised)
    else:  # relevant: the user's relevant items' shares of the groups
        target = _relevant_aligned(packed, align, n) if aligned \
            else _relevant_groups(packed, groups, n, n_g)
        no_target = target.sum(axis=1) == 0
        info["users_without_grouped_relevant"] = int(no_target.sum())
        has &= ~no_target
        t = target[has] / target[has].sum(axis=1, keepdims=True)
    every = bool(has.all())
    attn = a / total[:, None] if every else a[has] / total[has, None]
    dist = awrf_distance(attn, t, spec.get("distance"), spec.get("base"))
    if every:
        values = 1.0 - dist
    else:
        values[has] = 1.0 - dist
    return MetricValues(values, info={**undefined_info(values), **info})


def _relevant_aligned(packed: Packed, align: Alignment, n: int) -> np.ndarray:
    """(users x groups) sums of the alignment vectors of each user's relevant truth items."""
    t_rel = np.asarray(packed.t_rel, dtype=np.float64)
    n_g = align.n_groups
    if not len(t_rel):
        return np.zeros((n, n_g))
    rows = align.rows(packed.truth_item_vocab)[packed.t_items]
    user = user_of_position(np.asarray(packed.t_indptr, dtype=np.int64))
    ok = (t_rel > 0) & (rows >= 0)
    r, user = rows[ok], user[ok]
    lens = align.indptr[r + 1] - align.indptr[r]
    at = ranges(align.indptr[r], lens)
    return np.bincount(np.repeat(user, lens) * n_g + align.codes[at], weights=align.weights[at],
                       minlength=n * n_g).reshape(n, n_g)


def _relevant_groups(packed: Packed, groups: Membership, n: int, n_g: int) -> np.ndarray:
    """(users x groups) counts of each user's relevant truth items in each group."""
    t_rel = np.asarray(packed.t_rel, dtype=np.float64)
    if not len(t_rel):
        return np.zeros((n, n_g))
    g = _group_codes(groups, packed.truth_item_vocab)[packed.t_items]
    user = user_of_position(np.asarray(packed.t_indptr, dtype=np.int64))
    ok = (t_rel > 0) & (g >= 0)
    return np.bincount(user[ok] * n_g + g[ok], minlength=n * n_g).reshape(n, n_g).astype(float)


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0) / y), 0.0)


def awrf_distance(attn: np.ndarray, target: np.ndarray, distance: str = "js",
                  base: str = "e") -> np.ndarray:
    """Divergence of each row of ``attn`` (a distribution over groups) from ``target`` (one
    distribution, or one per row): ``js``: the Jensen-Shannon divergence
    ``(KL(a || m) + KL(t || m)) / 2``, ``m = (a + t) / 2`` (TREC Fair 2022: scipy's JS distance
    squared, natural logarithm); ``kl``: ``KL(a || t)`` (infinite where the target is 0 on a
    group with attention)."""
    attn = np.atleast_2d(attn)
    t = np.broadcast_to(target, attn.shape)
    if _lists.COMPILED and 0 < attn.shape[1] < 8:
        # the same formulas in two compiled loops around numpy's logarithm
        a = np.ascontiguousarray(attn, dtype=np.float64)
        t = np.ascontiguousarray(t, dtype=np.float64)
        if distance == "js":
            m = (a + t) / 2
            d = (_xlogy_sums(a, m) + _xlogy_sums(t, m)) / 2
        else:
            d = _xlogy_sums(a, t)
        return d / (math.log(2.0) if base == "2" else 1.0)
    if distance == "js":
        m = (attn + t) / 2
        d = (_row_sums(_xlogy(attn, m)) + _row_sums(_xlogy(t, m))) / 2
    else:
        d = _row_sums(_xlogy(attn, t))
    return d / (math.log(2.0) if base == "2" else 1.0)


def _xlogy_sums(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``_xlogy(x, y).sum(axis=1)`` for rows of fewer than 8 entries (numpy's logarithm)."""
    logs = xlogy_ratios(x, y, 0)
    np.log(logs, out=logs)
    return xlogy_row_sums(x, logs)


def _row_sums(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=1)``. Rows of fewer than 8 entries are added column by column, in order:
    numpy's sum adds such short rows one entry after another too (the same bits; checked in
    tests/beyond/test_fairness_pass.py), at a fraction of the cost of a reduction per row."""
    if x.shape[1] >= 8 or x.shape[1] == 0 or not _lists.COMPILED:
        return x.sum(axis=1)
    out = x[:, 0].copy()
    for j in range(1, x.shape[1]):
        out += x[:, j]
    return out


register(beyond_metric(
    "awrf", "Attention-weighted rank fairness@k",
    "1 - D(a_u, t), a_u(g) = sum_{r: i_r in g} w_r / sum_r w_r",
    "How close the distribution of a list's attention over item groups (item_groups=; several "
    "group columns give their intersections, TREC Fair 2022's combined dimensions) is to a "
    "target t: uniform over the groups, population (each group's share of the items of "
    "item_groups), relevant (the groups' shares of the user's relevant items) or given "
    "(group_target={group: weight}). membership=alignment reads each item's weights over "
    "groups from item_alignment= (TREC Fair 2022's alignment vectors: an item in several "
    "groups; a_u(g) proportional to sum_r w_r x_{i_r}(g), x_i the item's weights made a "
    "distribution). D is the "
    "Jensen-Shannon divergence (distance=js, the square of scipy's JS distance, natural log, "
    "as TREC Fair Ranking 2022 wptrec/metrics/awrf.py) or KL(a || t) (distance=kl; 1 - KL can "
    "be negative, and is -inf where the target is 0 on a group with attention). Attention weight=log_clip, 1/log2(max(r, 2)), as "
    "TREC Fair 2022. Listed items without a group are left out with their attention "
    "(missing=skip, wptrec's unknown pages). The TREC task score is ndcg x awrf. Sapiezynski et "
    "al., WWW 2019; Ekstrand et al., TREC Fair Ranking 2022 overview.",
    _awrf, (Param("distance", "js", "js (TREC Fair 2022) | kl", ("js", "kl")),
            Param("target", "uniform", "uniform | population (the groups' shares of the "
                  "items of item_groups; with membership=alignment the mean alignment of the "
                  "items of item_alignment) | relevant (the groups' shares of the user's "
                  "relevant items: relevance-proportional; NaN for a user without one) | "
                  "given (group_target={group: weight}, normalised; groups not named get 0)",
                  ("uniform", "population", "relevant", "given")),
            Param("membership", "groups", "groups = each item in its one group of "
                  "item_groups= | alignment = each item's weights over groups from "
                  "item_alignment= (TREC Fair 2022 alignment vectors, each made a "
                  "distribution: x_i(g) = v_i(g) / sum_g v_i(g))", ("groups", "alignment")),
            Param("base", "e", "logarithm of the divergence: e (scipy, TREC) | 2 (JS in "
                  "[0, 1])", ("e", "2")),
            Param("weight", "log_clip", WEIGHT.doc, WEIGHT.choices), _patience(0.85),
            Param("missing", "skip", _MISSING.doc, ("skip", "error"))),
    bounds=(-math.inf, 1.0), reference="TREC Fair Ranking 2022 (wptrec); Sapiezynski et al. 2019",
    reads_scores=False, reads_relevance=False,
    example="two groups, list [A, B], weights 1, 1: a = t = (1/2, 1/2), AWRF = 1",
))


# -------------------------------------------------------------------------------------------------
# Expected exposure


#: tanh-sinh quadrature on (0, 1): nodes t = j h, |t| <= 4.5 (Takahasi & Mori 1974)
_TS_H = 1.0 / 32.0
_TS_T = np.arange(-144, 145, dtype=np.float64) * _TS_H


def plackett_luce_ranks(scores: np.ndarray, depth: int, temperature: float = 1.0) -> np.ndarray:
    """``P[i, m]``: probability that a Plackett-Luce policy over the items of one list, with
    weights ``exp(score / temperature)``, places item i at rank m + 1 (m < depth).

    Exact up to quadrature error (about 1e-13): in the exponential-race form of the policy
    (item j's time is exponential with rate w_j; the ranking sorts the times), item i is at rank
    m + 1 when exactly m other items come first, so with rates scaled to w_i = 1 and
    ``u = exp(-time)``, ``P[i, m] = int_0^1 PB_m(1 - u^(w_j / w_i), j != i) du``, ``PB_m`` the
    Poisson-binomial probability of m successes. The integral is taken by tanh-sinh quadrature,
    which is exact to double precision for such endpoint behaviour (Plackett 1975; Luce 1959;
    Yellott 1977 for the race)."""
    s = np.asarray(scores, dtype=np.float64)
    n = len(s)
    kk = min(depth, n)
    if n == 0 or kk == 0:
        return np.zeros((n, kk))
    z = np.pi * np.sinh(_TS_T)
    log_u = -np.logaddexp(0.0, -z)                    # log of 1 / (1 + e^-z), accurate near 0
    du = np.pi * np.cosh(_TS_T) * np.exp(log_u - np.logaddexp(0.0, z)) * _TS_H
    with np.errstate(over="ignore"):
        ratio = np.exp((s[None, :] - s[:, None]) / temperature)  # w_j / w_i
    pmf = np.zeros((n, len(z), kk))
    pmf[:, :, 0] = 1.0
    for j in range(n):
        with np.errstate(invalid="ignore", over="ignore"):
            q = -np.expm1(ratio[:, j, None] * log_u[None, :])  # P(j before i | u), (n, nodes)
        q = np.where(np.isnan(q), 1.0, q)
        q[j] = 0.0                                           # item i itself
        step = pmf * (1.0 - q)[:, :, None]
        step[:, :, 1:] += pmf[:, :, :-1] * q[:, :, None]
        pmf = step
    return np.einsum("inm,n->im", pmf, du)


def _stop(grades: np.ndarray, max_grade: float) -> np.ndarray:
    """ERR's stop probability ``(2^g - 1) / 2^g_max`` of each grade (0 for nonrelevant)."""
    if len(grades) and float(np.max(grades)) > max_grade:
        raise InputError(f"weight=cascade: a relevance grade {plain(float(np.max(grades)))} "
                         f"exceeds max_grade={plain(max_grade)}; set max_grade= to the "
                         "largest grade of the scale.")
    return (np.power(2.0, grades) - 1.0) / 2.0 ** max_grade


def _survival(stop: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Probability that the cascade reader reaches each position: the product of
    ``1 - stop`` over the earlier positions of its list (rank by rank, so each list's product
    is taken in its own order)."""
    surv = np.ones(len(rank))
    if not len(rank):
        return surv
    order = np.argsort(rank, kind="stable")
    starts = np.searchsorted(rank[order], np.arange(int(rank.max()) + 2))
    for r in range(1, int(rank.max()) + 1):
        at = order[starts[r]:starts[r + 1]]
        surv[at] = surv[at - 1] * (1.0 - stop[at - 1])
    return surv


def _pl_exposure(indptr: np.ndarray, scores: np.ndarray, attn: np.ndarray,
                 temperature: float) -> np.ndarray:
    """Expected attention of every listed item under each list's Plackett-Luce policy."""
    e = np.zeros(len(scores))
    for u in range(len(indptr) - 1):
        lo, hi = int(indptr[u]), int(indptr[u + 1])
        if hi > lo:
            probs = plackett_luce_ranks(scores[lo:hi], len(attn), temperature)
            e[lo:hi] = probs @ attn[: probs.shape[1]] if probs.shape[1] else 0.0
    return e


@dataclass(frozen=True)
class _Sampled:
    """A block's sampled rankings (``policy=samples``), cut at k: per row (one ranked item of
    one sample) its 0-based ``place``, its grade ``rel`` (0: not relevant) and its ``entry``;
    per entry (a distinct (user, item) pair, in the order of first appearance) its block user
    ``entry_user``, grade ``entry_rel`` and raw item id ``entry_item``; per block user the
    number of rankings ``m`` (1 for a user read from the run, ``unsampled=run``) and whether it
    has no value (``skip``: no ranking, ``unsampled=skip``)."""

    place: np.ndarray
    rel: np.ndarray
    entry: np.ndarray
    entry_user: np.ndarray
    entry_rel: np.ndarray
    entry_item: np.ndarray
    m: np.ndarray
    skip: np.ndarray
    info: dict


def _rankings(context: Context, key: str) -> RankingSamples:
    given = context.options.get(RANKINGS)
    if given is None:
        raise InputError(
            f"{key} evaluates a stochastic policy from rankings sampled from it: pass them as "
            f"{RANKINGS}=..., a table with user, sample, item and rank (or score) columns, e.g. "
            f"rv.evaluate(run, truth, [{plain(key)}], {RANKINGS}=draws); or use policy="
            "deterministic (the run's ranking) or policy=plackett_luce (from the run's scores).")
    cache = context_cache(context)
    entry = cache.get(RANKINGS)
    if entry is None or entry[0] is not given:
        entry = (given, as_rankings(given))
        cache[RANKINGS] = entry
    return entry[1]


def _grade_lookup(packed: Packed, user: np.ndarray, raw_items: np.ndarray) -> np.ndarray:
    """The truth grade of each (block user, raw item id) pair (0 when not in the truth)."""
    out = np.zeros(len(user))
    vocab = pd.Index(packed.truth_item_vocab)
    if not len(user) or not len(vocab) or not len(packed.t_items):
        return out
    code = vocab.get_indexer(pd.Index(raw_items)).astype(np.int64)
    t_items = np.asarray(packed.t_items, dtype=np.int64)
    t_user = user_of_position(np.asarray(packed.t_indptr, dtype=np.int64))
    width = len(vocab)
    t_key = t_user * width + t_items
    order = np.argsort(t_key, kind="stable")
    t_sorted = t_key[order]
    ok = code >= 0
    key = user[ok] * width + code[ok]
    at = np.minimum(np.searchsorted(t_sorted, key), len(t_sorted) - 1)
    found = t_sorted[at] == key
    grades = np.zeros(len(key))
    grades[found] = np.asarray(packed.t_rel, dtype=np.float64)[order[at[found]]]
    out[ok] = grades
    return out


def _sampled(spec: MetricSpec, packed: Packed, context: Context) -> _Sampled:
    """The block's :class:`_Sampled` rankings at the key's cutoff (``policy=samples``), built
    once per block, cutoff and ``unsampled`` (EE-L, EE-D and EE-R read the same)."""
    rk = _rankings(context, spec.key)
    cache = packed.__dict__.setdefault("_ee_sampled", {})
    key = (id(rk), spec.k, spec.get("unsampled"))
    if key not in cache:
        cache[key] = (rk, _make_sampled(spec, packed, rk))  # rk kept: its id stays unique
    return cache[key][1]


def _make_sampled(spec: MetricSpec, packed: Packed, rk: RankingSamples) -> _Sampled:
    n = len(packed.user_ids)
    for what, mine, theirs in (("user", rk.users.to_numpy(), np.asarray(packed.user_ids)),
                               ("item", rk.items, np.asarray(packed.truth_item_vocab))):
        a, b = kind_of(np.asarray(mine)), kind_of(theirs)
        if "empty" not in (a, b) and a != b:
            raise InputError(
                f"{spec.key}: the {what} ids of {RANKINGS}= are {a} but the evaluation's are "
                f"{b} (e.g. {plain(mine[0])} and {plain(theirs[0])}); use the same id type in "
                "both, e.g. .astype(str).")
    idx, lens = rk.rows_of(np.asarray(packed.user_ids))
    missing = idx < 0
    unsampled = spec.get("unsampled")
    if missing.any() and unsampled == "error":
        ex = [plain(u) for u in np.asarray(packed.user_ids)[missing][:3].tolist()]
        raise InputError(
            f"{spec.key}: {int(missing.sum())} evaluated user(s) have no ranking in "
            f"{RANKINGS}=, e.g. {', '.join(ex)}. Give their sampled rankings, or use "
            f"{plain(key_with(spec, unsampled='skip'))} to leave them out (no value) or "
            f"{plain(key_with(spec, unsampled='run'))} to evaluate their run list as a one-"
            "ranking policy.")
    rows = ranges(rk.indptr[np.maximum(idx, 0)], lens)
    user = np.repeat(np.arange(n, dtype=np.int64), lens)
    place = rk.place[rows]
    code = rk.item[rows]
    used = int(len(rows))
    if spec.k is not None:
        keep = place < spec.k
        rows, user, place, code = rows[keep], user[keep], place[keep], code[keep]
    rel = _grade_lookup(packed, user, rk.items[code])
    # entries: the distinct (user, item) pairs of the samples, in order of first appearance
    key = user * max(len(rk.items), 1) + code
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    rename = np.empty(len(first), dtype=np.int64)
    rename[by_first] = np.arange(len(first), dtype=np.int64)
    entry = rename[inv.reshape(-1)] if len(inv) else np.zeros(0, dtype=np.int64)
    head = first[by_first]
    e_user, e_rel, e_item = user[head], rel[head], rk.items[code[head]]
    m = np.where(missing, 0, rk.n_samples[np.maximum(idx, 0)]).astype(np.int64)
    skip = missing.copy()
    if missing.any() and unsampled == "run":  # the run's list: one ranking, its own entries
        indptr, pos = top_k(packed, spec.k)
        lens_run = np.diff(indptr)
        take = np.repeat(missing, lens_run)
        r_pos = pos[take]
        r_user = np.repeat(np.arange(n, dtype=np.int64), lens_run)[take]
        r_place = list_places(packed, indptr, pos)[take]
        r_rel = np.asarray(packed.rel, dtype=np.float64)[r_pos]
        r_entry = len(head) + np.arange(len(r_pos), dtype=np.int64)
        place = np.concatenate([place, r_place])
        rel = np.concatenate([rel, r_rel])
        entry = np.concatenate([entry, r_entry])
        e_user = np.concatenate([e_user, r_user])
        e_rel = np.concatenate([e_rel, r_rel])
        e_item = np.concatenate([np.asarray(e_item, dtype=object),
                                 np.asarray(packed.item_vocab[packed.items[r_pos]], dtype=object)])
        m[missing] = 1
        skip[:] = False
    info = {"sampled_users": int((~missing).sum()), "samples": int(m[~missing].sum()),
            "rankings_rows_read": used, "n_rankings_rows": int(rk.n_rows),
            "users_without_samples": int(missing.sum())}
    return _Sampled(place, rel, entry, e_user, e_rel, e_item, m, skip, info)


def expected_exposure(packed: Packed, k: int | None, model: RankWeight, graded: bool,
                      nonrelevant: str, n_items: int | None = None, policy: str = "deterministic",
                      temperature: float = 1.0,
                      groups: tuple[int, np.ndarray, np.ndarray] | None = None,
                      sampled: _Sampled | None = None, want_bounds: bool = False
                      ) -> tuple[np.ndarray, ...]:
    """(EE-D, EE-R, EE-L) of every list, its run ranking being a deterministic policy.

    The system exposure of the item at rank r is ``w_r`` (ranks beyond k: 0). The target
    exposure of a relevant item is the mean attention of the ideal positions its grade level
    occupies (items of equal grade are shuffled by the ideal policy), 0 beyond k; nonrelevant
    items have target 0, or (``nonrelevant="catalog"``, ``n_items`` = N) the N - s
    nonrelevant catalogue items of a user with s relevant ones share the attention of ideal
    ranks s+1..N (Diaz et al.'s ideal policy over the whole ranking). ``EE-D = sum_i e_i^2``,
    ``EE-R = sum_i e_i e*_i``, ``EE-L = sum_i (e_i - e*_i)^2`` over every listed, relevant or
    (``catalog``) catalogue item.

    ``policy="plackett_luce"``: the run's list is the candidate set of a stochastic policy that
    samples rankings of its items with weights ``exp(score / temperature)``; the exposure of
    an item is its expected attention ``sum_r w_r P(rank r)`` (:func:`plackett_luce_ranks`).

    ``groups``: ``(G, group of each list position, group of each truth row)`` (-1: left out):
    the exposures are summed per item group first, ``E_g = sum_{i in g} e_i`` and
    ``E*_g = sum_{i in g} e*_i``, and the three measures are taken over the G groups (the
    group expected exposure of Diaz et al., section 5, and TREC Fair Ranking 2022 task 2).

    ``sampled`` (``policy="samples"``): rankings drawn from the policy, :class:`_Sampled`; the
    exposure of an item is the mean over the user's m rankings of its attention,
    ``e_i = (1/m) sum_s w_{rank_s(i)}`` (0 in a ranking that does not hold it, or holds it
    beyond k), and the measures run over the distinct items of the rankings. With one
    ranking, the same bits as the deterministic policy of that ranking.

    ``want_bounds``: two more arrays, each user's ``||e*||^2`` and the least EE-R of any
    policy (the static ranking in ascending order of target: 0 without a catalogue), for
    :func:`ee_bounds`."""
    if sampled is not None:
        indptr = pos = np.zeros(0, dtype=np.int64)
        n = len(packed.user_ids)
        rank = sampled.place
    else:
        if policy == "plackett_luce":
            indptr = np.asarray(packed.indptr, dtype=np.int64)
            pos = np.arange(int(indptr[-1]), dtype=np.int64)
        else:
            indptr, pos = top_k(packed, k)
        n = len(indptr) - 1
        rank = list_places(packed, indptr, pos)
    # the relevant truth items of each user, grades descending (t_rel_desc is sorted)
    t_rel_all = np.asarray(packed.t_rel_desc, dtype=np.float64)
    keep = t_rel_all > 0
    t_ind = np.concatenate([[0], np.cumsum(keep)])[packed.t_indptr] if len(t_rel_all) \
        else np.zeros(n + 1, dtype=np.int64)
    t_rel = t_rel_all[keep]
    n_rel = np.diff(t_ind)
    depth = max(int(rank.max()) + 1 if len(rank) else 0, int(n_rel.max(initial=0)))
    if nonrelevant == "catalog":
        assert n_items is not None
        if int(n_rel.max(initial=0)) > n_items or depth > n_items:
            raise InputError(f"catalog={n_items}: a user has more listed or relevant items "
                             "than the catalogue holds.")
        depth = n_items if k is None else max(depth, min(k, n_items))
    ideal_depth = depth if k is None else min(depth, k)
    w_full = np.zeros(depth, dtype=np.float64)
    cascade = isinstance(model, Cascade)
    if cascade:  # the patience part; the stops of the cascade come per list below
        if policy == "plackett_luce":
            raise InputError("weight=cascade depends on the relevance of the items ranked "
                             "before each position, not on its rank alone: it has no "
                             "Plackett-Luce form here; use weight=geometric.")
        w_full[:ideal_depth] = Geometric(model.p).weights(ideal_depth)
    else:
        w_full[:ideal_depth] = model.weights(ideal_depth)  # type: ignore[call-arg]
    # grade levels: runs of equal grade in each user's ideal ranking
    tu = user_of_position(t_ind)
    trank = _ranks(t_ind)
    grade = t_rel if graded else np.ones(len(t_rel))
    first = np.ones(len(t_rel), dtype=bool)
    first[1:] = (tu[1:] != tu[:-1]) | (grade[1:] != grade[:-1])
    level = np.cumsum(first) - 1
    lo = trank[first]
    size = np.bincount(level, minlength=len(lo))
    ideal_w = w_full[trank]
    if cascade:
        assert isinstance(model, Cascade)
        t_stop = _stop(grade, model.max_grade)
        ideal_w = ideal_w * _survival(t_stop, trank)
    tgt_level = np.bincount(level, weights=ideal_w, minlength=len(lo)) / np.maximum(size, 1)
    # each listed item's target: its user's level of its grade
    rel = sampled.rel if sampled is not None else np.asarray(packed.rel, dtype=np.float64)[pos]
    lgrade = rel if graded else (rel > 0).astype(np.float64)
    lu = user_of_position(indptr)
    e = w_full[rank] if len(rank) else np.zeros(0)
    if cascade:
        assert isinstance(model, Cascade)
        e = e * _survival(_stop(np.where(rel > 0, lgrade, 0.0), model.max_grade), rank)
    if sampled is not None:  # the mean attention of each (user, item) over its user's samples
        lu = sampled.entry_user
        e = np.bincount(sampled.entry, weights=e, minlength=len(lu)) / \
            np.maximum(sampled.m, 1)[lu]
        rel = sampled.entry_rel
        lgrade = rel if graded else (rel > 0).astype(np.float64)
        rank = np.zeros(len(lu), dtype=np.int64)  # one entry per item: its places are read
    if policy == "plackett_luce":
        e = _pl_exposure(indptr, np.asarray(packed.scores, dtype=np.float64)[pos],
                         w_full[:ideal_depth], temperature)
    if nonrelevant == "drop":
        e = np.where(rel > 0, e, 0.0)
    target = np.zeros(len(rank))
    ret_level = np.zeros(len(lo), dtype=np.int64)
    lvl_key = pd.MultiIndex.from_arrays([tu[first], grade[first]])
    if len(lo) and (rel > 0).any():
        at = np.flatnonzero(rel > 0)  # the listed relevant items: their user's grade level
        idx = lvl_key.get_indexer(pd.MultiIndex.from_arrays([lu[at], lgrade[at]]))
        hit = at[idx >= 0]
        target[hit] = tgt_level[idx[idx >= 0]]
        ret_level = np.bincount(idx[idx >= 0], minlength=len(lo))
    if nonrelevant == "catalog":  # the nonrelevant items share ideal ranks s+1..N
        assert n_items is not None
        tail = np.concatenate([np.cumsum(w_full[::-1])[::-1], [0.0]])
        with np.errstate(invalid="ignore", divide="ignore"):
            t_nr = np.where(n_items > n_rel, tail[n_rel] / np.maximum(n_items - n_rel, 1), 0.0)
        if cascade:  # the reader reaches the nonrelevant tail past every relevant item
            assert isinstance(model, Cascade)
            last = t_ind[1:] - 1
            has_rel = n_rel > 0
            reach = np.ones(n)
            reach[has_rel] = (_survival(t_stop, trank)[last[has_rel]]
                              * (1.0 - t_stop[last[has_rel]]))
            t_nr = t_nr * reach
        nonrel = rel <= 0
        target[nonrel] = t_nr[lu[nonrel]]
        ret_nr = np.bincount(lu[nonrel], minlength=n)
        over = n_rel + ret_nr > n_items
        if over.any():
            u = int(np.flatnonzero(over)[0])
            raise InputError(
                f"catalog={n_items}: user {plain(packed.user_ids[u])} has "
                f"{int(n_rel[u] + ret_nr[u])} relevant or ranked items, more than the "
                "catalogue holds; give the whole catalogue's size.")
    if groups is not None:
        return _group_ee(packed, n, lu, e, groups, lvl_key if len(lo) else None, tgt_level,
                         graded)
    ee_d = np.bincount(lu, weights=e * e, minlength=n)
    ee_r = np.bincount(lu, weights=e * target, minlength=n)
    unret = (size - ret_level) * tgt_level * tgt_level
    lvl_user = tu[first]
    ee_l = np.bincount(lu, weights=(e - target) ** 2, minlength=n) + np.bincount(
        lvl_user, weights=unret, minlength=n)
    if nonrelevant == "catalog":
        ee_l = ee_l + (n_items - n_rel - ret_nr) * t_nr * t_nr
    if not want_bounds:
        return ee_d, ee_r, ee_l
    norm2 = np.bincount(lvl_user, weights=size * tgt_level * tgt_level, minlength=n)
    r_low = np.zeros(n)
    if nonrelevant == "catalog":  # targets ascending down ranks 1..N: the tail, then levels
        assert n_items is not None
        norm2 = norm2 + (n_items - n_rel) * t_nr * t_nr
        cw = np.concatenate([[0.0], np.cumsum(w_full)])  # attention above each rank

        def above(r: np.ndarray) -> np.ndarray:
            return cw[np.minimum(r, len(cw) - 1)]

        end = n_items - lo  # a level's reversed ranks: end - size .. end - 1
        r_low = np.bincount(lvl_user, weights=tgt_level * (above(end) - above(end - size)),
                            minlength=n) + t_nr * above(n_items - n_rel)
    return ee_d, ee_r, ee_l, norm2, r_low


def _group_ee(packed: Packed, n: int, lu: np.ndarray, e: np.ndarray,
              groups: tuple[int, np.ndarray, np.ndarray], lvl_key: pd.MultiIndex | None,
              tgt_level: np.ndarray, graded: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EE-D, EE-R, EE-L over item groups: system and target exposure summed per group."""
    n_g, g_pos, g_truth = groups
    ok = g_pos >= 0
    sys_g = np.bincount(lu[ok] * n_g + g_pos[ok], weights=e[ok], minlength=n * n_g)
    t_rel = np.asarray(packed.t_rel, dtype=np.float64)
    t_user = user_of_position(np.asarray(packed.t_indptr, dtype=np.int64))
    rel_ok = (t_rel > 0) & (g_truth >= 0)
    tgt_g = np.zeros(n * n_g)
    if lvl_key is not None and rel_ok.any():
        grade = t_rel[rel_ok] if graded else np.ones(int(rel_ok.sum()))
        idx = lvl_key.get_indexer(pd.MultiIndex.from_arrays([t_user[rel_ok], grade]))
        tgt_g = np.bincount(t_user[rel_ok] * n_g + g_truth[rel_ok], weights=tgt_level[idx],
                            minlength=n * n_g)
    sys_g, tgt_g = sys_g.reshape(n, n_g), tgt_g.reshape(n, n_g)
    return ((sys_g * sys_g).sum(axis=1), (sys_g * tgt_g).sum(axis=1),
            ((sys_g - tgt_g) ** 2).sum(axis=1))


def _ee_groups(spec: MetricSpec, packed: Packed, context: Context,
               sampled: _Sampled | None = None) -> tuple[int, np.ndarray, np.ndarray]:
    """(G, group of each list position (``sampled``: of each sampled item), group of each
    truth row) for ``level=group``."""
    if spec.get("nonrelevant") == "catalog":
        raise InputError(f"{spec.key}: level=group sums the exposure of the listed and relevant "
                         "items per group; nonrelevant=catalog (every catalogue item) is "
                         "not available per group: use nonrelevant=count or drop.")
    missing = spec.get("missing")
    groups = _item_groups(context, spec.key)
    if sampled is None:
        g_pos = _listed_groups(spec, packed, context, missing, whole=True)[1]
    else:
        g_pos = _group_codes(groups, sampled.entry_item)
        if missing == "error" and (g_pos < 0).any():
            ex = list(dict.fromkeys(sampled.entry_item[g_pos < 0][:50].tolist()))
            raise InputError(
                f"{spec.key}: {int((g_pos < 0).sum())} sampled item(s) of {RANKINGS}= have no "
                f"group in item_groups, e.g. {plain(ex[:3])}. Give them a group, or use "
                f"{plain(key_with(spec, missing='skip'))} to leave them out.")
    truth_codes = _group_codes(groups, packed.truth_item_vocab)
    g_truth = truth_codes[packed.t_items] if len(packed.t_items) else np.zeros(0, np.int64)
    bad = (g_truth < 0) & (np.asarray(packed.t_rel) > 0)
    if bad.any() and missing == "error":
        ex = list(dict.fromkeys(packed.truth_item_vocab[packed.t_items[bad]][:50].tolist()))
        raise InputError(
            f"{spec.key}: {int(bad.sum())} relevant truth item(s) have no group in item_groups, "
            f"e.g. {plain(ex[:3])}. Give them a group, or use "
            f"{plain(key_with(spec, missing='skip'))} to leave them out.")
    return groups.n_groups, g_pos, g_truth


def _explicit_catalog(spec: MetricSpec, packed: Packed, context: Context) -> int:
    """The catalogue size N: the key's ``n_items``, else an explicit ``catalog=`` (a count or
    an id list: the same in every block of users)."""
    if spec.get("n_items") is not None:
        return int(spec.get("n_items"))
    if context.catalog is None or isinstance(context.catalog, str):
        raise InputError(
            f"{spec.key} needs the catalogue size N (its nonrelevant items share the ideal "
            f"ranks after the relevant ones): write it in the key, e.g. "
            f"{plain(key_with(spec, n_items=10_000))}, or pass catalog=N (a count) or the "
            f"catalogue's item ids to evaluate().")
    counts = np.zeros(len(packed.item_vocab), dtype=np.int64)
    return int(catalog_of(context, packed, counts, key=spec.key).size)


def _check_size(spec: MetricSpec, packed: Packed, n: int) -> None:
    """Refuse ``n_items`` below what a user occupies: its listed positions read plus its
    relevant truth items outside them (:func:`receval.metrics.catalogue.check_catalogue`)."""
    indptr, pos = top_k(packed, spec.k)
    n_users = len(indptr) - 1
    listed = np.diff(indptr)
    hits = np.bincount(user_of_position(indptr)[packed.rel[pos] > 0],
                       minlength=n_users) if len(pos) else np.zeros(n_users)
    owner = np.repeat(np.arange(n_users), np.diff(packed.t_indptr))
    relevant = np.bincount(owner[packed.t_rel > 0], minlength=n_users)
    check_catalogue(spec.key, f"n_items={n}", n, listed, relevant - hits, packed.user_ids)


def _check_bounds(spec: MetricSpec) -> None:
    """``normalize=bounds`` takes Diaz et al.'s bounds over every policy whose rankings give
    each item the attention of its rank: refused where that is not the model."""
    why = None
    if spec.get("weight") == "cascade":
        why = "the cascade's attention depends on the relevance ranked before each position"
    elif spec.get("level") == "group":
        why = "the bounds over item groups depend on the groups' sizes (Diaz et al. give none)"
    elif spec.get("nonrelevant") == "drop":
        why = "nonrelevant=drop gives nonrelevant items no exposure, so no ranking reaches them"
    elif spec.k is None and spec.get("nonrelevant") != "catalog" and \
            spec.get("weight") != "geometric":
        why = (f"weight={spec.get('weight')} over an unbounded ranking has an infinite sum of "
               "squared attention; give a cutoff k or nonrelevant=catalog")
    if why:
        raise InputError(f"{spec.key}: normalize=bounds is not available here: {why}. Leave "
                         f"normalize out for the raw value: {plain(key_with(spec, normalize='none'))}.")


#: ranks whose weights the bounds sum one by one; deeper ones take a closed form
_SUMMED_RANKS = 1 << 22


def _weight_sums(model: RankWeight, depth: int) -> tuple[float, float]:
    """``(S2, W) = (sum_r w_r^2, sum_r w_r)`` over ranks 1..depth: summed weight by weight up to
    :data:`_SUMMED_RANKS` ranks, deeper in closed form (geometric: ``c^2 (1 - p^(2d)) /
    (1 - p^2)`` and ``c (1 - p^d) / (1 - p)``, ``c = 1 - p`` when normalised, else 1;
    uniform: ``d`` and ``d``); DCG's log attention has none and is refused there."""
    if depth <= _SUMMED_RANKS:
        w = model.weights(depth)  # type: ignore[call-arg]
        return float(np.sum(w * w)), float(np.sum(w))
    if isinstance(model, Geometric):
        p, c = model.p, (1.0 - model.p) if model.normalize else 1.0
        log_p = math.log(p)
        return (c * c * -math.expm1(2.0 * depth * log_p) / (1.0 - p * p),
                c * -math.expm1(depth * log_p) / (1.0 - p))
    if isinstance(model, Uniform):
        return float(depth), float(depth)
    raise InputError(
        f"normalize=bounds sums the {model.name} attention of every rank down to the cutoff "
        f"({depth:,} ranks), which has no closed form: give a cutoff of at most "
        f"{_SUMMED_RANKS:,} ranks or the catalogue (nonrelevant=catalog), or use "
        "weight=geometric or uniform.")


def ee_bounds(part: int, model: RankWeight, k: int | None, n_items: int | None,
              norm2: np.ndarray, r_low: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(least, greatest) value of EE-D (``part`` 0), EE-R (1) or EE-L (2) over every stochastic
    policy of each user (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020; the bounds of
    ``expeval/metrics.py``). Attention ``w_r`` is non-increasing and 0 beyond k;
    ``S2 = sum_r w_r^2``, ``W = sum_r w_r``; ``norm2 = ||e*||^2``; ``r_low``: the EE-R of the
    static ranking in ascending order of target.

    - Over the N items of a catalogue (``n_items``: expeval's complete judgments): EE-D in
      ``[W^2 / N, S2]`` (the uniform policy; any static ranking), EE-R in
      ``[r_low, ||e*||^2]`` (the reversed ideal ranking; the ideal policy, whose EE-R is
      ``||e*||^2``), EE-L in ``[0, S2 - 2 r_low + ||e*||^2]``.
    - Over an unbounded candidate set (the retrieval setting): EE-D in ``[0, S2]``, EE-R in
      ``[0, ||e*||^2]``, EE-L in ``[0, S2 + ||e*||^2]`` (k nonrelevant items on top). expeval's
      code takes ``sum_r w_r`` for the ``S2`` of this EE-L bound; its comment, and this
      function, ``sum_r w_r^2``.

    Every bound is reached by some policy over the candidate set."""
    n = len(norm2)
    if n_items is not None:
        s2, total = _weight_sums(model, n_items if k is None else min(k, n_items))
        d_low = total * total / n_items
    elif k is not None:
        s2, d_low = _weight_sums(model, k)[0], 0.0
    else:
        assert isinstance(model, Geometric)
        scale = (1.0 - model.p) ** 2 if model.normalize else 1.0
        s2, d_low = scale / (1.0 - model.p * model.p), 0.0
    if part == 0:
        return np.full(n, d_low), np.full(n, s2)
    if part == 1:
        return r_low, norm2
    return np.zeros(n), s2 - 2.0 * r_low + norm2


def _ee(part: int):
    def compute(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
        n_items = None
        sampled = _sampled(spec, packed, context) if spec.get("policy") == "samples" else None
        if spec.get("n_items") is not None and sampled is None:  # below a list: refused
            _check_size(spec, packed, int(spec.get("n_items")))
        if spec.get("nonrelevant") == "catalog":
            n_items = _explicit_catalog(spec, packed, context)
        groups = _ee_groups(spec, packed, context, sampled) \
            if spec.get("level") == "group" else None
        binary = spec.get("grades") == "binary"
        model = weight_of(spec, 1.0 if binary else max(float(packed.max_rel), 1.0))
        bounded = spec.get("normalize") == "bounds"
        if bounded:
            _check_bounds(spec)
        out = expected_exposure(packed, spec.k, model, spec.get("grades") == "graded",
                                spec.get("nonrelevant"), n_items, spec.get("policy"),
                                spec.get("temperature"), groups, sampled, bounded)
        values = out[part] + 0.0
        if bounded:
            low, high = ee_bounds(part, model, spec.k, n_items, out[3], out[4])
            with np.errstate(invalid="ignore", divide="ignore"):
                values = np.where(high > low, np.clip((values - low) / (high - low), 0.0, 1.0),
                                  np.nan)
        if sampled is None:
            empty = np.diff(packed.indptr) == 0
            info = {"users_without_list": int(empty.sum())}
        else:  # a user read from the run (unsampled=run) may have an empty list
            empty = np.bincount(sampled.entry_user, minlength=len(values)) == 0
            values[sampled.skip] = np.nan
            info = {"users_without_list": int((empty & ~sampled.skip).sum()), **sampled.info}
        if part != 1:  # an empty list has no disparity and only the target's loss: no value
            values[empty] = np.nan
        return MetricValues(values, info=info)
    return compute


_EE_PARAMS = (Param("weight", "geometric", WEIGHT.doc + " | cascade = p^(r-1) prod_{j<r} "
                    "(1 - (2^g_j - 1) / 2^max_grade) (ERR's cascade: the GERR user model of Diaz "
                    "et al.)", (*(WEIGHT.choices or ()), "cascade")), _patience(0.5),
              Param("max_grade", None, "weight=cascade: the largest grade of the relevance "
                    "scale (ERR's g_max; default: the truth's largest relevance, as err; 1 with "
                    "grades=binary)",
                    kind=float, low=0.0, low_open=True),
              Param("grades", "graded", "graded = items of equal grade share the ideal "
                    "positions of their level | binary = every relevant item one level",
                    ("graded", "binary")),
              Param("nonrelevant", "count", "count = listed nonrelevant items keep their "
                    "exposure, target 0 | drop = only relevant items carry exposure (TREC "
                    "Fair 2022 only_rel) | catalog = the N - s nonrelevant items of the "
                    "catalogue (catalog=N) share the attention of ideal ranks s+1..N (Diaz "
                    "et al.'s ideal policy over every item)", ("count", "drop", "catalog")),
              Param("n_items", None, "nonrelevant=catalog: the catalogue size N (default: "
                    "evaluate(catalog=...) given as a count or an id list)", kind=int, low=1.0),
              Param("policy", "deterministic", "deterministic = the run's ranking | "
                    "plackett_luce = a stochastic policy over the items of the user's whole "
                    "list with weights exp(score / temperature) (a rank run: score = -rank); "
                    "exposure = expected attention, computed exactly (no sampling) | "
                    "samples = the rankings drawn from a policy given as rankings= (user, "
                    "sample, item, rank or score rows): exposure = the mean attention over "
                    "the user's samples (Diaz et al.'s expeval, TREC Fair 2022 sequences)",
                    ("deterministic", "plackett_luce", "samples")),
              Param("normalize", "none", "none = the raw value | bounds = (x - lo) / (hi - "
                    "lo) between the least and greatest value of any stochastic policy over "
                    "the candidate items (Diaz et al.'s normalisation, expeval: the catalogue "
                    "of N items with nonrelevant=catalog, else an unbounded candidate set); "
                    "NaN where lo = hi", ("none", "bounds")),
              Param("unsampled", "error", "policy=samples: an evaluated user without a ranking "
                    "in rankings=: error | skip (no value, counted in users_without_samples) | "
                    "run (the user's run list as a one-ranking policy)",
                    ("error", "skip", "run")),
              Param("temperature", 1.0, "Plackett-Luce temperature T (policy=plackett_luce)",
                    kind=float, low=0.0, low_open=True),
              Param("level", "item", "item = over items (individual expected exposure) | "
                    "group = over the item groups of item_groups= (the exposures summed per "
                    "group, Diaz et al. section 5; TREC Fair 2022 task 2)", ("item", "group")),
              Param("missing", "error", "level=group: listed or relevant items without a "
                    "group: error | skip (left out)", ("error", "skip")))


def _reads_whole_list(spec: MetricSpec) -> bool:
    """A Plackett-Luce policy ranks every item of the list, whatever the cutoff."""
    return spec.get("policy") == "plackett_luce"


_EE_KW: dict[str, Any] = {"whole_list": _reads_whole_list}
_EE_DOC = (" The run's ranking is a deterministic policy (one ranking per user; policy="
           "plackett_luce: a Plackett-Luce policy over the list's items from its scores, its "
           "expected attention computed exactly; policy=samples: rankings drawn from a "
           "policy, given as rankings=, each item's exposure its mean attention over the "
           "user's samples, e_i = (1/m) sum_s w_{rank_s(i)}); rank r gets "
           "attention w_r (weight=geometric, p=0.5: the RBP user model of Diaz et al.), 0 beyond "
           "k. The target exposure e*_i of a relevant item is the mean attention of the ideal "
           "positions its grade level occupies (the ideal policy shuffles equally relevant "
           "items), nonrelevant items 0. Diaz, Mitra, Ekstrand, Biega & Carterette, 'Evaluating "
           "stochastic rankings with expected exposure', CIKM 2020 (github.com/diazf/"
           "expected-exposure); EE-L = EE-D - 2 EE-R + ||e*||^2. A user without a listed item "
           "has no EE-L or EE-D (NaN, left out: an empty list would otherwise beat any list "
           "that exposes a nonrelevant item) and EE-R 0. normalize=bounds: (x - lo) / (hi - "
           "lo) between the least and greatest value of any policy over the candidate items "
           "(Diaz et al.; expeval/metrics.py), e.g. EE-D between the uniform policy's W^2 / N "
           "and a static ranking's sum_r w_r^2.")

register(beyond_metric(
    "ee_loss", "Expected exposure loss EE-L@k", "sum_i (e_i - e*_i)^2",
    "Squared distance between the exposure the run gives each item and the exposure an "
    "ideal policy gives it. Lower is better." + _EE_DOC,
    _ee(2), _EE_PARAMS, bounds=(0.0, None), higher_is_better=False,
    reference="Diaz et al., CIKM 2020", **_EE_KW,
    example="one relevant item a, list [b, a], p = 1/2: (1 - 0)^2 + (1/2 - 1)^2 = 5/4",
), ("ee_l", "eel"))

register(beyond_metric(
    "ee_disparity", "Expected exposure disparity EE-D@k", "sum_i e_i^2",
    "How unequally the run spreads exposure over items (lower: more equal)." + _EE_DOC,
    _ee(0), _EE_PARAMS, bounds=(0.0, None), higher_is_better=False,
    reference="Diaz et al., CIKM 2020", **_EE_KW, example="list [b, a], p = 1/2: 1 + 1/4 = 5/4",
), ("ee_d", "eed"))

register(beyond_metric(
    "ee_relevance", "Expected exposure relevance EE-R@k", "sum_i e_i e*_i",
    "How much of the run's exposure goes where the ideal policy puts it." + _EE_DOC,
    _ee(1), _EE_PARAMS, bounds=(0.0, None), reference="Diaz et al., CIKM 2020", **_EE_KW,
    example="one relevant item a, list [b, a], p = 1/2: 1/2 * 1 = 1/2",
), ("ee_r", "eer"))
