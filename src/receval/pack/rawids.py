"""Item ids read in place, for the join on raw ids (:func:`receval.kernels.join_lists`).

The metrics need, per user, which recommended items are in that user's truth and the order of
tied scores on raw ids; neither needs a global item vocabulary. :func:`raw_ids` describes a
column's buffers without copying them when it can (integers of every width, Arrow ``string``
/ ``large_string`` offsets and data, an object array of Python ``str``), and
:func:`category_ids` a categorical column's codes (pandas ``category``, Arrow ``dictionary``,
polars ``Categorical`` / ``Enum``); any other column gives ``None`` and is factorized
instead (:func:`receval.pack.vocab.factorize`), which also applies the id policy's conversions
and errors. Both routes compare ids the same way (integers by value, strings exactly) and
order them the same way (integers by value, strings by code point).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from .._lazy import is_pandas, pandas
from ..io.frames import UncheckedIds, adjacent_runs, is_str_array
from ..kernels import (
    adjacent_starts,
    gather_int64,
    index_at,
    same_ids_at,
    sorted_index,
    utf8_at,
    utf8_take,
)
from .vocab import _arrow_chunks, factorize, is_unique, lookup

#: kernel id kinds (see ``kernels/_join.pyx``); NARROW: integers of 1, 2 or 4 bytes, read
#: where they lie (no int64 copy of the column)
INT, UTF8_32, UTF8_64, PYSTR, CHUNKS_32, CHUNKS_64, NARROW = 0, 1, 2, 3, 4, 5, 6


@dataclass(frozen=True)
class RawIds:
    """A column of ids as the join kernel reads it: ``kind`` and one or two buffers."""

    kind: int
    a: np.ndarray                 # int64 values (NARROW: int8 .. uint32 values), offsets, an
    #                               object array of str, or the first row of each Arrow chunk
    #                               (chunked kinds)
    b: Any = None                 # UTF-8 data, or (offset, data) addresses per chunk
    keep: Any = None              # the Arrow array that owns the buffers
    unsigned: bool = False        # kind INT read from a uint64 column (ids are uint64)
    checked: bool = True          # kind PYSTR from an :class:`UncheckedIds` column: False
    #                               until each value is known to be a str; kind INT / NARROW:
    #                               pandas codes that may hold a missing one (-1), for
    #                               :func:`grouped_ids` to find among its runs' ids
    starts: np.ndarray | None = None  # the bounds of its runs of equal adjacent ids (each
    #                                   run's first row, then the row count), when known
    #                                   already (found as the column was read)
    categories: Any = None        # kind INT / NARROW holding positions in these ids (a
    #                               categorical column's categories, sorted unless read for
    #                               runs of equal ids only): the value r at a row is the id
    #                               categories[r]; int64 or str objects, or an Arrow string
    #                               array as the column holds them (made str objects only when
    #                               :attr:`dictionary` is read)

    @cached_property
    def dictionary(self) -> np.ndarray:
        """:attr:`categories` as numpy (int64, or an object array of ``str``)."""
        assert self.categories is not None
        if isinstance(self.categories, np.ndarray):
            return self.categories
        return np.asarray(self.categories.to_numpy(zero_copy_only=False), dtype=object)

    @property
    def id_kind(self) -> str:
        """``"int"`` or ``"str"``, as :func:`receval.pack.vocab.kind_of` names vocabularies."""
        if self.categories is not None:
            return "int" if isinstance(self.categories, np.ndarray) and \
                self.categories.dtype.kind in "iu" else "str"
        return "int" if self.kind in (INT, NARROW) else "str"

    @property
    def family(self) -> str:
        """Ids of one family compare with each other in the kernel: ``int``, ``utf8``, ``pystr``."""
        return "int" if self.kind in (INT, NARROW) else "pystr" if self.kind == PYSTR \
            else "utf8"


def raw_ids(col: Any) -> RawIds | None:
    """The ids of ``col`` for the join kernel, or ``None`` when they must be factorized.

    Read in place: integer columns of every width (numpy, pandas, Arrow without nulls; int8 ..
    int32 and uint8 .. uint32 as :data:`NARROW`, read at their width), uint64 below 2**63, Arrow ``string`` / ``large_string`` without nulls (pyarrow, polars, pandas
    ``str``), object columns holding only ``str`` (and pandas' Python-backed strings, as
    such a column). Everything else (floats, categoricals,
    dictionaries, binary, missing values, mixed objects) returns ``None``.
    """
    chunks = _arrow_chunks(col)
    if chunks is not None:
        return _from_arrow(chunks)
    if is_pandas(col, "Series", "Index"):
        if isinstance(col.dtype, pandas().StringDtype):  # Python-backed strings (no pyarrow)
            return _from_numpy(col.to_numpy(dtype=object))
        if not isinstance(col.dtype, np.dtype):
            return None
        col = col.to_numpy()
    if isinstance(col, np.ndarray) and col.ndim == 1:
        raw = _from_numpy(col)
        starts = adjacent_runs(col)
        return raw if raw is None or starts is None else replace(raw, starts=starts)
    return None


def _from_numpy(arr: np.ndarray) -> RawIds | None:
    kind = arr.dtype.kind
    if kind in "iu" and arr.dtype.itemsize < 8:  # read at its width, widened per user
        return RawIds(NARROW, np.ascontiguousarray(arr))
    if kind == "i":
        return RawIds(INT, np.ascontiguousarray(arr, dtype=np.int64))
    if kind == "u":
        if len(arr) and int(arr.max()) >= 2**63:
            return None  # compared by value with int64 ids elsewhere
        # below 2**63 a uint64 and its int64 view are the same number: no copy
        return RawIds(INT, np.ascontiguousarray(arr).view(np.int64), unsigned=True)
    if isinstance(arr, UncheckedIds):  # every value a str, until the join finds otherwise
        return RawIds(PYSTR, np.ascontiguousarray(arr.view(np.ndarray)), checked=False)
    if kind == "O" and is_str_array(arr):
        return RawIds(PYSTR, np.ascontiguousarray(arr))
    return None


def _from_arrow(chunks: list) -> RawIds | None:
    import pyarrow.types as pt

    t = chunks[0].type
    if any(c.null_count for c in chunks):
        return None
    if pt.is_integer(t):
        parts = [c.to_numpy(zero_copy_only=False) for c in chunks]
        arr = np.concatenate(parts) if len(parts) != 1 else parts[0]
        return _from_numpy(arr)
    if not (pt.is_string(t) or pt.is_large_string(t)):
        return None
    if len(chunks) > 1:
        return _chunked(chunks)
    arr = chunks[0]
    n = len(arr)
    bufs = arr.buffers()
    large = pt.is_large_string(arr.type)
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32) if bufs[1] \
        else np.zeros(1, dtype=np.int64 if large else np.int32)
    offsets = offsets[arr.offset: arr.offset + n + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and bufs[2].size \
        else np.zeros(1, dtype=np.uint8)
    return RawIds(UTF8_64 if large else UTF8_32, offsets, data, keep=arr)


def category_ids(col: Any, ordered: bool = True, checked: bool = False,
                 defer: bool = False) -> RawIds | None:
    """A categorical column of integer or ``str`` categories as positions in a dictionary
    (:attr:`RawIds.dictionary`), without a value per row: pandas ``category``, Arrow
    ``dictionary`` (pyarrow, Arrow-backed pandas) and polars ``Categorical`` / ``Enum`` (which
    reach the join as Arrow dictionaries).

    The dictionary is the sorted categories, and the join compares positions in it as
    integers, which equal and order exactly as the ids do. When the categories are sorted
    already (pandas' default), the column's own codes are those positions and are read where
    they lie, at their width (:data:`NARROW`); otherwise each code is mapped to its rank by
    a lookup of size |categories|, into an array of the codes' width. Arrow chunks with
    different dictionaries are mapped each into the sorted union of their dictionaries.
    ``ordered=False``: the codes into the categories as they are (equal ids, not their order:
    enough to find runs of equal ids). ``None`` for any other column, a missing value, or
    categories of another type (factorized instead, with the id policy's errors).

    ``checked``: the column was read by :func:`receval.io.frames.read_columns`, which refuses
    missing ids, so no code is -1 (its pass is not made again). ``defer``: pandas codes of
    fewer than 8 bytes that come back as they are may hold a missing one (-1), with
    :attr:`RawIds.checked` False: their reader looks for it where it reads them
    (:func:`grouped_ids` among the runs' ids, the join at each row it reads), so that the
    column is not read for the check alone. Codes that are mapped are checked first."""
    parts = _category_parts(col)
    if parts is None:
        return None
    late = not checked and defer and len(parts) == 1 and \
        is_pandas(parts[0][1], "Index") and parts[0][0].dtype.itemsize < 8
    if not checked and not late and any(len(c) and int(c.min()) < 0 for c, _ in parts):
        return None
    ok = checked or not late  # (else: checked before a mapping, by _mapped)
    if len(parts) == 1 and (arrow := _arrow_strings(parts[0][1])) is not None:
        return _arrow_category_ids(parts[0][0], arrow, ordered,
                                   is_pandas(parts[0][1], "Index"), ok)
    pieces = []
    for codes, cats in parts:
        values = _category_values(cats)
        if values is None:
            return None
        pieces.append((codes, values))
    if len(pieces) == 1:
        codes, values = pieces[0]
        distinct = is_pandas(parts[0][1], "Index")  # (an Arrow dictionary may repeat a value)
        if (distinct and not ordered) or _ascending(values):  # the codes serve: no pass
            return RawIds(NARROW if codes.dtype.itemsize < 8 else INT,
                          _int_codes(codes), categories=values, checked=ok)
        order = np.argsort(values, kind="stable")
        if not distinct and np.any(values[order][1:] == values[order][:-1]):
            return None  # a value twice in an Arrow dictionary: factorized instead
        if not ordered:
            return RawIds(NARROW if codes.dtype.itemsize < 8 else INT,
                          _int_codes(codes), categories=values, checked=ok)
        rank = np.empty(len(values), dtype=_code_type(len(values), codes.dtype))
        rank[order] = np.arange(len(values))
        return _mapped(rank, codes, values[order], ok)
    from .vocab import lookup

    kinds = {v.dtype.kind in "iu" for _, v in pieces}
    if len(kinds) != 1:
        return None
    union = np.concatenate([v for _, v in pieces])
    union = np.unique(union) if union.dtype != object else \
        np.array(sorted(set(union.tolist())), dtype=object)
    dtype = _code_type(len(union), np.dtype(np.int8))
    out = np.concatenate([lookup(v, union).astype(dtype)[c] for c, v in pieces])
    return RawIds(NARROW if dtype.itemsize < 8 else INT, out, categories=union)


def _mapped(rank: np.ndarray, codes: np.ndarray, categories: Any, ok: bool) -> RawIds | None:
    """Codes mapped to their ranks (``rank[codes]``), once none is known to be missing (a -1
    would take the last rank): ``None`` when one is (``ok`` False: not checked yet)."""
    if not ok and len(codes) and int(codes.min()) < 0:
        return None
    return RawIds(NARROW if rank.dtype.itemsize < 8 else INT, rank[codes],
                  categories=categories)


def _arrow_category_ids(codes: np.ndarray, arrow: Any, ordered: bool,
                        distinct: bool, ok: bool = True) -> RawIds | None:
    """:func:`category_ids` of one dictionary of ``str`` held by Arrow: sorted and checked on
    the Arrow data (byte order, which is code point order in UTF-8, RFC 3629), and kept as
    Arrow (:attr:`RawIds.categories`): no ``str`` object is made for a category here.
    ``distinct``: the values are known to be distinct (pandas categories); an Arrow
    dictionary that repeats a value gives ``None`` (factorized instead). ``ok``: as in
    :func:`_mapped` (codes used as they are come back with it as :attr:`RawIds.checked`)."""
    import pyarrow.compute as pc

    n = len(arrow)
    if (distinct and not ordered) or n < 2 or not pc.any(
            pc.greater_equal(arrow.slice(0, n - 1), arrow.slice(1))).as_py():
        return RawIds(NARROW if codes.dtype.itemsize < 8 else INT, _int_codes(codes),
                      categories=arrow, checked=ok)  # distinct, ascending: codes are ranks
    order = np.asarray(pc.sort_indices(arrow))
    srt = arrow.take(order)
    if not distinct and pc.any(pc.equal(srt.slice(0, n - 1), srt.slice(1))).as_py():
        return None  # a value twice in an Arrow dictionary: factorized instead
    if not ordered:  # equal ids have equal codes: enough to find runs of equal ids
        return RawIds(NARROW if codes.dtype.itemsize < 8 else INT, _int_codes(codes),
                      categories=arrow, checked=ok)
    rank = np.empty(n, dtype=_code_type(n, codes.dtype))
    rank[order] = np.arange(n)
    return _mapped(rank, codes, srt, ok)


def _arrow_strings(cats: Any) -> Any:
    """The categories as one Arrow ``string`` / ``large_string`` array when Arrow holds them
    without a missing value (an Arrow dictionary, or a pandas ``str`` Index stored by
    pyarrow), else ``None``."""
    if is_pandas(cats, "Index"):
        pd = pandas()
        if not (isinstance(cats.dtype, (pd.StringDtype, pd.ArrowDtype))
                and getattr(cats.dtype, "storage", "pyarrow") == "pyarrow"):
            return None
        import pyarrow as pa

        try:
            cats = pa.array(cats.array)  # the Arrow data itself, no copy
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # pragma: no cover
            return None
        if isinstance(cats, pa.ChunkedArray):
            cats = cats.chunk(0) if cats.num_chunks == 1 else cats.combine_chunks()
    elif type(cats).__module__.split(".")[0] != "pyarrow":
        return None
    import pyarrow.types as pt

    if not (pt.is_string(cats.type) or pt.is_large_string(cats.type)) or cats.null_count:
        return None
    return cats


def _category_parts(col: Any) -> list[tuple[np.ndarray, Any]] | None:
    """``[(codes, categories), ...]`` of a categorical column: one pair for a pandas
    ``category``, one per chunk for an Arrow dictionary column; ``None`` for any other column
    or one with a missing value."""
    if is_pandas(col, "Series") and isinstance(col.dtype, pandas().CategoricalDtype):
        # the Categorical's own codes (a view; ``col.cat.codes`` is a copy under pandas 3)
        return [(np.asarray(col.array.codes), col.cat.categories)]
    chunks = _arrow_chunks(col)
    if chunks is None:
        return None
    import pyarrow.types as pt

    if not pt.is_dictionary(chunks[0].type) or any(c.null_count for c in chunks):
        return None
    first = chunks[0].dictionary
    if all(_same_dictionary(c.dictionary, first) for c in chunks[1:]):  # one dictionary
        codes = [_arrow_codes(c.indices) for c in chunks]
        return [(np.concatenate(codes) if len(codes) > 1 else codes[0], first)]
    return [(_arrow_codes(c.indices), c.dictionary) for c in chunks]


def _same_dictionary(a: Any, b: Any) -> bool:
    """Whether two Arrow dictionaries hold the same values: the same buffers (chunks sharing
    one dictionary, as a reader makes them), or equal values."""
    same = [x.address if x is not None else None for x in a.buffers()] == \
        [x.address if x is not None else None for x in b.buffers()] and \
        a.offset == b.offset and len(a) == len(b)
    return same or a.equals(b)


def _arrow_codes(indices: Any) -> np.ndarray:
    """The indices of an Arrow dictionary chunk as numpy, without a copy."""
    return np.asarray(indices.to_numpy(zero_copy_only=False))


def _category_values(cats: Any) -> np.ndarray | None:
    """A categorical column's categories as int64 or ``str`` objects, else ``None``."""
    if is_pandas(cats, "Index"):
        values = cats.to_numpy()
        as_str = values.dtype == object or str(cats.dtype) in ("string", "str")
    else:  # an Arrow array (a chunk's dictionary)
        import pyarrow.types as pt

        if cats.null_count:
            return None
        as_str = pt.is_string(cats.type) or pt.is_large_string(cats.type)
        values = np.asarray(cats.to_numpy(zero_copy_only=False))
    if values.dtype.kind == "u" and len(values) and int(values.max()) >= 2**63:
        return None
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    if as_str:
        values = np.asarray(values, dtype=object)
        return values if is_str_array(values) else None
    return None


def _ascending(values: np.ndarray) -> bool:
    """Whether distinct categories are in ascending order (integers by value, ``str`` by code
    point): their codes are then their ranks."""
    return len(values) < 2 or bool(np.all(values[1:] > values[:-1]))


def _code_type(n: int, codes: np.dtype) -> np.dtype:
    """The narrowest signed integer type that holds ``0 .. n - 1``, at least the codes'."""
    for t in (np.int8, np.int16, np.int32, np.int64):
        if np.iinfo(t).max >= n - 1 and np.dtype(t).itemsize >= codes.itemsize:
            return np.dtype(t)
    return np.dtype(np.int64)  # pragma: no cover


def _int_codes(codes: np.ndarray) -> np.ndarray:
    """Codes as the join reads them: int64, or a narrower integer type as it is."""
    if codes.dtype.itemsize < 8:
        return np.ascontiguousarray(codes)
    return np.ascontiguousarray(codes).view(np.int64) if codes.dtype == np.uint64 \
        else np.ascontiguousarray(codes, dtype=np.int64)


def dictionary_truth(raw: RawIds, items: Any, codes: np.ndarray) -> RawIds:
    """The truth's item ids at each position (``items[codes]``) as ranks into a run's
    :attr:`RawIds.categories`, through one mapping of size |items|; an item the dictionary
    lacks gets a rank past its end (it equals no recommended item). ``items``: numpy, or an
    Arrow string array (a categorical truth's categories, ``codes`` positions in them),
    looked up in Arrow when the run's categories are Arrow too. When the ranks are the codes
    themselves (run and truth of one dictionary), no pass is made."""
    assert raw.categories is not None
    if not isinstance(items, np.ndarray) and not isinstance(raw.categories, np.ndarray):
        at = _arrow_positions(items, raw.categories)
    else:
        from .vocab import lookup

        vocab = items if isinstance(items, np.ndarray) else \
            np.asarray(items.to_numpy(zero_copy_only=False), dtype=object)
        at = lookup(vocab, raw.dictionary)
    missing = at < 0
    at[missing] = len(raw.categories) + np.arange(int(missing.sum()), dtype=np.int64)
    if np.array_equal(at, np.arange(len(at))):  # positions in the run's dictionary already
        return RawIds(INT, np.ascontiguousarray(codes, dtype=np.int64))
    # (int64: the join's fast path for integer truth ids; codes are positions in ``items``)
    return RawIds(INT, gather_int64(at, np.ascontiguousarray(codes)) if codes.dtype.kind == "i"
                  else at[codes])


def _arrow_positions(values: Any, categories: Any) -> np.ndarray:
    """The position of each Arrow string of ``values`` in ``categories`` (-1: absent): one
    merge when both are ascending (sorted categories, as both usually are here:
    :func:`receval.kernels.sorted_index`), else Arrow's hash lookup."""
    v, c = _from_arrow([values]), _from_arrow([categories])
    if v is not None and c is not None and v.kind not in (INT, NARROW, PYSTR) and \
            c.kind not in (INT, NARROW, PYSTR):
        at, ok = sorted_index(c.kind, c.a, c.b, v.kind, v.a, v.b)
        if ok:
            return at
    import pyarrow.compute as pc

    return np.asarray(pc.index_in(values, value_set=categories).fill_null(-1), dtype=np.int64)


class Grouped(NamedTuple):
    """A column's blocks of equal adjacent ids (:func:`grouped_ids`): ``starts``, the blocks'
    ``users``; for text ids the column as read (``raw``), and for Arrow-held text categories
    the ``categories`` and each block's position in them (``codes``), which a column of the
    same ids reuses (:func:`grouped_column`)."""

    starts: np.ndarray
    users: np.ndarray
    categories: Any = None
    codes: np.ndarray | None = None
    raw: RawIds | None = None


def grouped_column(col: Any, like: Grouped | None = None,
                   checked: bool = False) -> Grouped | None:
    """:func:`grouped_ids` of a column read in place (Arrow chunks are not concatenated: the
    kernel compares adjacent rows across chunk boundaries). ``like``: another column's
    groups; when both hold Arrow text categories of equal values (a run and a truth of one
    dictionary, or of equal ones), the ids they share are ``like``'s own ``str`` objects, not
    made again. ``checked``: as in :func:`category_ids`."""
    raw = raw_ids(col) or category_ids(col, ordered=False, checked=checked, defer=True)
    return grouped_ids(raw, like) if raw is not None else None


def _same_blocks(raw: RawIds, bounds: np.ndarray, like: Grouped | None) -> bool:
    """Whether text ids in blocks ``bounds`` are, block by block, ``like``'s text ids (one
    family): then ``like``'s ``str`` objects serve, and nothing is decoded again."""
    if like is None or like.raw is None or like.raw.family != raw.family or \
            raw.kind in (INT, NARROW) or len(like.starts) != len(bounds) or \
            not (raw.checked and like.raw.checked):
        return False
    if raw.kind == PYSTR:  # like's own str objects (an object column may change in place)
        return same_ids_at(PYSTR, raw.a, None, bounds[:-1], PYSTR, like.users, None,
                           np.arange(len(like.users), dtype=np.int64))
    return same_ids_at(raw.kind, raw.a, raw.b, bounds[:-1], like.raw.kind, like.raw.a,
                       like.raw.b, like.starts[:-1])  # (Arrow buffers do not change)


def _blocks(raw: RawIds) -> tuple[np.ndarray, np.ndarray]:
    """The bounds of the blocks of equal adjacent ids (each block's first row, then the row
    count) and the id of each block."""
    if raw.kind == INT:
        if raw.starts is None:  # the ids of the blocks read in the same pass
            bounds, uniques = adjacent_starts(INT, raw.a, raw.b, 0, 1, 1)
        else:
            bounds, uniques = raw.starts, raw.a[raw.starts[:-1]]
        return bounds, uniques.view(np.uint64) if raw.unsigned else uniques
    if raw.kind == NARROW:
        bounds = raw.starts if raw.starts is not None else \
            adjacent_starts(NARROW, raw.a, raw.b, 0, 0, 1)
        return bounds, raw.a[bounds[:-1]].astype(np.int64)
    bounds = raw.starts if raw.starts is not None else \
        adjacent_starts(raw.kind, raw.a, raw.b, 0, 0, 1)
    if raw.kind == PYSTR:
        return bounds, raw.a[bounds[:-1]]
    # decoded in place, chunks included
    return bounds, utf8_at(raw.kind, raw.a, raw.b, bounds[:-1])


def grouped_ids(raw: RawIds, like: Grouped | None = None) -> Grouped | None:
    """The blocks of equal adjacent ids when they are contiguous and no id starts two blocks
    (runs and truths are usually grouped by user), else ``None``.

    ``starts`` holds the first row of each block plus the number of rows; ``users`` the ids
    of the blocks, as :func:`receval.pack.vocab.factorize` returns them (int64 or uint64, or an
    object array of ``str``). ``like``: as in :func:`grouped_column`.
    """
    if raw.kind not in (INT, NARROW) and like is not None:  # text ids: the same as like's?
        bounds = raw.starts if raw.starts is not None else \
            adjacent_starts(raw.kind, raw.a, raw.b, 0, 0, 1)
        if _same_blocks(raw, bounds, like):  # (like's ids are distinct: so are these)
            return Grouped(bounds, like.users, raw=raw)
        raw = replace(raw, starts=bounds)
    starts, uniques = _blocks(raw)
    if raw.kind in (INT, NARROW) and not raw.checked and len(uniques) and \
            int(uniques.min()) < 0:  # a missing categorical code: refused by the factorize
        return None
    if not is_unique(uniques):
        return None
    cats = raw.categories
    if cats is None:
        return Grouped(starts, uniques, raw=raw if raw.kind not in (INT, NARROW) else None)
    if isinstance(cats, np.ndarray):
        return Grouped(starts, cats[uniques])
    if like is not None and like.categories is not None and like.codes is not None and \
            (like.categories is cats or like.categories.equals(cats)):
        at = np.full(len(cats), -1, dtype=np.int64)  # category -> block of ``like``
        at[like.codes] = np.arange(len(like.codes))
        mine = at[uniques]
        if np.array_equal(mine, np.arange(len(like.users))):  # like's users, in its order
            return Grouped(starts, like.users, cats, uniques)
        todo = mine < 0
        if not todo.any():
            return Grouped(starts, like.users[mine], cats, uniques)
        users = np.empty(len(uniques), dtype=object)
        users[~todo] = like.users[mine[~todo]]
        # str objects made for the categories in use only
        users[todo] = cats.take(uniques[todo]).to_numpy(zero_copy_only=False)
        return Grouped(starts, users, cats, uniques)
    every = len(uniques) == len(cats) and np.array_equal(uniques, np.arange(len(cats)))
    users = np.asarray((cats if every else cats.take(uniques)).to_numpy(zero_copy_only=False),
                       dtype=object)
    return Grouped(starts, users, cats, uniques)


def _chunked(chunks: list) -> RawIds:
    """Arrow string chunks read in place: each chunk's offsets and data by address."""
    import pyarrow.types as pt

    large = pt.is_large_string(chunks[0].type)
    width = 8 if large else 4
    starts = np.zeros(len(chunks) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in chunks], out=starts[1:])
    offs = np.zeros(len(chunks), dtype=np.uint64)
    datas = np.zeros(len(chunks), dtype=np.uint64)
    for j, c in enumerate(chunks):
        bufs = c.buffers()
        if bufs[1] is not None:
            offs[j] = bufs[1].address + c.offset * width
        if bufs[2] is not None:
            datas[j] = bufs[2].address
        if bufs[1] is None and len(c):  # pragma: no cover - Arrow always has offsets
            raise ValueError("an Arrow string chunk without offsets")
    return RawIds(CHUNKS_64 if large else CHUNKS_32, starts, (offs, datas), keep=chunks)


def truth_raw(items: np.ndarray, codes: np.ndarray, family: str) -> RawIds | None:
    """The truth's item ids at each packed position (``items[codes]``) in ``family``'s form.

    ``items`` is a vocabulary from :func:`receval.pack.vocab.factorize` (int64 / uint64, or an
    object array of ``str``); ``None`` when it cannot take that form.
    """
    if family == "int":
        if items.dtype == np.uint64:
            if len(items) and int(items.max()) >= 2**63:
                return None
            items = items.astype(np.int64)
        if items.dtype != np.int64:
            return None
        return RawIds(INT, items[codes])
    if not is_str_array(items):
        return None
    if family == "pystr":
        return RawIds(PYSTR, items[codes])
    import pyarrow as pa

    return _from_arrow([pa.array(items, type=pa.large_string()).take(pa.array(codes))])


def lookup_at(raw: RawIds, rows: np.ndarray, vocab: np.ndarray) -> np.ndarray | None:
    """The position in ``vocab`` (distinct ids as :func:`receval.pack.vocab.factorize` gives
    them: int64 / uint64, or ``str`` objects) of the id at each of ``rows`` (int64), -1
    when absent, ids compared as the join compares them (integers by value, strings exactly):
    int32 codes (int64 past 2**31 - 1 ids). A categorical column's categories are looked up
    once, and each row reads its category's answer. ``None`` when ``vocab`` cannot take the
    column's form (the caller then compares through a vocabulary of the column)."""
    wide = len(vocab) > np.iinfo(np.int32).max
    if raw.categories is not None:
        values = raw.dictionary
        of_cat = lookup(values, vocab) if values.dtype.kind in "iuO" else None
        if of_cat is None:
            return None
        of_cat = of_cat.astype(np.int64 if wide else np.int32)
        at = raw.a[rows]
        return of_cat[at] if len(of_cat) else np.full(len(rows), -1, dtype=of_cat.dtype)
    if not len(vocab):
        return np.full(len(rows), -1, dtype=np.int64 if wide else np.int32)
    if (vocab.dtype.kind in "iu") != (raw.family == "int"):  # ints never equal strings
        return np.full(len(rows), -1, dtype=np.int64 if wide else np.int32)
    table = truth_raw(vocab, np.arange(len(vocab), dtype=np.int64), raw.family)
    if table is None:
        return None
    return index_at(table.kind, table.a, table.b, raw.kind, raw.a, raw.b,
                    np.ascontiguousarray(rows, dtype=np.int64), int(wide))


def take_ids(raw: RawIds, rows: np.ndarray) -> RawIds:
    """The ids at ``rows`` (int64 row numbers), in ``raw``'s family."""
    if raw.kind == NARROW:
        return RawIds(INT, raw.a[rows].astype(np.int64))
    if raw.kind in (INT, PYSTR):
        return RawIds(raw.kind, raw.a[rows], unsigned=raw.unsigned)
    import pyarrow as pa

    # the bytes copied in parallel, into an Arrow array of its own (which the vocabulary,
    # when one is made, factorizes)
    offsets, data = utf8_take(raw.kind, raw.a, raw.b, np.ascontiguousarray(rows, np.int64))
    arr = pa.LargeStringArray.from_buffers(len(rows), pa.py_buffer(offsets),
                                           pa.py_buffer(data))
    return RawIds(UTF8_64, offsets, data, keep=arr)


def sorted_codes(raw: RawIds, *, what: str) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, vocabulary)`` of ids, codes (int64) in ascending id order: integers by value,
    strings by code point, the order of the join on raw ids; the vocabulary as
    :func:`receval.pack.vocab.factorize` gives it (int64 / uint64, or ``str`` objects)."""
    if raw.kind == NARROW:
        col: Any = raw.a.astype(np.int64)
    elif raw.kind == INT:
        col = raw.a.view(np.uint64) if raw.unsigned else raw.a
    elif raw.kind == PYSTR:
        col = raw.a
    else:
        import pyarrow as pa

        col = raw.keep if raw.kind in (UTF8_32, UTF8_64) else pa.chunked_array(raw.keep)
    codes, uniques = factorize(col, what=what)
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[codes], uniques[order]
