"""``column_states(values, status, groups, n_groups)``: each group's states are those of its
rows alone (the same exact partials), rows of a negative code left out."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.kernels import column_states


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 3000), m=st.integers(1, 4),
       n_groups=st.integers(1, 5))
def test_grouped_states_are_each_groups_own(seed, n, m, n_groups):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((n, m)) * 10.0 ** rng.integers(-3, 4, (n, m))
    values[rng.random((n, m)) < 0.05] = np.nan
    values[rng.random((n, m)) < 0.01] = np.inf
    status = rng.integers(0, 3, (n, m)).astype(np.int8)
    codes = rng.integers(-1, n_groups, n)
    got = column_states(values, status, codes, n_groups)
    for g in range(n_groups):
        keep = codes == g
        want = column_states(np.ascontiguousarray(values[keep]),
                             np.ascontiguousarray(status[keep]))
        for a, b in zip(got[:4], want[:4], strict=True):
            assert np.array_equal(a[g], b, equal_nan=True)
        for j in range(m):
            assert math.fsum(got[4][g][j]) == math.fsum(want[4][j])
            assert math.fsum(got[5][g][j]) == math.fsum(want[5][j])


def test_grouped_states_refuse_misshapen_codes():
    import pytest

    v, s = np.zeros((3, 1)), np.zeros((3, 1), dtype=np.int8)
    with pytest.raises(ValueError, match="one group code per row"):
        column_states(v, s, np.zeros(2, dtype=np.int64), 2)
    with pytest.raises(ValueError, match="n_groups"):
        column_states(v, s, np.zeros(3, dtype=np.int64), 0)
