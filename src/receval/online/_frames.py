"""One reader and one set of domain checks for the frames of the online modules.

Every check raises :class:`~receval.errors.InputError` naming the frame (``what``), the column,
an offending value and the fix; nothing is dropped without a count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain, suggest
from ..io.containers import to_pandas  # noqa: F401  (the one container reader, re-exported)

#: tolerance of "the probabilities of a context sum to 1"
SUM_TOL = 1e-6


def need(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise naming the first missing column and the nearest existing one."""
    for c in columns:
        if c not in df.columns:
            raise InputError(f"{what} has no column {plain(c)}; columns are {list(map(str, df.columns))}."
                             + suggest(str(c), map(str, df.columns))
                             + " Name the right column with the matching keyword argument.")


def numeric(df: pd.DataFrame, column: str, what: str, *, finite: bool = True) -> np.ndarray:
    """Column as float64; non-numeric or (with ``finite``) NaN / inf values raise, naming one."""
    col = df[column]
    if pd.api.types.is_bool_dtype(col.dtype):
        col = col.astype(np.int64)
    try:
        x = pd.to_numeric(col, errors="raise").to_numpy(dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{what} column {plain(column)} must be numeric: {exc}; fix or drop "
                         "that value.") from None
    if finite:
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{what} column {plain(column)} has {int(bad.sum())} NaN/inf value(s) "
                             f"(first at row {i}: {plain(x[i])}); fill or drop them first.")
    return x


def integers(df: pd.DataFrame, column: str, what: str, *, low: int | None = None,
             hint: str = "") -> np.ndarray:
    """Column of whole numbers as int64: ``2.7`` raises (never truncated), as does a value
    below ``low``."""
    x = numeric(df, column, what)
    frac = x != np.round(x)
    if frac.any():
        i = int(np.flatnonzero(frac)[0])
        raise InputError(f"{what} column {plain(column)} must hold whole numbers; {int(frac.sum())} "
                         f"value(s) do not, e.g. {plain(x[i])} at row {i}. Round or fix them first.")
    if (np.abs(x) >= 2.0 ** 62).any():
        raise InputError(f"{what} column {plain(column)} holds a value too large for an integer "
                         f"({plain(float(np.abs(x).max()))}).")
    out = x.astype(np.int64)
    if low is not None and (out < low).any():
        i = int(np.flatnonzero(out < low)[0])
        raise InputError(f"{what} column {plain(column)} must be at least {low}; found "
                         f"{plain(out[i])} at row {i}.{(' ' + hint) if hint else ''}")
    return out


def in_unit_interval(x: np.ndarray, column: str, what: str, *, zero: bool = False,
                     hint: str = "") -> np.ndarray:
    """Probabilities in ``(0, 1]`` (``zero=True``: ``[0, 1]``); raises naming a bad value."""
    bad = ~(((x >= 0) if zero else (x > 0)) & (x <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        span = "[0, 1]" if zero else "(0, 1]"
        raise InputError(f"{what} column {plain(column)} must lie in {span}; {int(bad.sum())} "
                         f"row(s) do not, e.g. {plain(x[i])} at row {i}.{(' ' + hint) if hint else ''}")
    return x


def unique_rows(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Refuse a repeated key (naming the first repeat and how many there are)."""
    dup = df.duplicated(list(columns))
    if dup.any():
        key = ", ".join(f"{c}={plain(df.loc[dup, c].iloc[0])}" for c in columns)
        raise InputError(f"{what} has {int(dup.sum())} repeated ({', '.join(columns)}) row(s), "
                         f"e.g. {key}; each must appear once: drop or aggregate the repeats.")


def one_arm_per_unit(df: pd.DataFrame, unit: str, variant: str, what: str) -> None:
    """Refuse a unit seen in two arms (contamination)."""
    arms = df.groupby(unit, sort=False, dropna=True)[variant].nunique()
    if (arms > 1).any():
        bad = arms.index[arms > 1][0]
        raise InputError(f"{what}: unit {plain(bad)} appears in more than one arm of column "
                         f"{plain(variant)} ({int((arms > 1).sum())} such units): the unit of "
                         "analysis must be the unit of randomisation; pass unit= the randomised "
                         "id, or drop the contaminated units.")


def id_kind(values: Any) -> str:
    """``"integer"``, ``"string"``, ``"floating"``, ``"mixed"`` ... (pandas' inferred kind)."""
    kind = pd.api.types.infer_dtype(pd.Index(values), skipna=True)
    return {"mixed-integer": "mixed", "mixed-integer-float": "mixed", "bytes": "string"}.get(
        kind, kind)


def same_id_kind(a: Any, b: Any, name_a: str, name_b: str, role: str) -> None:
    """Refuse ids of two kinds (``1`` against ``"1"``): they would match nothing, silently."""
    ka, kb = id_kind(a), id_kind(b)
    if "empty" in (ka, kb) or ka == kb or {ka, kb} <= {"integer", "floating"}:
        return
    ex_a = plain(next(iter(pd.Index(a).dropna()), None))
    ex_b = plain(next(iter(pd.Index(b).dropna()), None))
    raise InputError(f"the {role} ids of {name_a} are {ka} (e.g. {ex_a}) but those of {name_b} "
                     f"are {kb} (e.g. {ex_b}): no id can match. Cast one side to the other's "
                     "type (e.g. .astype(str)) first.")


def sums_to_one(group: np.ndarray, p: np.ndarray, what: str, column: str, ids: Any,
                *, at_most: bool = False) -> None:
    """The probabilities of each context sum to 1 (``at_most``: to at most 1) within
    :data:`SUM_TOL`."""
    n = int(group.max()) + 1 if group.size else 0
    tot = np.bincount(group, weights=p, minlength=n)
    bad = tot > 1 + SUM_TOL if at_most else np.abs(tot - 1) > SUM_TOL
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = "at most 1" if at_most else "1"
        raise InputError(f"{what} column {plain(column)}: the probabilities of {plain(ids[i])} sum "
                         f"to {tot[i]:.6g}, not {rule} (tolerance {SUM_TOL:g}; {int(bad.sum())} "
                         "such context(s)); normalise them first.")
