"""Optional inputs of beyond-accuracy metrics: item features, training interactions, catalogue.

Item features (``item_features=``) may be given as

=====================================  ======================================================
form                                   item id of each row
=====================================  ======================================================
``numpy`` 2-D array (items x dims)     the row number (ids must be integers 0..n-1)
``scipy.sparse`` matrix                the row number (as for numpy)
``pandas.DataFrame`` of numbers        the index (any hashable ids); every column is a feature;
                                       with a default index and an ``item`` (``item_id``, ...)
                                       column, that column (as in a polars / pyarrow table)
``(matrix, ids)`` tuple                ``ids[r]`` for row r (matrix dense or sparse)
polars / pyarrow table                 its ``item`` (``item_id``, ...) column; other columns
                                       are the features
``dict`` / ``pandas.Series``           the key; each value is either a feature vector (a 1-D
                                       numeric numpy array, or a list / tuple of floats; all
                                       of one length: dense features, e.g. embeddings) or a
                                       collection of tags (a set, or a list / tuple of
                                       strings: binary sparse features, suited to Jaccard)
:class:`ItemFeatures`                  as built
=====================================  ======================================================

Training interactions (``train=``) are (user, item[, ...]) rows in any table form
:func:`receval.io.frames.read_columns` reads, or a scipy.sparse (users x items) matrix whose
non-zero cells are interactions (row and column numbers are the ids). Repeated (user, item) rows
count as several interactions for row-based popularity and once for user-based popularity.

A dict's values are never guessed: a value that could be either a vector or tags (a list of
integers such as ``[3, 7]``: tag ids or a 2-d vector?), values of both kinds in one dict, or
vectors of different lengths raise an error that says how to state the intent
(``np.asarray(v, dtype=float)`` for a vector, ``set(v)`` for tags).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..errors import InputError, plain
from ..io.frames import first_unhashable, read_columns
from ..kernels import adjacent_starts, dense_factorize, index_ids, train_lists
from ..pack.vocab import factorize
from . import _lists


@dataclass
class ItemFeatures:
    """Feature vectors of items: ``matrix`` row r describes the item ``ids[r]``.

    ``ids`` None means the row number is the item id (integer ids 0..n-1).
    """

    matrix: np.ndarray | sp.csr_matrix
    ids: pd.Index | None = None

    @property
    def n_items(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.matrix)

    def rows(self, item_ids: np.ndarray) -> np.ndarray:
        """Feature row of each raw item id (-1 where the item has no features)."""
        item_ids = np.asarray(item_ids)
        if self.ids is not None:
            if len(item_ids) == 0:
                return np.zeros(0, dtype=np.int64)
            return self.ids.get_indexer(pd.Index(item_ids)).astype(np.int64, copy=False)
        if item_ids.dtype.kind not in "iu":
            if item_ids.dtype.kind == "f" and np.all(item_ids == np.round(item_ids)):
                item_ids = item_ids.astype(np.int64)
            else:
                raise InputError(
                    "item_features: a numpy / scipy.sparse matrix is indexed by row number, so "
                    f"item ids must be integers, but the items are {item_ids.dtype} (e.g. "
                    f"{item_ids[:3].tolist()}). Pass a pandas DataFrame indexed by item id or a "
                    "(matrix, ids) tuple."
                )
        ids = item_ids.astype(np.int64, copy=False)
        return np.where((ids >= 0) & (ids < self.n_items), ids, -1)


def as_item_features(obj: Any) -> ItemFeatures:
    """Validate and normalize ``item_features`` (see the module table)."""
    if isinstance(obj, ItemFeatures):
        return obj
    ids: Any = None
    mod = type(obj).__module__.split(".")[0]
    if mod in ("polars", "pyarrow") and hasattr(obj, "column_names" if mod == "pyarrow"
                                                 else "columns"):
        obj = _frame_with_ids(obj if mod == "pyarrow" else obj.to_arrow())
    if isinstance(obj, tuple) and len(obj) == 2:
        obj, ids = obj
        ids = pd.Index(np.asarray(ids) if not isinstance(ids, pd.Index) else ids)
    if isinstance(obj, pd.DataFrame) and isinstance(obj.index, pd.RangeIndex) and \
            (col := _item_column(list(obj.columns))) is not None:
        # a tidy frame: its item-id column holds the ids (as in a polars / pyarrow table),
        # never a feature
        obj = obj.set_index(col)
    if isinstance(obj, pd.DataFrame):
        bad = [c for c in obj.columns if not pd.api.types.is_numeric_dtype(obj[c])
               and not pd.api.types.is_bool_dtype(obj[c])]
        if bad:
            raise InputError(
                f"item_features: DataFrame columns must be numeric; {plain(bad[:5])} are not (dtype "
                f"{obj[bad[0]].dtype}). Encode them (e.g. pd.get_dummies) or drop them."
            )
        ids = obj.index
        matrix: Any = obj.to_numpy(dtype=np.float64)
    elif isinstance(obj, (Mapping, pd.Series)):
        return _from_mapping(obj)
    elif sp.issparse(obj):
        matrix = sp.csr_matrix(obj, dtype=np.float64)
        matrix.sum_duplicates()
    elif isinstance(obj, np.ndarray):
        if obj.ndim != 2 or obj.dtype.kind not in "biuf":
            raise InputError(
                "item_features: a numpy array must be 2-D (items x features) and numeric, got "
                f"shape {obj.shape} dtype {obj.dtype}."
            )
        matrix = np.ascontiguousarray(obj, dtype=np.float64)
    else:
        raise InputError(
            f"item_features: unsupported type {type(obj).__name__}. Pass a 2-D numpy array (row "
            "= item id), a pandas DataFrame indexed by item id, a scipy.sparse matrix, a "
            "(matrix, ids) tuple or a dict {item: collection of tags}."
        )
    data = matrix.data if sp.issparse(matrix) else matrix
    if not np.isfinite(data).all():
        raise InputError("item_features: the features hold NaN or infinite values; fill them.")
    if ids is not None:
        if len(ids) != matrix.shape[0]:
            raise InputError(
                f"item_features: {len(ids)} ids for {matrix.shape[0]} feature rows; they must "
                "match."
            )
        if not ids.is_unique:
            dup = ids[ids.duplicated()][:3].tolist()
            raise InputError(f"item_features: item ids must be unique; repeated: {plain(dup)}.")
    return ItemFeatures(matrix, ids)


def _item_column(names: list) -> Any:
    """The item-id column among ``names`` (``item``, ``item_id``, ...; any case), or None."""
    from ..io.frames import ITEM_NAMES

    lower = {n.lower(): n for n in names if isinstance(n, str)}
    return next((lower[c.lower()] for c in ITEM_NAMES if c.lower() in lower), None)


def _frame_with_ids(table: Any) -> pd.DataFrame:
    """A polars / pyarrow table: its item-id column (``item``, ``item_id``, ...) becomes the
    index and every other column is a feature."""
    from ..io.frames import ITEM_NAMES

    names = list(table.column_names)
    col = _item_column(names)
    if col is None:
        raise InputError(
            f"item_features: a polars / pyarrow table needs an item id column named one of "
            f"{list(ITEM_NAMES[:4])}; its columns are {plain(list(names[:8]))}."
        )
    return table.to_pandas().set_index(col)


_VECTOR_HINT = ("pass each vector as a numeric numpy array (np.asarray(v, dtype=float)) and each "
                "set of tags as a set (set(v)) or a list of strings")


def _value_kind(key: Any, v: Any) -> str:
    """``"vector"`` or ``"tags"`` for one dict value; InputError when it cannot be told."""
    if isinstance(v, (set, frozenset)):
        return "tags"
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "biuf":
            if v.ndim != 1:
                raise InputError(
                    f"item_features: the vector of item {plain(key)} has shape {v.shape}; "
                    "feature vectors must be 1-D."
                )
            return "vector"
        if v.dtype.kind in "USO" and all(isinstance(x, str) for x in v.ravel().tolist()):
            return "tags"
    elif isinstance(v, (list, tuple, pd.Series)):
        elems = list(v)
        if all(isinstance(x, str) for x in elems):
            return "tags"
        numeric = all(isinstance(x, (int, float, np.integer, np.floating))
                      and not isinstance(x, (bool, np.bool_)) for x in elems)
        if numeric and any(isinstance(x, (float, np.floating)) for x in elems):
            return "vector"
        if numeric:
            raise InputError(
                f"item_features: the value of item {plain(key)} is a list of integers "
                f"({_short(elems)}), which could be a feature vector or a list of tag ids; "
                f"{_VECTOR_HINT}."
            )
    elif isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise InputError(
            "item_features: a dict / Series must map each item to a feature vector or a "
            f"collection of tags (set, list), got {type(v).__name__} ({plain(v)}) for item "
            f"{plain(key)}."
        )
    else:
        return "tags"
    raise InputError(
        f"item_features: the value of item {plain(key)} ({_short(v)}) is neither a numeric "
        f"vector nor a collection of tags; {_VECTOR_HINT}."
    )


def _short(v: Any) -> str:
    items = list(v)
    text = ", ".join(plain(x) for x in items[:4])
    return "[" + text + (", ...]" if len(items) > 4 else "]")


def _from_mapping(obj: Mapping | pd.Series) -> ItemFeatures:
    """A dict / Series: feature vectors (dense) or tags (sparse binary), never a guess."""
    keys = list(obj.keys()) if isinstance(obj, Mapping) else list(obj.index)
    values = list(obj.values()) if isinstance(obj, Mapping) else list(obj.to_numpy())
    kinds = [_value_kind(k, v) for k, v in zip(keys, values, strict=True)]
    if "vector" in kinds and "tags" in kinds:
        i, j = kinds.index("vector"), kinds.index("tags")
        raise InputError(
            f"item_features: item {plain(keys[i])} has a feature vector but item "
            f"{plain(keys[j])} has tags; use one kind for every item ({_VECTOR_HINT})."
        )
    if kinds and kinds[0] == "vector":
        vecs = [np.asarray(v, dtype=np.float64) for v in values]
        dims = {len(v) for v in vecs}
        if len(dims) > 1:
            lens = [len(v) for v in vecs]
            i = next(n for n, d in enumerate(lens) if d != lens[0])
            raise InputError(
                f"item_features: feature vectors must all have one length; item "
                f"{plain(keys[0])} has {lens[0]} but item {plain(keys[i])} has {lens[i]}."
            )
        return as_item_features((np.vstack(vecs), pd.Index(keys)))
    return _from_tags(keys, values)


def _from_tags(keys: list, values: list) -> ItemFeatures:
    lens, tags = [], []
    for v in values:
        group = list(dict.fromkeys(v))
        lens.append(len(group))
        tags.extend(group)
    codes, _ = pd.factorize(pd.Series(tags, dtype=object)) if tags else (np.zeros(0, int), [])
    n_tags = int(codes.max()) + 1 if len(codes) else 0
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    matrix = sp.csr_matrix((np.ones(len(codes)), codes.astype(np.int64), indptr),
                           shape=(len(keys), n_tags))
    return as_item_features((matrix, pd.Index(keys)))


@dataclass
class TrainData:
    """Training interactions reduced to codes: item popularity and per-user histories."""

    users: np.ndarray        # raw user ids (code -> id)
    items: np.ndarray        # raw item ids (code -> id)
    item_rows: np.ndarray    # interactions (rows) per item code
    item_users: np.ndarray   # distinct users per item code
    n_rows: int
    indptr: np.ndarray       # distinct items per user code, CSR (ascending item code)
    hist: np.ndarray

    @property
    def n_users(self) -> int:
        return len(self.users)

    def popularity(self, pop: str) -> np.ndarray:
        return self.item_users if pop == "users" else self.item_rows

    def total(self, pop: str) -> int:
        """Normalizer of p(i): users in train (pop='users') or rows (pop='rows')."""
        return self.n_users if pop == "users" else self.n_rows


def as_train(obj: Any, **cols: Any) -> TrainData:
    """Read training interactions (see the module doc).

    A table whose user column is grouped (each user's rows together) of int64 or ``str`` ids
    is read without hashing the users, and int64 ids of a compact range without hashing;
    each user's rows are sorted within the user (a log not grouped by user is first placed
    by user with one counting pass: :func:`receval.kernels.train_lists`). A scipy.sparse
    matrix takes one global sort of the (user, item) pairs (:func:`_as_train_sorted`, the
    oracle of the per-user reading: both give the same arrays)."""
    if isinstance(obj, TrainData):
        return obj
    if sp.issparse(obj) or not _lists.COMPILED:
        return _as_train_sorted(obj, **cols)
    c = read_columns(obj, role="train", **cols)
    u_col, i_col = _plain_ids(c.user), _plain_ids(c.item)
    bounds = users = u = None
    if u_col is not None and len(u_col) >= 2:
        bounds, users, u = _user_runs(u_col)
    if users is None:
        u, users = factorize(c.user, what="train user column")
    if u is None:
        u = np.zeros(0, dtype=np.int32)
    else:
        bounds = None
    coded = dense_factorize(i_col, max(4 * len(i_col), 1 << 20)) \
        if i_col is not None and i_col.dtype == np.int64 else None
    i, items = coded if coded is not None else factorize(c.item, what="train item column")
    if max(len(users), len(items)) >= 2**31:  # codes past int32: the global sort
        return _as_train_sorted(obj, **cols)
    i = np.ascontiguousarray(i, dtype=np.int32)
    u = np.ascontiguousarray(u, dtype=np.int32)
    indptr, hist, item_rows, item_users = train_lists(
        np.zeros(0, dtype=np.int64) if bounds is None else bounds, u, len(users), i,
        len(items))
    return TrainData(users, items, item_rows, item_users, int(len(i)), indptr, hist)


def _plain_ids(col: Any) -> np.ndarray | None:
    """The ids of a pandas / numpy column as a numpy array when they are int64 or ``str``
    objects (the kinds read here without the general id reader), else None."""
    arr = col.to_numpy() if isinstance(col, pd.Series) else col
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype not in (np.int64, object):
        return None
    return np.ascontiguousarray(arr)


def _user_runs(ids: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None,
                                          np.ndarray | None]:
    """``(bounds, users, None)`` when the log is grouped by user (no id starts two runs of
    equal adjacent ids: the runs are the users, in order of first appearance, as
    ``factorize`` codes them); ``(None, users, codes)`` when it is not but its int64 ids span
    a compact range (each row's code in order of first appearance); else all None."""
    n = len(ids)
    if ids.dtype == np.int64:
        bounds, heads = adjacent_starts(0, ids, None, 0, 1, 1)
        coded = dense_factorize(heads, max(4 * len(heads), 1 << 20))
        if coded is not None:  # a direct table over the ids' range tells repeats apart
            if len(coded[1]) == len(heads):
                return bounds, heads, None
            return None, coded[1], np.repeat(coded[0], np.diff(bounds))
        kind = 0
    else:
        bounds = adjacent_starts(3, ids, None, 1, 0, 1)
        if bounds is None:  # not every id is a str
            return None, None, None
        heads, kind = ids[bounds[:-1]], 3
    # hashing every run's id costs more than hashing the rows once when most rows start one
    if 2 * len(heads) > n or index_ids(kind, heads, heads[:0])[1] != 0:
        return None, None, None
    return bounds, heads, None


def _as_train_sorted(obj: Any, **cols: Any) -> TrainData:
    """:func:`as_train` by one global sort of the (user, item) pairs (any input; the oracle
    of the per-user reading)."""
    if sp.issparse(obj):
        coo = sp.coo_matrix(obj)
        nz = coo.data != 0
        u, i = coo.row[nz].astype(np.int64), coo.col[nz].astype(np.int64)
        users = np.arange(coo.shape[0], dtype=np.int64)
        items = np.arange(coo.shape[1], dtype=np.int64)
    else:
        c = read_columns(obj, role="train", **cols)
        u, users = factorize(c.user, what="train user column")
        i, items = factorize(c.item, what="train item column")
    n_items = len(items)
    item_rows = np.bincount(i, minlength=n_items).astype(np.int64)
    # distinct (user, item) pairs, in order (a sort: numpy's unique may hash, much slower);
    # int64 keys: 32-bit codes times the item count overflow past 2**31
    width = max(n_items, 1)
    pair = u.astype(np.int64)
    pair *= width
    pair += i
    pair.sort()
    first = np.empty(len(pair), dtype=bool)
    if len(pair):
        first[0] = True
        np.not_equal(pair[1:], pair[:-1], out=first[1:])
        pair = pair[first]
    pu = pair // width
    pi = pair - pu * width
    item_users = np.bincount(pi, minlength=n_items).astype(np.int64)
    indptr = np.zeros(len(users) + 1, dtype=np.int64)
    np.cumsum(np.bincount(pu, minlength=len(users)), out=indptr[1:])
    return TrainData(users, items, item_rows, item_users, int(len(u)), indptr, pi)


def cooccurrence_features(train: TrainData) -> ItemFeatures:
    """Binary (items x training users) matrix: item similarity from shared users."""
    pu = np.repeat(np.arange(train.n_users, dtype=np.int64), np.diff(train.indptr))
    mat = sp.csr_matrix((np.ones(len(pu)), (train.hist, pu)),
                        shape=(len(train.items), train.n_users))
    return ItemFeatures(mat, pd.Index(train.items))


@dataclass
class Catalog:
    """The item set |I| of catalogue metrics: its size, ids when known, and how it was chosen."""

    size: int
    ids: pd.Index | None
    source: str


def resolve_catalog(catalog: Any, *, run_items: np.ndarray, truth_items: np.ndarray | None,
                    train_items: np.ndarray | None, recommended: np.ndarray,
                    outside: str = "error", key: str = "") -> Catalog:
    """The catalogue from ``catalog=`` (None/'all', a source name, a count or an id list).

    ``recommended``: raw ids of the items that appear in the evaluated lists. ``outside``:
    what a recommended item that is not in the catalogue does: ``"error"`` (raise, the
    default), or ``"ignore"`` / ``"count"``, which accept it (the caller drops it from, or
    counts it in, its numerator). A catalogue given as a count has no ids: every recommended
    item is taken to be inside it, and more distinct items than the count raise unless
    ``outside="count"``. ``key``: the metric that reads the catalogue, named in messages.
    """
    at = f"{key}: " if key else ""
    sources = {"run": run_items, "truth": truth_items, "train": train_items}
    if catalog is None or isinstance(catalog, str):
        text = "all" if catalog is None else catalog.strip().lower()
        names = ["train", "truth", "run"] if text == "all" else text.split("+")
        bad = [n for n in names if n not in sources]
        if bad:
            raise InputError(
                f"{at}catalog={plain(catalog)}: unknown source {plain(bad[0])}; use 'all' (train + truth + "
                "run, the default), a '+'-joined subset such as 'train' or 'train+truth', an "
                "item count, or a list of item ids."
            )
        parts = [sources[n] for n in names if sources[n] is not None]
        used = [n for n in names if sources[n] is not None]
        missing = [n for n in names if sources[n] is None]
        if text != "all" and missing:
            raise InputError(
                f"{at}catalog={plain(catalog)} needs {missing[0]}=...; pass it to evaluate().")
        ids = _union(parts)
        out = Catalog(len(ids), ids, "items of " + " + ".join(used))
    elif isinstance(catalog, (int, np.integer)) and not isinstance(catalog, bool):
        if catalog <= 0:
            raise InputError(f"{at}catalog={plain(catalog)}: an item count must be positive.")
        if len(recommended) > catalog and outside != "count":
            raise InputError(
                f"{at}the catalogue size evaluate(catalog={plain(catalog)}) is smaller than the "
                f"{len(recommended)} distinct items the lists hold; pass the true catalogue size "
                "or the item list."
            )
        return Catalog(int(catalog), None, f"count given ({catalog})")
    else:
        try:  # (a list as pandas reads it: numpy would make "nan" of NaN and "1" of 1)
            ids = pd.Index(catalog if isinstance(catalog, (np.ndarray, pd.Index, pd.Series))
                           else list(catalog)).unique()
        except (TypeError, ValueError):  # not a list, or a list holding a list
            found = first_unhashable(catalog) if isinstance(catalog, Iterable) else None
            held = "" if found is None else \
                f" (it holds {plain(found[1])}, a {type(found[1]).__name__}: give one id per item)"
            raise InputError(
                f"{at}catalog: expected None, a source name, an item count or a list of item ids, "
                f"got {type(catalog).__name__}{held}."
            ) from None
        if ids.hasnans:
            raise InputError(f"{at}catalog: the item id list holds a missing id (None or NaN); "
                             "drop it.")
        out = Catalog(len(ids), ids, f"explicit list ({len(ids)} items)")
    if out.ids is not None and len(recommended) and outside == "error":
        absent = out.ids.get_indexer(pd.Index(recommended)) < 0
        if absent.any():
            ex = pd.Index(recommended)[absent][:3].tolist()
            raise InputError(
                f"{at}catalog: {int(absent.sum())} recommended item(s) are not in the catalogue "
                f"({out.source}), e.g. {ex}; add them to the catalogue or filter the run "
                "(coverage also takes outside=ignore to drop them, outside=count to count "
                "them)."
            )
    if out.size == 0:
        raise InputError(f"{at}catalog: the catalogue is empty.")
    return out


def _union(parts: list[np.ndarray]) -> pd.Index:
    if not parts:
        return pd.Index([])
    return pd.Index(pd.unique(pd.Series(np.concatenate([np.asarray(p, dtype=object)
                                                         if p.dtype != parts[0].dtype else p
                                                         for p in parts]))))
