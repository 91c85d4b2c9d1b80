"""Vocabularies: raw ids to dense integer codes, and the sort order of raw ids."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

CODE = np.int32  # dtype of row codes: half the memory of int64 on runs of 1e8 rows


def factorize(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int32, first-appearance order) and the unique raw ids of a column.

    Works on pandas Series, pyarrow (Chunked)Arrays and numpy arrays; strings stay strings,
    integers stay integers (so ``"1"`` and ``1`` are different ids). Arrow-backed columns are
    dictionary-encoded chunk by chunk with one shared memo (no concatenation of the strings).
    """
    chunks = _arrow_chunks(col)
    if chunks is not None:
        import pyarrow as pa
        import pyarrow.compute as pc

        enc = pc.dictionary_encode(pa.chunked_array(chunks))
        if enc.num_chunks == 0:
            return np.zeros(0, dtype=CODE), np.zeros(0, dtype=object)
        first, last = enc.chunk(0).dictionary, enc.chunk(enc.num_chunks - 1).dictionary
        if enc.num_chunks > 1 and not (len(first) == len(last) and first.equals(last)):
            enc = enc.unify_dictionaries()  # pragma: no cover - Arrow shares one memo
        codes = np.empty(len(enc), dtype=CODE)
        pos = 0
        for ch in enc.chunks:
            codes[pos: pos + len(ch)] = ch.indices.to_numpy(zero_copy_only=False)
            pos += len(ch)
        uniques = enc.chunk(enc.num_chunks - 1).dictionary.to_numpy(zero_copy_only=False)
        return codes, _plain(uniques)
    try:
        codes, uniques = pd.factorize(col, sort=False)
    except TypeError as exc:
        raise InputError(f"{what}: ids must be hashable (strings or integers): {exc}") from None
    return np.ascontiguousarray(codes, dtype=CODE), _plain(np.asarray(uniques))


def factorize_grouped(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`factorize`, but fast when equal ids sit in contiguous blocks.

    Runs and truths are usually grouped by user. Block starts are found with one vectorized
    comparison of neighbours; if no id starts two blocks, codes are the block numbers.
    Otherwise this falls back to hashing every row.
    """
    chunks = _arrow_chunks(col)
    if chunks is None:
        arr = _numeric(col)
        if arr is None or len(arr) < 2:
            return factorize(col, what=what)
        starts = np.concatenate([[0], np.flatnonzero(arr[1:] != arr[:-1]) + 1])
        uniques = arr[starts]
        n = len(arr)
    else:
        import pyarrow as pa
        import pyarrow.compute as pc

        chunks = [c for c in chunks if len(c)]
        n = sum(len(c) for c in chunks)
        if n < 2:
            return factorize(col, what=what)
        parts, offset, prev = [], 0, None
        for ch in chunks:
            change = np.ones(len(ch), dtype=bool)
            change[1:] = pc.not_equal(ch[1:], ch[:-1]).to_numpy(zero_copy_only=False)
            if prev is not None:  # the first row continues the previous chunk's block?
                change[0] = pc.not_equal(ch[0], prev).as_py()
            parts.append(np.flatnonzero(change) + offset)
            offset += len(ch)
            prev = ch[len(ch) - 1]
        starts = np.concatenate(parts)
        uniques = pa.chunked_array(chunks).take(pa.array(starts)).to_numpy()
    if not pd.Index(uniques).is_unique:
        return factorize(col, what=what)
    lengths = np.diff(np.append(starts, n))
    codes = np.repeat(np.arange(len(starts), dtype=CODE), lengths)
    return codes, _plain(np.asarray(uniques))


def _arrow_chunks(col: Any) -> list | None:
    """The Arrow chunks of a string column (pyarrow, polars-converted or arrow-backed pandas),
    or None when the column is not held by Arrow as plain strings."""
    mod = type(col).__module__.split(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa

        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    elif isinstance(col, pd.Series) and isinstance(col.dtype, (pd.StringDtype, pd.ArrowDtype)) \
            and getattr(col.dtype, "storage", "pyarrow") != "python":
        import pyarrow as pa

        try:
            arr = pa.array(col.array)
        except (pa.ArrowInvalid, TypeError):
            return None
        chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    else:
        return None
    import pyarrow as pa

    if not chunks:
        return None
    t = chunks[0].type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)):
        return None
    if any(c.null_count for c in chunks):
        return None
    return list(chunks)


def _numeric(col: Any) -> np.ndarray | None:
    if isinstance(col, pd.Series) and col.dtype.kind in "iu":
        return col.to_numpy()
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
