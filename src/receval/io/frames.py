"""Turn user containers into canonical columns.

Accepted containers: pandas DataFrame, polars DataFrame / LazyFrame, pyarrow Table, a
dict-of-dicts ``{user: {item: value}}`` (trec_eval / ranx style) and a mapping of column name to
sequence. Column names are configurable; when not given, common names are tried in order
(``user``, ``user_id``, ``qid``, ...). The result keeps id columns in their native container
(pandas Series or pyarrow ChunkedArray) so that :mod:`receval.pack` can factorize them fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, suggest

USER_NAMES = ("user", "user_id", "userId", "uid", "qid", "query_id", "query", "head")
ITEM_NAMES = ("item", "item_id", "itemId", "iid", "docno", "doc_id", "docid", "doc", "tail")
SCORE_NAMES = ("score", "prediction", "pred", "predicted", "sim", "similarity")
RANK_NAMES = ("rank", "position", "pos")
REL_NAMES = ("relevance", "rel", "label", "rating", "grade", "judgment")


@dataclass
class Columns:
    """Canonical columns of one table: ids (native containers) and one float value column."""

    user: Any
    item: Any
    value: np.ndarray | None
    value_kind: str  # "score", "rank", "relevance" or "none"
    names: dict[str, str]
    source: str

    @property
    def n_rows(self) -> int:
        return len(self.user)


def _to_frame(data: Any, role: str) -> tuple[Any, str]:
    """Return (frame, kind) where kind is 'pandas' or 'arrow'."""
    if isinstance(data, pd.DataFrame):
        return data, "pandas"
    mod = type(data).__module__.split(".")[0]
    if mod == "polars":
        if hasattr(data, "collect") and not hasattr(data, "to_arrow"):
            data = data.collect()
        return data.to_arrow(), "arrow"
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(data, pa.RecordBatch):
            data = pa.Table.from_batches([data])
        if isinstance(data, pa.Table):
            return data, "arrow"
    if isinstance(data, Mapping):
        return _mapping_to_frame(data, role), "pandas"
    if isinstance(data, np.ndarray) and data.dtype.names:
        return pd.DataFrame(data), "pandas"
    raise InputError(
        f"{role}: unsupported container {type(data).__name__}. Pass a pandas / polars DataFrame, "
        "a pyarrow Table, a dict-of-dicts {user: {item: value}}, or a dict of columns."
    )


def _mapping_to_frame(data: Mapping, role: str) -> pd.DataFrame:
    values = list(data.values())
    if not values or all(isinstance(v, Mapping) for v in values):
        users, items, vals = [], [], []
        for u, inner in data.items():
            users.extend([u] * len(inner))
            items.extend(inner.keys())
            vals.extend(inner.values())
        value_name = "score" if role == "run" else "relevance"
        return pd.DataFrame({"user": pd.Series(users, dtype=object),
                             "item": pd.Series(items, dtype=object),
                             value_name: np.asarray(vals, dtype=np.float64) if vals else
                             np.zeros(0, dtype=np.float64)})
    if any(isinstance(v, Mapping) for v in values):
        raise InputError(
            f"{role}: a dict must map every user to a dict {{item: value}} or every column name "
            "to a sequence; this one mixes both."
        )
    try:
        return pd.DataFrame(dict(data))
    except ValueError as exc:
        raise InputError(f"{role}: cannot read the dict of columns: {exc}") from None


def _column_names(frame: Any, kind: str) -> list[str]:
    return list(frame.columns) if kind == "pandas" else list(frame.column_names)


def _find(names: list[str], given: str | None, candidates: tuple[str, ...], what: str,
          role: str, flag: str, required: bool = True) -> str | None:
    if given is not None:
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


def _id_column(frame: Any, kind: str, name: str, role: str) -> Any:
    col = frame[name] if kind == "pandas" else frame.column(name)
    n_null = int(col.isna().sum()) if kind == "pandas" else col.null_count
    if n_null:
        raise InputError(
            f"{role}: column {name!r} has {n_null} missing id(s); drop or fill those rows first."
        )
    return col


def _value_column(frame: Any, kind: str, name: str, role: str) -> np.ndarray:
    col = frame[name] if kind == "pandas" else frame.column(name)
    if kind == "arrow":
        import pyarrow as pa

        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
                or pa.types.is_boolean(col.type)):
            raise InputError(
                f"{role}: column {name!r} must be numeric, got {col.type}; convert it, e.g. "
                "with .cast(float)."
            )
        arr = col.to_numpy().astype(np.float64, copy=False) if col.null_count == 0 else \
            np.asarray(col.to_pandas(), dtype=np.float64)
        return np.ascontiguousarray(arr)
    if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
        sample = col.iloc[0] if len(col) else None
        raise InputError(
            f"{role}: column {name!r} must be numeric, got dtype {col.dtype} (first value "
            f"{sample!r}); convert it with pd.to_numeric(df[{name!r}])."
        )
    return np.ascontiguousarray(col.to_numpy(dtype=np.float64, na_value=np.nan),
                                dtype=np.float64)


def read_columns(data: Any, *, role: str, user_col: str | None = None,
                 item_col: str | None = None, score_col: str | None = None,
                 rank_col: str | None = None, rel_col: str | None = None) -> Columns:
    """Canonical (user, item, value) columns of a run (``role="run"``) or truth table.

    A run needs a score column (higher is better) or a rank column (1 = best); when both exist
    the score wins unless ``rank_col`` is given. A truth table's relevance column is optional
    (every row then has relevance 1).
    """
    frame, kind = _to_frame(data, role)
    names = _column_names(frame, kind)
    ucol = _find(names, user_col, USER_NAMES, "user", role, "user_col")
    icol = _find(names, item_col, ITEM_NAMES, "item", role, "item_col")
    user = _id_column(frame, kind, ucol, role)
    item = _id_column(frame, kind, icol, role)
    used = {"user": ucol, "item": icol}
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
        used["score" if scol else "rank"] = vname
        return Columns(user, item, _value_column(frame, kind, vname, role),
                       "score" if scol else "rank", used, kind)
    rcol = _find(names, rel_col, REL_NAMES, "relevance", role, "rel_col", required=False)
    if rcol is None:
        return Columns(user, item, None, "none", used, kind)
    used["relevance"] = rcol
    return Columns(user, item, _value_column(frame, kind, rcol, role), "relevance", used, kind)
