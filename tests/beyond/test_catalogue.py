from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.beyond import (
    ExposureState,
    catalog_coverage,
    effective_coverage,
    entropy,
    gini,
)
from receval.errors import InputError

counts_st = st.lists(st.integers(0, 20), min_size=2, max_size=30).filter(lambda c: sum(c) > 0)


def test_coverage_seed_001_exact():
    # lists [0, 1], [0, 2] over a catalogue of 6 items: |{0, 1, 2}| / 6
    state = ExposureState.from_lists([[0, 1], [0, 2]], n_items=6)
    assert state.counts.tolist() == [2, 1, 1, 0, 0, 0]
    assert catalog_coverage(state.counts) == 3 / 6
    assert catalog_coverage(state.counts, 10) == 3 / 10
    assert catalog_coverage(state.counts, kind="count") == 3.0


def test_coverage_cut_at_k_and_repeats_counted_once():
    state = ExposureState.from_lists([[0, 1, 2], [1, 1, 3]], k=2, n_items=4)
    assert state.counts.tolist() == [1, 2, 0, 0]
    assert state.slots == 4 and state.n_users == 2 and state.n_nonempty == 2


def test_entropy_exact():
    assert entropy([1, 1, 2]) == pytest.approx(1.5, abs=1e-15)
    assert entropy([1, 1, 2], base="e") == pytest.approx(1.5 * math.log(2), abs=1e-15)
    # normalized by log2 of the catalogue size n = 4 (one unrecommended item)
    assert entropy([1, 1, 2, 0], normalize=True) == pytest.approx(1.5 / 2.0, abs=1e-15)
    # over recommended items only: n = 3
    assert entropy([1, 1, 2, 0], normalize=True, over="recommended") == pytest.approx(
        1.5 / math.log2(3), abs=1e-15)
    assert entropy([5, 0, 0]) == 0.0


def test_gini_exact_seed_formula():
    # p ascending = 0, 1/4, 3/4; sum_j (2j - n - 1) p_j = -2*0 + 0*1/4 + 2*3/4 = 3/2
    assert gini([0, 1, 3]) == pytest.approx((3 / 2) / 2, abs=1e-15)
    assert gini([0, 1, 3], denominator="n") == pytest.approx((3 / 2) / 3, abs=1e-15)
    # zero-exposure catalogue items count: n = 5
    assert gini([1, 3], 5) == pytest.approx((2 * 4 - 6) / 4 / 4 * 1 + (2 * 5 - 6) * 3 / 4 / 4,
                                            abs=1e-15)
    assert gini([0, 1, 3], over="recommended") == pytest.approx((-1 * 1 / 4 + 1 * 3 / 4) / 1)


def test_gini_extremes():
    n = 7
    one = [0] * (n - 1) + [9]
    assert gini(one) == 1.0
    assert gini(one, denominator="n") == pytest.approx((n - 1) / n, abs=1e-15)
    assert gini([3] * n) == pytest.approx(0.0, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(counts_st)
def test_gini_matches_mean_absolute_difference(counts):
    c = np.array(counts, dtype=float)
    n = len(c)
    mad = np.abs(c[:, None] - c[None, :]).sum() / (2 * n * c.sum())  # classic Gini
    assert gini(c, denominator="n") == pytest.approx(mad, abs=1e-12)
    assert gini(c) == pytest.approx(mad * n / (n - 1), abs=1e-12)
    assert -1e-12 <= gini(c) <= 1 + 1e-12


@settings(max_examples=60, deadline=None)
@given(counts_st)
def test_entropy_matches_scipy_and_is_maximal_for_uniform(counts):
    c = np.array(counts, dtype=float)
    assert entropy(c) == pytest.approx(scipy.stats.entropy(c, base=2), abs=1e-12)
    assert entropy(c) <= math.log2(len(c)) + 1e-12
    assert entropy(np.ones(len(c))) == pytest.approx(math.log2(len(c)), abs=1e-12)
    assert entropy(np.ones(len(c)), normalize=True) == pytest.approx(1.0, abs=1e-12)
    cov = catalog_coverage(c)
    eff = effective_coverage(c)
    assert 0 < cov <= 1 and 0 < eff <= cov + 1e-12


def test_effective_coverage_exact():
    assert effective_coverage([1, 1, 0, 0]) == pytest.approx(2 / 4, abs=1e-15)
    assert effective_coverage([4, 0, 0, 0]) == pytest.approx(1 / 4, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 15), max_size=6, unique=True), min_size=1,
                max_size=25), st.integers(1, 7))
def test_state_merge_is_block_invariant(lists, size):
    whole = ExposureState.from_lists(lists, n_items=16)
    merged = ExposureState(np.zeros(0, dtype=np.int64))
    for lo in range(0, len(lists), size):
        merged = merged.merge(ExposureState.from_lists(lists[lo:lo + size]))
    padded = np.zeros(16, dtype=np.int64)
    padded[: len(merged.counts)] = merged.counts
    assert padded.tolist() == whole.counts.tolist()
    assert (merged.n_users, merged.slots, merged.n_nonempty) == (
        whole.n_users, whole.slots, whole.n_nonempty)
    if whole.slots:
        assert gini(padded, 16) == gini(whole.counts, 16)
        assert entropy(padded) == entropy(whole.counts)


def test_bad_input():
    with pytest.raises(InputError, match="n_items"):
        gini([1, 2, 3], 2)
    with pytest.raises(InputError, match=">= 0"):
        entropy([1, -1])
    with pytest.raises(InputError, match="padding"):
        ExposureState.from_lists(np.array([[-1, 2]]))


def test_repeated_items_counted_once_in_equal_and_ragged_lists():
    from receval.beyond.personalization import PersonalizationState

    equal = ExposureState.from_lists(np.array([[0, 0, 1], [1, 2, 3]]), n_items=4)
    assert equal.counts.tolist() == [1, 2, 1, 1]
    ragged = ExposureState.from_lists([[0, 0], [1, 2, 3]], n_items=4)
    assert ragged.counts.tolist() == [1, 1, 1, 1]
    st_ = PersonalizationState.from_lists([[0, 0, 1], [0, 1, 2]])
    assert st_.lists == {2: 1, 3: 1}
