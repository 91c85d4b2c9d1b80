"""Beyond-accuracy inputs (issue 11): a dict of embeddings is read as vectors, never as tags."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.beyond.inputs import as_item_features
from receval.errors import InputError


def _ild_oracle(lists: dict, vectors: dict) -> dict:
    """Mean cosine distance over the pairs of each list, computed by hand."""
    out = {}
    for u, items in lists.items():
        dists = []
        for a, b in itertools.combinations(items, 2):
            x, y = np.asarray(vectors[a], float), np.asarray(vectors[b], float)
            dists.append(1.0 - float(x @ y) / (np.linalg.norm(x) * np.linalg.norm(y)))
        out[u] = sum(dists) / len(dists)
    return out


def _case():
    rng = np.random.default_rng(11)
    items = [f"i{j}" for j in range(8)]
    vectors = {i: rng.normal(size=4) for i in items}
    lists = {"a": ["i0", "i3", "i5"], "b": ["i1", "i2", "i6", "i7"], "c": ["i4", "i0"]}
    run = pd.DataFrame([(u, i, float(len(its) - r)) for u, its in lists.items()
                        for r, i in enumerate(its)], columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": list(lists), "item": ["i0", "i1", "i4"]})
    return run, truth, vectors, lists


@pytest.mark.parametrize("form", ["arrays", "float_lists", "series"])
def test_ild_with_a_dict_of_embeddings_matches_the_oracle(form):
    run, truth, vectors, lists = _case()
    feats = {
        "arrays": vectors,
        "float_lists": {i: v.tolist() for i, v in vectors.items()},
        "series": pd.Series(vectors),
    }[form]
    res = rv.evaluate(run, truth, ["ild@10"], item_features=feats)
    expected = _ild_oracle(lists, vectors)
    got = dict(zip(res.user_ids.tolist(), res.user_values("ild@10").tolist(), strict=True))
    for u, value in expected.items():
        assert got[u] == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert res["ild@10"] == pytest.approx(np.mean(list(expected.values())))
    assert res["ild@10"] != 1.0  # the old reading (floats as tags) gave exactly 1.0


def test_dict_of_vectors_equals_the_dataframe_form():
    run, truth, vectors, _ = _case()
    frame = pd.DataFrame.from_dict(vectors, orient="index")
    a = rv.evaluate(run, truth, ["ild@10", "ils@10"], item_features=vectors)
    b = rv.evaluate(run, truth, ["ild@10", "ils@10"], item_features=frame)
    assert a.summary == pytest.approx(b.summary)


def test_tags_are_still_tags():
    f = as_item_features({"x": {"rock", "pop"}, "y": ["pop"], "z": ("jazz",)})
    assert f.sparse and f.matrix.shape == (3, 3)
    f = as_item_features({"x": {1, 2}, "y": {2}})  # sets of numbers: tags
    assert f.sparse and f.matrix.shape == (2, 2)


@pytest.mark.parametrize("feats, words", [
    ({"x": [1, 2], "y": [2, 3]}, ["list of integers", "set(v)"]),
    ({"x": np.ones(3), "y": {"a"}}, ["feature vector", "tags"]),
    ({"x": np.ones(3), "y": np.ones(4)}, ["one length", "3", "4"]),
    ({"x": np.ones((2, 2))}, ["1-D"]),
    ({"x": [1.0, "a"]}, ["neither"]),
    ({"x": 3}, ["int"]),
    ({"x": "rock"}, ["str"]),
])
def test_ambiguous_or_mixed_values_are_errors(feats, words):
    with pytest.raises(InputError) as exc:
        as_item_features(feats)
    for w in words:
        assert w in str(exc.value)


@pytest.mark.parametrize("container", ["pandas", "polars", "pyarrow"])
@pytest.mark.parametrize("ids", [["a", "b", "c", "d"], [11, 12, 13, 14]])
def test_a_tidy_feature_table_reads_its_item_column_as_the_ids(container, ids):
    # a pandas frame with an item column and a default index was refused for its text ids,
    # or read its integer ids as one more feature; every table now reads as the index form
    cols = {"item": ids, "f1": [1.0, 0, 1, 0], "f2": [0.0, 1, 1, 0]}
    indexed = pd.DataFrame(cols).set_index("item")
    table = pd.DataFrame(cols) if container == "pandas" else \
        pytest.importorskip(container).DataFrame(cols) if container == "polars" else \
        pytest.importorskip(container).table(cols)
    got, want = as_item_features(table), as_item_features(indexed)
    assert list(got.ids) == list(want.ids) == ids
    assert np.array_equal(np.asarray(got.matrix), np.asarray(want.matrix))
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [ids[j] for j in (0, 1, 2, 0, 3)],
                        "score": [3.0, 2, 1, 2, 1]})
    truth = pd.DataFrame({"user": [1, 2], "item": [ids[0], ids[3]]})
    a = rv.evaluate(run, truth, ["ild@3"], item_features=table).summary["ild@3"]
    assert a == rv.evaluate(run, truth, ["ild@3"], item_features=indexed).summary["ild@3"]


@pytest.mark.parametrize("catalog, words", [
    (["a", None, "b", "c", "d"], "missing id"),
    (["a", np.nan, "b", "c", "d"], "missing id"),  # numpy made the id "nan" of it
    (["a", ["b"], "c", "d"], "holds ['b'], a list"),
    (2.5, "got float"),
])
def test_a_catalogue_list_refuses_what_is_not_one_id(catalog, words):
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "a", "d"],
                        "score": [3.0, 2, 1, 2, 1]})
    with pytest.raises(InputError, match=r"catalog: .*" + re.escape(words)):
        rv.evaluate(run, run[["user", "item"]], ["coverage@3"], catalog=catalog)


@pytest.mark.parametrize("form", [list, tuple, set, np.array, pd.Index, pd.Series,
                                  lambda ids: dict.fromkeys(ids).keys()])
def test_every_collection_of_ids_is_one_catalogue(form):
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 4],
                        "score": [3.0, 2, 1, 2, 1]})
    res = rv.evaluate(run, run[["user", "item"]], ["coverage@3"], catalog=form([1, 2, 3, 4, 5]))
    assert res.summary["coverage@3"] == 4 / 5
