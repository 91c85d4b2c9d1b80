"""The cheaper reads of the fairness inputs give the bits of the general ones: profiles read in
place when the block's users are the training users (against the indexed read), profiles
never carried from one ``train=`` to another, ``item_categories=`` mappings read in one pass
(against the same pairs given as a table and a slow oracle), and the places of lists of one
length (against the general arithmetic)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.miscalibration as mc
from receval.beyond._context import list_places
from receval.io.categories import as_item_categories

KEYS = ["miscalibration@4", "miscalibration@4(distance=js,weight=log)",
        "miscalibration@4(distance=hellinger,alpha=0)", "mace@4"]


def _case(seed: int, one_category: bool):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(2, 30)), int(rng.integers(3, 12))
    rows = [(u, f"i{c}", float(-r)) for u in range(n_users)
            for r, c in enumerate(rng.choice(n_items, size=int(rng.integers(1, n_items + 1)),
                                             replace=False))]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": np.arange(n_users), "item": [f"i{u % n_items}"
                                                              for u in range(n_users)]})
    # grouped by user, users in the truth's order: the block's users are the training users
    h = rng.integers(1, 6, n_users)
    train = pd.DataFrame({"user": np.repeat(np.arange(n_users), h),
                          "item": [f"i{j}" for j in rng.integers(0, n_items, int(h.sum()))]})
    if one_category:
        cats = {f"i{j}": [f"c{j % 3}"] for j in range(n_items)}
    else:
        cats = {f"i{j}": [f"c{c}" for c in rng.choice(4, size=int(rng.integers(1, 3)),
                                                      replace=False)]
                for j in range(n_items)}
    return run, truth, train, cats


def _values(run, truth, train, cats):
    res = rv.evaluate(run, truth, KEYS, train=train, item_categories=cats)
    return res.per_user.sort_index(), res.summary


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_profiles_read_in_place_equal_the_indexed_read(seed, one_category):
    run, truth, train, cats = _case(seed, one_category)
    seen = []
    real = mc._same_ids

    def spy(a, b):
        seen.append(real(a, b))
        return seen[-1]

    mc._same_ids = spy
    try:
        fast = _values(run, truth, train, cats)
        assert seen and all(seen)  # the in-place read was taken
        mc._same_ids = lambda a, b: False  # the general read: users looked up by id
        slow = _values(run, truth, train, cats)
    finally:
        mc._same_ids = real
    assert fast[0].equals(slow[0])
    for key in fast[1]:
        a, b = fast[1][key], slow[1][key]
        assert a == b or (math.isnan(a) and math.isnan(b))


def test_a_profile_is_not_reused_when_train_changes():
    run, truth, train, cats = _case(3, one_category=True)
    first = _values(run, truth, train, cats)[0]
    other = train.copy()
    other["item"] = other["item"].iloc[::-1].to_numpy()  # other tastes, same users
    assert not _values(run, truth, other, cats)[0].equals(first)
    # the same frame changed in place between two evaluations: read afresh
    train["item"] = other["item"].to_numpy()
    assert _values(run, truth, train, cats)[0].equals(_values(run, truth, other.copy(), cats)[0])


def test_a_train_whose_users_differ_from_the_block_takes_the_indexed_read():
    run, truth, train, cats = _case(5, one_category=False)
    shuffled = train.sample(frac=1.0, random_state=0).reset_index(drop=True)
    # the same interactions in another order: the same profiles up to the order of the
    # items (one category each would be exact; several: compare to 1e-12)
    a, b = _values(run, truth, train, cats)[0], _values(run, truth, shuffled, cats)[0]
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=1e-15)


def _oracle(mapping: dict):
    """Items in key order; per item its distinct categories, by sorted category code."""
    labels = sorted({c for v in mapping.values()
                     for c in ([v] if isinstance(v, str) or not hasattr(v, "__iter__") else v)
                     if c is not None and not (isinstance(c, float) and c != c)})
    code = {c: j for j, c in enumerate(labels)}
    per = []
    for v in mapping.values():
        vals = [v] if isinstance(v, str) or not hasattr(v, "__iter__") else list(v)
        per.append(sorted({code[c] for c in vals
                           if c is not None and not (isinstance(c, float) and c != c)}))
    return labels, per


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(
    st.integers(0, 40),
    st.one_of(st.sampled_from(["a", "b", "c"]),
              st.lists(st.sampled_from(["a", "b", "c", "d", None, float("nan")]), max_size=4),
              st.tuples(st.sampled_from(["a", "d"]), st.sampled_from(["a", "b"])),
              st.frozensets(st.sampled_from(["b", "c"]))),
    max_size=25))
def test_item_categories_mapping_equals_the_oracle_and_the_table(mapping):
    cats = as_item_categories(mapping)
    labels, per = _oracle(mapping)
    assert list(cats.items) == list(mapping)
    assert list(cats.categories) == labels
    assert [cats.codes[cats.indptr[j]:cats.indptr[j + 1]].tolist()
            for j in range(len(per))] == per
    rows = [(item, c) for item, v in mapping.items()
            for c in (([v] if isinstance(v, str) else list(v)) or [None])]
    if rows:
        table = as_item_categories(pd.DataFrame(rows, columns=["item", "category"]))
        assert list(table.items) == list(cats.items)
        assert np.array_equal(table.indptr, cats.indptr)
        assert np.array_equal(table.codes, cats.codes)
        assert list(table.categories) == list(cats.categories)


def test_item_categories_series_with_a_repeated_item_keeps_one_row():
    cats = as_item_categories(pd.Series([["x"], ["y"], ["x", "z"]], index=[1, 2, 1]))
    assert list(cats.items) == [1, 2]
    assert cats.indptr.tolist() == [0, 2, 3]
    assert cats.categories[cats.codes].tolist() == ["x", "z", "y"]


@pytest.mark.parametrize("lens", [[3, 3, 3], [0, 0], [2, 3, 0, 1], [4], [1, 1, 2], [0, 2, 0, 3], [1]])
def test_list_places_of_one_length_and_of_many(lens):
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    pos = np.arange(int(indptr[-1]), dtype=np.int64)
    got = list_places(SimpleNamespace(absolute_ranks=False), indptr, pos)
    assert got.dtype == np.int64
    assert got.tolist() == [r for n in lens for r in range(n)]
