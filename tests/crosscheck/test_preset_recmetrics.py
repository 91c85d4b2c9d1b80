"""``compat="recmetrics"``: every name of recmetrics' metrics.py, with the worked examples of
its own unit tests (statisticianinstilettos/recmetrics tests/test_metrics.py at b21222d), each
value checked against the formula of recmetrics/metrics.py; recmetrics itself is not needed.

MAP@K is recmetrics' ``mapk`` (the repository's ``_apk``: the sum of precision at each hit
within k over the number of hits), not ``mark`` (over R): the worked example of the issue."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv

PRESET = rv.compat.PRESETS["recmetrics"]
RUN = {"a": {"X": 3, "Y": 2, "Z": 1}, "b": {"A": 3, "Z": 2, "B": 1}}
TRUTH = {"a": {"A", "B", "X"}, "b": {"A", "B", "Y"}}
TRUTH_ROWS = {u: {i: 1 for i in items} for u, items in TRUTH.items()}


def _run(lists: list[list]) -> pd.DataFrame:
    """recmetrics' ``predicted`` lists as run rows, in list order (repeats kept)."""
    return pd.DataFrame([(u, i, -float(r)) for u, items in enumerate(lists)
                         for r, i in enumerate(items)], columns=["user", "item", "score"])


def _truth(lists: list[list]) -> pd.DataFrame:
    """recmetrics' ``actual`` lists as truth rows."""
    return pd.DataFrame([(u, i, 1) for u, items in enumerate(lists) for i in items],
                        columns=["user", "item", "relevance"])


# ---- mapk, mark, prediction_coverage -------------------------------------------------------------

def test_map_at_k_is_mapk():
    # a: hit at 1 -> 1/1 over 1 hit; b: hits at 1 and 3 -> (1 + 2/3) over 2 hits
    res = rv.evaluate(RUN, TRUTH_ROWS, ["map@5", "mapk@5", "mark@5"], compat="recmetrics")
    assert res["map@5"] == res["mapk@5"] == pytest.approx((1 + (1 + 2 / 3) / 2) / 2, rel=1e-15)
    # mark: the same sums over R = 3: (1/3 + (5/3)/3) / 2
    assert res["mark@5"] == pytest.approx((1 / 3 + (5 / 3) / 3) / 2, rel=1e-15)


def test_a_user_without_a_hit_scores_zero():
    res = rv.evaluate({"a": {"Q": 1}}, {"a": {"A": 1}}, ["mapk@3"], compat="recmetrics")
    assert res["mapk@3"] == 0.0


def test_mark_unit_test():
    # test_mark: [X, Y, Z] twice against [A, B, X] and [A, B, Y], k = 5: 0.25
    # (hit at 1 -> 1/3; hit at 2 -> (1/2)/3)
    predicted = [["X", "Y", "Z"], ["X", "Y", "Z"]]
    res = rv.evaluate(_run(predicted), _truth([["A", "B", "X"], ["A", "B", "Y"]]), ["mark@5"],
                      compat="recmetrics")
    assert res["mark@5"] == pytest.approx((1 / 3 + 1 / 6) / 2, rel=1e-15) == 0.25


def test_mapk_unit_test_with_repeated_items():
    # test_mapk, second case: item 0 repeats (never relevant), k = 10: 0.53254 (5 places)
    predicted = [[5, 0, 4, 0, 0, 2, 0, 0, 3, 1], [0, 7, 0, 0, 6, 0, 8, 0, 0, 0]]
    actual = [[1, 2, 3, 4, 5], [6, 7, 8]]
    # user 0: hits at 1, 3, 6, 9, 10; user 1: hits at 2, 5, 7 (precision at each hit)
    ap0 = (1 + 2 / 3 + 3 / 6 + 4 / 9 + 5 / 10) / 5
    ap1 = (1 / 2 + 2 / 5 + 3 / 7) / 3
    res = rv.evaluate(_run(predicted), _truth(actual), ["mapk@10"], compat="recmetrics")
    assert res["mapk@10"] == pytest.approx((ap0 + ap1) / 2, rel=1e-15)
    assert round(res["mapk@10"], 5) == 0.53254


@pytest.mark.parametrize(("actual", "predicted", "k", "expected"), [
    # test_apk: the Stanford slides (0.775), a hit at 1, hits at 2 and 3, repeats, no list
    (list("abcdef"), list("axbcdeqyzf"), 10, (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6),
    (["A", "B", "X"], ["X", "Y", "Z"], 3, 1.0),
    (["A", "B", "X"], ["foo", "B", "A"], 1, 0.0),
    (["A", "B", "X"], ["foo", "B", "A"], 2, 1 / 2),
    (["A", "B", "X"], ["foo", "B", "A"], 3, ((1 / 2) + (2 / 3)) / 2),
    (["A", "B", "X"], ["A", "A", "Z"], 3, 1.0),
    (["A", "B", "X"], ["A", "A", "Z"], 1000, 1.0),
    (["A", "B", "X"], ["B", "B", "B"], 100, 1.0),
    (["A", "B", "X"], ["Z"], 100, 0.0),
])
def test_apk_unit_tests(actual, predicted, k, expected):
    res = rv.evaluate(_run([predicted]), _truth([actual]), [f"mapk@{k}"], compat="recmetrics")
    assert res[f"mapk@{k}"] == pytest.approx(expected, rel=1e-15)


def test_prediction_coverage_unit_test():
    # test_prediction_coverage: {X, Y, Z} of catalog [A, B, C, X, Y, Z]: 50 (percent)
    res = rv.evaluate(_run([["X", "Y", "Z"], ["X", "Y", "Z"]]), _truth([["A"], ["A"]]),
                      ["prediction_coverage"], compat="recmetrics", users="run",
                      catalog=["A", "B", "C", "X", "Y", "Z"])
    assert 100 * res["prediction_coverage"] == 50.0


# ---- novelty -------------------------------------------------------------------------------------

# test_novelty: two lists of these ten items, u = 933 users, n = 10: 0.10697151566593581
_POP = {1198: 893, 1270: 876, 593: 876, 2762: 867, 318: 864, 2571: 863, 260: 859, 1240: 857,
        296: 856, 608: 853}


def _novelty_train(pop: dict[int, int], users: int) -> pd.DataFrame:
    """Training rows in which item i has pop[i] distinct users among ``users`` users (every
    user holds item 0, which no list recommends, so every user is a training user)."""
    rows = [(u, i) for i, count in pop.items() for u in range(count)]
    rows += [(u, 0) for u in range(users)]
    return pd.DataFrame(rows, columns=["user", "item"])


def test_novelty_unit_test():
    lists = [list(_POP)] * 2
    train = _novelty_train(_POP, 933)
    oracle = sum(-math.log2(c / 933) for c in _POP.values()) / 10
    for key in ("novelty@10", "novelty(n=10)", "novelty"):
        res = rv.evaluate(_run(lists), _truth([[1198], [1198]]), [key], compat="recmetrics",
                          users="run", train=train)
        assert res[key] == pytest.approx(oracle, rel=1e-13)
        assert res[key] == pytest.approx(0.10697151566593581, rel=1e-13)


def test_novelty_divides_a_short_list_by_n():
    # [1, 2] and [1], pop {1: 2, 2: 1}, u = 4, n = 2: (1 + 2) / 2 and 1 / 2, mean 1.0
    train = _novelty_train({1: 2, 2: 1}, 4)
    res = rv.evaluate(_run([[1, 2], [1]]), _truth([[1], [1]]), ["novelty(n=2)"],
                      compat="recmetrics", users="run", train=train)
    assert res["novelty(n=2)"] == pytest.approx(((1 + 2) / 2 + 1 / 2) / 2, rel=1e-15)


def test_novelty_refuses_an_item_missing_from_pop():
    train = _novelty_train({1: 2}, 4)
    with pytest.raises(rv.InputError, match="never occur in the training data"):
        rv.evaluate(_run([[1, 7]]), _truth([[1]]), ["novelty@2"], compat="recmetrics",
                    users="run", train=train)


@pytest.mark.parametrize("value", ["ten", "0", "-3"])
def test_novelty_bad_n_is_refused_naming_it(value):
    with pytest.raises(rv.MetricError, match=f"the cutoff must be a whole number >= 1, got "
                                             f"'{value}'"):
        rv.evaluate(RUN, TRUTH_ROWS, [f"novelty(n={value})"], compat="recmetrics")


# ---- personalization, intra_list_similarity ------------------------------------------------------

def test_personalization_unit_test():
    # test_personalization: only lists 2 and 3 share an item (X): 1 - (1/4) / 3 (0.916, 2 places)
    lists = [["1", "2", "C", "D"], ["4", "3", "m", "X"], ["7", "B", "t", "X"]]
    res = rv.evaluate(_run(lists), _truth([["1"]] * 3), ["personalization"],
                      compat="recmetrics", users="run")
    assert res["personalization"] == pytest.approx(1 - (1 / 4) / 3, rel=1e-15)
    assert round(res["personalization"], 2) == round(0.916, 2)


_GENRES = pd.DataFrame.from_dict(
    {1: (0, 0, 0), 2: (0, 0, 0), 3: (0, 1, 0), 4: (0, 1, 0), 5: (0, 1, 0), 6: (1, 0, 0),
     7: (0, 1, 0), 8: (0, 0, 0), 9: (1, 0, 0), 10: (1, 0, 0)},
    orient="index", columns=["Action", "Comedy", "Romance"])


def test_intra_list_similarity_unit_test():
    # test_intra_list_similarity: [3, 7, 5, 9]: 3 comedy pairs (1) and 3 with 9, action (0)
    res = rv.evaluate(_run([[3, 7, 5, 9]]), _truth([[3]]), ["intra_list_similarity"],
                      compat="recmetrics", item_features=_GENRES)
    assert res["intra_list_similarity"] == 0.5


def test_intra_list_similarity_cosine_of_graded_features():
    feats = pd.DataFrame({"a": [1.0, 0.0, 2.0], "b": [0.0, 3.0, 1.0]}, index=[1, 2, 3])
    res = rv.evaluate(_run([[1, 2, 3], [2, 3]]), _truth([[1], [1]]),
                      ["intra_list_similarity"], compat="recmetrics", item_features=feats)
    cos = {(1, 2): 0.0, (1, 3): 2 / math.sqrt(5), (2, 3): 3 / (3 * math.sqrt(5))}
    expected = (sum(cos.values()) / 3 + cos[(2, 3)]) / 2
    assert res["intra_list_similarity"] == pytest.approx(expected, rel=1e-14)


def test_intra_list_similarity_refuses_an_item_without_features():
    with pytest.raises(rv.InputError, match="without features"):
        rv.evaluate(_run([[3, 7, 11]]), _truth([[3]]), ["intra_list_similarity"],
                    compat="recmetrics", item_features=_GENRES)


# ---- mse, rmse -----------------------------------------------------------------------------------

# test_mse / test_rmse: MSE 1.11 and RMSE 1.054 (2 places)
_Y_PRED = [1.5, 3.2, 1.4, 3.3, 1.7, 3.8, 4.4, 1.6, 1.2, 3.7]
_Y_TEST = [2, 4, 3, 1, 3, 4, 5, 2, 1, 4]


def test_mse_and_rmse_unit_tests():
    run = {u: {0: p} for u, p in enumerate(_Y_PRED)}
    truth = {u: {0: y} for u, y in enumerate(_Y_TEST)}
    run[0][99] = 5.0  # a prediction without a rating is no pair
    res = rv.evaluate(run, truth, ["mse", "rmse"], compat="recmetrics")
    oracle = float(np.mean((np.array(_Y_TEST) - np.array(_Y_PRED)) ** 2))
    assert res["mse"] == pytest.approx(oracle, rel=1e-14)
    assert res["rmse"] == pytest.approx(math.sqrt(oracle), rel=1e-14)
    assert round(res["mse"], 2) == 1.11 and round(res["rmse"], 2) == round(1.054, 2)


def test_mse_refuses_a_rating_without_a_prediction():
    with pytest.raises(rv.PolicyError, match="1 truth rating.* no prediction"):
        rv.evaluate({1: {0: 1.0}}, {1: {0: 2, 5: 3}}, ["mse"], compat="recmetrics")


# ---- recommender_precision, recommender_recall ---------------------------------------------------

def test_recommender_precision_and_recall_unit_tests():
    # test_recommender_precision / _recall: one hit of 3 items, 3 actual items: 0.333 (3 places)
    predicted = [["X", "Y", "Z"], ["X", "Y", "Z"]]
    actual = [["A", "B", "X"], ["A", "B", "Y"]]
    for key in ("recommender_precision", "recommender_recall"):
        res = rv.evaluate(_run(predicted), _truth(actual), [key], compat="recmetrics")
        assert res[key] == pytest.approx(1 / 3, rel=1e-15)
        assert round(res[key], 3) == 0.333


def test_recommender_precision_counts_every_repeat():
    # _precision: [A, A, Z] against [A, B]: 2 hits of 3 items; recall 2 / 2
    run, truth = _run([["A", "A", "Z"]]), _truth([["A", "B"]])
    res = rv.evaluate(run, truth, ["recommender_precision", "recommender_recall",
                                   "recommender_precision@2"], compat="recmetrics")
    assert res["recommender_precision"] == pytest.approx(2 / 3, rel=1e-15)
    assert res["recommender_recall"] == 1.0
    assert res["recommender_precision@2"] == 1.0
    # mapk on the same run: the repeat is no hit (_apk: p not in predicted[:i])
    assert rv.evaluate(run, truth, ["mapk@3"], compat="recmetrics")["mapk@3"] == 1.0


def test_recommender_precision_divides_by_the_list():
    # a 2-item list at @5: 1 hit / 2 items (recmetrics' len(predicted)), not / 5
    res = rv.evaluate({"a": {"X": 2, "Q": 1}}, {"a": {"X": 1}}, ["recommender_precision@5"],
                      compat="recmetrics")
    assert res["recommender_precision@5"] == 0.5


def test_repeat_counting_and_mapk_are_evaluated_apart():
    with pytest.raises(rv.MetricError, match="duplicates='count'.*duplicates='keep'|"
                                             "duplicates='keep'.*duplicates='count'"):
        rv.evaluate(RUN, TRUTH_ROWS, ["mapk@3", "recommender_precision@3"],
                    compat="recmetrics")


# ---- every name ----------------------------------------------------------------------------------

_REFUSED = sorted(n for n, e in PRESET.names.items() if e.refused)
_MAPPED = sorted(n for n, e in PRESET.names.items() if not e.refused)
_PUBLIC = ("novelty", "prediction_coverage", "catalog_coverage", "mark", "mapk",
           "personalization", "intra_list_similarity", "mse", "rmse", "make_confusion_matrix",
           "recommender_precision", "recommender_recall")


def test_every_public_function_of_metrics_py_is_named():
    # the public functions of recmetrics/metrics.py at b21222d, and map (the README's MAP@K)
    assert set(PRESET.names) == {*_PUBLIC, "map"}


@pytest.mark.parametrize("name", _REFUSED)
def test_refused_with_the_reason(name):
    reason = PRESET.names[name].refused
    with pytest.raises(rv.MetricError, match="is not reproduced") as err:
        rv.evaluate(RUN, TRUTH_ROWS, [name], compat="recmetrics")
    assert reason in str(err.value) and len(reason) > 15


@pytest.mark.parametrize("name", _MAPPED)
def test_an_unknown_parameter_is_refused_naming_it(name):
    with pytest.raises(rv.MetricError, match="has no parameter 'frobnicate'"):
        rv.evaluate(RUN, TRUTH_ROWS, [f"{name}(frobnicate=1)"], compat="recmetrics")


@pytest.mark.parametrize("name", ["recommender_precision", "recommender_recall@3"])
def test_strict_refuses_the_unrounded_mean(name):
    # recmetrics rounds each user's value to 4 decimals: 2/3 -> 0.6667
    with pytest.raises(rv.MetricError, match="round each user's value to 4 decimals"):
        rv.evaluate(RUN, TRUTH_ROWS, [name], compat="recmetrics", strict=True)
    res = rv.evaluate(_run([["A", "Q", "B"]]), _truth([["A", "B"]]),
                      ["recommender_precision"], compat="recmetrics")
    assert res["recommender_precision"] == 2 / 3 != round(2 / 3, 4)
