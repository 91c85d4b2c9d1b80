"""Exact sums beyond the double range: infinite values and overflowing squares summed apart.

``math.fsum`` keeps its special values (infinities, NaN) out of the expansion; the partials do
the same, so that one overflowing term gives the total +-inf (NaN for inf - inf) at once
instead of a NaN partial at every later step (a quadratic growth of the expansion).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from receval.kernels._exact import _shewchuk_partials

from receval.kernels import column_states, exact_partials

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(finite, max_size=200))
def test_finite_values_sum_as_math_fsum(values: list[float]) -> None:
    x = np.array(values, dtype=np.float64)
    assert math.fsum(_shewchuk_partials(x)) == math.fsum(values)
    assert math.fsum(exact_partials(x)) == math.fsum(values)


@pytest.mark.parametrize("square", [0, 1])
def test_long_input_with_an_overflowing_term_is_linear_and_infinite(square: int) -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=300_000)
    x[::1000] = 1e200 if square else np.inf  # squares above the double range / infinities
    start = time.perf_counter()
    parts = _shewchuk_partials(x, square)
    whole = exact_partials(x, square)
    assert time.perf_counter() - start < 1.0
    assert parts == whole == [math.inf]


def test_specials_sum_as_ieee_arithmetic() -> None:
    assert _shewchuk_partials(np.array([1.0, -np.inf, 2.0])) == [-math.inf]
    nan = _shewchuk_partials(np.array([np.inf, 1.0, -np.inf]))
    assert len(nan) == 1 and math.isnan(nan[0])
    # the square of -1e200 is beyond the double range whatever its sign
    assert _shewchuk_partials(np.array([3.0, -1e200]), 1) == [math.inf]
    # a running sum that leaves the double range: its infinite value
    assert _shewchuk_partials(np.array([1e308, 1e308, 1.0])) == [math.inf]
    assert _shewchuk_partials(np.array([-1e308, -1e308])) == [-math.inf]


def test_squares_just_inside_the_range_stay_exact() -> None:
    v = 1.3e154  # v * v = 1.69e308 < the largest double
    x = np.array([1.0, -v, 2.0], dtype=np.float64)
    parts = _shewchuk_partials(x, 1)
    assert math.isfinite(math.fsum(parts))
    assert sum(map(Fraction, parts)) == Fraction(v) ** 2 + 5


def test_column_states_with_huge_values_is_quick_and_infinite() -> None:
    values = np.random.default_rng(3).normal(size=(300_000, 2))
    values[::997, 1] = 1e200
    status = np.zeros(values.shape, dtype=np.int8)
    start = time.perf_counter()
    n, _, _, inf, totals, squares = column_states(values, status)
    assert time.perf_counter() - start < 1.0
    assert list(n) == [300_000, 300_000] and list(inf) == [0.0, 0.0]
    assert math.fsum(totals[0]) == math.fsum(values[:, 0])
    assert math.fsum(totals[1]) == math.fsum(values[:, 1])
    assert math.fsum(squares[0]) == math.fsum(values[:, 0] ** 2)
    assert squares[1] == [math.inf]
