"""Beyond-accuracy metrics as plugin metric families of :func:`receval.evaluate`.

Importing this module registers them. Each ``compute(spec, packed, context)`` reads the
evaluated users' lists from the packed run (cut at the metric's k), and the optional inputs
``train=``, ``item_features=`` and ``catalog=`` from the evaluation context:

>>> import receval as rv, receval.beyond.registered  # doctest: +SKIP
>>> rv.evaluate(run, truth, ["coverage@10", "gini@10", "ild@10", "novelty@10"],
...             train=train, item_features=features)  # doctest: +SKIP

Catalogue-level metrics (coverage, dist_coverage, entropy, gini, tail_share, personalization)
have one value for the whole run (no per-user column); they are built from mergeable partial
states over blocks of users. Per-user metrics are NaN where undefined (e.g. ILD of a list with
fewer than two items, novelty of an empty list) and left out of the mean; ``info`` says how many.
Only the lists of evaluated users count (see the ``users`` policy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..metrics.spec import MetricDef, MetricSpec, Param, metric, register
from ..pack.packed import Packed
from . import listpairs
from ._lists import blocks, cut, ranges, select
from .catalogue import (
    LOG_BASES,
    ExposureState,
    catalog_coverage,
    effective_coverage,
    entropy,
    gini,
    tail_share,
)
from .categories import ItemCategories, as_item_categories, list_categories
from .diversity import Similarity, history_similarity, pair_sums
from .inputs import (
    Catalog,
    ItemFeatures,
    TrainData,
    as_item_features,
    as_train,
    cooccurrence_features,
    resolve_catalog,
)
from .personalization import PersonalizationState
from .popularity import list_mean, self_information, tail_mask
from .runs import OPTION as BASELINE
from .runs import paired_lists
from .serendipity import expected_by_popularity, serendipity

BLOCK_USERS = 1 << 18  # users per partial state of catalogue metrics

# ----------------------------------------------------------------------------- parameters
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
POP = Param("pop", "rows",
            "training popularity phi(i): rows = interactions of i (p = phi / rows) | users = "
            "distinct users of i (p = phi / users)", ("rows", "users"))
HEAD = Param("head", 0.2,
             "share of the training items (most popular first, ties included) that form the "
             "head; the rest, and items unseen in training, are the long tail (head=1: "
             "only unseen items are)",
             kind=float, low=0.0, high=1.0, low_open=True)
TAIL_UNSEEN = Param("unseen", "tail",
                    "items absent from training: tail (long tail, default) | head (not long "
                    "tail: RecBole TailPercentage counts training items only)", ("tail", "head"))
TAIL_MAX = Param("tail_max", None,
                 "when given, the long tail is every training item seen at most tail_max times "
                 "(RecBole TailPercentage with tail_ratio > 1), instead of the items outside the "
                 "head share", kind=float, low=0.0)
SHORT = Param("short", "skip",
              "lists with fewer than two items (after missing=skip): skip = no value (NaN, left "
              "out of the mean) | one_item = a one-item list scores ILD 0 / ILS 1 and an empty "
              "list is left out (RecTools IntraListDiversity, LensKit ILS) | zero = one-item "
              "and empty lists score ILD 0 / ILS 1 (RecPack IntraListDiversityK)",
              ("skip", "one_item", "zero"))
REL = Param("rel", 1.0, "relevance threshold: truth items with relevance >= rel are relevant",
            kind=float, low=0.0, low_open=True)
OVER = Param("over", "catalog",
             "items n counted: catalog = every catalogue item (unrecommended ones have zero "
             "exposure) | recommended = only items with exposure", ("catalog", "recommended"))


# ----------------------------------------------------------------------------- helpers
def _cache(context: Context) -> dict:
    return context.__dict__.setdefault("_beyond_cache", {})


def _cut(packed: Packed, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, positions into the packed arrays) of the first k items of every list."""
    return cut(packed.indptr, k)


def _train(context: Context, key: str) -> TrainData:
    cache = _cache(context)
    train = context.require("train", key)
    if cache.get("train_src") is not train:
        cache["train_src"] = train
        cache["train"] = as_train(train)
    return cache["train"]


def _per_vocab(context: Context, packed: Packed, name: str, make) -> Any:
    """Per-run cached array aligned with ``packed.item_vocab``."""
    cache = _cache(context)
    entry = cache.get(name)
    if entry is None or entry[0] is not packed.item_vocab:
        entry = (packed.item_vocab, make())
        cache[name] = entry
    return entry[1]


def _train_index(context: Context, packed: Packed, key: str) -> np.ndarray:
    tr = _train(context, key)

    def make() -> np.ndarray:
        if not len(packed.item_vocab):
            return np.zeros(0, dtype=np.int64)
        idx = pd.Index(tr.items).get_indexer(pd.Index(packed.item_vocab)).astype(np.int64)
        if len(tr.items) and (idx < 0).all():
            raise InputError(
                f"{key}: no recommended item occurs in train (run item ids look like "
                f"{packed.item_vocab[:2].tolist()}, train item ids like {tr.items[:2].tolist()}); "
                "use the same id type in both, e.g. .astype(str)."
            )
        return idx

    return _per_vocab(context, packed, "train_index", make)


def _popularity(context: Context, packed: Packed, key: str, pop: str) -> np.ndarray:
    """Training popularity of each run-vocabulary item (0 when unseen in training)."""
    tr = _train(context, key)
    idx = _train_index(context, packed, key)
    counts = tr.popularity(pop)
    return np.where(idx >= 0, counts[np.maximum(idx, 0)] if len(counts) else 0, 0)


def _tail(context: Context, packed: Packed, spec: MetricSpec) -> np.ndarray:
    mask_train = _tail_train(context, spec)
    idx = _train_index(context, packed, spec.key)
    unseen = spec.get("unseen") == "tail"
    return np.where(idx >= 0, mask_train[np.maximum(idx, 0)] if len(mask_train) else unseen,
                    unseen)


def _tail_train(context: Context, spec: MetricSpec) -> np.ndarray:
    """Long-tail mask of the training items (head share, or tail_max)."""
    tr = _train(context, spec.key)
    top = spec.get("tail_max")
    return tail_mask(tr.popularity(spec.get("pop")), head=float(spec.get("head")),
                     max_count=None if top is None else float(top))


def _catalog(context: Context, packed: Packed, counts: np.ndarray,
             outside: str = "error") -> Catalog:
    train_items = None
    if context.train is not None:
        train_items = _train(context, "catalog").items
    recommended = packed.item_vocab[np.flatnonzero(counts > 0)]
    return resolve_catalog(context.catalog, run_items=packed.item_vocab,
                           truth_items=packed.truth_item_vocab, train_items=train_items,
                           recommended=recommended, outside=outside)


def _outside_items(cat: Catalog, packed: Packed, counts: np.ndarray) -> np.ndarray:
    """Mask over the run's item codes: recommended items that are not in the catalogue (none
    when the catalogue is a count, which has no ids)."""
    out = np.zeros(len(counts), dtype=bool)
    if cat.ids is not None and len(counts):
        rec = np.flatnonzero(counts > 0)
        out[rec] = cat.ids.get_indexer(pd.Index(packed.item_vocab[rec])) < 0
    return out


def _exposure(packed: Packed, k: int | None, tail: np.ndarray | None = None,
              context: Context | None = None) -> ExposureState:
    """Exposure counts over the run vocabulary, merged from blocks of users.

    Without a tail mask the state is cached per run and cutoff (coverage, Gini and entropy at
    the same k share it).
    """
    if context is not None and tail is None:
        cache = _cache(context)
        entry = cache.get(("exposure", k))
        if entry is None or entry[0] is not packed.items:
            entry = (packed.items, _exposure(packed, k))
            cache[("exposure", k)] = entry
        return entry[1]
    indptr, pos = _cut(packed, k)
    items = packed.items[pos]
    state = ExposureState(np.zeros(len(packed.item_vocab), dtype=np.int64))
    for lo, hi in blocks(len(indptr) - 1, BLOCK_USERS):
        ip = indptr[lo:hi + 1] - indptr[lo]
        # packed lists never repeat an item (duplicates are rejected or removed when packing)
        part = ExposureState.from_lists((ip, items[indptr[lo]:indptr[hi]]),
                                        n_items=len(packed.item_vocab), tail=tail,
                                        assume_distinct=True)
        state = state.merge(part)
    return state


def _features(context: Context, spec: MetricSpec) -> ItemFeatures:
    if spec.get("source") == "cooccurrence":
        cache = _cache(context)
        tr = _train(context, spec.key)
        if cache.get("cooc_src") is not tr:
            cache["cooc_src"] = tr
            cache["cooc"] = cooccurrence_features(tr)
        return cache["cooc"]
    raw = context.require("item_features", spec.key)
    cache = _cache(context)
    if cache.get("feat_src") is not raw:
        cache["feat_src"] = raw
        cache["feat"] = as_item_features(raw)
    return cache["feat"]


def _similarity(context: Context, spec: MetricSpec, feats: ItemFeatures) -> Similarity:
    sim: Any = spec.get("sim")
    if sim == "custom":
        sim = context.options.get("similarity")
        if not callable(sim):
            raise InputError(
                f"{spec.key} needs a similarity function: pass evaluate(..., similarity=fn) "
                "with fn(Xa, Xb) returning one similarity per row pair."
            )
    cache = _cache(context)
    key = ("sim", id(feats), sim if isinstance(sim, str) else id(sim))
    entry = cache.get(key)
    if entry is None or entry[0] is not feats:
        entry = (feats, Similarity(feats, sim))
        cache[key] = entry
    return entry[1]


def _rows(context: Context, packed: Packed, spec: MetricSpec, feats: ItemFeatures
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, feature rows, packed positions) of the top-k lists, per the missing policy."""
    indptr, pos = _cut(packed, spec.k)
    vocab_rows = _per_vocab(context, packed, ("rows", id(feats)),
                            lambda: feats.rows(packed.item_vocab))
    rows = vocab_rows[packed.items[pos]]
    bad = rows < 0
    if bad.any():
        if spec.get("missing") == "error":
            ex = list(dict.fromkeys(packed.item_vocab[packed.items[pos[bad]]][:50].tolist()))
            raise InputError(
                f"{spec.key}: {int(bad.sum())} recommended position(s) hold items without "
                f"features, e.g. {ex[:3]}. Add their features, or use "
                f"{plain(_with(spec, missing='skip'))} to leave them out of the lists."
            )
        indptr = select(indptr, ~bad)
        rows, pos = rows[~bad], pos[~bad]
    return indptr, rows, pos


def _history(context: Context, packed: Packed, spec: MetricSpec, feats: ItemFeatures
             ) -> tuple[np.ndarray, np.ndarray]:
    """Each evaluated user's training items as feature rows, CSR aligned with packed users."""
    tr = _train(context, spec.key)
    code = pd.Index(tr.users).get_indexer(pd.Index(packed.user_ids)) if len(tr.users) \
        else np.full(len(packed.user_ids), -1)
    if len(tr.users) and len(code) and (code < 0).all():
        raise InputError(
            f"{spec.key}: no evaluated user occurs in train (user ids look like "
            f"{packed.user_ids[:2].tolist()}, train user ids like {tr.users[:2].tolist()}); "
            "use the same id type in both."
        )
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
                f"{plain(_with(spec, missing='skip'))}."
            )
        h_indptr = select(h_indptr, ~bad)
        rows = rows[~bad]
    return h_indptr, rows


def _with(spec: MetricSpec, **params: Any) -> str:
    """Key of ``spec`` with some parameters changed."""
    return metric(spec.name, spec.k, **{**dict(spec.params), **params}).key


def _undefined(values: np.ndarray) -> dict:
    return {"undefined_users": int(np.isnan(values).sum())}


# ----------------------------------------------------------------------------- compute functions
def _coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = _exposure(packed, spec.k, context=context)
    if spec.get("kind") == "count":
        return MetricValues(None, catalog_coverage(state.counts, kind="count"),
                            {"recommended_items": int((state.counts > 0).sum())})
    rule = spec.get("outside")
    cat = _catalog(context, packed, state.counts, rule)
    outside = _outside_items(cat, packed, state.counts)
    covered = int((state.counts > 0).sum())
    info = {"catalog": cat.source, "catalog_size": cat.size, "recommended_items": covered,
            "outside_catalog": int(outside.sum())}
    if rule == "ignore":
        covered -= int(outside.sum())
    return MetricValues(None, covered / cat.size, info)


def _dist_coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = _exposure(packed, spec.k, context=context)
    cat = _catalog(context, packed, state.counts)
    return MetricValues(None, effective_coverage(state.counts, cat.size),
                        {"catalog": cat.source, "catalog_size": cat.size})


def _entropy(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = _exposure(packed, spec.k, context=context)
    if spec.get("normalize") == "distinct":  # RecBole ShannonEntropy: H / distinct items
        seen = state.counts[state.counts > 0]
        h = entropy(seen, base=LOG_BASES[spec.get("base")])
        return MetricValues(None, h / len(seen) if len(seen) else float("nan"),
                            {"base": spec.get("base"), "recommended_items": int(len(seen))})
    normalize = spec.get("normalize") == "true"
    info: dict[str, Any] = {"base": spec.get("base")}
    n = None
    if normalize and spec.get("over") == "catalog":
        cat = _catalog(context, packed, state.counts)
        n = cat.size
        info.update(catalog=cat.source, catalog_size=cat.size)
    value = entropy(state.counts[state.counts > 0] if n is None else state.counts, n,
                    base=LOG_BASES[spec.get("base")], normalize=normalize,
                    over=spec.get("over") if normalize else "catalog")
    return MetricValues(None, value, info)


def _gini(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = _exposure(packed, spec.k, context=context)
    info: dict[str, Any] = {}
    if spec.get("over") == "catalog":
        cat = _catalog(context, packed, state.counts)
        n = cat.size
        info.update(catalog=cat.source, catalog_size=cat.size)
    else:
        n = None
    return MetricValues(None, gini(state.counts, n, denominator=spec.get("denominator"),
                                   over=spec.get("over")), info)


def _user_coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = _cut(packed, spec.k)
    n = len(indptr) - 1
    if spec.get("kind") == "list":
        return MetricValues((np.diff(indptr) > 0).astype(np.float64))
    hit = packed.rel[pos] >= float(spec.get("rel"))
    user = np.repeat(np.arange(n), np.diff(indptr))
    return MetricValues((np.bincount(user[hit], minlength=n) > 0).astype(np.float64))


def _tail_share(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tail = _tail(context, packed, spec)
    state = _exposure(packed, spec.k, tail=tail)
    return MetricValues(None, tail_share(state),
                        {"tail_items_in_train": int(_tail_train(context, spec).sum()),
                         "slots": state.slots})


def _aplt(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tail = _tail(context, packed, spec)
    indptr, pos = _cut(packed, spec.k)
    values = list_mean(indptr, tail[packed.items[pos]].astype(np.float64))
    return MetricValues(values, info=_undefined(values))


def _arp(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    pop = _popularity(context, packed, spec.key, spec.get("pop")).astype(np.float64)
    if spec.get("normalize") == "share":  # phi(i) / N (RecTools AvgRecPopularity(normalize))
        pop = pop / max(_train(context, spec.key).total(spec.get("pop")), 1)
    indptr, pos = _cut(packed, spec.k)
    values = list_mean(indptr, pop[packed.items[pos]])
    return MetricValues(values, info=_undefined(values))


def _novelty(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tr = _train(context, spec.key)
    pop_name = spec.get("pop")
    pop = _popularity(context, packed, spec.key, pop_name)
    indptr, pos = _cut(packed, spec.k)
    try:
        info_bits = self_information(pop[packed.items[pos]], tr.total(pop_name),
                                     unseen=spec.get("unseen"),
                                     base=LOG_BASES[spec.get("base")])
    except InputError as exc:
        raise InputError(f"{spec.key}: {exc}") from None
    if spec.get("normalize") == "max":  # -log_N p(i): 1 for an item seen once (RePlay)
        total = tr.total(pop_name)
        if total < 2:
            raise InputError(f"{spec.key}: normalize=max divides by log(N), N = {total} training "
                             f"{pop_name}; it needs N >= 2. Use normalize=none.")
        info_bits = info_bits / (np.log(total) / np.log(LOG_BASES[spec.get("base")]))
    values = list_mean(indptr, info_bits)
    if spec.get("denominator") == "k" and spec.k is not None:  # sum over the list / k
        ok = ~np.isnan(info_bits)
        user = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        values = np.bincount(user[ok], weights=info_bits[ok], minlength=len(indptr) - 1) / spec.k
    info = _undefined(values)
    info["unseen_positions"] = int((pop[packed.items[pos]] == 0).sum())
    return MetricValues(values, info=info)


def _ils_values(spec: MetricSpec, packed: Packed, context: Context, short: str = "skip"
                ) -> np.ndarray:
    """ILS per list; ``short``: the value of lists with fewer than two items (``SHORT``)."""
    feats = _features(context, spec)
    sim = _similarity(context, spec, feats)
    indptr, rows, _ = _rows(context, packed, spec, feats)
    total, _ = pair_sums(indptr, rows, sim)
    lens = np.diff(indptr).astype(np.float64)
    npairs = lens * (lens - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(npairs > 0, total / np.maximum(npairs, 1), np.nan)
    if short != "skip":  # no pair: the ILS of an item with itself, 1 (ILD 0)
        values[(lens == 1) | ((lens == 0) & (short == "zero"))] = 1.0
    return values


def _ils(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    values = _ils_values(spec, packed, context, spec.get("short"))
    return MetricValues(values, info=_undefined(values))


def _ild(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    values = 1.0 - _ils_values(spec, packed, context, spec.get("short"))
    return MetricValues(values, info=_undefined(values))


def _sim_novelty(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    feats = _features(context, spec)
    sim = _similarity(context, spec, feats)
    indptr, rows, _ = _rows(context, packed, spec, feats)
    if spec.get("reference") == "list":
        # mean_i 1/(L-1) sum_{j != i} (1 - sim_ij) = 1 - 2/(L(L-1)) sum_{i<j} sim_ij = ILD
        values = 1.0 - _ils_values(spec, packed, context)
        return MetricValues(values, info=_undefined(values))
    else:
        h_indptr, h_rows = _history(context, packed, spec, feats)
        nov = 1.0 - history_similarity(indptr, rows, h_indptr, h_rows, sim)
    values = list_mean(indptr, nov)
    return MetricValues(values, info=_undefined(values))


def _serendipity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    k = spec.k
    if spec.get("unexpected") == "popularity":
        top = spec.get("top") or k
        if top is None:
            raise InputError(f"{spec.key}: without a cutoff, give the popular list size, e.g. "
                             "serendipity(unexpected=popularity,top=10).")
        # popularity ranks are over training items; items unseen in training are unexpected
        tr = _train(context, spec.key)
        exp_train = expected_by_popularity(tr.popularity(spec.get("pop")), top=int(top))
        idx = _train_index(context, packed, spec.key)
        expected = np.where(idx >= 0, exp_train[np.maximum(idx, 0)] if len(exp_train) else False,
                            False)
        indptr, pos = _cut(packed, k)
        unexp = (~expected[packed.items[pos]]).astype(np.float64)
    else:
        feats = _features(context, spec)
        sim = _similarity(context, spec, feats)
        indptr, rows, pos = _rows(context, packed, spec, feats)
        h_indptr, h_rows = _history(context, packed, spec, feats)
        unexp = 1.0 - history_similarity(indptr, rows, h_indptr, h_rows, sim)
    relevant = packed.rel[pos] >= float(spec.get("rel"))
    values = serendipity(indptr, relevant, unexp, k=k)
    if spec.get("unexpected") == "history":
        values[np.diff(h_indptr) == 0] = np.nan  # no history: unexpectedness undefined
    return MetricValues(values, info=_undefined(values))


def _personalization(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = _cut(packed, spec.k)
    items = packed.items[pos]
    state = PersonalizationState()
    for lo, hi in blocks(len(indptr) - 1, BLOCK_USERS):
        ip = indptr[lo:hi + 1] - indptr[lo]
        state = state.merge(PersonalizationState.from_lists((ip, items[indptr[lo]:indptr[hi]]),
                                                            assume_distinct=True))
    return MetricValues(None, state.value(), {"lists": sum(state.lists.values())})


def _baseline_info(values: np.ndarray, pb: Packed) -> dict:
    return {**_undefined(values), "users_without_baseline_list": int((~pb.in_run).sum())}


def _overlap(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.overlap(ia, a, ib, b)
    return MetricValues(values, info=_baseline_info(values, pb))


def _rbo(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.rbo(ia, a, ib, b, p=float(spec.get("p")), form=spec.get("form"))
    return MetricValues(values, info=_baseline_info(values, pb))


def _kendall_tau(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.kendall_tau(ia, a, ib, b, over=spec.get("over"))
    return MetricValues(values, info=_baseline_info(values, pb))


def _unexpectedness(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    lens = np.diff(ia).astype(np.float64)
    denom = lens if spec.k is None else np.full(len(lens), float(spec.k))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(lens > 0, 1.0 - listpairs.shared(ia, a, ib, b) / denom, np.nan)
    return MetricValues(values, info=_baseline_info(values, pb))


def _categories(context: Context, key: str) -> ItemCategories:
    raw = context.options.get("item_categories")
    if raw is None:
        raw = context.item_features if isinstance(context.item_features, (dict, pd.Series)) \
            else None
    if raw is None:
        raise InputError(
            f"{key} needs the items' categories: pass item_categories={{item: [categories]}} "
            "(or an (item, category) table) to evaluate(), e.g. rv.evaluate(run, truth, "
            f"[{key!r}], item_categories=genres); a dict of tags given as item_features= is "
            "used too."
        )
    cache = _cache(context)
    if cache.get("cats_src") is not raw:
        cache["cats_src"] = raw
        cache["cats"] = as_item_categories(raw)
    return cache["cats"]


def _category_rows(spec: MetricSpec, packed: Packed, context: Context
                   ) -> tuple[np.ndarray, np.ndarray, ItemCategories]:
    cats = _categories(context, spec.key)
    indptr, pos = _cut(packed, spec.k)
    vocab_rows = _per_vocab(context, packed, ("cat_rows", id(cats)),
                            lambda: cats.rows(packed.item_vocab))
    rows = vocab_rows[packed.items[pos]]
    bad = rows < 0
    if bad.any() and spec.get("missing") == "error":
        ex = list(dict.fromkeys(packed.item_vocab[packed.items[pos[bad]]][:50].tolist()))
        raise InputError(
            f"{spec.key}: {int(bad.sum())} recommended position(s) hold items without "
            f"categories, e.g. {ex[:3]}. Add them to item_categories (an empty list for an "
            f"item without any), or use {_with(spec, missing='skip')!r} to count them as "
            "items without a category."
        )
    return indptr, rows, cats


def _category_diversity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, rows, cats = _category_rows(spec, packed, context)
    distinct = np.bincount(list_categories(indptr, rows, cats)[0],
                           minlength=len(indptr) - 1).astype(np.float64)
    lens = np.diff(indptr).astype(np.float64)
    den = lens if spec.get("denominator") == "list" or spec.k is None \
        else np.full(len(lens), float(spec.k))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(lens > 0, distinct / den, np.nan)
    return MetricValues(values, info=_undefined(values))


def _category_coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, rows, cats = _category_rows(spec, packed, context)
    user, code = list_categories(indptr, rows, cats)
    info = {"categories": cats.n_categories}
    if spec.get("level") == "catalog":
        covered = len(np.unique(code))
        value = covered / cats.n_categories if cats.n_categories else float("nan")
        return MetricValues(None, value, {**info, "covered": covered})
    n = len(indptr) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.bincount(user, minlength=n) / float(cats.n_categories) \
            if cats.n_categories else np.full(n, np.nan)
    return MetricValues(values.astype(np.float64), info=info)


def _in_history(context: Context, packed: Packed, key: str, pos: np.ndarray,
                indptr: np.ndarray) -> np.ndarray:
    """Whether each listed item is in its user's training history."""
    tr = _train(context, key)
    item = _train_index(context, packed, key)[packed.items[pos]]
    ucode = pd.Index(tr.users).get_indexer(pd.Index(packed.user_ids)) if len(tr.users) \
        else np.full(len(packed.user_ids), -1)
    user = np.repeat(ucode, np.diff(indptr))
    width = max(len(tr.items), 1)
    hist_user = np.repeat(np.arange(tr.n_users, dtype=np.int64), np.diff(tr.indptr))
    keys = np.sort(hist_user * width + tr.hist)
    probe = user * width + item
    at = np.searchsorted(keys, probe)
    found = (at < len(keys)) & (keys[np.minimum(at, max(len(keys) - 1, 0))] == probe) \
        if len(keys) else np.zeros(len(probe), dtype=bool)
    return found & (user >= 0) & (item >= 0)


def _unseen_share(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = _cut(packed, spec.k)
    seen = _in_history(context, packed, spec.key, pos, indptr)
    values = list_mean(indptr, (~seen).astype(np.float64))
    return MetricValues(values, info=_undefined(values))


def _rank_serendipity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    tr = _train(context, spec.key)
    counts = tr.popularity(spec.get("pop"))
    # dense popularity rank: 1 = the largest training count, equal counts share a rank
    distinct = np.unique(counts[counts > 0])[::-1]
    rank_train = np.zeros(len(counts))
    seen_train = counts > 0
    rank_train[seen_train] = np.searchsorted(-distinct, -counts[seen_train]) + 1
    idx = _train_index(context, packed, spec.key)
    pop_rank = np.where(idx >= 0, rank_train[np.maximum(idx, 0)] if len(rank_train) else 0, 0)
    exposure = _exposure(packed, None, context=context)
    n_items = _catalog(context, packed, exposure.counts).size
    indptr, pos = _cut(packed, spec.k)
    position = (pos - np.repeat(packed.indptr[:-1], np.diff(indptr)) + 1).astype(np.float64)
    p_user = (n_items + 1 - position) / n_items
    r = pop_rank[packed.items[pos]]
    p_any = np.where(r > 0, (n_items + 1 - r) / n_items, 0.0)  # items unseen in train: 0
    relevant = packed.rel[pos] >= float(spec.get("rel"))
    values = list_mean(indptr, np.maximum(p_user - p_any, 0.0) * relevant)
    return MetricValues(values, info={**_undefined(values), "n_items": int(n_items)})


def _sufficient_reco(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    if spec.k is None:
        raise InputError(f"{spec.key} needs a cutoff: the number of recommendations every user "
                         "should get, e.g. sufficient_reco@10.")
    have = np.minimum(packed.list_len, spec.k).astype(np.float64)
    if spec.get("deep") == "true":
        return MetricValues(have / spec.k)
    return MetricValues((have >= spec.k).astype(np.float64))


# ----------------------------------------------------------------------------- registration
def _def(name: str, title: str, formula: str, doc: str, compute, params=(), **kw) -> MetricDef:
    return MetricDef(name, title, formula, doc, tuple(params), family="beyond", compute=compute,
                     **kw)


register(_def(
    "coverage", "Catalogue coverage@k", "|union_u R_k(u)| / |I|",
    "Share of the catalogue that appears in at least one evaluated list (Shani & Gunawardana 2011). The "
    "catalogue I is evaluate(catalog=...): None/'all' = items of train + truth + run (default), "
    "'train' (Microsoft Recommenders), 'train+truth', ..., an item count, or an id list. "
    "kind=count gives the number of distinct recommended items (Elliot ItemCoverage). "
    "outside: recommended items missing from an explicit catalogue raise (error, the "
    "default), are not covered (ignore: |union_u R_k(u) & I| / |I|) or are covered (count: "
    "|union_u R_k(u)| / |I|, which can exceed 1).",
    _coverage, (Param("kind", "catalog", "catalog = share of |I| | count = distinct items",
                      ("catalog", "count")),
                Param("outside", "error",
                      "a recommended item that is not in an explicit catalogue (an id list, "
                      "or a source such as catalog='train'): error (default) | ignore = not "
                      "covered, left out of the numerator | count = counted as covered, so "
                      "the value can exceed 1 (recmetrics prediction_coverage, RecTools "
                      "CatalogCoverage, Microsoft Recommenders catalog_coverage)",
                      ("error", "ignore", "count"))),
    bounds=(0.0, None), reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010",
    example="lists [a, b], [a, c], catalogue of 6 items: 3/6",
), ("catalog_coverage", "item_coverage"))

register(_def(
    "dist_coverage", "Distributional (effective) coverage@k", "exp(H_e) / |I|",
    "Perplexity of the exposure distribution (the number of equally exposed items with the same "
    "entropy) over the catalogue size; equals coverage when recommended items are exposed "
    "equally, tends to 1/|I| when one item takes all exposure.",
    _dist_coverage, example="exposure [1, 1, 0, 0]: 2/4",
), ("effective_coverage",))

register(_def(
    "entropy", "Shannon entropy of exposure@k", "H = -sum_i p_i log_b p_i, p_i = c_i / sum_j c_j",
    "Entropy of how often each item appears in the evaluated top-k lists (Shani & Gunawardana 2011). "
    "normalize=true divides by log_b n (n = catalogue size, or recommended items with "
    "over=recommended) so uniform exposure gives 1. Higher = exposure spread more evenly.",
    _entropy, (Param("base", "2", "logarithm base: 2 (bits) | e (nats) | 10", ("2", "e", "10")),
               Param("normalize", "false",
                     "false | true = divide by log_b n (1 for uniform exposure) | distinct = "
                     "divide by the number of distinct recommended items (RecBole "
                     "ShannonEntropy, with base=e; not a [0, 1] scale)",
                     ("false", "true", "distinct")), OVER),
    bounds=(0.0, None), reference="Shani & Gunawardana 2011",
    example="exposure counts [1, 1, 2]: H = 1.5 bits",
), ("shannon_entropy",))

register(_def(
    "gini", "Gini index of exposure@k", "G = 1/(n-1) sum_j (2j - n - 1) p_(j), p ascending",
    "Inequality of exposure over the n catalogue items sorted by exposure ascending (Shani & Gunawardana 2011). "
    "0 = equal exposure, 1 = everything on one item; lower is better. denominator=n gives the "
    "classic Lorenz Gini (maximum (n-1)/n). Elliot reports 1 - G.",
    _gini, (Param("denominator", "n-1", "n-1 (maximum 1) | n (classic)",
                  ("n-1", "n")), OVER),
    higher_is_better=False, reference="Shani & Gunawardana 2011",
    example="exposure [0, 1, 3]: (2 * 3/4) / 2 = 0.75",
), ("gini_index",))

register(_def(
    "user_coverage", "User coverage@k", "kind=list: [|R_k(u)| > 0]; kind=hit: [h_k(u) > 0]",
    "Share of evaluated users who receive a non-empty list (kind=list) or at least one relevant "
    "item in the top k (kind=hit, equal to hit_rate@k but averaged over every evaluated user).",
    _user_coverage, (Param("kind", "list", "list | hit", ("list", "hit")), REL),
    example="users with lists [a], [] : 1/2",
))

register(_def(
    "tail_share", "Long-tail share of exposure@k",
    "sum_u |R_k(u) & Tail| / sum_u |R_k(u)|",
    "Share of all recommended positions that hold a long-tail item (tail: every item outside "
    "the `head` share of most popular training items, see docs).",
    _tail_share, (HEAD, POP, TAIL_UNSEEN, TAIL_MAX), needs=("train",),
    reference="Abdollahpouri et al. 2019",
), ("long_tail",))

register(_def(
    "aplt", "Average percentage of long-tail items@k", "mean_u |R_k(u) & Tail| / |R_k(u)|",
    "Per user share of long-tail items in the top k, averaged over users with a list.",
    _aplt, (HEAD, POP, TAIL_UNSEEN, TAIL_MAX), needs=("train",),
    reference="Abdollahpouri et al. 2019",
))

register(_def(
    "arp", "Average recommendation popularity@k", "mean_u mean_{i in R_k(u)} phi(i)",
    "Mean training popularity of the recommended items (pop=rows: interactions, pop=users: "
    "distinct users); lower = less popularity bias. normalize=share divides phi(i) by the "
    "training rows (pop=rows) or users (pop=users): RecTools AvgRecPopularity(normalize=True).",
    _arp, (POP, Param("normalize", "none", "none | share", ("none", "share"))),
    needs=("train",), bounds=(0.0, None), higher_is_better=False,
    reference="Yin et al. 2012; Abdollahpouri et al. 2019",
))

register(_def(
    "novelty", "Popularity novelty (self-information)@k", "mean_{i in R_k(u)} -log_b p(i)",
    "Mean self-information of the recommended items, p(i) = phi(i) / N from the training data "
    "(pop=rows: N = rows; pop=users: p = share of users who know i, Zhou et al. 2010). unseen: "
    "items absent from training count as seen once (one), are left out (skip) or raise (error). "
    "normalize=max divides by -log_b(1/N), the value of an item seen once (range [0, 1]); "
    "denominator=k sums over the top k and divides by k, so short lists score less (RePlay "
    "Surprisal: pop=users, normalize=max, denominator=k).",
    _novelty, (POP, Param("unseen", "one", "one | skip | error", ("one", "skip", "error")),
               Param("base", "2", "logarithm base: 2 | e | 10", ("2", "e", "10")),
               Param("normalize", "none", "none | max", ("none", "max")),
               Param("denominator", "list", "list | k", ("list", "k"))),
    needs=("train",), bounds=(0.0, None), reference="Zhou et al., PNAS 2010",
    example="p = 1/2 and 1/4: (1 + 2) / 2 = 1.5 bits",
), ("self_information",))

_SIM_DOC = (" Pairs are the L(L-1)/2 unordered pairs of the top-k list; lists with fewer than "
            "two items (after missing=skip) are NaN and left out of the mean. Needs "
            "item_features=... (source=features) or train=... (source=cooccurrence).")

register(_def(
    "ils", "Intra-list similarity@k", "ILS = 2/(L(L-1)) sum_{i<j} sim(i, j)",
    "Mean pairwise similarity of the items of a list (Ziegler et al. 2005); lower = "
    "more diverse." + _SIM_DOC,
    _ils, (SIM, SOURCE, MISSING, SHORT), higher_is_better=False, bounds=(-1.0, None),
    reference="Ziegler et al., WWW 2005",
), ("intra_list_similarity",))

register(_def(
    "ild", "Intra-list diversity@k", "ILD = 2/(L(L-1)) sum_{i<j} (1 - sim(i, j)) = 1 - ILS",
    "Mean pairwise distance 1 - sim of the items of a list (Smyth & McClave 2001 ILD; "
    "each unordered pair counted once); overall diversity = mean over users." + _SIM_DOC,
    _ild, (SIM, SOURCE, MISSING, SHORT), bounds=(0.0, None),
    reference="Smyth & McClave 2001; Ziegler et al. 2005",
    example="two orthogonal items: 1",
), ("diversity", "intra_list_diversity"))

register(_def(
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

register(_def(
    "serendipity", "Serendipity@k", "1/k sum_{i in R_k(u)} [rel_i >= rel] * unexp(u, i)",
    "Relevant and unexpected recommendations. unexpected=history: unexp = 1 - mean similarity "
    "to the user's training items (NaN for users without history); unexpected=popularity: unexp "
    "= item not among the `top` most popular training items (default top = k). Denominator k as "
    "in precision@k.",
    _serendipity, (Param("unexpected", "history", "history | popularity",
                         ("history", "popularity")),
                   Param("top", None, "size of the most-popular list (unexpected=popularity); "
                         "default: the cutoff k", kind=int, low=1.0),
                   REL, POP, SIM, SOURCE, MISSING),
    needs=("train",), bounds=(0.0, None),
    reference="Ge et al. 2010; Vargas & Castells 2011",
))

register(_def(
    "personalization", "Personalization@k", "1 - mean_{u<v} |R(u) & R(v)| / sqrt(|R(u)| |R(v)|)",
    "1 minus the mean cosine similarity between the binary item vectors of every pair of "
    "non-empty lists; computed exactly from item counts per list length (no users x users "
    "matrix, no sampling).",
    _personalization, reference="recmetrics personalization (exact form)",
    example="lists [a, b], [a, c], [d, e]: 1 - (1/2) / 3",
))

# ----------------------------------------------------------------------------- two runs
_RUNS_DOC = (" Compares each evaluated user's top-k list with the same user's list in a second "
             "run, baseline_run=... (rv.evaluate(run, truth, [key], baseline_run=other)), or "
             "two runs directly with rv.run_overlap(run_a, run_b, [key]); both lists are ordered "
             "by the engine's packing (score descending, ties on the raw item id).")

register(_def(
    "overlap", "Overlap@k of two runs (Jaccard)", "|A_k & B_k| / |A_k | B_k|",
    "Jaccard overlap of the top-k item sets of two runs for the same user; NaN when both "
    "lists are empty; 0 when one is." + _RUNS_DOC,
    _overlap, needs=(BASELINE,), reference="Jaccard 1901; Webber et al., ACM TOIS 2010 (sec. 2)",
    example="A = [a, b, c], B = [b, d, a]: |{a, b}| / |{a, b, c, d}| = 2/4",
), ("jaccard_overlap", "run_overlap"))

register(_def(
    "rbo", "Rank-biased overlap@k of two runs",
    "ext: (1-p)/p [sum_{d<=l} X_d/d p^d + sum_{s<d<=l} X_s (d-s)/(s d) p^d] + "
    "[(X_l - X_s)/l + X_s/s] p^l; sum: (1-p) sum_{d<=s} p^(d-1) X_d/d",
    "Rank-biased overlap (Webber, Moffat & Zobel 2010) of the two top-k lists: the agreement "
    "A_d = X_d / d of the first d items (X_d shared items; the shorter list, length s, counts "
    "whole beyond its end) weighted by p^(d-1). form=ext (default) is the extrapolated RBO_ext "
    "of their eq. 32 (eq. 30 for lists of equal length l = s): 1 for identical lists; form=sum "
    "is the prefix sum to depth s (eq. 7, a lower bound). p: persistence, the top d items carry "
    "1 - p^d of the weight (p = 0.9: the top 10 carry 65%). NaN when both lists are empty." +
    _RUNS_DOC,
    _rbo, (Param("p", 0.9, "persistence p in (0, 1): weight of depth d is (1-p) p^(d-1)",
                 kind=float, low=0.0, high=1.0, low_open=True, high_open=True),
           Param("form", "ext", "ext (extrapolated RBO_ext, eq. 32) | sum (prefix sum to the "
                 "shorter list's depth, eq. 7)", ("ext", "sum"))),
    needs=(BASELINE,), reference="Webber, Moffat & Zobel, ACM TOIS 28(4), 2010",
    example="A = [a, b], B = [b, a], p = 0.5: X = 0, 2; (0.5/0.5)(0 + 2/2 * 0.25) + 1 * 0.25 "
            "= 0.5",
), ("rank_biased_overlap",))

register(_def(
    "kendall_tau", "Kendall's tau@k between two runs",
    "tau_b = sum_{i<j} sx_ij sy_ij / sqrt(sum |sx_ij| sum |sy_ij|)",
    "Kendall's tau-b between the orders the two top-k lists give to the items compared "
    "(sx, sy: signs of the position differences of a pair in each list). over=intersection "
    "(default): items in both lists (no ties: tau-a). over=union: items of either list, an item "
    "missing from a list of length L placed at L + 1 (tied with the other missing items; Fagin, "
    "Kumar & Sivakumar 2003). NaN with fewer than 2 items or no ordered pair." + _RUNS_DOC,
    _kendall_tau, (Param("over", "intersection", "items compared: intersection | union",
                         ("intersection", "union")),),
    needs=(BASELINE,), bounds=(-1.0, 1.0),
    reference="Kendall, Biometrika 1945; Fagin, Kumar & Sivakumar, SIAM J. Discrete Math. 2003",
    example="A = [a, b, c], B = [c, b, a]: 3 discordant pairs of 3: -1",
), ("kendall_tau_runs",))

register(_def(
    "unexpectedness", "Unexpectedness@k against a baseline run", "1 - |R_k & B_k| / k",
    "Share of the top-k recommendations that the baseline run does not recommend in its top k "
    "(RePlay Unexpectedness, replay/metrics/unexpectedness.py). Without a cutoff k is the list "
    "length. A user without a list has no value (RePlay gives 0); a user whose baseline list is "
    "empty gets 1 (RePlay gives 0)." + _RUNS_DOC,
    _unexpectedness, needs=(BASELINE,),
    reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010; RePlay Unexpectedness",
    example="R = [3, 7, 10, 11], B = [2, 3, 7], k = 4: 1 - 2/4 = 0.5",
))

# ----------------------------------------------------------------------------- categories, data quality
_CAT_MISSING = Param("missing", "error",
                     "recommended items absent from item_categories: error | skip (counted as "
                     "items without a category)", ("error", "skip"))
_CAT_DOC = (" Categories come from evaluate(..., item_categories={item: [categories]}) (or an "
            "(item, category) table; a dict of tags passed as item_features= is used too); an "
            "item may have several.")

register(_def(
    "category_diversity", "Categorical diversity@k", "|union_{i in R_k(u)} C(i)| / k",
    "Number of distinct categories (genres) among the top-k items over k (RePlay "
    "CategoricalDiversity, replay/metrics/categorical_diversity.py, where each item has one "
    "category); denominator=list divides by the list length instead. With several categories "
    "per item the value may exceed 1. NaN for an empty list." + _CAT_DOC,
    _category_diversity, (Param("denominator", "k", "k (RePlay) | list (the list's length)",
                                ("k", "list")), _CAT_MISSING),
    bounds=(0.0, None), reference="RePlay CategoricalDiversity; Ziegler et al., WWW 2005",
    example="top 3 with genres {drama}, {drama}, {comedy}: 2/3",
), ("categorical_diversity",))

register(_def(
    "category_coverage", "Category (genre) coverage@k",
    "level=user: |union_{i in R_k(u)} C(i)| / |C|; level=catalog: |union_u union_i C(i)| / |C|",
    "Share of all categories C (every category in item_categories) that the top-k list covers "
    "(level=user, the genre coverage of Vargas, Baltrunas, Karatzoglou & Castells 2014), or "
    "that some evaluated list covers (level=catalog, one value for the run)." + _CAT_DOC,
    _category_coverage, (Param("level", "user", "user | catalog", ("user", "catalog")),
                         _CAT_MISSING),
    reference="Vargas, Baltrunas, Karatzoglou & Castells, RecSys 2014",
    example="4 genres; top 2 with {drama, crime}, {drama}: 2/4",
), ("genre_coverage",))

register(_def(
    "unseen_share", "Share of items unseen in training@k",
    "|R_k(u) \\ H(u)| / |R_k(u)|",
    "Share of the top-k items the user did not interact with in training (RePlay Novelty, "
    "replay/metrics/novelty.py: denominator min(k, |R|); Castells, Vargas & Wang 2011). A user "
    "without training history gets 1; an empty list has no value (RePlay gives 1). Needs "
    "train=....",
    _unseen_share, needs=("train",), reference="RePlay Novelty; Castells, Vargas & Wang 2011",
    example="top 2 = [3, 7], training items of the user {5, 6, 8, 9, 2}: 2/2",
), ("replay_novelty", "novelty_unseen"))

register(_def(
    "rank_serendipity", "Rank-based serendipity@k (RecTools)",
    "mean_{i in R_k(u)} max(p(i) - pu(i), 0) [rel_i >= rel]",
    "RecTools Serendipity (rectools/metrics/serendipity.py): p(i) = (n + 1 - rank_i) / n, the "
    "chance to recommend the item at rank_i to this user; pu(i) = (n + 1 - r(i)) / n with r(i) "
    "the item's dense popularity rank in training (1 = most interactions, equal counts share "
    "a rank; pu = 0 for items unseen in training); n = catalogue size (catalog=..., default "
    "train + truth + run). Mean over the top-k positions of the list (min(k, |R|), as RecTools "
    "averages); NaN for an empty list. Needs train=....",
    _rank_serendipity, (REL, POP), needs=("train",),
    reference="RecTools Serendipity (MTS, 2022); Kotkov, Wang & Veijalainen, KBS 2016",
    example="n = 4, item at rank 1 with popularity rank 2, relevant: (4/4 - 3/4) = 1/4",
))

register(_def(
    "sufficient_reco", "Sufficient recommendations@k (RecTools)",
    "deep=false: [|R(u)| >= k]; deep=true: min(|R(u)|, k) / k",
    "Whether the user received at least k recommendations (deep=false, the share of users "
    "with full lists), or the filled share of the k slots (deep=true), as RecTools "
    "SufficientReco (rectools/metrics/dq.py). Needs a cutoff.",
    _sufficient_reco, (Param("deep", "false", "false (full list or not) | true (filled share)",
                             ("false", "true")),),
    reference="RecTools SufficientReco (MTS, 2024)",
    example="lists of 2, 3 and 5 items, k = 4: deep=false [0, 0, 1]; deep=true [0.5, 0.75, 1]",
))
