"""``gather_int64(table, codes)``: ``table[codes]`` as int64, on threads, for codes of every
signed width (a categorical's codes, a truth's positions)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.kernels import gather_int64

WIDTHS = [np.int8, np.int16, np.int32, np.int64]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), width=st.sampled_from(WIDTHS),
       n=st.sampled_from([0, 1, 7, 1000, 40_000, 200_001]), size=st.integers(1, 120))
def test_gather_is_numpy_take(seed, width, n, size):
    rng = np.random.default_rng(seed)
    table = rng.integers(-2**63, 2**63 - 1, size, dtype=np.int64, endpoint=True)
    codes = rng.integers(0, size, n).astype(width)
    got = gather_int64(table, codes)
    assert got.dtype == np.int64 and got.shape == (n,)
    assert np.array_equal(got, table[codes])


def test_gather_reads_the_widest_codes_of_each_width():
    for width in WIDTHS:
        top = np.iinfo(width).max
        table = np.arange(min(int(top) + 1, 1 << 20), dtype=np.int64) * 3 - 7
        codes = np.array([0, len(table) - 1, len(table) // 2], dtype=width)
        assert gather_int64(table, codes).tolist() == (table[codes]).tolist()


def test_gather_refuses_unsigned_or_float_codes():
    table = np.arange(4, dtype=np.int64)
    for bad in (np.array([1], dtype=np.uint32), np.array([1.0])):
        with pytest.raises((TypeError, ValueError)):
            gather_int64(table, bad)
