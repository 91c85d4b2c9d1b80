"""Frame helpers shared by the splitters: input conversion, column checks, stable codes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from ..io.containers import to_pandas  # noqa: F401  (the one container reader, re-exported)


def require_columns(df: pd.DataFrame, name: str, **cols: str | None) -> None:
    for role, col in cols.items():
        if col is not None and col not in df.columns:
            raise InputError(
                f"{name} has no column {plain(col)} (the {role} column); its columns are "
                f"{list(df.columns)}. Pass {role}_col=... to name the right one."
            )


def codes(values: pd.Series) -> np.ndarray:
    """Integer codes whose order follows the raw values (ascending), so ties break on raw ids."""
    try:
        c, _ = pd.factorize(values, sort=True)
    except TypeError:  # mixed, unorderable types: order by their string form
        c, _ = pd.factorize(values.astype(str), sort=True)
    if (c < 0).any():
        raise InputError(
            f"column {plain(values.name)} contains {int((c < 0).sum())} missing value(s); drop or "
            "fill them before splitting."
        )
    return c.astype(np.int64)


def time_values(df: pd.DataFrame, col: str) -> np.ndarray:
    """Timestamps as an orderable numpy array (datetime64 or numeric)."""
    s = df[col]
    if isinstance(s.dtype, pd.DatetimeTZDtype):  # compare instants in UTC
        s = s.dt.tz_convert("UTC").dt.tz_localize(None)
    if pd.api.types.is_datetime64_any_dtype(s) or pd.api.types.is_numeric_dtype(s):
        if s.isna().any():
            raise InputError(
                f"timestamp column {plain(col)} has {int(s.isna().sum())} missing value(s); drop or "
                "fill them before a temporal split."
            )
        return s.to_numpy()
    raise InputError(
        f"timestamp column {plain(col)} has dtype {s.dtype}; it must be numeric or datetime. "
        f"Convert it first, e.g. df[{plain(col)}] = pandas.to_datetime(df[{plain(col)}])."
    )


def time_codes(df: pd.DataFrame, col: str) -> np.ndarray:
    """Dense ascending integer ranks of the timestamps (equal timestamps share a code)."""
    t = time_values(df, col)
    _, inv = np.unique(t, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)


def group_positions(user: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows visited in ``order`` (grouped by user): 0-based position within the user and
    the user's row count, both aligned with ``order``."""
    u = user[order]
    counts = np.bincount(user)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pos = np.arange(u.size) - starts[u]
    return pos, counts[u]


def take(df: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """Rows where ``mask`` is true, in the original order, original index kept."""
    return df.iloc[np.flatnonzero(mask)]
