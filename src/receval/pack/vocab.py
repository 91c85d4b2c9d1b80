"""Vocabularies: raw ids to dense integer codes, and the sort order of raw ids.

The id policy
-------------
Every user and item id column, in every container and file format, is read by
:func:`factorize` (or :func:`factorize_grouped`), which applies one policy. An id is either an
**integer** or a **string**; nothing else is an id.

=============================================  =================================================
column                                         ids
=============================================  =================================================
int8 ... int64, uint8 ... uint32               integers, compared by value, returned as int64
uint64                                         integers, compared by value, returned as uint64
                                               (values >= 2**63 are kept exact, never wrapped)
float                                          integers when every value is a whole number of
                                               magnitude at most 2**53 (a pandas int column
                                               that held a missing value is float64), returned
                                               as int64; otherwise an error naming the first
                                               bad value (``1.5``, ``inf``, ``nan``, ``1e20``)
str, large_string, string_view, pandas         strings, returned as Python ``str``
``str`` / ``string`` dtypes
pandas Categorical, polars Categorical /       the category values, read by the rules above
Enum, Arrow dictionary                         (categories of strings are strings)
binary, large_binary, binary_view, ``bytes``   decoded as UTF-8 text: strings (returned as
                                               ``str``); an error names the first value that
                                               is not valid UTF-8
bool, datetime, date, time, duration,          an error: convert the column (``.astype(str)``
decimal, complex, nested types                 or ``.astype('int64')``)
object (Python values)                         by the values: all ``str`` -> strings; all
                                               ``int`` -> integers; ints and floats -> the float
                                               rule per value; ``bytes`` -> decoded; a mix of
                                               kinds (``1`` and ``"01"``) -> an error
missing values (None, NaN, null)               an error (counted by :func:`receval.io.frames`)
=============================================  =================================================

Integers and strings never match each other: ``1`` and ``"1"`` (or ``"01"``) are different ids,
and a run and a truth whose user ids (or item ids) are of different kinds are refused by
:func:`receval.pack.packed.align_id_kinds` with an error that names both kinds, both columns
and the fix, instead of a silent 0.0 for every metric. Strings are compared exactly (``"01"``
and ``"1"`` differ; no trimming, no case folding). The one bridge between kinds: ids read from
a text file (TREC, CSV, TSV, whose id columns are always read as strings) are text, and
integer ids on the other side are compared with them by their decimal text, which is exact
(:func:`receval.pack.packed.align_id_kinds`; ``"01"`` is then an error, never a match with
``1``). Ids come back as given: per-user results carry the truth's raw ids (and the run's for
run-only users): integers as int64, or uint64 for uint64 columns, strings as ``str``; whole-number
floats come back as int64 and binary ids as ``str``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lazy import is_pandas, pandas, pandas_loaded
from ..errors import InputError
from ..io.frames import MAX_EXACT_FLOAT, is_str_array
from ..kernels import dense_factorize, index_ids

CODE = np.int32  # dtype of row codes: half the memory of int64 on runs of 1e8 rows

_FIX = "convert the column, e.g. df[col] = df[col].astype(str)"


# ---- entry points ---------------------------------------------------------------------------
def factorize(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes (int32, first-appearance order) and the unique raw ids of a column.

    Works on pandas Series, pyarrow (Chunked)Arrays, polars Series, numpy arrays and lists; the
    unique ids follow the id policy of this module (int64 / uint64 arrays for integer ids,
    object arrays of ``str`` for string ids). ``what`` names the column in error messages
    (e.g. ``"run item column 'item'"``). Arrow string columns are dictionary-encoded chunk by
    chunk with one shared memo (no concatenation of the strings).
    """
    return _factorize_prepared(*_prepare(col, what), what)


def factorize_grouped(col: Any, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`factorize`, but fast when equal ids sit in contiguous blocks.

    Runs and truths are usually grouped by user. Block starts are found with one vectorized
    comparison of neighbours; if no id starts two blocks, codes are the block numbers.
    Otherwise this falls back to hashing every row.
    """
    kind, data = _prepare(col, what)
    if kind == "array" and data.dtype.kind in "iu" and len(data) >= 2:
        arr = data
        starts = np.concatenate([[0], np.flatnonzero(arr[1:] != arr[:-1]) + 1])
        uniques = arr[starts]
        n = len(arr)
    elif kind == "arrow" and sum(len(c) for c in data) >= 2:
        import pyarrow as pa
        import pyarrow.compute as pc

        chunks = [c for c in data if len(c)]
        n = sum(len(c) for c in chunks)
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
        uniques = np.asarray(pa.chunked_array(chunks).take(pa.array(starts))
                             .to_numpy(zero_copy_only=False), dtype=object)
    else:
        return _factorize_prepared(kind, data, what)
    if not is_unique(uniques):
        return _factorize_prepared(kind, data, what)
    lengths = np.diff(np.append(starts, n))
    codes = np.repeat(np.arange(len(starts), dtype=CODE), lengths)
    return codes, uniques


def _index(ids: np.ndarray) -> Any:
    """A pandas Index over ids as they are (an object array of ``str`` stays object: no
    conversion to pandas' string dtype and back)."""
    return pandas().Index(ids, dtype=object if ids.dtype == object else None, copy=False)


def _hash_kind(ids: np.ndarray) -> int | None:
    """The kind under which :func:`receval.kernels.index_ids` hashes ``ids`` (0: int64 values,
    3: ``str`` objects), or ``None``."""
    if ids.dtype == np.int64:
        return 0
    if is_str_array(ids):
        return 3
    return None


def is_unique(ids: np.ndarray) -> bool:
    """Whether no id repeats: the compiled hash table for int64 and ``str`` ids, else pandas'
    when pandas is loaded, else a Python set (object ids) or a sort (numbers), so that an
    evaluation of dicts never imports pandas."""
    kind = _hash_kind(ids)
    if kind is not None:
        return index_ids(kind, ids, ids[:0])[1] == 0
    if pandas_loaded():
        return bool(_index(ids).is_unique)
    if ids.dtype == object:
        return len(set(ids.tolist())) == len(ids)
    s = np.sort(ids)
    return not bool((s[1:] == s[:-1]).any())


def empty_ids(kind: str) -> np.ndarray:
    """An empty vocabulary of ``kind`` (``"int"``: int64; else ``str`` objects)."""
    return np.zeros(0, dtype=np.int64 if kind == "int" else object)


def kind_of(uniques: np.ndarray) -> str:
    """``"int"``, ``"str"`` or ``"empty"``: the kind of an id vocabulary (see the id policy).

    Any other value (a vocabulary not built by :func:`factorize`) gives its type name.
    """
    if len(uniques) == 0:
        return "empty"
    if uniques.dtype.kind in "iu":
        return "int"
    first = uniques[0]
    if isinstance(first, str):
        return "str"
    if isinstance(first, (int, np.integer)) and not isinstance(first, (bool, np.bool_)):
        return "int"
    return type(first).__name__


def describe_kind(kind: str) -> str:
    """The kind in words, for messages: ``"integers"``, ``"strings"``."""
    return {"int": "integers", "str": "strings"}.get(kind, kind)


def lookup(uniques: np.ndarray, vocab: np.ndarray) -> np.ndarray:
    """Code of each of ``uniques`` in ``vocab`` (a vocabulary: distinct ids; -1 when absent),
    ids compared by value.

    An int64 and a uint64 vocabulary are compared by value (a negative int64 never equals a
    uint64 >= 2**63); integers never equal strings.
    """
    if len(uniques) == 0 or len(vocab) == 0:
        return np.full(len(uniques), -1, dtype=np.int64)
    if uniques is vocab:  # (a run sharing its truth's users: no pass over them)
        return np.arange(len(vocab), dtype=np.int64)
    ku, kv = uniques.dtype.kind, vocab.dtype.kind
    if ku in "iu" and kv in "iu" and uniques.dtype != vocab.dtype:
        return _lookup_mixed_ints(uniques, vocab)
    if (ku in "iu") != (kv in "iu") and kind_of(uniques) != kind_of(vocab):
        return np.full(len(uniques), -1, dtype=np.int64)
    return _indexer(vocab, uniques, vocab_unique=True)


def unique(ids: np.ndarray) -> np.ndarray:
    """The distinct ids of a one-dimensional array, in order of first appearance."""
    if not pandas_loaded() and (
            ids.dtype.kind in "iu" or is_str_array(ids)):
        return _own_factorize(ids)[1]
    pd = pandas()
    return np.asarray(pd.unique(pd.Series(ids, dtype=object if ids.dtype == object
                                          else ids.dtype)))


def _indexer(vocab: np.ndarray, ids: np.ndarray, vocab_unique: bool = False) -> np.ndarray:
    """Position of each of ``ids`` in the unique ``vocab`` (-1 when absent), as int64: the
    compiled hash table when both are int64 or both ``str`` objects, else pandas' when pandas
    is loaded, else a dict (objects) or a binary search (numbers). ``vocab_unique``: the caller
    knows that ``vocab`` holds no repeat (a vocabulary), so ids equal to it entry by entry are
    answered without checking its order."""
    kind = _hash_kind(vocab)
    if kind is not None and _hash_kind(ids) == kind:
        return index_ids(kind, vocab, ids, int(vocab_unique))[0]
    if pandas_loaded():
        return _index(vocab).get_indexer(_index(ids)).astype(np.int64, copy=False)
    if vocab.dtype == object or ids.dtype == object:
        pos = {v: j for j, v in enumerate(vocab.tolist())}
        return np.fromiter((pos.get(v, -1) for v in ids.tolist()), dtype=np.int64,
                           count=len(ids))
    order = np.argsort(vocab, kind="stable")
    at = np.minimum(np.searchsorted(vocab, ids, sorter=order), len(vocab) - 1)
    found = order[at]
    return np.where(vocab[found] == ids, found, -1).astype(np.int64, copy=False)


def order_keys(uniques: np.ndarray, *, what: str, as_text: bool = False) -> np.ndarray:
    """Rank of each unique raw id in ascending raw order (the deterministic tie key).

    Integer ids are ordered by value (uint64 as unsigned), string ids by code point (the byte
    order of their UTF-8, as C's ``strcmp``). ``as_text`` orders ids by their text even when
    they are integers (their decimal digits), as trec_eval does with docnos.
    """
    if as_text and uniques.dtype.kind != "O":  # integers become their decimal text
        uniques = uniques.astype(str).astype(object)
    order = _argsort_ids(uniques, what)
    keys = np.empty(len(uniques), dtype=np.int64)
    keys[order] = np.arange(len(uniques), dtype=np.int64)
    return keys


def text_to_ints(uniques: np.ndarray, *, what: str, other: str,
                 like: np.ndarray | None = None) -> np.ndarray:
    """String ids read from a text file as integers, to compare them with ``other`` (integer
    ids) by decimal text. Every id must be an integer written canonically (``"12"``, ``"-3"``;
    not ``"012"``, ``"+3"``, ``" 3"`` or ``"a"``), else an error: such a text never equals the
    decimal text of an integer, and dropping it silently would hide a real mismatch. The result
    has the dtype of ``like`` (the other side's ids) when every value fits it."""
    values = []
    for s in uniques.tolist():
        try:
            v = int(s)
        except ValueError:
            v = None
        if v is None or str(v) != s:
            raise InputError(
                f"{what}: id {s!r} was read from a text file and is compared with {other}, "
                "which are integers, by decimal text; it is not an integer written "
                "canonically, so it would never match. Give both sides the same kind: read "
                "the other side from a text file too (or convert it with .astype(str)), or "
                "fix the id."
            )
        values.append(v)
    if like is not None and like.dtype.kind in "iu":
        try:
            return np.array(values, dtype=like.dtype)
        except OverflowError:
            pass
    return _python_ints(_object_array(values), what)


def concat_ids(*parts: np.ndarray) -> np.ndarray:
    """Concatenate id vocabularies without changing any id.

    ``np.concatenate`` of an int64 and a uint64 array gives float64 (ids above 2**53 would
    change); such a mix gives an object array of the exact Python integers instead.
    """
    parts = tuple(p for p in parts if len(p)) or parts[:1]
    if len(parts) == 1:
        return parts[0]
    dtypes = {p.dtype for p in parts}
    if len(dtypes) == 1:
        return np.concatenate(parts)
    out = np.empty(sum(len(p) for p in parts), dtype=object)
    pos = 0
    for p in parts:
        out[pos: pos + len(p)] = p.tolist()
        pos += len(p)
    return out


# ---- preparing a column ---------------------------------------------------------------------
# _prepare returns (kind, data):
#   ("array", ndarray)           int64 / uint64 ids, or an object array of str
#   ("arrow", [chunks])          Arrow string / large_string chunks without nulls
#   ("dict", (indices, values))  integer codes into a dictionary column `values` (any column)
#   ("done", (codes, uniques))   already factorized


def _prepare(col: Any, what: str) -> tuple[str, Any]:
    chunks = _arrow_chunks(col)
    if chunks is not None:
        return _prepare_arrow(chunks, what)
    if is_pandas(col, "Series"):
        pd = pandas()
        dtype = col.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            codes = np.asarray(col.array.codes)  # a view (``cat.codes`` copies, pandas 3)
            if len(codes) and int(codes.min()) < 0:
                raise _missing(what, int((codes < 0).sum()))
            return "dict", (codes, pd.Series(col.cat.categories))
        if isinstance(dtype, np.dtype):
            return _prepare_numpy(col.to_numpy(), what)
        # pandas extension dtypes: nullable Int / UInt / Float / boolean, python strings, ...
        if col.isna().any():
            raise _missing(what, int(col.isna().sum()))
        kind = getattr(dtype, "kind", "O")
        if kind in "iuf":
            return _prepare_numpy(col.to_numpy(dtype=dtype.numpy_dtype), what)
        if kind == "b":
            raise _unsupported(what, "boolean")
        return _prepare_numpy(col.to_numpy(dtype=object), what)
    if isinstance(col, np.ndarray):
        return _prepare_numpy(col, what)
    if is_pandas(col, "Index"):
        return _prepare(pandas().Series(col), what)
    if isinstance(col, (list, tuple)):
        return _prepare_numpy(_object_array(col), what)
    raise InputError(
        f"{what}: ids must be a column (pandas, polars, pyarrow or numpy), got "
        f"{type(col).__name__}."
    )


def _object_array(values: Any) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _arrow_chunks(col: Any) -> list | None:
    """The Arrow chunks of a column held by Arrow (pyarrow, polars, Arrow-backed pandas), or
    None when the column is not held by Arrow."""
    mod = type(col).__module__.split(".")[0]
    if mod == "pyarrow":
        import pyarrow as pa

        if isinstance(col, pa.ChunkedArray):
            return list(col.chunks) if col.num_chunks else [pa.array([], type=col.type)]
        if isinstance(col, pa.Array):
            return [col]
        return None
    if mod == "polars" and hasattr(col, "to_arrow"):
        arr = col.to_arrow()
        return list(arr.chunks) if hasattr(arr, "chunks") else [arr]
    if is_pandas(col, "Series") and isinstance(col.dtype, (pandas().StringDtype,
                                                           pandas().ArrowDtype)) \
            and getattr(col.dtype, "storage", "pyarrow") == "pyarrow":
        import pyarrow as pa

        try:
            arr = pa.array(col.array)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # pragma: no cover
            return None
        chunks = list(arr.chunks) if isinstance(arr, pa.ChunkedArray) else [arr]
        return chunks or [pa.array([], type=arr.type)]
    return None


def _prepare_arrow(chunks: list, what: str) -> tuple[str, Any]:
    import pyarrow as pa
    import pyarrow.types as pt

    t = chunks[0].type
    n_null = sum(c.null_count for c in chunks)
    if n_null:
        raise _missing(what, n_null)
    if pt.is_dictionary(t):
        ca = pa.chunked_array(chunks, type=t).unify_dictionaries()
        parts = [c.indices.to_numpy(zero_copy_only=False) for c in ca.chunks]
        indices = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        values = ca.chunk(0).dictionary if ca.num_chunks else pa.array([], type=t.value_type)
        return "dict", (indices, values)
    if pt.is_string(t) or pt.is_large_string(t):
        return "arrow", chunks
    if _is_view_or_binary(t):
        return "arrow", [_arrow_text(c, what) for c in chunks]
    if pt.is_integer(t) or pt.is_floating(t):
        parts = [c.to_numpy(zero_copy_only=False) for c in chunks]
        arr = np.concatenate(parts) if len(parts) > 1 else parts[0]
        return _prepare_numpy(arr, what)
    if pt.is_null(t) and sum(len(c) for c in chunks) == 0:
        return "array", np.zeros(0, dtype=np.int64)
    if pt.is_boolean(t):
        raise _unsupported(what, "boolean")
    if pt.is_temporal(t):
        raise _unsupported(what, f"date/time ({t})")
    raise _unsupported(what, str(t))


def _is_view_or_binary(t: Any) -> bool:
    import pyarrow.types as pt

    checks = [pt.is_binary, pt.is_large_binary]
    checks += [getattr(pt, name) for name in ("is_string_view", "is_binary_view")
               if hasattr(pt, name)]
    return any(f(t) for f in checks)


def _arrow_text(chunk: Any, what: str) -> Any:
    """A string_view / binary chunk as large_string; binary must be valid UTF-8."""
    import pyarrow as pa

    try:
        return chunk.cast(pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        for v in chunk.to_pylist():
            if isinstance(v, bytes):
                try:
                    v.decode("utf-8")
                except UnicodeDecodeError:
                    raise _bad_bytes(what, v) from None
        raise  # pragma: no cover - not a UTF-8 problem


def _prepare_numpy(arr: np.ndarray, what: str) -> tuple[str, Any]:
    kind = arr.dtype.kind
    if kind == "i":
        return "array", arr.astype(np.int64, copy=False)
    if kind == "u":
        return "array", arr if arr.dtype == np.uint64 else arr.astype(np.int64)
    if kind == "f":
        return "array", _float_ids(arr, what)
    if kind == "U":
        return "array", arr.astype(object)
    if kind == "S":
        codes, uniques = _pd_factorize(arr.astype(object), what)
        return "done", (codes, _decode_bytes(uniques, what))
    if kind == "O":
        return _prepare_objects(arr, what)
    if kind == "b":
        raise _unsupported(what, "boolean")
    if kind in "mM":
        raise _unsupported(what, f"date/time ({arr.dtype})")
    raise _unsupported(what, str(arr.dtype))


def _prepare_objects(arr: np.ndarray, what: str) -> tuple[str, Any]:
    """An object column: the kind of its values decides (pandas infers it in one C pass)."""
    if len(arr) and is_str_array(arr):  # the common cases, without pandas
        return "array", arr
    if len(arr) and all(type(v) is int for v in arr.tolist()):
        return "array", _python_ints(arr, what)
    pd = pandas()
    inferred = pd.api.types.infer_dtype(arr, skipna=False)
    if inferred == "string":
        return "array", arr
    if inferred == "empty":
        return "array", np.zeros(0, dtype=np.int64)
    if inferred == "integer":
        return "array", _python_ints(arr, what)
    if inferred == "floating":
        return "array", _float_ids(arr.astype(np.float64), what)
    if inferred == "mixed-integer-float":  # ints and floats: each value by the float rule
        codes, uniques = _pd_factorize(arr, what)
        return "done", (codes, _numbers(uniques, what))
    if inferred == "bytes":
        codes, uniques = _pd_factorize(arr, what)
        return "done", (codes, _decode_bytes(uniques, what))
    if inferred in ("integer-na", "mixed", "mixed-integer", "boolean"):
        kinds = _kinds(arr)
        if "missing" in kinds:
            raise _missing(what, int(pd.isna(arr).sum()))
        if inferred == "boolean" or set(kinds) == {"bool"}:
            raise _unsupported(what, "boolean")
        if len(kinds) > 1:
            shown = " and ".join(f"{k} (e.g. {_show(v)})" for k, v in kinds.items())
            raise InputError(
                f"{what}: ids mix {shown}. An id column holds one kind: integers or strings "
                f"(1 and '01' are different ids, so a mix would silently split them); {_FIX}."
            )
        raise _unsupported(what, next(iter(kinds)))
    raise _unsupported(what, inferred)


def _kinds(arr: np.ndarray, limit: int = 3) -> dict[str, Any]:
    """The first few kinds of values in an object column, each with its first value."""
    pd = pandas()
    out: dict[str, Any] = {}
    for v in arr:
        if v is None or (isinstance(v, float) and v != v) or v is pd.NA or v is pd.NaT:
            k = "missing"
        elif isinstance(v, (bool, np.bool_)):
            k = "bool"
        elif isinstance(v, (int, np.integer)):
            k = "int"
        elif isinstance(v, (float, np.floating)):
            k = "float"
        elif isinstance(v, str):
            k = "str"
        else:
            k = type(v).__name__
        if k not in out:
            out[k] = v
            if len(out) >= limit or k == "missing":
                break
    return out


def _python_ints(arr: np.ndarray, what: str) -> np.ndarray:
    """An object array of Python / numpy integers as int64, or uint64 when it needs it."""
    try:
        return arr.astype(np.int64)
    except OverflowError:
        pass
    values = [int(v) for v in arr]
    lo, hi = min(values), max(values)
    if lo >= 0 and hi < 2**64:
        return np.array(values, dtype=np.uint64)
    bad = hi if hi >= 2**63 and lo >= -(2**63) else lo if lo < -(2**63) else hi
    raise InputError(
        f"{what}: integer id {bad} does not fit a 64-bit integer"
        + (" (the column mixes negative ids and ids >= 2**63)" if -(2**63) <= bad < 2**64 else "")
        + f"; use strings for such ids: {_FIX}."
    )


def _numbers(uniques: np.ndarray, what: str) -> np.ndarray:
    """Unique ints and floats of an object column, each float checked by the float rule."""
    out = []
    for v in uniques:
        if isinstance(v, (float, np.floating)):
            out.append(int(_float_ids(np.array([float(v)]), what)[0]))
        else:
            out.append(int(v))
    return _python_ints(_object_array(out), what)


def _float_ids(arr: np.ndarray, what: str) -> np.ndarray:
    """Float ids as int64: every value a whole number of magnitude at most 2**53, else error."""
    arr = np.asarray(arr, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) | (arr != np.trunc(arr)) | (np.abs(arr) > MAX_EXACT_FLOAT)
    if bad.any():
        v = float(arr[int(np.flatnonzero(bad)[0])])
        if v != v:
            why = "is missing (NaN)"
        elif v in (float("inf"), float("-inf")):
            why = "is not finite"
        elif v != int(v):
            why = "is not a whole number"
        else:
            why = "is beyond 2**53, where floats no longer hold every integer exactly"
        raise InputError(
            f"{what}: the ids are floats and {v!r} {why}. Float ids are read as integers only "
            "when every value is a whole number of magnitude at most 2**53 (e.g. a pandas int "
            "column that held a missing value); otherwise distinct ids could merge. Convert "
            "the column: .astype('int64') if the ids are integers, or .astype(str)."
        )
    return arr.astype(np.int64)


def _decode_bytes(uniques: np.ndarray, what: str) -> np.ndarray:
    out = np.empty(len(uniques), dtype=object)
    for j, v in enumerate(uniques):
        if isinstance(v, (bytes, np.bytes_)):
            try:
                out[j] = bytes(v).decode("utf-8")
            except UnicodeDecodeError:
                raise _bad_bytes(what, bytes(v)) from None
        elif isinstance(v, str):  # pragma: no cover - 'bytes' inference admits only bytes
            out[j] = v
        else:  # pragma: no cover
            raise _unsupported(what, type(v).__name__)
    return out


#: int64 ids spanning at most this many values per row (or :data:`DENSE_MIN_SPAN`) are
#: factorized through a direct table over their span (int32 per value), not a hash table
DENSE_SPAN_PER_ROW, DENSE_MIN_SPAN = 1, 1 << 16


def _pd_factorize(values: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(values, np.ndarray) and values.dtype == np.int64 and len(values):
        # compact ids (the usual item numbering): the codes and order of pandas', by a table
        found = dense_factorize(np.ascontiguousarray(values),
                                max(DENSE_SPAN_PER_ROW * len(values), DENSE_MIN_SPAN))
        if found is not None:
            return found
    if not pandas_loaded() and isinstance(values, np.ndarray) and (
            values.dtype.kind in "iu" or is_str_array(values)):
        return _own_factorize(values)
    try:
        codes, uniques = pandas().factorize(values, sort=False)
    except TypeError as exc:
        raise InputError(f"{what}: ids must be integers or strings: {exc}") from None
    if len(codes) and int(codes.min()) < 0:
        raise _missing(what, int((codes < 0).sum()))
    return np.ascontiguousarray(codes, dtype=CODE), np.asarray(uniques)


def _own_factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(values, sort=False)`` for integers or ``str`` without pandas: codes
    in order of first appearance (a Python dict for strings, a sort for integers)."""
    if values.dtype == object:
        seen: dict[str, int] = {}
        codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values.tolist()),
                            dtype=CODE, count=len(values))
        uniques = np.empty(len(seen), dtype=object)
        uniques[:] = list(seen)
        return codes, uniques
    uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=CODE)
    rank[order] = np.arange(len(order), dtype=CODE)
    return rank[inverse.ravel()], uniq[order]


# ---- factorizing a prepared column ----------------------------------------------------------
def _factorize_prepared(kind: str, data: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    if kind == "done":
        codes, uniques = data
        return _merge_equal(codes, uniques)
    if kind == "arrow":
        return _factorize_arrow(data)
    if kind == "dict":
        indices, values = data
        v_codes, v_uniques = factorize(values, what=what)
        if len(indices) == 0:
            return np.zeros(0, dtype=CODE), v_uniques[:0]
        if len(v_codes) and (int(indices.max()) >= len(v_codes) or int(indices.min()) < 0):
            raise InputError(f"{what}: a dictionary index is out of range.")  # pragma: no cover
        # the dictionary may hold unused or repeated values: keep the used ids, in row order
        codes, used = pandas().factorize(v_codes[indices], sort=False)
        return np.ascontiguousarray(codes, dtype=CODE), v_uniques[np.asarray(used)]
    codes, uniques = _pd_factorize(data, what)
    if uniques.dtype.kind not in "iuO":  # pragma: no cover - _prepare gives ints or str
        uniques = uniques.astype(object)
    return codes, uniques


def _merge_equal(codes: np.ndarray, uniques: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge uniques that became equal when normalized (e.g. two spellings of one id)."""
    if is_unique(uniques):
        return codes, uniques
    remap, merged = pandas().factorize(uniques, sort=False)  # pragma: no cover - defensive
    return remap[codes].astype(CODE), np.asarray(merged)  # pragma: no cover


def _factorize_arrow(chunks: list) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(pa.chunked_array(chunks))
    if enc.num_chunks == 0 or len(enc) == 0:
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
    return codes, np.asarray(uniques, dtype=object)


# ---- lookups and order ----------------------------------------------------------------------
def _lookup_mixed_ints(uniques: np.ndarray, vocab: np.ndarray) -> np.ndarray:
    """int64 against uint64 by value: negative int64 ids match nothing in a uint64 vocabulary,
    uint64 ids >= 2**63 nothing in an int64 one."""
    out = np.full(len(uniques), -1, dtype=np.int64)
    u_ok = uniques >= 0 if uniques.dtype.kind == "i" else np.ones(len(uniques), dtype=bool)
    v_ok = vocab >= 0 if vocab.dtype.kind == "i" else np.ones(len(vocab), dtype=bool)
    v_pos = np.flatnonzero(v_ok)
    if not u_ok.any() or not len(v_pos):
        return out
    u = uniques[u_ok].astype(np.uint64)
    v = vocab[v_pos].astype(np.uint64)
    found = _indexer(v, u)
    out[u_ok] = np.where(found >= 0, v_pos[np.maximum(found, 0)], -1)
    return out


def _argsort_ids(uniques: np.ndarray, what: str) -> np.ndarray:
    if uniques.dtype.kind == "O" and len(uniques):
        try:  # Arrow sorts strings far faster than numpy's object comparisons
            import pyarrow as pa
            import pyarrow.compute as pc
        except ImportError:  # pragma: no cover - depends on the environment
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
            f"use one type ({_FIX})."
        ) from None


# ---- messages -------------------------------------------------------------------------------
def _show(v: Any) -> str:
    """A value as a user wrote it: ``1``, ``'01'``, ``1.5`` (never ``np.int64(1)``)."""
    if isinstance(v, np.generic):
        v = v.item()
    return repr(v)


def _missing(what: str, n: int) -> InputError:
    return InputError(f"{what}: {n} missing id(s); drop or fill those rows first.")


def _unsupported(what: str, kind: str) -> InputError:
    return InputError(
        f"{what}: {kind} values cannot be ids; ids are integers or strings. Convert the column, "
        "e.g. df[col] = df[col].astype(str)."
    )


def _bad_bytes(what: str, v: bytes) -> InputError:
    return InputError(
        f"{what}: binary id {v!r} is not valid UTF-8 text; binary ids are read as UTF-8 "
        "strings. Decode them yourself (e.g. as hex: col.map(bytes.hex)) before evaluating."
    )
