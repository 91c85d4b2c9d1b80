"""``compat="lenskit"``: LensKit's own expected values, its options and its refused names.

Worked examples from LensKit's tests (lenskit/lkpy): ``tests/eval/test_rank_ndcg.py`` and
``tests/eval/test_rank_dcg.py`` (NDCG, DCG with ``gain='rating'``), ``tests/eval/test_rank_map.py``
(AveragePrecision), ``tests/eval/test_predict_metrics.py`` (RMSE, MAE), ``tests/math/test_gini.py``
(the Gini coefficient ListGini reports) and ``tests/eval/test_rbo.py`` (why
rank_biased_overlap is refused), each written as one user's run (a list scored
``len - position``) and truth. The check against LensKit itself (2025.8.1) is
``benchmarks/peers/libs/lenskit.py``.
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.compat import PRESETS
from receval.errors import MetricError, NoCommonUsersWarning, PolicyError

PRESET = PRESETS["lenskit"]
NAMES = PRESET.names

#: the metric classes and functions of lenskit 2025.8.1: lenskit.metrics.__all__ without the
#: base classes, weightings and run machinery, and the public submodules' own metrics
#: (lenskit.metrics.ranking.__all__: AveragePrecision, rank_biased_precision)
LENSKIT_METRICS = (
    "ListLength", "TestItemCount", "RMSE", "MAE", "NDCG", "DCG", "RBP", "Hit", "Precision",
    "Recall", "RecipRank", "MeanPopRank", "ListGini", "ExposureGini", "least_item_promoted",
    "rank_biased_overlap", "entropy", "rank_biased_entropy", "AveragePrecision",
    "rank_biased_precision",
)


def _list(items, rel) -> tuple[dict, dict]:
    """One user's ordered list ``items`` and test items ``rel``."""
    n = len(items)
    return ({"u": {int(i): float(n - r) for r, i in enumerate(items)}},
            {"u": {int(i): 1 for i in rel}})


def _value(data, key: str, **kwargs) -> float:
    run, truth = data
    return float(rv.evaluate(run, truth, [key], compat="lenskit", **kwargs)[key])


def test_every_metric_is_named():
    assert sorted(NAMES) == sorted(m.lower() for m in LENSKIT_METRICS)


# ---- NDCG and DCG (tests/eval/test_rank_ndcg.py, test_rank_dcg.py) -------------------------------

_RATED = {1: 3.0, 2: 5.0, 3: 4.0}  # truth = ItemList([1, 2, 3], rating=[3.0, 5.0, 4.0])


def _array_dcg(gains) -> float:
    """LensKit's array_dcg: sum_i g_i / max(log2(i), 1)."""
    return sum(g / max(math.log2(i), 1.0) for i, g in enumerate(gains, start=1))


@pytest.mark.parametrize(("key", "items", "expected"), [
    ("ndcg", [], 0.0),                                         # test_ndcg_empty
    ("ndcg", [4], 0.0),                                        # test_ndcg_no_match
    ("ndcg", [2, 3, 1], 1.0),                                  # test_ndcg_perfect
    ("ndcg@2", [2, 3, 1], 1.0),                                # test_ndcg_perfect_n_short
    ("ndcg(k=2)", [2, 3, 1], 1.0),                             # test_ndcg_perfect_k_short
    ("ndcg", [1, 2], _array_dcg([1, 1]) / _array_dcg([1, 1, 1])),  # test_ndcg_shorter_not_best
    ("ndcg@2", [1, 2], 1.0),
    ("ndcg(gain=rating)", [1, 2], _array_dcg([3, 5]) / _array_dcg([5, 4, 3])),
    ("ndcg@2", [2, 3], 1.0),                                   # test_ndcg_perfect_k
    ("ndcg@2", [1, 3], 1.0),                                   # test_ndcg_perfect_k_norate
    ("ndcg@2(gain=rating)", [1, 3], _array_dcg([3, 4]) / _array_dcg([5, 4])),
    ("dcg", [], 0.0),                                          # test_dcg_empty
    ("dcg", [4], 0.0),                                         # test_dcg_no_match
    ("dcg", [2, 3, 1], 1 + 1 + 1 / math.log2(3)),              # test_dcg_perfect
    ("dcg@2", [2, 3, 1], 2.0),                                 # test_dcg_perfect_k_short
    ("dcg", [1, 2], 2.0),                                      # test_dcg_shorter_not_best
    ("dcg(gain=rating)", [1, 2], _array_dcg([3, 5])),
    ("dcg@2", [2, 3], 2.0),                                    # test_dcg_perfect_k
    ("dcg@2", [1, 3], 2.0),                                    # test_dcg_perfect_k_norate
    ("dcg(n=2, gain=rating)", [1, 3], _array_dcg([3, 4])),     # test_dcg_almost_perfect_k_gain
])
def test_dcg_examples(key, items, expected):
    run = {"u": {i: float(len(items) - r) for r, i in enumerate(items)}, "v": {1: 1.0}}
    truth = {"u": dict(_RATED)}
    if items:
        assert _value((run, truth), key) == pytest.approx(expected, abs=1e-12)
    else:  # the user has no list: scored 0, as LensKit's empty list
        with pytest.warns(NoCommonUsersWarning):
            assert _value((run, truth), key) == pytest.approx(expected, abs=1e-12)


def test_gain_option_values():
    data = _list([1, 2], [1])
    assert _value(data, "ndcg(gain=None)") == _value(data, "ndcg")
    with pytest.raises(MetricError, match="gain='score': accepted values are none, rating"):
        _value(data, "ndcg(gain=score)")


# ---- AveragePrecision (tests/eval/test_rank_map.py) ----------------------------------------------

@pytest.mark.parametrize(("key", "items", "rel", "expected"), [
    ("averageprecision", [1, 3, 5], [1, 3, 5], 1.0),          # test_ap_all_relevant
    ("averageprecision", [1, 5, 7], [1, 5, 7], 1.0),
    ("averageprecision", [1, 2, 3], [1, 3], (1 + 2 / 3) / 2),  # test_ap_partial_hits
    ("averageprecision", [1, 2, 3], [2, 4], 0.25),
    ("averageprecision@3", [1, 2, 3, 4, 5], [1, 3, 5], (1 + 2 / 3) / 3),  # test_ap_cutoff_k
    ("averageprecision(n=3)", [1, 2, 3, 4, 5], [1, 3, 5], (1 + 2 / 3) / 3),
    ("averageprecision@2", [1, 2, 3, 4, 5], [4, 5, 6], 0.0),
    ("averageprecision", [10, 20, 30], [1, 2, 3], 0.0),       # test_ap_no_hits
    ("averageprecision", [1, 4, 6], [2, 3, 5], 0.0),
])
def test_average_precision_examples(key, items, rel, expected):
    assert _value(_list(items, rel), key) == pytest.approx(expected, abs=1e-12)


def test_average_precision_short_list_differs_as_documented():
    # LensKit: (1/1 + 2/2) / min(R = 3, list length 2) = 1; receval divides by min(R, n) = 3
    data = _list([1, 2], [1, 2, 3])
    assert _value(data, "averageprecision@5") == pytest.approx(2 / 3, abs=1e-12)
    assert _value(data, "averageprecision") == pytest.approx(1.0, abs=1e-12)  # min(R, L) = 2
    with pytest.raises(MetricError, match="AveragePrecision\\(n\\) divides"):
        _value(data, "averageprecision@5", strict=True)


def test_average_precision_empty_list():
    # test_ap_empty_none: NaN in LensKit, left out of its mean; users='intersection' does so
    run = {"a": {}, "b": {1: 2.0, 2: 1.0}}
    truth = {"a": {1: 1, 2: 1, 3: 1}, "b": {1: 1, 3: 1}}
    res = rv.evaluate(run, truth, ["averageprecision"], compat="lenskit",
                      users="intersection")
    assert float(res["averageprecision"]) == pytest.approx(1 / 2, abs=1e-12)


# ---- RMSE and MAE (tests/eval/test_predict_metrics.py) --------------------------------------------

def _pred(scores: dict, ratings: dict) -> tuple[dict, dict]:
    return {"u": {i: float(s) for i, s in scores.items()}}, {"u": dict(ratings)}


@pytest.mark.parametrize(("key", "scores", "ratings", "expected"), [
    ("rmse", {"a": 1}, {"a": 1}, 0.0),                         # test_rmse_one
    ("rmse", {"a": 1}, {"a": 2}, 1.0),
    ("rmse", {"a": 1}, {"a": 0.5}, 0.5),
    ("rmse", {"a": 1, "b": 2}, {"a": 1, "b": 2}, 0.0),         # test_rmse_two
    ("rmse", {"a": 1, "b": 1}, {"a": 2, "b": 2}, 1.0),
    ("rmse", {"a": 1, "b": 3}, {"a": 3, "b": 1}, 2.0),
    # test_rmse_series_subset_items
    ("rmse(missing_scores=ignore)", {"a": 1, "c": 3}, {"a": 3, "b": 4, "c": 1}, 2.0),
    # test_rmse_series_missing_value_ignore
    ("rmse(missing_scores=ignore, missing_truth=ignore)", {"a": 1, "d": 3},
     {"a": 3, "b": 4, "c": 1}, 2.0),
    ("mae", {"a": 1, "b": 2}, {"a": 1, "b": 2}, 0.0),          # test_mae_two
    ("mae", {"a": 1, "b": 1}, {"a": 2, "b": 2}, 1.0),
    ("mae", {"a": 1, "b": 3}, {"a": 3, "b": 1}, 2.0),
    ("mae", {"a": 1, "b": 3}, {"a": 3, "b": 2}, 1.5),
])
def test_prediction_examples(key, scores, ratings, expected):
    assert _value(_pred(scores, ratings), key) == pytest.approx(expected, abs=1e-12)


def test_prediction_missing_score_raises():
    # test_rmse_series_missing_value_error: a rating without a score is an error by default
    data = _pred({"a": 1, "d": 3}, {"a": 3, "b": 4, "c": 1})
    for key in ("rmse", "mae", "rmse(missing_scores=error)"):
        with pytest.raises(PolicyError):
            _value(data, key)


def test_prediction_mean_over_lists():
    # ListMetric.summarize: the mean of the lists' values, not the pooled error
    run = {"u": {"a": 1.0}, "v": {"a": 1.0, "b": 1.0}}
    truth = {"u": {"a": 3}, "v": {"a": 1, "b": 1}}
    res = rv.evaluate(run, truth, ["rmse", "mae"], compat="lenskit")
    assert float(res["rmse"]) == pytest.approx((2 + 0) / 2, abs=1e-12)
    assert float(res["mae"]) == pytest.approx((2 + 0) / 2, abs=1e-12)
    pooled = rv.evaluate(run, truth, ["rmse", "mae"])  # receval's default: average='micro'
    assert float(pooled["rmse"]) == pytest.approx(math.sqrt(4 / 3), abs=1e-12)
    assert float(pooled["mae"]) == pytest.approx(2 / 3, abs=1e-12)


def test_prediction_option_values_refused():
    data = _pred({"a": 1}, {"a": 1})
    with pytest.raises(MetricError, match="missing_truth='error': accepted values are ignore"):
        _value(data, "rmse(missing_truth=error)")
    with pytest.raises(MetricError, match="missing_scores='drop': accepted values are "
                                          "error, ignore"):
        _value(data, "mae(missing_scores=drop)")


# ---- ListGini (tests/math/test_gini.py, lenskit.stats.gini) ---------------------------------------

def test_list_gini_uniform():
    # test_gini_uniform: every catalogue item in one list
    run = {u: {u: 1.0} for u in range(100)}
    truth = {u: {u: 1} for u in range(100)}
    assert _value((run, truth), "listgini", catalog=100) == pytest.approx(0.0, abs=1e-12)


def test_list_gini_completely_unequal():
    # test_completely_unequal: one of 10000 items takes every list, G = (n - 1) / n
    run = {u: {0: 1.0} for u in range(20)}
    truth = {u: {0: 1} for u in range(20)}
    got = _value((run, truth), "listgini", catalog=10000)
    assert got == pytest.approx(9999 / 10000, abs=1e-12)
    assert got == pytest.approx(1, abs=0.001)


def test_list_gini_by_hand():
    # counts a = 2, b = 3, c = 0 over N = 3, sorted [0, 2, 3]:
    # sum_j (2j - N - 1) c_(j) / (N sum c) = (-2*0 + 0*2 + 2*3) / (3 * 5)
    run = {"u": {"a": 2.0, "b": 1.0}, "v": {"b": 1.0}, "w": {"b": 2.0, "a": 1.0}}
    truth = {u: {"b": 1} for u in run}
    assert _value((run, truth), "listgini", catalog=3) == pytest.approx(
        6 / 15, abs=1e-12)
    # top 1 of each list: counts [0, 1, 2]: (0*1 + 2*2) / (3 * 3)
    assert _value((run, truth), "listgini@1", catalog=3) == pytest.approx(4 / 9, abs=1e-12)
    assert _value((run, truth), "listgini(n=1)", catalog=3) == pytest.approx(4 / 9, abs=1e-12)


# ---- the other names -------------------------------------------------------------------------------

def test_test_item_count():
    run = {"u": {1: 1.0}, "v": {2: 1.0}}
    truth = {"u": {1: 1, 2: 1}, "v": {1: 1, 3: 1, 4: 1}}
    assert _value((run, truth), "testitemcount") == pytest.approx(2.5, abs=1e-12)
    with pytest.raises(MetricError, match="takes no cutoff"):
        _value((run, truth), "testitemcount@5")


@pytest.mark.parametrize("lib_name", sorted(n for n, e in NAMES.items()
                                            if dict(e.options).get("n") == "@k"))
def test_cutoff_options(lib_name):
    """``n`` and its deprecated alias ``k`` are the cutoff."""
    data = _list([5, 1, 4, 2, 3], [1, 2])
    cats = {i: [i % 2] for i in range(1, 6)}  # the categories the entropies read
    expected = _value(data, f"{lib_name}@1", catalog=6, item_categories=cats)
    assert _value(data, f"{lib_name}(n=1)", catalog=6, item_categories=cats) == expected
    assert _value(data, f"{lib_name}(k=1)", catalog=6, item_categories=cats) == expected
    # the cutoff matters here
    assert _value(data, f"{lib_name}@3", catalog=6, item_categories=cats) != expected


@pytest.mark.parametrize("lib_name", sorted(n for n, e in NAMES.items() if e.refused))
def test_refused_names(lib_name):
    with pytest.raises(MetricError) as info:
        _value(_list([1, 2], [1]), lib_name)
    assert NAMES[lib_name].refused in str(info.value)


def test_rank_biased_overlap_is_not_receval_rbo():
    # test_rbo_perfect_match: identical lists, n = 5, p = 0.9; LensKit's weighted mean of the
    # agreements (all 1) is 1 exactly; receval's prefix sum stops at 1 - p^5
    p = 0.9
    lenskit = sum(p ** (d - 1) * 1.0 for d in range(1, 6)) / sum(p ** (d - 1)
                                                                 for d in range(1, 6))
    assert lenskit == pytest.approx(1.0)
    run = {"u": {i: float(5 - r) for r, i in enumerate([1, 2, 3, 4, 5])}}
    truth = {"u": {1: 1}}
    res = rv.evaluate(run, truth, ["rbo@5(p=0.9, form=sum)"], baseline_run=run)
    assert float(res["rbo@5(p=0.9, form=sum)"]) == pytest.approx(1 - p ** 5, abs=1e-12)
