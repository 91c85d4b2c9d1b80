"""Turn user containers into canonical columns.

Accepted containers: pandas DataFrame, polars DataFrame / LazyFrame, pyarrow Table /
RecordBatch, any Arrow stream (``__arrow_c_stream__``: a RecordBatchReader, DuckDB, ...), a
dict-of-dicts ``{user: {item: value}}`` (trec_eval / ranx style) and a mapping of
column name to sequence. Column names must be strings and unique. When not given, the user,
item, score / rank and relevance columns are found by common names, tried in order (``user``,
``user_id``, ``qid``, ...); :attr:`Columns.names` records exactly which columns were used.

Id columns are kept in their native container (pandas Series or pyarrow ChunkedArray) so that
:mod:`receval.pack` can factorize them fast; :mod:`receval.pack.vocab` applies the id policy
(integers or strings, see ``docs/ids.md``). The value column (score, rank or relevance) becomes
one float64 array, converted exactly (see :func:`read_columns`); a float32 (or float16) score
column is kept as float32 until a reader asks for float64 (:attr:`Columns.value`), so that the
join, which reads float32 where it lies, makes no copy of it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._lazy import is_pandas, pandas, pandas_loaded
from ..errors import InputError, plain, require, suggest
from ..kernels import adjacent_starts, all_str
from .containers import records_to_frame

USER_NAMES = ("user", "user_id", "userId", "uid", "qid", "query_id", "query", "head")
ITEM_NAMES = ("item", "item_id", "itemId", "iid", "docno", "doc_id", "docid", "doc", "tail")
SCORE_NAMES = ("score", "prediction", "pred", "predicted", "sim", "similarity")
RANK_NAMES = ("rank", "position", "pos")
REL_NAMES = ("relevance", "rel", "label", "rating", "grade", "judgment")
#: every integer of magnitude up to 2**53 has an exact float64; beyond, neighbours merge
MAX_EXACT_FLOAT = 2**53
#: key of the mark that a table's string columns were read from a text file (see
#: :func:`mark_text_columns`): pandas ``DataFrame.attrs`` / Arrow schema metadata
TEXT_IDS = "receval.text_ids"
#: numeric truth columns that are never a relevance (compared lower-case); any other numeric
#: column of a truth without a recognised relevance column is an error, not relevance 1
NOT_RELEVANCE = frozenset((
    "timestamp", "time", "ts", "date", "datetime", "day", "unix_time", "unixtime",
    "unix_timestamp", "event_time", "created_at", "rank", "position", "pos", "session", "fold",
    "split", "iter", "q0", "index", "level_0", "__index_level_0__",
))


@dataclass
class Columns:
    """Canonical columns of one table: ids (native containers) and one float value column.

    ``values``: the value column as read, float64, or float32 for a float32 / float16 score
    column (widening float32 to float64 is exact: IEEE 754-2008 5.4.2); :attr:`value` is it
    as float64, made on first use.

    ``names`` maps each role (``user``, ``item``, and ``score``, ``rank`` or ``relevance``)
    to the column used; ``notes`` says how the value column was converted when it was not a
    plain cast to float64 (e.g. integer scores beyond 2**53 replaced by their dense rank).
    """

    user: Any
    item: Any
    values: np.ndarray | None
    value_kind: str  # "score", "rank", "relevance" or "none"
    names: dict[str, str]
    source: str
    notes: list[str] = field(default_factory=list)
    text_ids: frozenset[str] = frozenset()  # "user" / "item": ids read from a text file
    # "user" / "item": a pandas categorical column whose codes were not checked for a
    # missing value (-1), left to the packer that reads them (``read_columns(defer=True)``)
    unchecked: frozenset[str] = frozenset()

    @property
    def n_rows(self) -> int:
        return len(self.user)

    @property
    def value(self) -> np.ndarray | None:
        """The value column as float64 (a float32 score column widened once, exactly)."""
        if self.values is not None and self.values.dtype != np.float64:
            self.values = self.values.astype(np.float64)
        return self.values


class StrObjects(np.ndarray):
    """An object array whose every element is a Python ``str``, checked once when the column
    was read (:func:`is_str_array` then answers without another pass over 10^8 objects).
    Slices and copies keep the type (they hold only ``str`` too); assigning anything but a
    ``str`` into one raises, so the mark cannot go stale."""

    def __setitem__(self, key: Any, value: Any) -> None:
        if not (isinstance(value, str) or (isinstance(value, np.ndarray) and is_str_array(value))
                or (isinstance(value, (list, tuple))
                    and all(isinstance(v, str) for v in value))):
            raise TypeError("a StrObjects array holds only str; convert it with "
                            "np.asarray(arr, dtype=object) before storing other values.")
        self.__dict__.pop("adjacent", None)  # the runs of equal ids found when it was read
        super().__setitem__(key, value)


class UncheckedIds(np.ndarray):
    """An object id column whose check (every value a ``str``, none missing) was left to its
    reader: the join on raw ids checks each object as it reads it, so that a column of 10^8
    objects is not read once more for the check alone. Anything else that reads it calls
    :func:`checked_str_ids` first; a column that is not all ``str`` is read again, checked
    (:meth:`receval.Evaluator.evaluate`)."""


def checked_str_ids(arr: np.ndarray) -> StrObjects | None:
    """An :class:`UncheckedIds` column checked now: a :class:`StrObjects` when every value is
    a ``str``, else ``None``."""
    return _str_objects(arr.view(np.ndarray), False)


def is_str_array(arr: np.ndarray) -> bool:
    """Whether every element of an object array is a ``str`` (one pass in C, or none for a
    :class:`StrObjects`)."""
    if arr.dtype != object:
        return False
    return isinstance(arr, StrObjects) or all_str(arr)


def _str_objects(arr: np.ndarray, runs: bool) -> StrObjects | None:
    """An object id column as :class:`StrObjects` when every value is a ``str``, else
    ``None``. With ``runs`` (a user column), the pass that checks the values also finds the
    runs of equal adjacent ids (its :func:`adjacent_runs`), which grouping the rows by user
    reads: each of 10^8 objects is looked at once, not once per pass."""
    if not runs or len(arr) == 0:
        return arr.view(StrObjects) if is_str_array(arr) else None
    starts = adjacent_starts(3, arr, None, 1, 0, 1)
    if starts is None:
        return None
    out = arr.view(StrObjects)
    out.adjacent = starts
    return out


def adjacent_runs(arr: np.ndarray) -> np.ndarray | None:
    """The bounds of the runs of equal adjacent ids of a column read by :func:`read_columns`
    (each run's first row, then the row count), when its reading found them (not for a slice
    or a copy of it), else ``None``."""
    return getattr(arr, "adjacent", None) if isinstance(arr, StrObjects) else None


def column_values(col: Any) -> np.ndarray:
    """A column of :class:`Columns` (pandas, Arrow or numpy) as a numpy array; Arrow strings
    become an object array of ``str``."""
    if hasattr(col, "to_numpy"):
        try:
            return np.asarray(col.to_numpy(zero_copy_only=False))
        except TypeError:
            return np.asarray(col.to_numpy())
    return np.asarray(col)


def mark_text_columns(table: Any, names: list[str] | None = None) -> Any:
    """Mark columns of a table as read from a text file (TREC, CSV, TSV): their ids are text.

    ``names``: the columns (default: every string column). A pandas frame is marked in
    ``DataFrame.attrs``, a pyarrow Table or RecordBatch in its schema metadata (a new object is
    returned). When a run and a truth disagree on the kind of their ids and the string side is
    marked, the integer side is compared by its decimal text (:mod:`receval.pack.vocab`): a
    file holds text, and an integer's decimal text is exact and unique.
    """
    import json

    if is_pandas(table, "DataFrame"):
        pd = pandas()
        if names is None:
            names = [str(c) for c in table.columns if not pd.api.types.is_numeric_dtype(
                table[c].dtype) and not pd.api.types.is_bool_dtype(table[c].dtype)]
        table.attrs[TEXT_IDS] = list(names)
        return table
    import pyarrow as pa

    if names is None:
        names = [f.name for f in table.schema
                 if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    meta = dict(table.schema.metadata or {})
    meta[TEXT_IDS.encode()] = json.dumps(list(names)).encode()
    return table.replace_schema_metadata(meta)


def _text_columns(frame: Any, kind: str) -> set[str]:
    """The columns marked by :func:`mark_text_columns`."""
    import json

    if kind == "numpy":
        return set()
    if kind == "pandas":
        value = frame.attrs.get(TEXT_IDS)
    else:
        raw = (frame.schema.metadata or {}).get(TEXT_IDS.encode())
        try:
            value = json.loads(raw) if raw else None
        except ValueError:
            value = None
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _to_frame(data: Any, role: str) -> tuple[Any, str]:
    """Return (frame, kind): kind 'pandas' (a DataFrame), 'arrow' (a pyarrow Table) or 'numpy'
    (a dict of one-dimensional numpy columns, from a dict-of-dicts: no pandas import)."""
    if is_pandas(data, "DataFrame"):
        return data, "pandas"
    mod = type(data).__module__.split(".")[0]
    if mod == "polars":
        if hasattr(data, "collect") and not hasattr(data, "to_arrow"):
            data = data.collect()
        if hasattr(data, "to_arrow"):
            return data.to_arrow(), "arrow"
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if isinstance(data, pa.Table):
            return data, "arrow"
    if isinstance(data, Mapping):
        return _mapping_to_frame(data, role)
    if isinstance(data, np.ndarray) and data.dtype.names:
        return pandas().DataFrame(data), "pandas"
    if hasattr(data, "__arrow_c_stream__") and not isinstance(data, type):
        # the Arrow PyCapsule stream interface (a pyarrow RecordBatchReader, DuckDB, nanoarrow,
        # ...): read once into a pyarrow Table
        return require("pyarrow", "arrow").table(data), "arrow"
    records = records_to_frame(data, role)
    if records is not None:  # named-tuple records (ir_datasets, ir_measures)
        return records, "pandas"
    raise InputError(
        f"{role}: unsupported container {type(data).__name__}. Pass a pandas / polars DataFrame, "
        "a pyarrow Table (or any Arrow stream), a dict-of-dicts {user: {item: value}}, a "
        "dict of columns, or named-tuple records (ir_datasets' qrels_iter() / "
        "scoreddocs_iter(), ir_measures' Qrel / ScoredDoc)."
    )


def _mapping_to_frame(data: Mapping, role: str) -> tuple[Any, str]:
    values = list(data.values())
    if not values or all(isinstance(v, Mapping) for v in values):
        users, items, vals = [], [], []
        for u, inner in data.items():
            users.extend([u] * len(inner))
            items.extend(inner.keys())
            vals.extend(inner.values())
        value_name = "score" if role == "run" else "relevance"
        return {"user": _objects(users), "item": _objects(items),
                value_name: _dict_values(data, vals, role)}, "numpy"
    if any(isinstance(v, Mapping) for v in values):
        raise InputError(
            f"{role}: a dict must map every user to a dict {{item: value}} or every column name "
            "to a sequence; this one mixes both."
        )
    if not any(isinstance(k, str) for k in data) and all(
            isinstance(v, (list, tuple, set, frozenset, np.ndarray)) for v in values):
        u, v = next(iter(data.items()))
        if role == "run":
            fix = ("{user: {item: score}}, e.g. {u: {i: -r for r, i in enumerate(items)} for "
                   "u, items in d.items()} (earlier items score higher)")
        else:
            value = "relevance" if role == "truth" else "1"
            fix = (f"{{user: {{item: {value}}}}}, e.g. {{u: dict.fromkeys(items, 1) for u, "
                   "items in d.items()}")
        raise InputError(
            f"{role}: a dict {{user: [items]}} (e.g. {_show(u)}: {plain(v)}) is not read: a "
            f"list does not say each item's value; give {fix}, or a (user, item) table.")
    _check_names(list(data.keys()), role)
    try:
        return pandas().DataFrame(dict(data)), "pandas"
    except (ValueError, TypeError) as exc:
        raise InputError(f"{role}: cannot read the dict of columns: {exc}") from None


def first_unhashable(values: Any) -> tuple[int, Any] | None:
    """``(row, value)`` of the first value that cannot be an id or a label (a list, a set, a
    dict: nothing pandas can hash), or None; the readers name it in their errors instead of
    pandas' ``TypeError``."""
    return next(((i, v) for i, v in enumerate(values) if not isinstance(v, Hashable)), None)


def _objects(values: list) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _dict_values(data: Mapping, vals: list, role: str) -> np.ndarray:
    """The values of a dict-of-dicts: numbers only (a string such as "3" is an error, not 3)."""
    if not vals:
        return np.zeros(0, dtype=np.float64)
    ok = (int, float, np.integer, np.floating)
    if not all(isinstance(v, ok) or v is None for v in vals):
        for u, inner in data.items():
            for i, v in inner.items():
                if not (isinstance(v, ok) or v is None):
                    what = "score" if role == "run" else "relevance"
                    raise InputError(
                        f"{role}: the {what} of user {_show(u)}, item {_show(i)} is "
                        f"{_show(v)} ({type(v).__name__}); a dict-of-dicts maps every item to a "
                        "number."
                    )
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           for v in vals):
        for dtype in (np.int64, np.uint64):  # exact; read_columns ranks beyond 2**53
            try:
                return np.array(vals, dtype=dtype)
            except OverflowError:
                continue
        big = max(vals, key=lambda v: abs(int(v)))
        raise InputError(f"{role}: value {big} does not fit a 64-bit integer.")
    return np.array([np.nan if v is None else float(v) for v in vals], dtype=np.float64)


def _show(v: Any) -> str:
    return repr(v.item() if isinstance(v, np.generic) else v)


def _column_names(frame: Any, kind: str) -> list[Any]:
    if kind == "numpy":
        return list(frame)
    return list(frame.columns) if kind == "pandas" else list(frame.column_names)


def _check_names(names: list[Any], role: str) -> None:
    """Column names must be strings (``user_col="user"`` names them) and unique."""
    bad = [n for n in names if not isinstance(n, str)]
    if bad:
        raise InputError(
            f"{role}: column names must be strings, got {_show(bad[0])} "
            f"({type(bad[0]).__name__}) among [{', '.join(_show(n) for n in names)}]; name the "
            "columns, e.g. df.columns = ['user', 'item', 'score']."
        )
    seen: set[str] = set()
    dup = sorted({n for n in names if n in seen or seen.add(n)})
    if dup:
        raise InputError(
            f"{role}: column name(s) {dup} appear more than once, so it is ambiguous which one "
            "to read; rename or drop the duplicates."
        )


def _find(names: list[str], given: str | None, candidates: tuple[str, ...], what: str,
          role: str, flag: str, required: bool = True) -> str | None:
    if given is not None:
        if not isinstance(given, str):
            raise InputError(
                f"{role}: {flag} must be a column name (a string), got {_show(given)} "
                f"({type(given).__name__})."
            )
        if given not in names:
            raise InputError(
                f"{role}: column {given!r} (given as {flag}) is not in the data; its columns are "
                f"{names}." + suggest(given, names)
            )
        return given
    for cand in candidates:
        if cand in names:
            return cand
    lower = {n.lower(): n for n in names}
    for cand in candidates:
        if cand.lower() in lower:
            return lower[cand.lower()]
    if required:
        raise InputError(
            f"{role}: no {what} column found among {names}; name it one of {list(candidates[:4])} "
            f"or pass {flag}=..."
        )
    return None


def _id_column(frame: Any, kind: str, name: str, role: str, runs: bool = False,
               defer: bool = False) -> Any:
    """An id column, its missing values refused; ``runs``: a user column, whose rows are
    grouped by comparing adjacent ids (an object column's runs of equal ids are found in the
    pass that checks its values); ``defer``: an object column comes back unchecked, as
    :class:`UncheckedIds`, for a reader that checks each value it reads, and a pandas
    categorical column with its codes unchecked, for a reader that finds a missing code (-1)
    where it reads them (a user column among the ids of its runs of equal codes, one per
    user: :func:`receval.pack.rawids.grouped_ids`; an item column in the join)."""
    col = frame.column(name) if kind == "arrow" else frame[name]
    if kind == "pandas" and _python_strings(col):
        # pandas' ``str`` / ``string`` with Python storage (pandas without pyarrow): its own
        # object array, read as an object column (str or a missing value, no copy)
        col = np.asarray(col.array)
    if kind == "arrow":
        n_null = col.null_count
    elif isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
        n_null = 0  # a numpy integer column cannot hold a missing value: no pass over it
    elif kind == "pandas" and isinstance(col.dtype, pandas().CategoricalDtype):
        if defer:
            return col
        codes = col.array.codes  # a missing value is code -1: one reduction, no temporary
        n_null = int((codes < 0).sum()) if len(codes) and int(codes.min()) < 0 else 0
    elif col.dtype == object and defer and not runs and kind == "pandas":
        return np.asarray(col).view(UncheckedIds)
    elif col.dtype == object and (strs := _str_objects(np.asarray(col), runs)) is not None:
        return strs  # every value is a str: no missing id, and checked once
    elif kind == "numpy" and not pandas_loaded():  # dict keys: None or NaN are missing
        n_null = sum(1 for v in col.tolist()
                     if v is None or (isinstance(v, (float, np.floating)) and v != v))
    elif (arrow_nulls := _arrow_null_count(col)) is not None:
        n_null = arrow_nulls
    else:
        n_null = int(pandas().isna(col).sum())
    if n_null:
        raise InputError(
            f"{role}: column {name!r} has {n_null} missing id(s); drop or fill those rows first."
        )
    return col


def _python_strings(col: Any) -> bool:
    """Whether ``col`` is a pandas ``StringDtype`` column with Python storage."""
    pd = pandas()
    return is_pandas(col, "Series") and isinstance(col.dtype, pd.StringDtype) and \
        col.dtype.storage == "python"


def _arrow_null_count(col: Any) -> int | None:
    """The missing values of a pandas column held by Arrow (``str`` / ``string[pyarrow]`` /
    ``ArrowDtype``), read from its chunks' null counts without a pass over the rows; ``None``
    for any other column."""
    pd = pandas()
    if not (is_pandas(col, "Series") and isinstance(col.dtype, (pd.StringDtype, pd.ArrowDtype))
            and getattr(col.dtype, "storage", "pyarrow") == "pyarrow"):
        return None
    import pyarrow as pa

    try:
        return int(pa.array(col.array).null_count)  # the Arrow data itself, no copy
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # pragma: no cover
        return None


def _value_column(frame: Any, kind: str, name: str, role: str,
                  what: str) -> tuple[np.ndarray, list[str]]:
    """The value column as float64, exactly: ``(values, notes)``."""
    col = frame.column(name) if kind == "arrow" else frame[name]
    if kind == "numpy":  # from a dict-of-dicts: int64 / uint64 (exact) or float64
        if col.dtype.kind in "iu":
            return _exact(col, None, name, role, what)
        return col, []
    if kind == "arrow":
        import pyarrow as pa

        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
                or pa.types.is_boolean(col.type)):
            raise InputError(
                f"{role}: column {name!r} must be numeric, got {col.type}; convert it, e.g. "
                "with .cast(float)."
            )
        if pa.types.is_integer(col.type):
            mask = col.is_null().to_numpy(zero_copy_only=False) if col.null_count else None
            ints = col.fill_null(0).to_numpy() if col.null_count else col.to_numpy()
            return _exact(np.asarray(ints), mask, name, role, what)
        if col.null_count == 0 and what == "score" and col.type in (pa.float32(), pa.float16()):
            return _narrow_scores(np.asarray(col.to_numpy())), []
        arr = col.to_numpy().astype(np.float64, copy=False) if col.null_count == 0 else \
            np.asarray(col.to_pandas(), dtype=np.float64)
        return np.ascontiguousarray(arr), []
    pd = pandas()
    if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
        sample = col.iloc[0] if len(col) else None
        raise InputError(
            f"{role}: column {name!r} must be numeric, got dtype {col.dtype} (first value "
            f"{_show(sample)}); convert it with pd.to_numeric(df[{name!r}])."
        )
    dtype = col.dtype
    np_dtype = dtype if isinstance(dtype, np.dtype) else getattr(dtype, "numpy_dtype", None)
    if np_dtype is not None and np.dtype(np_dtype).kind in "iu":
        mask = col.isna().to_numpy() if not isinstance(dtype, np.dtype) else None
        ints = col.to_numpy(dtype=np_dtype, na_value=0) if mask is not None else col.to_numpy()
        return _exact(np.asarray(ints), mask if mask is not None and mask.any() else None,
                      name, role, what)
    if what == "score" and isinstance(dtype, np.dtype) and dtype in (np.float32, np.float16):
        return _narrow_scores(col.to_numpy()), []
    return np.ascontiguousarray(col.to_numpy(dtype=np.float64, na_value=np.nan),
                                dtype=np.float64), []


def _narrow_scores(arr: np.ndarray) -> np.ndarray:
    """A float32 / float16 score column as float32, where it lies when it can: every float16
    and float32 is a float32 and a float64 exactly, NaN and infinities included."""
    return np.ascontiguousarray(arr, dtype=np.float32)


def _exact(ints: np.ndarray, mask: np.ndarray | None, name: str, role: str,
           what: str) -> tuple[np.ndarray, list[str]]:
    """Integer values as float64, exactly. Integers of magnitude above 2**53 do not all have a
    float64; a score or rank column holding one is replaced by its dense rank within the column
    (same order, same ties), a relevance column is an error."""
    valid = ints if mask is None else ints[~mask]
    big = len(valid) and (int(valid.max()) > MAX_EXACT_FLOAT
                          or (valid.dtype.kind == "i" and int(valid.min()) < -MAX_EXACT_FLOAT))
    if not big:
        out = ints.astype(np.float64)
        if mask is not None:
            out[mask] = np.nan
        return out, []
    if what == "relevance":
        v = int(valid.max()) if int(valid.max()) > MAX_EXACT_FLOAT else int(valid.min())
        raise InputError(
            f"{role}: relevance column {name!r} holds {v}, beyond 2**53, where float64 no "
            "longer holds every integer; relevance grades are small numbers: check the column."
        )
    uniq, inverse = np.unique(valid, return_inverse=True)
    out = np.full(len(ints), np.nan, dtype=np.float64)
    if mask is None:
        out[:] = inverse
    else:
        out[~mask] = inverse
    return out, [
        f"{role} {what} column {name!r} holds integers beyond 2**53 (float64 would merge or "
        f"reorder them); each value was replaced by its dense rank among the column's "
        f"{len(uniq)} distinct values, which keeps the order and the ties exactly"
    ]


def _likely_relevance(frame: Any, kind: str, names: list[str], used: set[str]) -> list[str]:
    """Numeric or boolean truth columns that could be a relevance but are not recognised."""
    out = []
    for n in names:
        low = n.lower()
        if n in used or low in NOT_RELEVANCE or low.endswith("id") or low.startswith("unnamed:") \
                or low in {c.lower() for c in USER_NAMES + ITEM_NAMES}:
            continue
        if kind == "numpy":
            numeric = frame[n].dtype.kind in "iufb"
        elif kind == "pandas":
            pd = pandas()
            dtype = frame[n].dtype
            numeric = (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)) \
                and not isinstance(dtype, pd.CategoricalDtype)
        else:
            import pyarrow as pa

            t = frame.schema.field(n).type
            numeric = pa.types.is_integer(t) or pa.types.is_floating(t) \
                or pa.types.is_boolean(t) or pa.types.is_decimal(t)
        if numeric:
            out.append(n)
    return out


def read_columns(data: Any, *, role: str, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rank_col: str | None = None, rel_col: str | None = None,
                 defer: bool = False) -> Columns:
    """Canonical (user, item, value) columns of a run (``role="run"``) or truth table.

    A run needs a score column (higher is better) or a rank column (1 = best); when both exist
    the score wins unless ``rank_col`` is given. A truth table's relevance column is optional
    (every row then has relevance 1), but a truth (``role="truth"``) that has no recognised
    relevance column and another numeric column (``weight``, ``clicks``, ``score``, ...) is an
    error: pass ``rel_col=`` to use it, or drop it. Numeric columns that are never a relevance
    (``timestamp``, ``rank``, names ending in ``id``, ... see ``NOT_RELEVANCE``) are ignored.
    :attr:`Columns.names` records the columns used.

    Ids follow the id policy of :mod:`receval.pack.vocab`. ``defer``: checks a packer makes
    as it reads the ids are not made here (an object item column, pandas categorical user and
    item columns: :func:`_id_column`; the latter listed in :attr:`Columns.unchecked`).

    Values: the score, rank or relevance column becomes float64, exactly. Floats (16, 32 or
    64 bit) and integers up to 2**53 in magnitude convert without change; booleans are 0 / 1.
    A float32 or float16 score column is held as float32 (:attr:`Columns.values`) and widened
    only when :attr:`Columns.value` is read.
    A score or rank column holding an integer beyond 2**53 (where float64 no longer holds every
    integer, so that ``2**60 + 1`` and ``2**60`` would tie) is replaced by its dense rank within
    the column: the order and the ties are exactly those of the integers, and
    :attr:`Columns.notes` says so. A relevance beyond 2**53 is an error. Every tie policy
    orders by these float64 values (``ties="trec_eval"`` then compares them as 32-bit floats,
    as trec_eval does).
    """
    frame, kind = _to_frame(data, role)
    names = _column_names(frame, kind)
    _check_names(names, role)
    ucol = _find(names, user_col, USER_NAMES, "user", role, "user_col")
    icol = _find(names, item_col, ITEM_NAMES, "item", role, "item_col")
    user = _id_column(frame, kind, ucol, role, runs=True, defer=defer)
    item = _id_column(frame, kind, icol, role, defer=defer)
    unchecked = frozenset(r for r, c in (("user", user), ("item", item))
                          if defer and kind == "pandas" and
                          isinstance(c.dtype, pandas().CategoricalDtype))
    used = {"user": ucol, "item": icol}
    text = _text_columns(frame, kind)
    text_ids = frozenset(r for r, c in (("user", ucol), ("item", icol)) if c in text)
    if role == "run":
        scol = None if rank_col is not None else _find(
            names, score_col, SCORE_NAMES, "score", role, "score_col", required=False)
        rcol = None if scol is not None else _find(
            names, rank_col, RANK_NAMES, "rank", role, "rank_col", required=False)
        if scol is None and rcol is None:
            raise InputError(
                f"run: no score or rank column found among {names}; name one 'score' (higher is "
                "better) or 'rank' (1 = best), or pass score_col=... / rank_col=..."
            )
        vname = scol or rcol
        vkind = "score" if scol else "rank"
        used[vkind] = vname
        value, notes = _value_column(frame, kind, vname, role, vkind)
        return Columns(user, item, value, vkind, used, kind, notes, text_ids, unchecked)
    rcol = _find(names, rel_col, REL_NAMES, "relevance", role, "rel_col", required=False)
    if rcol is None:
        if role == "truth":
            extra = _likely_relevance(frame, kind, names, {ucol, icol})
            if extra:
                raise InputError(
                    f"{role}: no relevance column was recognised (names tried: "
                    f"{list(REL_NAMES)}), but numeric column(s) {extra} could be one; receval "
                    f"will not guess. Pass rel_col={extra[0]!r} to use "
                    "it as the relevance, or drop the column(s) to count every row as relevant "
                    "(relevance 1)."
                )
        return Columns(user, item, None, "none", used, kind, text_ids=text_ids,
                       unchecked=unchecked)
    used["relevance"] = rcol
    value, notes = _value_column(frame, kind, rcol, role, "relevance")
    return Columns(user, item, value, "relevance", used, kind, notes, text_ids, unchecked)
