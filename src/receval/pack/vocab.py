"""Vocabularies: raw ids to dense integer codes, and the sort order of raw ids."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError


def factorize(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int64, first-appearance order) and the unique raw ids of a column.

    Works on pandas Series, pyarrow (Chunked)Arrays and numpy arrays; strings stay strings,
    integers stay integers (so ``"1"`` and ``1`` are different ids).
    """
    mod = type(col).__module__.split(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
        if pa.types.is_dictionary(col.type):
            col = col.cast(col.type.value_type)
        enc = pc.dictionary_encode(col)
        codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        uniques = enc.dictionary.to_numpy(zero_copy_only=False)
        return codes, _plain(uniques)
    try:
        codes, uniques = pd.factorize(col, sort=False)
    except TypeError as exc:
        raise InputError(f"{what}: ids must be hashable (strings or integers): {exc}") from None
    return np.ascontiguousarray(codes, dtype=np.int64), _plain(np.asarray(uniques))


def factorize_grouped(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`factorize`, but fast when equal ids sit in contiguous blocks.

    Runs and truths are usually grouped by user. Block starts are found with one vectorized
    comparison of neighbours; if no id starts two blocks, codes are the block numbers.
    Otherwise this falls back to hashing every row.
    """
    arr = _as_arrow_or_numpy(col)
    if arr is None or len(arr) < 2:
        return factorize(col, what=what)
    if isinstance(arr, np.ndarray):
        change = arr[1:] != arr[:-1]
    else:
        import pyarrow.compute as pc

        change = pc.not_equal(arr[1:], arr[:-1]).to_numpy(zero_copy_only=False)
    starts = np.concatenate([[0], np.flatnonzero(change) + 1])
    uniques = arr[starts] if isinstance(arr, np.ndarray) else arr.take(starts).to_numpy(
        zero_copy_only=False)
    if not pd.Index(uniques).is_unique:
        return factorize(col, what=what)
    lengths = np.diff(np.append(starts, len(arr)))
    codes = np.repeat(np.arange(len(starts), dtype=np.int64), lengths)
    return codes, _plain(np.asarray(uniques))


def _as_arrow_or_numpy(col: Any) -> Any:
    """An arrow array (string columns) or a numeric numpy array, or None (use hashing)."""
    mod = type(col).__module__.split(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
        return None if pa.types.is_dictionary(col.type) else col
    if isinstance(col, pd.Series):
        if col.dtype.kind in "iu":
            return col.to_numpy()
        if isinstance(col.dtype, (pd.StringDtype, pd.ArrowDtype)) and \
                getattr(col.dtype, "storage", "pyarrow") != "python":
            import pyarrow as pa

            try:
                return pa.array(col)
            except (pa.ArrowInvalid, TypeError):
                return None
        return None
    if isinstance(col, np.ndarray) and col.dtype.kind in "iu":
        return col
    return None


def _plain(uniques: np.ndarray) -> np.ndarray:
    if uniques.dtype.kind in "iu":
        return uniques.astype(np.int64, copy=False)
    if uniques.dtype.kind == "f":
        if np.all(uniques == np.round(uniques)):
            return uniques.astype(np.int64)
        return uniques
    if uniques.dtype.kind in "US":
        return uniques.astype(object)
    return uniques


def order_keys(uniques: np.ndarray, *, what: str, as_text: bool = False) -> np.ndarray:
    """Rank of each unique raw id in ascending raw order (the deterministic tie key).

    ``as_text`` orders ids by their text (byte order of UTF-8, as C's ``strcmp``) even when
    they are integers, as trec_eval does with docnos.
    """
    if as_text:  # integers (also inside an object column) become their decimal text
        uniques = uniques.astype(str).astype(object)
    order = _argsort_ids(uniques, what)
    keys = np.empty(len(uniques), dtype=np.int64)
    keys[order] = np.arange(len(uniques), dtype=np.int64)
    return keys


def _argsort_ids(uniques: np.ndarray, what: str) -> np.ndarray:
    if uniques.dtype.kind == "O" and len(uniques):
        try:  # Arrow sorts strings far faster than numpy's object comparisons
            import pyarrow as pa
            import pyarrow.compute as pc
        except ImportError:
            pa = None
        if pa is not None:
            try:
                arr = pa.array(uniques)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                arr = None
            if arr is not None and (pa.types.is_string(arr.type)
                                    or pa.types.is_large_string(arr.type)):
                return pc.sort_indices(arr).to_numpy().astype(np.int64, copy=False)
    try:
        return np.argsort(uniques, kind="stable")
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniques[:1000]})
        raise InputError(
            f"{what}: ids mix types {kinds}, so they cannot be ordered for tie breaking; "
            "use one type (e.g. convert every id with .astype(str))."
        ) from None


def lookup(uniques: np.ndarray, vocab: np.ndarray) -> np.ndarray:
    """Code of each of ``uniques`` in ``vocab`` (-1 when absent)."""
    if len(uniques) == 0 or len(vocab) == 0:
        return np.full(len(uniques), -1, dtype=np.int64)
    return pd.Index(vocab).get_indexer(pd.Index(uniques)).astype(np.int64, copy=False)


def kind_of(uniques: np.ndarray) -> str:
    """'int' or 'str' (or the type name) of an id vocabulary, for mismatch messages."""
    if uniques.dtype.kind in "iu":
        return "int"
    if len(uniques) == 0:
        return "empty"
    return type(uniques[0]).__name__
