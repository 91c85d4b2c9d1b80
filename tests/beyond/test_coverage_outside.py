"""Recommended items outside the catalogue: ``coverage(outside=error|ignore|count)``.

``error`` (the default) refuses them; ``ignore``: ``|union_u R_k(u) & I| / |I|``; ``count``:
``|union_u R_k(u)| / |I|`` (recmetrics ``prediction_coverage``, RecTools ``CatalogCoverage``,
Microsoft Recommenders ``catalog_coverage``). Checked against set arithmetic on random lists
and against the libraries where they are installed.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peer_modules import recmetrics_metrics

import receval as rv
from receval.errors import InputError

RUN = {"u": {"a": 3.0, "b": 2.0, "z": 1.0}, "v": {"a": 2.0, "c": 1.0}}
TRUTH = {"u": {"a": 1}, "v": {"b": 1}}
CATALOG = ["a", "b", "c", "d"]  # z is outside


def test_worked_examples():
    res = rv.evaluate(RUN, TRUTH, ["coverage(outside=ignore)", "coverage(outside=count)"],
                      catalog=CATALOG)
    assert res["coverage(outside=ignore)"] == 3 / 4       # a, b, c of 4
    assert res["coverage(outside=count)"] == 4 / 4        # a, b, c, z over 4
    assert res.info["coverage(outside=count)"]["outside_catalog"] == 1
    with pytest.raises(InputError, match="not in the catalogue.*outside=ignore"):
        rv.evaluate(RUN, TRUTH, ["coverage"], catalog=CATALOG)
    # at k = 1 the lists are (a), (a): nothing outside, every rule agrees
    res = rv.evaluate(RUN, TRUTH, ["coverage@1", "coverage@1(outside=ignore)",
                                   "coverage@1(outside=count)"], catalog=CATALOG)
    assert set(res.summary.values()) == {1 / 4}


def test_source_catalogue_and_counts():
    train = pd.DataFrame({"user": ["u", "u", "w"], "item": ["a", "c", "d"]})
    keys = ["coverage(outside=ignore)", "coverage(outside=count)"]
    res = rv.evaluate(RUN, TRUTH, keys, catalog="train", train=train)
    assert res["coverage(outside=ignore)"] == 2 / 3       # a, c of train's a, c, d
    assert res["coverage(outside=count)"] == 4 / 3        # b and z counted as well
    # a count has no ids: every item is inside, more distinct items than the count refuse
    assert rv.evaluate(RUN, TRUTH, ["coverage(outside=count)"], catalog=3)[
        "coverage(outside=count)"] == 4 / 3
    with pytest.raises(InputError, match=r"^coverage\(outside=ignore\): the catalogue size "
                                         r"evaluate\(catalog=3\) is smaller than the 4 distinct"):
        rv.evaluate(RUN, TRUTH, ["coverage(outside=ignore)"], catalog=3)


@st.composite
def cases(draw):
    lists = draw(st.lists(st.lists(st.integers(0, 14), max_size=6, unique=True), min_size=1,
                          max_size=6))
    catalog = draw(st.lists(st.integers(0, 14), min_size=1, max_size=15, unique=True))
    return lists, catalog


@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@settings(max_examples=80, deadline=None)
@given(cases(), st.sampled_from([None, 1, 3]))
def test_oracle(data, k):
    lists, catalog = data
    run = {f"u{u}": {f"i{i}": float(len(items) - r) for r, i in enumerate(items)}
           for u, items in enumerate(lists) if items}
    truth = {f"u{u}": {"i0": 1} for u in range(len(lists))}
    ids = [f"i{i}" for i in catalog]
    shown = {i for items in lists for i in (items if k is None else items[:k])}
    inside = shown & set(catalog)
    keys = [rv.metric("coverage", k, outside=o).key for o in ("ignore", "count")]
    res = rv.evaluate(run, truth, keys, catalog=ids)
    assert res[keys[0]] == float(Fraction(len(inside), len(catalog)))
    assert res[keys[1]] == float(Fraction(len(shown), len(catalog)))
    default = rv.metric("coverage", k).key
    if shown - set(catalog):
        with pytest.raises(InputError, match="not in the catalogue"):
            rv.evaluate(run, truth, [default], catalog=ids)
    else:
        assert rv.evaluate(run, truth, [default], catalog=ids)[default] == res[keys[0]]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("seed", range(3))
def test_recmetrics_prediction_coverage(seed):
    rm = recmetrics_metrics()
    rng = np.random.default_rng(seed)
    lists = [[f"i{i}" for i in rng.choice(30, int(rng.integers(1, 6)), replace=False)]
             for _ in range(12)]
    catalog = [f"i{i}" for i in rng.choice(30, 18, replace=False)]
    want = rm.prediction_coverage(lists, catalog)
    run = {u: {i: float(len(items) - r) for r, i in enumerate(items)}
           for u, items in enumerate(lists)}
    truth = {u: {items[0]: 1} for u, items in enumerate(lists)}
    res = rv.evaluate(run, truth, ["prediction_coverage"], compat="recmetrics",
                      catalog=catalog)
    assert round(100 * res["prediction_coverage"], 2) == want  # a percentage, 2 decimals


@pytest.mark.parametrize("seed", range(3))
def test_rectools_catalog_coverage(seed):
    metrics = pytest.importorskip("rectools.metrics")
    rng = np.random.default_rng(seed)
    rows = [(u, int(i), r) for u in range(15)
            for r, i in enumerate(rng.choice(30, int(rng.integers(1, 7)), replace=False), 1)]
    reco = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    catalog = list(range(0, 30, 2))  # odd items are outside
    truth = reco[reco["rank"] == 1].assign(relevance=1.0)[["user_id", "item_id", "relevance"]]
    for k in (1, 3, 5):
        cols = {"catalog": catalog, "user_col": "user_id", "item_col": "item_id"}
        res = rv.evaluate(reco, truth, [f"catalogcoverage@{k}"], compat="rectools", **cols)
        assert res[f"catalogcoverage@{k}"] == metrics.CatalogCoverage(k=k).calc(reco, catalog)
        key = f"coverage@{k}(outside=count)"  # normalize=True: over len(catalog)
        assert rv.evaluate(reco, truth, [key], **cols)[key] == pytest.approx(
            metrics.CatalogCoverage(k=k, normalize=True).calc(reco, catalog), rel=1e-15)


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_ms_recommenders_catalog_coverage():
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    rng = np.random.default_rng(5)
    train = pd.DataFrame({"userID": rng.integers(0, 10, 40), "itemID": rng.integers(0, 20, 40)})
    train = train.drop_duplicates()
    reco = pd.DataFrame([(u, int(i), 1.0 / (r + 1)) for u in range(10)
                         for r, i in enumerate(rng.choice(26, 4, replace=False))],
                        columns=["userID", "itemID", "prediction"])
    seen = reco.merge(train, on=["userID", "itemID"])[["userID", "itemID"]]
    train = pd.concat([train, seen]).drop_duplicates(keep=False)  # no reco pair in train
    want = pe.catalog_coverage(train, reco)
    truth = reco.groupby("userID").head(1).assign(rating=1.0)[["userID", "itemID", "rating"]]
    res = rv.evaluate(reco, truth, ["catalog_coverage"], compat="ms_recommenders",
                      catalog="train", train=train, users="run", user_col="userID",
                      item_col="itemID")
    assert res["catalog_coverage"] == pytest.approx(want, rel=1e-15)
