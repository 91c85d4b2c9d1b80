"""``kernels.exact_partials``: the exact sum (and sum of squares) of any doubles.

The aggregator's summaries are bit-identical across engines, blocks and row orders because the
partials' exact sum is the exact sum of the values. Checked against rational arithmetic on
values of every magnitude (subnormals, huge, mixed signs, NaN skipped), on both paths: Shewchuk's
expansions for short inputs and the long accumulator for long ones.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from receval.kernels._exact import _shewchuk_partials

from receval.kernels import exact_partials

# partials are doubles: the exact total must stay within the double range
finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)
moderate = st.floats(min_value=-1e150, max_value=1e150, allow_nan=False).filter(
    lambda v: v == 0 or abs(v) >= 1e-140)
scaled = st.sampled_from([1.0, 1e-300, 1e-20, 1e20, 1e300])


def _exact(values: np.ndarray, square: bool) -> Fraction:
    return sum(((Fraction(v) ** 2 if square else Fraction(v)) for v in values
                if not math.isnan(v)), Fraction(0))


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, max_size=300), st.integers(0, 5))
def test_sum_is_exact_for_any_finite_values(values: list[float], nans: int) -> None:
    x = np.array(values + [float("nan")] * nans, dtype=np.float64)
    got = sum(map(Fraction, exact_partials(x)), Fraction(0))
    assert got == _exact(x, False)


@settings(max_examples=200, deadline=None)
@given(st.lists(moderate, max_size=300), scaled)
def test_sum_of_squares_is_exact(values: list[float], scale: float) -> None:
    # squares are exact while they and their rounding errors are normal doubles
    x = np.array(values, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        y = np.abs(x * scale)[x != 0]
        x = x * scale if np.all((y <= 1e150) & (y >= 1e-140)) else x
    got = sum(map(Fraction, exact_partials(x, 1)), Fraction(0))
    assert got == _exact(x, True)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=64, max_size=400), st.integers(1, 399))
def test_split_and_order_do_not_change_the_total(values: list[float], cut: int) -> None:
    x = np.array(values, dtype=np.float64)
    cut %= len(x)
    whole = math.fsum(exact_partials(x))
    parts = exact_partials(x[:cut]) + exact_partials(np.ascontiguousarray(x[::-1][: len(x) - cut]))
    assert whole == math.fsum(exact_partials(np.array(parts)))
    assert whole == math.fsum(_shewchuk_partials(x))


def test_long_inputs_use_the_accumulator_and_agree_with_expansions() -> None:
    rng = np.random.default_rng(7)
    for x in (rng.random(5000), -rng.normal(size=5000) * 1e30,
              np.concatenate([rng.random(3000), [5e-324, -5e-324, 1e-310, 1e300, -1e300]])):
        for square in (0, 1):
            if square and np.abs(x).max() > 1e150:
                continue
            a = sum(map(Fraction, exact_partials(x, square)), Fraction(0))
            b = sum(map(Fraction, _shewchuk_partials(x, square)), Fraction(0))
            assert a == b == _exact(x, bool(square))


def _state_of(values: np.ndarray, status: np.ndarray) -> tuple:
    """The reference per column: ``MetricState.of`` (one column at a time)."""
    from receval.engines.aggregate import MetricState

    s = MetricState.of(np.ascontiguousarray(values), np.ascontiguousarray(status))
    return s.n, s.skipped, s.nan, s.nonfinite, s.total, s.squares


def _exact_or_mark(partials: list[float]) -> Fraction | str:
    if not all(math.isfinite(p) for p in partials):
        return "non-finite"  # squares beyond the double range: no exact value to compare
    return sum(map(Fraction, partials), Fraction(0))


special = st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e-200, -1e300, 5e-324,
                           0.0, -0.0, 1e150, 1e-140])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 300), st.integers(1, 6), st.integers(0, 2**32 - 1),
       st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), special), max_size=6),
       st.sampled_from([1.0, 1e-150, 1e20, 1e200]))
def test_column_states_equal_one_state_per_column(n: int, m: int, seed: int, marks: list,
                                                  scale: float) -> None:
    """Every column's counts and exact sums equal ``MetricState.of`` on that column, whatever
    the statuses, NaN / infinite / tiny / huge values and the number of rows (one thread or
    several)."""
    from receval.kernels import column_states

    rng = np.random.default_rng(seed)
    values = rng.standard_normal((n, m)) * scale
    for i, j, v in marks:
        if n:
            values[i % n, j % m] = v
    status = rng.choice(np.array([0, 0, 0, 1, 2], dtype=np.int8), (n, m))
    got = column_states(values, status)
    for j in range(m):
        n_in, skipped, nan, nonfinite, total, squares = _state_of(values[:, j], status[:, j])
        assert (got[0][j], got[1][j], got[2][j]) == (n_in, skipped, nan)
        assert got[3][j] == nonfinite or (math.isnan(got[3][j]) and math.isnan(nonfinite))
        assert _exact_or_mark(got[4][j]) == _exact_or_mark(total)
        assert _exact_or_mark(got[5][j]) == _exact_or_mark(squares)


def test_column_states_on_a_large_block_use_every_thread_and_stay_exact() -> None:
    from receval.kernels import column_states

    rng = np.random.default_rng(3)
    values = rng.random((40_000, 7)) * rng.choice([1.0, -1.0, 1e-30, 1e30], (40_000, 7))
    status = rng.choice(np.array([0, 1, 2], dtype=np.int8), values.shape)
    got = column_states(values, status)
    for j in range(7):
        keep = status[:, j] == 0
        assert got[0][j] == keep.sum() and got[1][j] == (status[:, j] == 1).sum()
        assert sum(map(Fraction, got[4][j]), Fraction(0)) == _exact(values[keep, j], False)
        assert sum(map(Fraction, got[5][j]), Fraction(0)) == _exact(values[keep, j], True)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(1.0, 2.0, exclude_max=True), st.integers(-465, 498),
                          st.booleans()), min_size=64, max_size=200))
def test_long_sum_of_squares_is_exact_over_the_whole_range(terms: list) -> None:
    """The accumulator's squares (a mantissa's 128-bit square placed at every bit offset of
    its digits) are exact for every magnitude it takes, 2**-465 (about 1e-140) to 2**498
    (about 1e150), either sign, as the column states' squares are."""
    from receval.kernels import column_states

    x = np.array([(-1.0 if neg else 1.0) * math.ldexp(m, e) for m, e, neg in terms])
    exact = _exact(x, True)
    assert sum(map(Fraction, exact_partials(x, 1)), Fraction(0)) == exact
    squares = column_states(x.reshape(-1, 1), np.zeros((len(x), 1), dtype=np.int8))[5][0]
    assert sum(map(Fraction, squares), Fraction(0)) == exact
