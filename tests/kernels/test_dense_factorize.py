"""``kernels.dense_factorize``: pandas' ``factorize(sort=False)`` for int64 ids of a compact
span, by a direct table, on one thread or several (each range coded alone, then renumbered)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.kernels import dense_factorize

#: past the size at which the kernels use several threads
THREADED = 100_000


def _pandas(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(a, sort=False)
    return codes.astype(np.int32), np.asarray(uniques, dtype=np.int64)


def _same(a: np.ndarray, max_span: int | None = None) -> None:
    got = dense_factorize(np.ascontiguousarray(a, dtype=np.int64),
                          max_span if max_span is not None else max(len(a), 1 << 16))
    assert got is not None
    codes, uniques = got
    want_codes, want_uniques = _pandas(a)
    assert codes.dtype == np.int32 and uniques.dtype == np.int64
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(uniques, want_uniques)


@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from([0, 1, 2, 7, 1000, THREADED, THREADED + 17, 3 * THREADED]),
       span=st.integers(1, 5000), base=st.sampled_from([0, -7, 10**12, 2**63 - 6000,
                                                         -(2**63)]),
       skew=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_codes_and_ids_are_those_of_pandas(n, span, base, skew, seed):
    rng = np.random.default_rng(seed)
    if skew:  # a few popular ids, as item logs hold; a long tail first seen late
        draws = np.minimum(rng.zipf(1.3, n) - 1, span - 1)
    else:
        draws = rng.integers(0, span, n)
    a = base + draws.astype(np.int64) if base >= 0 else draws.astype(np.int64) + base
    _same(a)


@pytest.mark.parametrize("order", ["sorted", "reversed", "one id", "new ids only late"])
def test_orders_that_stress_the_ranges_of_the_threads(order):
    n = 3 * THREADED
    if order == "sorted":
        a = np.sort(np.random.default_rng(1).integers(0, 20_000, n))
    elif order == "reversed":
        a = np.sort(np.random.default_rng(2).integers(0, 20_000, n))[::-1].copy()
    elif order == "one id":
        a = np.full(n, 42, dtype=np.int64)
    else:  # the first half repeats two ids; every other id first appears in the second
        a = np.r_[np.tile([5, 9], n // 4), np.random.default_rng(3).integers(0, 40_000,
                                                                            n - n // 2)]
    _same(a)


def test_ids_spanning_more_than_asked_give_none():
    a = np.array([0, 10, 5_000_000], dtype=np.int64)
    assert dense_factorize(a, 1000) is None
    big = np.r_[np.zeros(THREADED, dtype=np.int64), [2**62]]
    assert dense_factorize(big, 1 << 20) is None
    extremes = np.array([-(2**63), 2**63 - 1], dtype=np.int64)  # the span overflows
    assert dense_factorize(extremes, 1 << 20) is None
