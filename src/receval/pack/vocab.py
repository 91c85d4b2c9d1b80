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
    return codes.astype(np.int64, copy=False), _plain(np.asarray(uniques))


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


def order_keys(uniques: np.ndarray, *, what: str) -> np.ndarray:
    """Rank of each unique raw id in ascending raw order (the deterministic tie key)."""
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniques[:1000]})
        raise InputError(
            f"{what}: ids mix types {kinds}, so they cannot be ordered for tie breaking; "
            "use one type (e.g. convert every id with .astype(str))."
        ) from None
    keys = np.empty(len(uniques), dtype=np.int64)
    keys[order] = np.arange(len(uniques), dtype=np.int64)
    return keys


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
