"""User weights as an input (``weights=``): one non-negative weight per user.

``weights=`` may be a dict ``{user: weight}``, a ``pandas.Series`` (index: users), or a table
(pandas / polars / pyarrow / dict of columns) with a user column and one weight column
(``weight_col=`` names it when the table has several). A weight is a finite number >= 0 (a
user of weight 0 counts in ``n`` but not in the mean); a user listed twice must have one weight.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, plain
from .frames import (
    USER_NAMES,
    _check_names,
    _column_names,
    _find,
    _id_column,
    _to_frame,
    first_unhashable,
)


@dataclass(frozen=True)
class Weights:
    """``users[i]`` (raw ids, distinct) weighs ``values[i]``; ``column``: the column read."""

    users: np.ndarray
    values: np.ndarray
    column: str | None = None


def read_weights(weights: Any, *, user_col: str | None = None,
                 weight_col: str | None = None) -> Weights:
    """The :class:`Weights` of ``weights=`` (module docstring for the forms read)."""
    if isinstance(weights, Weights):
        return weights
    pd = pandas()
    if isinstance(weights, pd.Series):
        return _checked(np.asarray(weights.index, dtype=object), weights.to_numpy(),
                        None if weights.name is None else str(weights.name))
    if isinstance(weights, Mapping) and weights and not all(
            isinstance(v, (list, np.ndarray)) or type(v).__name__ in ("Series", "Array")
            for v in weights.values()):
        keys = np.empty(len(weights), dtype=object)
        keys[:] = list(weights.keys())
        vals = np.empty(len(weights), dtype=object)
        vals[:] = list(weights.values())
        return _checked(keys, vals, None)
    if isinstance(weights, Mapping) and not weights:
        raise InputError("weights: the dict is empty; give {user: weight} for every evaluated "
                         "user.")
    frame, kind = _to_frame(weights, "weights")
    names = _column_names(frame, kind)
    _check_names(names, "weights")
    ucol = _find(names, user_col, USER_NAMES, "user", "weights", "user_col")
    if weight_col is None:
        rest = [n for n in names if n != ucol]
        if len(rest) != 1:
            raise InputError(f"weights: the table has columns {names}; name the weight column "
                             "with weight_col=.")
        weight_col = rest[0]
    elif weight_col not in names or weight_col == ucol:
        raise InputError(f"weight_col={weight_col!r}: weights has no such column; its columns "
                         f"are {names}.")
    users = np.asarray(_id_column(frame, kind, ucol, "weights"), dtype=object)
    col = frame.column(weight_col).to_pylist() if kind == "arrow" else list(frame[weight_col])
    vals = np.empty(len(col), dtype=object)
    vals[:] = col
    return _checked(users, vals, weight_col)


def _checked(users: np.ndarray, values: Any, column: str | None) -> Weights:
    """Weights as float64, every one a finite number >= 0, one per distinct user."""
    where = f"column {column!r}" if column else "weights"
    vals = np.asarray(values, dtype=object).tolist()
    out = np.empty(len(vals), dtype=np.float64)
    for i, v in enumerate(vals):
        ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
            v, (bool, np.bool_))
        x = float(v) if ok else float("nan")
        if not ok or not np.isfinite(x) or x < 0:
            raise InputError(
                f"weights: {where} gives user {plain(users[i])} the weight {plain(v)}; a weight "
                "is a finite number >= 0 (0: the user counts but does not weigh in the mean).")
        out[i] = x
    pd = pandas()
    ids_in = pd.Series(users, dtype=object)
    missing = ids_in.isna().to_numpy()
    if missing.any():
        raise InputError(f"weights: row {int(np.flatnonzero(missing)[0])} has no user id "
                         f"({int(missing.sum())} row(s) in all); give every weight its user.")
    try:
        codes, distinct = pd.factorize(ids_in)
    except TypeError as exc:  # an id pandas cannot hash: a list, a set, a dict
        found = first_unhashable(ids_in.tolist())
        if found is None:  # pragma: no cover - pandas hashes every hashable id
            raise InputError(f"weights: the user ids cannot be read: {exc}.") from None
        i, u = found
        raise InputError(f"weights: row {i} gives the user id {plain(u)}, a {type(u).__name__}; "
                         "give one user id (a string or an integer) per weight.") from None
    first = np.full(len(distinct), np.nan)
    first[codes[::-1]] = out[::-1]
    clash = first[codes] != out
    if clash.any():
        i = int(np.flatnonzero(clash)[0])
        raise InputError(f"weights: user {plain(users[i])} has two weights ({first[codes[i]]!r} "
                         f"and {out[i]!r}); give each user one weight.")
    ids = np.asarray(distinct, dtype=object)
    if len(ids) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                        for v in ids.tolist()):
        try:
            ids = ids.astype(np.int64)
        except OverflowError:
            ids = ids.astype(np.uint64)
    return Weights(ids, first, column)
