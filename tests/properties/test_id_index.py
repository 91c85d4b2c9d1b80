"""Compiled id helpers against plain Python: ``index_ids`` (the hash table behind
``vocab.is_unique`` and ``vocab.lookup``), ``nonfinite`` and ``all_str``.

Each runs on one thread below 32768 rows and on several above, so both sizes are checked.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.kernels import all_str, index_ids, nonfinite
from receval.pack.vocab import is_unique, lookup

# strings that share prefixes, differ only in width (1-, 2- and 4-byte characters), and hold
# NUL: equal code points must match, anything else must not
NAMES = ["", "a", "b", "ab", "a\x00", "é", "zé", "ü𝄞", "𝄞", "Ā", "item-000000001",
         "item-000000002", "10", "9", "01", "1"]


def _fresh(values: list[str]) -> np.ndarray:
    """An object array of new ``str`` objects (equal strings are different objects)."""
    return np.array([("#" + v)[1:] for v in values], dtype=object)


def _expected(vocab: list, ids: list) -> tuple[list[int], int]:
    first: dict = {}
    for j, v in enumerate(vocab):
        first.setdefault(v, j)
    return [first.get(v, -1) for v in ids], len(vocab) - len(first)


ints = st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-5, 5), max_size=60)
strs = st.lists(st.sampled_from(NAMES) | st.text(max_size=12), max_size=60)


@settings(max_examples=150, deadline=None)
@given(vocab=ints, ids=ints)
def test_index_ids_int(vocab, ids):
    codes, rep = index_ids(0, np.array(vocab, dtype=np.int64), np.array(ids, dtype=np.int64))
    assert (codes.tolist(), rep) == _expected(vocab, ids)


@settings(max_examples=150, deadline=None)
@given(vocab=strs, ids=strs, same=st.booleans())
def test_index_ids_str(vocab, ids, same):
    if same:  # the same ids in the same order, as other objects: the no-hash path
        ids = list(vocab)
    codes, rep = index_ids(3, _fresh(vocab), _fresh(ids))
    assert (codes.tolist(), rep) == _expected(vocab, ids)


@pytest.mark.parametrize("kind", [0, 3])
@pytest.mark.parametrize("order", ["same", "shuffled", "partial"])
def test_index_ids_on_many_threads(kind, order):
    rng = np.random.default_rng(7)
    n = 100_000
    raw = rng.choice(10 * n, size=n, replace=False)
    vocab = raw.astype(np.int64) if kind == 0 else _fresh([f"u{v}" for v in raw])
    if order == "same":
        ids = vocab.copy() if kind == 0 else _fresh(vocab.tolist())
    elif order == "shuffled":
        ids = vocab[rng.permutation(n)]
    else:  # half known, half unknown
        other = raw + 10 * n
        extra = other.astype(np.int64) if kind == 0 else _fresh([f"u{v}" for v in other])
        ids = np.concatenate([vocab[: n // 2], extra[: n // 2]])[rng.permutation(n)]
    codes, rep = index_ids(kind, vocab, ids)
    assert rep == 0
    pos = {v: j for j, v in enumerate(vocab.tolist())}
    assert codes.tolist() == [pos.get(v, -1) for v in ids.tolist()]


@settings(max_examples=100, deadline=None)
@given(vocab=strs, ids=strs, same=st.booleans())
def test_index_ids_of_a_known_vocabulary(vocab, ids, same):
    """``vocab_unique``: the vocabulary is not checked for order, the answers are the same."""
    vocab = list(dict.fromkeys(vocab))
    if same:
        ids = list(vocab)
    codes, rep = index_ids(3, _fresh(vocab), _fresh(ids), 1)
    assert (codes.tolist(), rep) == _expected(vocab, ids)


@pytest.mark.parametrize("kind", [0, 3])
@pytest.mark.parametrize("at", [None, 1, 39_999, 40_000, 40_001, 79_999])
@pytest.mark.parametrize("how", ["descent", "repeat", "differ"])
def test_order_and_equality_checks_across_thread_ranges(kind, at, how):
    """Ascending ids (a uniqueness check, then ids equal to the vocabulary) are answered by
    checks split over threads; one exception at a range's first or last entry must be seen.
    The string ids share their first 8 bytes, so their prefixes tie and they are compared in
    full."""
    n = 80_000
    raw = list(range(0, 2 * n, 2))
    if at is not None and how == "descent":
        raw[at], raw[at - 1] = raw[at - 1], raw[at]
    elif at is not None and how == "repeat":
        raw[at] = raw[at - 1]
    vocab = np.array(raw, dtype=np.int64) if kind == 0 else \
        _fresh([f"item-{v:09d}" for v in raw])
    ids = vocab.copy() if kind == 0 else _fresh(vocab.tolist())
    if at is not None and how == "differ":
        ids[at] = -1 if kind == 0 else "other"
    values = vocab.tolist()
    assert is_unique(vocab) == (len(set(values)) == n)
    codes, rep = index_ids(kind, vocab, ids)
    assert (codes.tolist(), rep) == _expected(values, ids.tolist())


def test_index_ids_refuses_other_kinds():
    with pytest.raises(ValueError, match="int64"):
        index_ids(1, np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int32))
    with pytest.raises(TypeError):
        index_ids(0, np.zeros(2, dtype=np.float64), np.zeros(2, dtype=np.float64))


@settings(max_examples=100, deadline=None)
@given(vocab=strs, ids=strs)
def test_lookup_and_is_unique_agree_with_python(vocab, ids):
    arr = _fresh(list(dict.fromkeys(vocab)))
    assert lookup(_fresh(ids), arr).tolist() == _expected(arr.tolist(), ids)[0]
    # a vocabulary looked up in itself (one array): each id's own position
    assert lookup(arr, arr).tolist() == _expected(arr.tolist(), arr.tolist())[0]
    assert is_unique(_fresh(vocab)) == (len(set(vocab)) == len(vocab))
    # mixed objects are not hashed by the kernel: same answers through the other routes
    mixed = np.array([*vocab, 1], dtype=object)
    assert is_unique(mixed) == (len(set(mixed.tolist())) == len(mixed))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, -1.5, 2.0, np.nan, np.inf, -np.inf, 5e-324]),
                max_size=40),
       st.sampled_from([0, 40_000, 70_001]))
def test_nonfinite_counts_and_finds_the_first(values, pad):
    arr = np.concatenate([np.zeros(pad), np.array(values, dtype=np.float64)])
    bad = np.flatnonzero(~np.isfinite(arr))
    assert nonfinite(arr) == (len(bad), int(bad[0]) if len(bad) else -1)


@pytest.mark.parametrize("at", [None, 0, 1, 40_000, 69_999, 79_999])
@pytest.mark.parametrize("other", [None, 1, b"x", np.nan])
def test_all_str_on_many_threads(at, other):
    arr = _fresh([f"i{i}" for i in range(80_000)])
    if at is not None:
        arr[at] = other
    assert all_str(arr) == (at is None)
    assert all_str(arr[:100]) == (at is None or at >= 100)


@settings(max_examples=100, deadline=None)
@given(vocab=strs, numbers=ints, dup=st.booleans())
def test_index_ids_ascending_shortcut(vocab, numbers, dup):
    """Ascending vocabularies (read off without hashing when the ids are the same or empty),
    with a repeat or without: the same answers as the hash table's."""
    for kind, values in ((3, sorted(set(vocab))), (0, sorted(set(numbers)))):
        if dup and values:
            values = sorted([*values, values[len(values) // 2]])
        arr = _fresh(values) if kind == 3 else np.array(values, dtype=np.int64)
        same = _fresh(values) if kind == 3 else arr.copy()
        assert index_ids(kind, arr, same)[1] == int(dup and bool(values))
        assert index_ids(kind, arr, same)[0].tolist() == _expected(values, values)[0]
        assert index_ids(kind, arr, arr[:0])[1] == int(dup and bool(values))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.sampled_from(NAMES) | st.text(max_size=10), min_size=1, max_size=50),
       cut=st.integers(0, 50), data=st.data())
def test_utf8_at_decodes_every_arrow_form(values, cut, data):
    pa = pytest.importorskip("pyarrow")
    from receval.kernels import utf8_at
    from receval.pack.rawids import raw_ids

    rows = sorted(data.draw(st.sets(st.integers(0, len(values) - 1))))
    cut = min(cut, len(values))
    forms = [pa.array(values, type=pa.string()), pa.array(values, type=pa.large_string()),
             pa.array(["pad", *values], type=pa.string()).slice(1),  # an offset into buffers
             pa.chunked_array([values[:cut], [], values[cut:]], type=pa.string()),
             pa.chunked_array([values[:cut], values[cut:]], type=pa.large_string())]
    for col in forms:
        raw = raw_ids(col)
        got = utf8_at(raw.kind, raw.a, raw.b, np.array(rows, dtype=np.int64))
        assert got.dtype == object and got.tolist() == [values[r] for r in rows]


def test_utf8_at_refuses_bytes_that_are_not_utf8():
    pa = pytest.importorskip("pyarrow")
    from receval.kernels import utf8_at

    offsets = np.array([0, 1, 3], dtype=np.int32)
    data = np.frombuffer(b"a\xff\xfe", dtype=np.uint8)
    with pytest.raises(UnicodeDecodeError):
        utf8_at(1, offsets, data, np.array([0, 1], dtype=np.int64))
    assert utf8_at(1, offsets, data, np.array([0], dtype=np.int64)).tolist() == ["a"]
    with pytest.raises(ValueError, match="UTF-8"):
        utf8_at(0, np.zeros(1, dtype=np.int64), None, np.zeros(0, dtype=np.int64))
    assert pa is not None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_catalogue_values_do_not_depend_on_item_order(seed):
    """Entropy and personalization sum over items: relabelling the items (as a run read in
    another row order does) must not move a bit."""
    from receval.beyond import entropy, personalization

    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(2, 400))
    lists = [rng.choice(n_items, int(rng.integers(1, min(12, n_items + 1))), replace=False)
             for _ in range(30)]
    relabel = rng.permutation(n_items)
    counts = np.bincount(np.concatenate(lists), minlength=n_items)
    assert entropy(counts) == entropy(counts[np.argsort(relabel)])
    assert personalization(lists) == personalization([relabel[x] for x in lists])
