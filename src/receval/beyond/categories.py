"""Item categories (genres) and the categorical diversity and coverage of lists.

An item may belong to several categories (a film with two genres); ``item_categories=`` is read
by :mod:`receval.io.categories` (a mapping, a Series or an (item, category) table).

For a list ``R`` of ``L`` items with categories ``C(i)``, ``C(R) = union_{i in R} C(i)``:

- categorical diversity (RePlay ``CategoricalDiversity``): ``|C(R_k)| / k`` (``denominator=k``)
  or ``|C(R_k)| / |R_k|`` (``denominator=list``); with one category per item it is the share of
  distinct categories among the recommended items;
- category coverage (genre coverage; Vargas, Baltrunas, Karatzoglou & Castells, RecSys 2014):
  ``|C(R_k)| / |C|`` per user, or ``|union_u C(R_k(u))| / |C|`` over the whole run, ``C`` the
  set of every category of ``item_categories``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..io.categories import ItemCategories, as_item_categories
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import beyond_metric, key_with, per_vocab, top_k, undefined_info
from ._lists import ranges
from .inputs import as_train


def list_categories(indptr: np.ndarray, rows: np.ndarray, cats: ItemCategories
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (user, category code) pairs of the lists (``rows``: category-table rows of the
    listed items, ``-1`` = an item without categories)."""
    n = len(indptr) - 1
    user = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    ok = rows >= 0
    user, rows = user[ok], rows[ok]
    lens = cats.indptr[rows + 1] - cats.indptr[rows]
    codes = cats.codes[ranges(cats.indptr[rows], lens)]
    pair_user = np.repeat(user, lens)
    if not len(codes):
        return pair_user, codes
    key = np.unique(pair_user * cats.n_categories + codes)
    return key // cats.n_categories, key % cats.n_categories


def categories_per_list(indptr: np.ndarray, rows: np.ndarray, cats: ItemCategories
                        ) -> np.ndarray:
    """``|C(R(u))|`` per user."""
    user, _ = list_categories(indptr, rows, cats)
    return np.bincount(user, minlength=len(indptr) - 1).astype(np.float64)

def profile_intent_weights(train: Any, item_categories: Any) -> pd.DataFrame:
    """Each user's intent distribution over the categories, from the training profile: the
    ``intent_weights=`` of the intent-aware measures with ``aspects="categories"``.

    ``p(c | u) = n_u(c) / sum_c' n_u(c')``, ``n_u(c)`` the number of the user's distinct
    training items in category ``c`` (an item with several categories counts in each); a user
    whose profile has no categorised item gets the uniform ``1 / |C|`` over every category
    (Vargas & Castells' feature-based intent model, RankSys ``FeatureIntentModel``). One row per
    (user, category) of the training users and every category of ``item_categories``:
    ``query``, ``subtopic``, ``weight``.

    >>> w = profile_intent_weights({"u": {"a": 1, "b": 1}}, {"a": ["x"], "b": ["x", "y"]})
    >>> w.to_dict("list")["weight"]   # x: 2 of 3 item-category pairs, y: 1 of 3
    [0.6666666666666666, 0.3333333333333333]
    """
    tr = as_train(train)
    cats = as_item_categories(item_categories)
    n_users, n_cats = tr.n_users, cats.n_categories
    if n_cats == 0:
        raise InputError("item_categories: no item has a category; intents need at least one.")
    user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(tr.indptr))
    rows = cats.rows(tr.items)[tr.hist]
    known = rows >= 0
    user, rows = user[known], rows[known]
    lens = cats.indptr[rows + 1] - cats.indptr[rows]
    codes = cats.codes[ranges(cats.indptr[rows], lens)]
    counts = np.bincount(np.repeat(user, lens) * n_cats + codes,
                         minlength=n_users * n_cats).reshape(n_users, n_cats).astype(np.float64)
    total = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(total > 0, counts / np.where(total > 0, total, 1.0), 1.0 / n_cats)
    return pd.DataFrame({"query": np.repeat(np.asarray(tr.users, dtype=object), n_cats),
                         "subtopic": np.tile(np.asarray(cats.categories, dtype=object), n_users),
                         "weight": weight.ravel()})


# -------------------------------------------------------------------------------------------------
# Categorical diversity and category coverage:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

_CAT_MISSING = Param("missing", "error",
                     "recommended items absent from item_categories: error | skip (counted as "
                     "items without a category)", ("error", "skip"))


_CAT_DOC = (" Categories come from evaluate(..., item_categories={item: [categories]}) (or an "
            "(item, category) table; a dict of tags passed as item_features= is used too); an "
            "item may have several.")


def _categories(context: Context, key: str) -> ItemCategories:
    raw = context.options.get("item_categories")
    if raw is None:
        raw = context.item_features if isinstance(context.item_features, (dict, pd.Series)) \
            else None
    if raw is None:
        raise InputError(
            f"{key} needs the items' categories: pass item_categories={{item: [categories]}} "
            "(or an (item, category) table) to evaluate(), e.g. rv.evaluate(run, truth, "
            f"[{plain(key)}], item_categories=genres); a dict of tags given as item_features= is "
            "used too."
        )
    return context.memo("item_categories", (raw,), lambda: as_item_categories(raw))


def vocab_category_rows(context: Context, packed: Packed, cats: ItemCategories) -> np.ndarray:
    """The category row of each run-vocabulary item (-1: none), once per run and categories."""
    return per_vocab(context, packed, ("cat_rows", id(cats)),
                     lambda: cats.rows(packed.item_vocab))


def _category_rows(spec: MetricSpec, packed: Packed, context: Context,
                   skip: str = "to count them as items without a category"
                   ) -> tuple[np.ndarray, np.ndarray, ItemCategories]:
    """(indptr, category row of each top-k position, categories); a listed item absent from
    item_categories is refused under ``missing="error"`` (``skip``: what ``missing=skip``
    does with it, for the message)."""
    cats = _categories(context, spec.key)
    indptr, pos = top_k(packed, spec.k)
    vocab_rows = vocab_category_rows(context, packed, cats)
    rows = vocab_rows[packed.items[pos]]
    bad = rows < 0
    if bad.any() and spec.get("missing") == "error":
        ex = list(dict.fromkeys(packed.item_vocab[packed.items[pos[bad]]][:50].tolist()))
        raise InputError(
            f"{spec.key}: {int(bad.sum())} recommended position(s) hold items without "
            f"categories, e.g. {plain(ex[:3])}. Add them to item_categories (an empty list for an "
            f"item without any), or use {plain(key_with(spec, missing='skip'))} {skip}."
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
    return MetricValues(values, info=undefined_info(values))


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


register(beyond_metric(
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


register(beyond_metric(
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
