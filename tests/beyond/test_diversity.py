from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import cosine_similarity

from receval.beyond import (
    ItemFeatures,
    intra_list_diversity,
    intra_list_similarity,
    similarity_novelty,
)
from receval.beyond.diversity import Similarity, history_similarity
from receval.errors import InputError

E2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


def brute_ils(lists, sim_matrix):
    out = []
    for lst in lists:
        pairs = [(a, b) for i, a in enumerate(lst) for b in lst[i + 1:]]
        out.append(np.mean([sim_matrix[a, b] for a, b in pairs]) if pairs else np.nan)
    return np.array(out)


def test_exact_small_example():
    # pairs (0,1): 0, (0,2): 1/sqrt2, (1,2): 1/sqrt2
    ils = intra_list_similarity([[0, 1, 2], [0, 1], [2]], E2)
    assert ils[0] == pytest.approx((0 + 2 / math.sqrt(2)) / 3, abs=1e-15)
    assert ils[1] == 0.0
    assert math.isnan(ils[2])
    ild = intra_list_diversity([[0, 1, 2], [0, 1], [2]], E2)
    assert ild[0] == pytest.approx(1 - (2 / math.sqrt(2)) / 3, abs=1e-15)
    assert ild[1] == 1.0


def test_cut_at_k():
    assert intra_list_similarity([[0, 1, 2]], E2, k=2)[0] == 0.0


def test_jaccard_exact():
    tags = {"a": {"x", "y"}, "b": {"y", "z"}, "c": {"w"}}
    # J(a,b) = 1/3, J(a,c) = 0, J(b,c) = 0
    assert intra_list_similarity([["a", "b", "c"]], tags, sim="jaccard")[0] == pytest.approx(
        (1 / 3) / 3, abs=1e-15)
    # cosine of the binary tag vectors: (1/2) / 3
    assert intra_list_similarity([["a", "b", "c"]], tags)[0] == pytest.approx(
        (1 / 2) / 3, abs=1e-15)


def test_seed_001_item_novelty():
    f = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    indptr, values = similarity_novelty([[0, 1, 2]], f, per_item=True)
    # item 0: (1 - 0 + 1 - 1) / 2 = 1/2; item 1: (1 + 1) / 2 = 1
    assert values.tolist() == [0.5, 1.0, 0.5]
    mean = similarity_novelty([[0, 1, 2]], f)
    assert mean[0] == pytest.approx(intra_list_diversity([[0, 1, 2]], f)[0], abs=1e-15)


def _random_case(seed, n_items=40, dims=6, n_users=30, max_len=7):
    rng = np.random.default_rng(seed)
    feats = rng.normal(size=(n_items, dims))
    feats[3] = 0.0  # a zero vector: cosine 0 with everything
    lists = [rng.choice(n_items, size=rng.integers(0, max_len + 1), replace=False).tolist()
             for _ in range(n_users)]
    return feats, lists


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_cosine_matches_sklearn_brute_force(seed):
    feats, lists = _random_case(seed)
    ref = brute_ils(lists, cosine_similarity(feats))
    fast = intra_list_similarity(lists, feats)
    pairs = intra_list_similarity(lists, feats, method="pairs")
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(pairs, ref, rtol=0, atol=1e-12)
    # ILS + ILD = 1 wherever defined
    ild = intra_list_diversity(lists, feats)
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(fast[ok] + ild[ok], 1.0, rtol=0, atol=1e-12)
    assert np.array_equal(np.isnan(ild), ~ok)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_sparse_and_dataframe_features_agree(seed):
    feats, lists = _random_case(seed)
    dense = intra_list_similarity(lists, feats)
    sparse = intra_list_similarity(lists, sp.csr_matrix(feats))
    np.testing.assert_allclose(sparse, dense, rtol=0, atol=1e-12)
    ids = np.array([f"i{j}" for j in range(len(feats))], dtype=object)
    frame = pd.DataFrame(feats, index=ids)
    named = intra_list_similarity([[ids[j] for j in lst] for lst in lists], frame)
    np.testing.assert_allclose(named, dense, rtol=0, atol=1e-12)


def test_jaccard_matches_brute_force():
    rng = np.random.default_rng(3)
    binary = (rng.random((25, 8)) < 0.3).astype(float)
    lists = [rng.choice(25, size=5, replace=False).tolist() for _ in range(20)]
    inter = binary @ binary.T
    sizes = binary.sum(1)
    union = sizes[:, None] + sizes[None, :] - inter
    jac = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    ref = brute_ils(lists, jac)
    np.testing.assert_allclose(intra_list_similarity(lists, binary, sim="jaccard"), ref,
                               atol=1e-12)
    np.testing.assert_allclose(intra_list_similarity(lists, sp.csr_matrix(binary),
                                                     sim="jaccard"), ref, atol=1e-12)


def test_custom_similarity_function():
    feats, lists = _random_case(5)

    def neg_euclid(a, b):
        return -np.sqrt(((a - b) ** 2).sum(axis=1))

    dist = np.sqrt(((feats[:, None, :] - feats[None, :, :]) ** 2).sum(-1))
    ref = brute_ils(lists, -dist)
    np.testing.assert_allclose(intra_list_similarity(lists, feats, sim=neg_euclid), ref,
                               atol=1e-12)
    with pytest.raises(InputError, match="one finite similarity"):
        intra_list_similarity(lists, feats, sim=lambda a, b: np.zeros(3))


@pytest.mark.parametrize("method", ["auto", "pairs"])
def test_block_size_does_not_change_values(method):
    feats, lists = _random_case(11, n_users=60)
    ref = intra_list_similarity(lists, feats, method=method)
    for size in (1, 2, 7, 1000):
        got = intra_list_similarity(lists, feats, method=method, block_users=size)
        assert np.array_equal(got, ref, equal_nan=True)
        nov = similarity_novelty(lists, feats, method=method, block_users=size, per_item=True)
        nov_ref = similarity_novelty(lists, feats, method=method, per_item=True)
        assert np.array_equal(nov[1], nov_ref[1], equal_nan=True)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_item_novelty_matches_brute_force(seed):
    feats, lists = _random_case(seed)
    cs = cosine_similarity(feats)
    ref = []
    for lst in lists:
        for i in lst:
            others = [j for j in lst if j != i]
            ref.append(np.mean([1 - cs[i, j] for j in others]) if others else np.nan)
    for method in ("auto", "pairs"):
        _, got = similarity_novelty(lists, feats, per_item=True, method=method)
        np.testing.assert_allclose(got, np.array(ref), atol=1e-12)


def test_history_similarity_linear_and_generic_agree():
    feats, lists = _random_case(7, n_users=12)
    rng = np.random.default_rng(0)
    hist = [rng.choice(40, size=rng.integers(0, 9), replace=False).tolist() for _ in range(12)]
    cs = cosine_similarity(feats)
    ref = [np.mean([cs[i, h] for h in hist[u]]) if hist[u] else np.nan
           for u, lst in enumerate(lists) for i in lst]
    ip = np.concatenate([[0], np.cumsum([len(x) for x in lists])])
    hp = np.concatenate([[0], np.cumsum([len(x) for x in hist])])
    rows = np.concatenate([np.array(x, dtype=np.int64) for x in lists])
    hrows = np.concatenate([np.array(x, dtype=np.int64) for x in hist])
    fe = ItemFeatures(feats)
    got = history_similarity(ip, rows, hp, hrows, Similarity(fe, "cosine"))
    np.testing.assert_allclose(got, ref, atol=1e-12)

    def cos(a, b):
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        d = (a * b).sum(1)
        return np.divide(d, na * nb, out=np.zeros_like(d), where=(na * nb) > 0)

    generic = history_similarity(ip, rows, hp, hrows, Similarity(fe, cos))
    np.testing.assert_allclose(generic, ref, atol=1e-12)


def test_missing_items_policy():
    with pytest.raises(InputError, match="without features"):
        intra_list_similarity([[0, 1, 7]], E2)
    # skip: item 7 is left out, the list becomes [0, 1]
    assert intra_list_similarity([[0, 1, 7]], E2, missing="skip")[0] == 0.0


def test_bad_features():
    with pytest.raises(InputError, match="numeric"):
        intra_list_similarity([[0, 1]], pd.DataFrame({"a": ["x", "y"]}))
    with pytest.raises(InputError, match="NaN"):
        intra_list_similarity([[0, 1]], np.array([[np.nan, 1.0], [1.0, 0.0]]))
    with pytest.raises(InputError, match="integers"):
        intra_list_similarity([["a", "b"]], E2)
    with pytest.raises(InputError, match="unique"):
        intra_list_similarity([[0, 1]], (E2, [0, 0, 1]))
    with pytest.raises(InputError, match="sim="):
        intra_list_similarity([[0, 1]], E2, sim="euclid")


def test_polars_and_arrow_feature_tables():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"item_id": ["a", "b", "c"], "x": [1.0, 0.0, 2.0], "y": [0.0, 1.0, 0.0]})
    lists = [["a", "b", "c"]]
    assert intra_list_similarity(lists, frame)[0] == pytest.approx(1 / 3, abs=1e-15)
    assert intra_list_similarity(lists, frame.to_arrow())[0] == pytest.approx(1 / 3, abs=1e-15)
    with pytest.raises(InputError, match="item id column"):
        intra_list_similarity(lists, frame.rename({"item_id": "name"}))
