"""Input helpers shared by the online modules: any frame to pandas, checked columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain, suggest


def to_pandas(data: Any, what: str) -> pd.DataFrame:
    """pandas, polars, pyarrow or a dict of columns as a pandas frame."""
    if isinstance(data, pd.DataFrame):
        return data
    if hasattr(data, "to_pandas"):
        return data.to_pandas()
    if isinstance(data, dict):
        return pd.DataFrame(data)
    raise InputError(f"{what} must be a data frame (pandas, polars, pyarrow) or a dict of "
                     f"columns; got {type(data).__name__}.")


def need(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise naming the first missing column and the nearest existing one."""
    for c in columns:
        if c not in df.columns:
            raise InputError(f"{what} has no column {plain(c)}; columns are {list(map(str, df.columns))}."
                             + suggest(str(c), map(str, df.columns))
                             + " Name the right column with the matching keyword argument.")


def numeric(df: pd.DataFrame, column: str, what: str, *, finite: bool = True) -> np.ndarray:
    """Column as float64; non-numeric or (with ``finite``) NaN / inf values raise, naming one."""
    try:
        x = pd.to_numeric(df[column], errors="raise").to_numpy(dtype=np.float64)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{what} column {plain(column)} must be numeric: {exc}.") from exc
    if finite:
        bad = ~np.isfinite(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{what} column {plain(column)} has {int(bad.sum())} NaN/inf value(s) "
                             f"(first at row {i}: {plain(x[i])}); fill or drop them first.")
    return x
