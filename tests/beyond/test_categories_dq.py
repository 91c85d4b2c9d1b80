"""Categorical diversity and coverage, RePlay's novelty (unseen share), RecTools' rank-based
serendipity and data-quality shares: the libraries' documented examples, and slow oracles
written from the formulas on random data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.beyond import as_item_categories, unrepeated_reco
from receval.errors import InputError

# RePlay's documented recommendations (replay/metrics/novelty.py, categorical_diversity.py)
RECS = pd.DataFrame({"user": [1] * 5 + [2] * 5 + [3] * 3,
                     "item": [3, 7, 10, 11, 2, 5, 8, 11, 1, 3, 4, 9, 2],
                     "score": [.6, .5, .4, .3, .2, .6, .5, .4, .3, .2, 1.0, .5, .1]})
TRUTH = pd.DataFrame({"user": [1, 2, 3], "item": [3, 5, 4]})


def test_replay_categorical_diversity_example():
    # RePlay lists categories directly: here every item is its own single category
    cats = {i: [i] for i in RECS["item"].unique()}
    res = rv.evaluate(RECS, TRUTH, ["category_diversity@3", "category_diversity@5"],
                      item_categories=cats)
    assert res.summary["category_diversity@3"] == 1.0
    assert res.summary["category_diversity@5"] == pytest.approx((1 + 1 + 3 / 5) / 3, rel=1e-15)
    assert res.per_user["category_diversity@5"].tolist() == [1.0, 1.0, 0.6]


def test_replay_novelty_example():
    train = pd.DataFrame({"user": [1] * 5 + [2] * 5 + [3] * 3,
                          "item": [5, 6, 8, 9, 2, 5, 8, 11, 1, 3, 4, 9, 2]})
    res = rv.evaluate(RECS, TRUTH, ["unseen_share@2"], train=train)
    assert res.per_user["unseen_share@2"].tolist() == [1.0, 0.0, 0.0]
    assert res.summary["unseen_share@2"] == pytest.approx(1 / 3, rel=1e-15)


def test_rectools_serendipity_example():
    """RecTools' documented example (rectools/metrics/serendipity.py)."""
    reco = pd.DataFrame({"user": ["u1", "u1", "u2", "u2", "u3", "u4", "u4"],
                         "item": ["i1", "i2", "i2", "i3", "i3", "i2", "i3"],
                         "rank": [1, 2, 1, 2, 1, 1, 2]})
    interactions = pd.DataFrame({"user": ["u1", "u1", "u2", "u2", "u3", "u4"],
                                 "item": ["i1", "i2", "i2", "i3", "i2", "i2"]})
    prev = pd.DataFrame({"user": ["u1", "u1", "u2", "u2", "u3"],
                         "item": ["i1", "i2", "i1", "i2", "i1"]})
    res = rv.evaluate(reco, interactions, ["rank_serendipity@1", "rank_serendipity@2"],
                      train=prev, catalog=["i1", "i2", "i3", "i4"])
    # u2: i2 at rank 1 (popularity rank 2): 4/4 - 3/4; i3 at rank 2, unseen in train: 3/4 - 0
    assert res.per_user["rank_serendipity@1"].tolist() == [0.0, 0.25, 0.0, 0.25]
    assert res.per_user["rank_serendipity@2"].tolist() == [0.0, (0.25 + 0.75) / 2, 0.0,
                                                           (0.25 + 0) / 2]


def test_rectools_sufficient_and_unrepeated_examples():
    """RecTools' documented examples (rectools/metrics/dq.py)."""
    reco = pd.DataFrame({"user": [1, 1, 2, 2, 2, 3, 3, 3, 3, 3],
                         "item": [1, 2, 1, 2, 3, 1, 2, 3, 4, 5],
                         "rank": [1, 2, 1, 2, 3, 1, 2, 3, 4, 5]})
    truth = pd.DataFrame({"user": [1, 2, 3], "item": [1, 1, 1]})
    res = rv.evaluate(reco, truth, ["sufficient_reco@1", "sufficient_reco@4",
                                    "sufficient_reco@4(deep=true)"])
    assert res.per_user["sufficient_reco@1"].tolist() == [1.0, 1.0, 1.0]
    assert res.per_user["sufficient_reco@4"].tolist() == [0.0, 0.0, 1.0]
    assert res.per_user["sufficient_reco@4(deep=true)"].tolist() == [0.5, 0.75, 1.0]
    rep = reco.assign(item=[1, 2, 1, 1, 3, 1, 2, 2, 1, 5])
    assert unrepeated_reco(rep, 1).tolist() == [1.0, 1.0, 1.0]
    assert unrepeated_reco(rep, 4).tolist() == [1.0, 0.0, 0.0]
    assert unrepeated_reco(rep, 4, deep=True).tolist() == [1.0, 2 / 3, 2 / 4]
    with pytest.raises(InputError, match="cutoff"):
        rv.evaluate(reco, truth, ["sufficient_reco"])


# ---- oracles on random data ----------------------------------------------------------------
def _random(seed: int):
    rng = np.random.default_rng(seed)
    n_items = 15
    run = pd.DataFrame([(u, i, float(rng.integers(0, 5))) for u in range(25)
                        for i in rng.choice(n_items, rng.integers(0, 9), replace=False)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i) for u in range(25) for i in rng.choice(n_items, 3, replace=False)],
                         columns=["user", "item"])
    train = pd.DataFrame([(u, i) for u in range(30) for i in rng.choice(n_items, 4)],
                         columns=["user", "item"])
    genres = ["drama", "comedy", "crime", "war", "noir"]
    cats = {i: list(rng.choice(genres, rng.integers(0, 3), replace=False)) for i in range(n_items)}
    return run, truth, train, cats


def _lists(run: pd.DataFrame, k: int) -> dict:
    ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, True])
    return {u: g["item"].tolist()[:k] for u, g in ordered.groupby("user")}


@pytest.mark.parametrize("seed", range(3))
def test_category_metrics_match_oracle(seed):
    run, truth, train, cats = _random(seed)
    k = 4
    keys = [f"category_diversity@{k}", f"category_diversity@{k}(denominator=list)",
            f"category_coverage@{k}", f"category_coverage@{k}(level=catalog)"]
    res = rv.evaluate(run, truth, keys, item_categories=cats)
    lists = _lists(run, k)
    n_cats = len({c for cs in cats.values() for c in cs})
    covered = set()
    for u in res.user_ids:
        items = lists.get(u, [])
        distinct = {c for i in items for c in cats[i]}
        covered |= distinct
        pu = res.per_user.loc[u]
        if items:
            assert pu[keys[0]] == len(distinct) / k
            assert pu[keys[1]] == len(distinct) / len(items)
        else:
            assert math.isnan(pu[keys[0]]) and math.isnan(pu[keys[1]])
        assert pu[keys[2]] == len(distinct) / n_cats
    assert res.summary[keys[3]] == len(covered) / n_cats
    # the same categories as (item, category) rows give the same values
    rows = pd.DataFrame([(i, c) for i, cs in cats.items() for c in cs], columns=["item", "genre"])
    rows = pd.concat([rows, pd.DataFrame({"item": [i for i, cs in cats.items() if not cs],
                                          "genre": None})])
    res2 = rv.evaluate(run, truth, keys, item_categories=rows)
    np.testing.assert_array_equal(res.values, res2.values)


@pytest.mark.parametrize("seed", range(3))
def test_unseen_share_and_rank_serendipity_match_oracle(seed):
    run, truth, train, _ = _random(seed)
    k = 5
    res = rv.evaluate(run, truth, [f"unseen_share@{k}", f"rank_serendipity@{k}"], train=train)
    lists = _lists(run, k)
    hist = train.groupby("user")["item"].apply(set).to_dict()
    counts = train["item"].value_counts()
    distinct = sorted(set(counts.tolist()), reverse=True)
    pop_rank = {i: distinct.index(c) + 1 for i, c in counts.items()}
    n = len(set(train["item"]) | set(truth["item"]) | set(run["item"]))
    rel = set(map(tuple, truth[["user", "item"]].to_numpy()))
    for u in res.user_ids:
        items = lists.get(u, [])
        pu = res.per_user.loc[u]
        if not items:
            assert math.isnan(pu[f"unseen_share@{k}"])
            continue
        seen = hist.get(u, set())
        assert pu[f"unseen_share@{k}"] == pytest.approx(
            sum(i not in seen for i in items) / len(items), rel=1e-15)
        terms = []
        for r, i in enumerate(items, start=1):
            p_user = (n + 1 - r) / n
            p_any = (n + 1 - pop_rank[i]) / n if i in pop_rank else 0.0
            terms.append(max(p_user - p_any, 0.0) * ((u, i) in rel))
        assert pu[f"rank_serendipity@{k}"] == pytest.approx(sum(terms) / len(terms), rel=1e-12,
                                                           abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_unrepeated_reco_matches_oracle(seed):
    rng = np.random.default_rng(seed)
    run = pd.DataFrame({"user": rng.integers(0, 8, 80), "item": rng.integers(0, 6, 80),
                        "score": rng.integers(0, 4, 80).astype(float)})
    for k, deep in ((3, False), (5, True)):
        got = unrepeated_reco(run, k, deep=deep)
        ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, True],
                                  kind="stable")
        for u, g in ordered.groupby("user"):
            top = g["item"].tolist()[:k]
            fresh = sum(1 for j, i in enumerate(top) if i not in top[:j])
            want = fresh / len(top) if deep else float(fresh == len(top))
            assert got.loc[u] == want


def test_category_inputs_and_errors():
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(InputError, match="item_categories"):
        rv.evaluate(run, truth, ["category_diversity@2"])
    with pytest.raises(InputError, match="without categories"):
        rv.evaluate(run, truth, ["category_diversity@2"], item_categories={"a": "drama"})
    res = rv.evaluate(run, truth, ["category_diversity@2(missing=skip)"],
                      item_categories={"a": "drama"})  # one string is one category
    assert res.summary["category_diversity@2(missing=skip)"] == 1 / 2
    # a dict of tags given as item_features is used too
    res = rv.evaluate(run, truth, ["category_coverage@2"],
                      item_features={"a": ["drama", "war"], "b": ["war", "noir"]})
    assert res.summary["category_coverage@2"] == 3 / 3
    cats = as_item_categories(pd.Series({"a": ["x", "y"], "b": []}))
    assert cats.n_categories == 2 and cats.rows(np.array(["b", "c"])).tolist() == [1, -1]
    with pytest.raises(InputError, match="category"):
        as_item_categories(pd.DataFrame({"item": [1], "x": [2], "y": [3]}))


def test_plugin_metrics_see_their_own_depth():
    """A plugin metric's lists are cut at its own k, not at the kernel metrics' deepest cutoff."""
    run, truth, train, cats = _random(5)
    keys = ["coverage(kind=count)", "category_diversity(missing=skip)", "unseen_share",
            "coverage@6(kind=count)", "rank_serendipity@7"]
    alone = rv.evaluate(run, truth, keys, train=train, item_categories=cats)
    mixed = rv.evaluate(run, truth, ["ndcg@2", *keys], train=train, item_categories=cats)
    for key in keys:
        np.testing.assert_array_equal(alone.user_values(key), mixed.user_values(key))
        assert alone.summary[key] == mixed.summary[key] or math.isnan(alone.summary[key])


def _same_categories(a, b):
    assert a.items.tolist() == b.items.tolist()
    assert a.indptr.tolist() == b.indptr.tolist()
    assert a.categories[a.codes].tolist() == b.categories[b.codes].tolist()


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, pd.NA, pd.NaT])
def test_a_missing_category_in_a_mapping_is_no_category_as_in_a_table(missing):
    # every missing value pandas knows, not only None and NaN: before, pd.NA reached the
    # category codes as -1 (the last category when used as an index)
    mapping = as_item_categories({"a": [missing], "b": ["y"], "c": ["x", missing, "y"]})
    table = as_item_categories(pd.DataFrame({"item": ["a", "b", "c", "c", "c"],
                                             "category": [None, "y", "x", None, "y"]}))
    _same_categories(mapping, table)
    assert (mapping.codes >= 0).all() and mapping.indptr.tolist() == [0, 0, 1, 3]


@pytest.mark.parametrize("value, named", [([["x"]], "list"), ([{"x"}], "set"),
                                          ({"x": 1.0}, "mapping")])
def test_a_category_that_is_not_one_category_is_refused_naming_the_item(value, named):
    with pytest.raises(InputError, match=rf"item 'a'.*{named}|{named}.*item 'a'|item 'a'"):
        as_item_categories({"b": ["y"], "a": value})
    run = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="item_categories"):
        rv.evaluate(run, run[["user", "item"]], ["category_coverage@2"],
                    item_categories={"b": ["y"], "a": value})


@pytest.mark.parametrize("container", ["pandas", "polars", "pyarrow"])
def test_a_table_with_a_list_of_categories_per_item_is_read_as_its_pairs(container):
    rows = {"item": ["a", "b", "c"], "genres": [["x", "y"], [], ["y", "y"]]}
    if container == "pandas":
        table = pd.DataFrame(rows)
    else:
        mod = pytest.importorskip(container)
        table = mod.DataFrame(rows) if container == "polars" else mod.table(rows)
    got = as_item_categories(table)
    _same_categories(got, as_item_categories({"a": ["x", "y"], "b": [], "c": ["y"]}))
    run = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 2, 1]})
    res = rv.evaluate(run, run[["user", "item"]], ["category_coverage@3"],
                      item_categories=table)
    assert res.summary["category_coverage@3"] == 1.0
