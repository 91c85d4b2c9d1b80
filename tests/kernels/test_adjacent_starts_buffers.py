"""adjacent_starts: each thread's starts go into a buffer of its own, grown as it fills.

The buffers start at one slot per 16 rows (plus a chunk of rows); these inputs have more
starts than that (a run every row or two), fewer (one long run), or both in one call (dense
runs in the first thread's range, sparse in the second), on one thread or several. The
oracle is numpy's comparison of each row with the previous one.
"""

from __future__ import annotations

import numpy as np
import pytest

from receval.kernels import adjacent_starts


def _oracle(values: np.ndarray) -> np.ndarray:
    """The rows whose value differs from the previous row's (row 0 included)."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], np.flatnonzero(values[1:] != values[:-1]) + 1])


def _shapes(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """int64 ids of several run patterns (n rows each)."""
    half = n // 2
    return {
        "every row": rng.permutation(n).astype(np.int64),
        "runs of 1-2": np.repeat(np.arange(n), rng.integers(1, 3, n))[:n].astype(np.int64),
        "one run": np.full(n, 7, dtype=np.int64),
        "dense then sparse": np.concatenate([
            np.arange(half), np.repeat(np.arange(half, half + n), 1000)[:n - half]])
        .astype(np.int64),
        "sparse then dense": np.concatenate([
            np.repeat(np.arange(n), 1000)[:half], np.arange(n, 2 * n - half)])
        .astype(np.int64),
    }


@pytest.mark.parametrize("n", [1, 5, 4097, 100_000])
def test_int64_starts_and_ids_past_the_first_buffer(n):
    """int64 ids: starts, the id of each run and the closing row count, for every shape."""
    rng = np.random.default_rng(n)
    for name, ids in _shapes(rng, n).items():
        want = _oracle(ids)
        starts, run_ids = adjacent_starts(0, ids, None, 0, 1)
        assert np.array_equal(starts, want), name
        assert np.array_equal(run_ids, ids[want]), name
        assert np.array_equal(adjacent_starts(0, ids, None), want), name
        bounds, bound_ids = adjacent_starts(0, ids, None, 0, 1, 1)
        assert np.array_equal(bounds, [*want, n]) and np.array_equal(bound_ids, ids[want])


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32])
def test_narrow_starts_past_the_first_buffer(dtype):
    """Narrow integer ids (kind 6) compared at their width, whatever the shape."""
    rng = np.random.default_rng(3)
    n = 100_000
    for name, ids in _shapes(rng, n).items():
        narrow = (ids % np.iinfo(dtype).max).astype(dtype)
        want = _oracle(narrow)
        assert np.array_equal(adjacent_starts(6, narrow, None), want), name
        assert np.array_equal(adjacent_starts(6, narrow, None, 0, 0, 1), [*want, n]), name


def test_str_objects_past_the_first_buffer():
    """Python str ids (kind 3), with and without the str check made in the same pass."""
    rng = np.random.default_rng(5)
    n = 60_000
    for name, ids in _shapes(rng, n).items():
        objs = np.array([f"u{v}" for v in ids.tolist()], dtype=object)
        want = _oracle(ids)
        assert np.array_equal(adjacent_starts(3, objs, None), want), name
        assert np.array_equal(adjacent_starts(3, objs, None, 1, 0, 1), [*want, n]), name
        objs[n - 1] = 5  # a value that is not a str, in the last thread's range
        assert adjacent_starts(3, objs, None, 1) is None, name


def test_arrow_strings_past_the_first_buffer():
    """UTF-8 ids (Arrow string, one array and several chunks) read once per row."""
    pa = pytest.importorskip("pyarrow")
    from receval.pack.rawids import raw_ids

    rng = np.random.default_rng(7)
    n = 60_000
    for name, ids in _shapes(rng, n).items():
        values = [f"item-{v}" for v in ids.tolist()]
        want = _oracle(ids)
        cut = [0, 1, n // 3, n // 2 + 1, n]
        chunked = pa.chunked_array([pa.array(values[a:b]) for a, b in
                                     zip(cut[:-1], cut[1:], strict=True)])
        for form in (pa.array(values), chunked):
            r = raw_ids(form)
            assert np.array_equal(adjacent_starts(r.kind, r.a, r.b), want), name
