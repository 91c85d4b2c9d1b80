"""``item_categories=``: the categories (genres) of each item, read once for every metric that
uses them (categorical diversity and coverage, miscalibration, the intent-aware measures).

An item may belong to several categories (a film with two genres). Accepted forms:

- a mapping ``{item: categories}`` (or a pandas Series indexed by item), where ``categories`` is
  one category (a string or a number) or a collection of them;
- a table (pandas / polars / pyarrow) of ``(item, category)`` rows, one row per pair (a row
  with a null category lists an item without categories), or one row per item whose category
  cell holds a list of them: the item column is found by its usual names (``item``,
  ``item_id``, ...) and the category column is ``category``, ``genre`` (or their ``_id`` /
  plural forms), or the other column of a two-column table.

A missing category (None, NaN, ``pd.NA``) is no category, in a mapping's lists as in a table;
a category that is itself a collection (a list inside the list) or a mapping of categories
is refused, naming the item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from .frames import ITEM_NAMES, first_unhashable

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
    owner_keys: list = []
    owner: np.ndarray | None = None  # a mapping: the key of each (item, category) pair
    if isinstance(obj, (Mapping, pd.Series)):
        keys = owner_keys = list(obj.keys()) if isinstance(obj, Mapping) else list(obj.index)
        lens, cats = [], []
        for key, value in zip(keys, obj.values() if isinstance(obj, Mapping) else obj.tolist(),
                              strict=True):
            if isinstance(value, Mapping):
                raise InputError(
                    f"item_categories: the categories of item {plain(key)} are a mapping "
                    f"({plain(value)}); give them as a list, e.g. {{item: ['Drama', 'Romance']}} "
                    "(a category's weight is not read).")
            values = value if isinstance(value, (list, tuple)) \
                else [value] if _is_scalar(value) else list(value)
            lens.append(len(values))
            cats.extend(values)
        owner = np.repeat(np.arange(len(keys), dtype=np.int64), np.asarray(lens, dtype=np.int64))
        cat_col = pd.Series(cats, dtype=object)
        missing = cat_col.isna().to_numpy()  # None, NaN, pd.NA, NaT: no category (as in a table)
        if missing.any():
            cat_col, owner = cat_col[~missing].reset_index(drop=True), owner[~missing]
        all_items = pd.Index(keys)
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
        if frame[ccol].dtype == object and \
                pd.api.types.infer_dtype(frame[ccol], skipna=True) == "mixed" and \
                frame[ccol].map(lambda v: isinstance(v, (list, tuple, set, frozenset,
                                                         np.ndarray))).any():
            # a column of category lists (one row per item): one row per (item, category)
            frame = frame.explode(ccol, ignore_index=True)  # (an empty list: a null)
        all_items = pd.Index(pd.unique(frame[icol].dropna()))  # a null category: no category
        frame = frame.dropna()
        item_col, cat_col = frame[icol].reset_index(drop=True), frame[ccol].reset_index(drop=True)
    all_items = pd.Index(pd.unique(np.asarray(all_items, dtype=object)
                                   if all_items.dtype == object else all_items))
    if not all_items.is_unique:
        raise InputError("item_categories: an item is listed twice; give each item once with "
                         "all its categories.")
    cat_codes, categories = _factorize_categories(cat_col, owner_keys, owner)
    if owner is not None and len(all_items) == len(owner_keys):
        rows = owner  # each key once, in order: the row of each pair is its key's place
    else:
        if owner is not None:
            item_col = pd.Series([owner_keys[j] for j in owner.tolist()], dtype=object)
        rows = all_items.get_indexer(pd.Index(item_col)) if len(item_col) else \
            np.zeros(0, dtype=np.int64)
    rows = np.asarray(rows, dtype=np.int64)
    # distinct (row, category) pairs in (row, category) order: a sort of int64 keys
    width = max(len(categories), 1)
    pair = rows * width
    pair += cat_codes
    pair.sort()
    if len(pair):
        pair = pair[np.concatenate([[True], pair[1:] != pair[:-1]])]
    pair_rows = pair // width
    pair_codes = pair - pair_rows * width
    indptr = np.zeros(len(all_items) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_rows, minlength=len(all_items)), out=indptr[1:])
    return ItemCategories(all_items, indptr, pair_codes, np.asarray(categories))


def _factorize_categories(cats: pd.Series, owner_keys: list, owner: np.ndarray | None
                          ) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, categories)`` of the category column, categories sorted; missing values are
    dropped before. A category that is not a hashable scalar (a list inside the list, a set)
    is refused, naming its item (``owner_keys[owner[j]]`` for a mapping)."""
    try:
        codes, categories = pd.factorize(cats, sort=True)
    except TypeError as exc:
        found = first_unhashable(cats.tolist())
        if found is None:  # pragma: no cover - pandas hashes every hashable category
            raise InputError(f"item_categories: the categories cannot be read as ids: {exc}; "
                             "give strings or numbers.") from None
        j, c = found
        item = f" of item {plain(owner_keys[owner[j]])}" if owner is not None else ""
        raise InputError(
            f"item_categories: the category {plain(c)}{item} is a {type(c).__name__}, not one "
            "category; give each item a flat list of categories (strings or numbers), e.g. "
            "{item: ['Drama', 'Romance']}.") from None
    return np.asarray(codes, dtype=np.int64), np.asarray(categories)


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
