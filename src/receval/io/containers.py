"""Tables of any container as one pandas frame, for the modules that work on whole frames.

The evaluation reads its columns in place (:func:`receval.io.frames.read_columns`); the
splitters and the online analyses work on a pandas frame. :func:`to_pandas` is the one place
where a container becomes that frame, so a new container is taught here once.
"""

from __future__ import annotations

from typing import Any

from .._lazy import pandas
from ..errors import InputError, require


def to_pandas(data: Any, what: str = "data") -> Any:
    """``data`` as a pandas DataFrame: a pandas DataFrame as it is, a polars DataFrame or a
    pyarrow Table through its ``to_pandas()``, any Arrow stream (the PyCapsule interface,
    ``__arrow_c_stream__``), a dict of equally long columns. Anything else
    raises :class:`~receval.errors.InputError` naming ``what`` and the type given."""
    pd = pandas()
    if isinstance(data, pd.DataFrame):
        return data
    if hasattr(data, "to_pandas") and not isinstance(data, type):
        out = data.to_pandas()
        if isinstance(out, pd.DataFrame):
            return out
    if hasattr(data, "__arrow_c_stream__") and not isinstance(data, type):
        # an Arrow stream (RecordBatchReader, DuckDB, nanoarrow, ...)
        return require("pyarrow", "arrow").table(data).to_pandas()
    if isinstance(data, dict):
        try:
            return pd.DataFrame(data)
        except (ValueError, TypeError) as exc:
            raise InputError(f"{what}: the dict of columns is not a table ({exc}); give columns "
                             "of equal length.") from None
    raise InputError(f"{what} must be a data frame (pandas, polars, pyarrow) or a dict of "
                     f"columns; got {type(data).__name__}.")
