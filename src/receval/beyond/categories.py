"""Item categories (genres) and the categorical diversity and coverage of lists.

An item may belong to several categories (a film with two genres). ``item_categories=`` is
accepted as

- a mapping ``{item: categories}`` (or a pandas Series indexed by item), where ``categories`` is
  one category (a string or a number) or a collection of them;
- a table (pandas / polars / pyarrow) of ``(item, category)`` rows, one row per pair (a row
  with a null category lists an item without categories): the item column is found by its
  usual names (``item``, ``item_id``, ...) and the category column is ``category``, ``genre``
  (or their ``_id`` / plural forms), or the other column of a two-column table.

For a list ``R`` of ``L`` items with categories ``C(i)``, ``C(R) = union_{i in R} C(i)``:

- categorical diversity (RePlay ``CategoricalDiversity``): ``|C(R_k)| / k`` (``denominator=k``)
  or ``|C(R_k)| / |R_k|`` (``denominator=list``); with one category per item it is the share of
  distinct categories among the recommended items;
- category coverage (genre coverage; Vargas, Baltrunas, Karatzoglou & Castells, RecSys 2014):
  ``|C(R_k)| / |C|`` per user, or ``|union_u C(R_k(u))| / |C|`` over the whole run, ``C`` the
  set of every category of ``item_categories``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..io.frames import ITEM_NAMES
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import beyond_metric, context_cache, key_with, per_vocab, top_k, undefined_info
from ._lists import ranges

CATEGORY_NAMES = ("category", "categories", "category_id", "genre", "genres", "genre_id")


@dataclass
class ItemCategories:
    """Categories of each item: CSR over ``items`` (raw ids) into category codes."""

    items: pd.Index          # raw item ids
    indptr: np.ndarray       # (n_items + 1,)
    codes: np.ndarray        # category codes, unique per item
    categories: np.ndarray   # code -> raw category

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Row of each raw item id (-1: unknown item)."""
        if not len(ids):
            return np.zeros(0, dtype=np.int64)
        return self.items.get_indexer(pd.Index(ids)).astype(np.int64)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, bytes)) or not hasattr(value, "__iter__")


def as_item_categories(obj: Any) -> ItemCategories:
    """Normalize ``item_categories=`` (see the module docstring)."""
    if isinstance(obj, ItemCategories):
        return obj
    if isinstance(obj, (Mapping, pd.Series)):
        items, cats = [], []
        for item, value in obj.items():
            values = [value] if _is_scalar(value) else list(value)
            for c in values:
                if c is None or (isinstance(c, float) and c != c):
                    continue
                items.append(item)
                cats.append(c)
        item_col = pd.Series(items, dtype=object)
        cat_col = pd.Series(cats, dtype=object)
        all_items = pd.Index(list(obj.keys()) if isinstance(obj, Mapping) else obj.index)
    else:
        frame = _frame(obj)
        cols = [str(c) for c in frame.columns]
        lower = {c.lower(): c for c in cols}
        icol = next((lower[n.lower()] for n in ITEM_NAMES if n.lower() in lower), None)
        ccol = next((lower[n] for n in CATEGORY_NAMES if n in lower), None)
        if len(cols) == 2:
            icol = icol or next(c for c in cols if c != ccol)
            ccol = ccol or next(c for c in cols if c != icol)
        if icol is None or ccol is None or icol == ccol:
            raise InputError(
                f"item_categories: found columns {plain(list(cols))}; name them 'item' and 'category' (or "
                "'genre'), or pass a dict {item: [categories]}."
            )
        frame = frame[[icol, ccol]]
        all_items = pd.Index(pd.unique(frame[icol].dropna()))  # a null category: no category
        frame = frame.dropna()
        item_col, cat_col = frame[icol].reset_index(drop=True), frame[ccol].reset_index(drop=True)
    all_items = pd.Index(pd.unique(np.asarray(all_items, dtype=object)
                                   if all_items.dtype == object else all_items))
    if not all_items.is_unique:
        raise InputError("item_categories: an item is listed twice; give each item once with "
                         "all its categories.")
    cat_codes, categories = pd.factorize(cat_col, sort=True)
    rows = all_items.get_indexer(pd.Index(item_col)) if len(item_col) else \
        np.zeros(0, dtype=np.int64)
    pairs = np.unique(np.column_stack([rows, cat_codes]).astype(np.int64), axis=0) \
        if len(rows) else np.zeros((0, 2), dtype=np.int64)
    indptr = np.zeros(len(all_items) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pairs[:, 0], minlength=len(all_items)), out=indptr[1:])
    return ItemCategories(all_items, indptr, pairs[:, 1].copy(), np.asarray(categories))


def _frame(obj: Any) -> pd.DataFrame:
    if isinstance(obj, pd.DataFrame):
        return obj
    mod = type(obj).__module__.split(".")[0]
    if mod in ("polars", "pyarrow"):
        return obj.to_pandas()
    raise InputError(
        f"item_categories: expected a dict {{item: [categories]}}, a pandas Series, or an "
        f"(item, category) table; got {type(obj).__name__}."
    )


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
    cache = context_cache(context)
    if cache.get("cats_src") is not raw:
        cache["cats_src"] = raw
        cache["cats"] = as_item_categories(raw)
    return cache["cats"]


def _category_rows(spec: MetricSpec, packed: Packed, context: Context,
                   skip: str = "to count them as items without a category"
                   ) -> tuple[np.ndarray, np.ndarray, ItemCategories]:
    """(indptr, category row of each top-k position, categories); a listed item absent from
    item_categories is refused under ``missing="error"`` (``skip``: what ``missing=skip``
    does with it, for the message)."""
    cats = _categories(context, spec.key)
    indptr, pos = top_k(packed, spec.k)
    vocab_rows = per_vocab(context, packed, ("cat_rows", id(cats)),
                            lambda: cats.rows(packed.item_vocab))
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
