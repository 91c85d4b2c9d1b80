"""Tables of any container as one pandas frame, for the modules that work on whole frames.

The evaluation reads its columns in place (:func:`receval.io.frames.read_columns`); the
splitters and the online analyses work on a pandas frame. :func:`to_pandas` is the one place
where a container becomes that frame, so a new container is taught here once.
"""

from __future__ import annotations

import itertools
from typing import Any

from .._lazy import pandas
from ..errors import InputError, require
from .irds import is_irds, read_irds


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
    records = records_to_frame(data, what)
    if records is not None:
        return records
    if isinstance(data, dict):
        try:
            return pd.DataFrame(data)
        except (ValueError, TypeError) as exc:
            raise InputError(f"{what}: the dict of columns is not a table ({exc}); give columns "
                             "of equal length.") from None
    raise InputError(f"{what} must be a data frame (pandas, polars, pyarrow) or a dict of "
                     f"columns; got {type(data).__name__}.")


#: the record iterators of an ir_datasets dataset, by the role of the table asked for
_DATASET_ITERS = {"truth": "qrels_iter", "run": "scoreddocs_iter"}


def is_records(data: Any) -> bool:
    """A list or tuple of named tuples (records, not a list of item-id arrays)."""
    return isinstance(data, (list, tuple)) and len(data) > 0 and isinstance(data[0], tuple) \
        and bool(getattr(data[0], "_fields", None))


def records_to_frame(data: Any, role: str) -> Any:
    """Named-tuple records as a pandas frame (their fields are the columns), or None when
    ``data`` holds none.

    Reads what the IR tools hand over: an iterable of named tuples (ir_datasets'
    ``GenericQrel`` / ``GenericScoredDoc`` from ``qrels_iter()`` / ``scoreddocs_iter()``,
    ir_measures' ``Qrel`` / ``ScoredDoc``, pyndeval's ``SubtopicQrel``), or an ir_datasets
    dataset itself: its ``qrels_iter()`` as the truth, its ``scoreddocs_iter()`` as the run,
    or its name ``"irds:<id>"`` (:mod:`receval.io.irds`: the local cache only).
    A generator is read once. Columns are then found by name as for any table (``query_id``
    is the user, ``doc_id`` the item, ``relevance`` / ``score`` the values).
    """
    if is_irds(data):
        data = read_irds(data, role)
    if isinstance(data, (str, bytes, dict)) or isinstance(data, type):
        return None
    method = _DATASET_ITERS.get(role)
    if method and callable(getattr(data, method, None)):
        if not getattr(data, f"has_{method.split('_')[0]}", lambda: True)():
            raise InputError(f"{role}: the dataset has no {method.split('_')[0]}; pass the "
                             f"{role} as a table.")
        data = getattr(data, method)()
    if not hasattr(data, "__iter__") or hasattr(data, "shape") or hasattr(data, "columns"):
        return None
    if isinstance(data, (list, tuple)):
        first = data[0] if len(data) else None
        rows: Any = data
    else:
        it = iter(data)
        first = next(it, None)
        if first is None:
            raise InputError(f"{role}: the iterator of records is empty; nothing to evaluate.")
        rows = itertools.chain([first], it)
    fields = getattr(first, "_fields", None)
    if first is None or not isinstance(first, tuple) or not fields:
        return None
    table = pandas().DataFrame.from_records(rows, columns=list(fields))
    if len(table.columns) != len(fields):
        raise InputError(f"{role}: the records do not all have the fields {list(fields)}.")
    return table
