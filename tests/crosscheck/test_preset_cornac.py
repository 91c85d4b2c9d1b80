"""``compat="cornac"``: Cornac's own expected values, and its options.

Worked examples from Cornac's tests, ``tests/cornac/metrics/test_ranking.py`` (``compute(gt_pos,
pd_rank)`` and ``compute(item_indices, pd_scores, gt_pos[, gt_neg])``) and
``tests/cornac/metrics/test_rating.py`` (the unweighted cases), written as a run (a ranking
``pd_rank`` scored ``len - position``) and a truth (``gt_pos`` relevant). The whole check
against Cornac itself is ``benchmarks/peers/libs/cornac.py``.
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.compat import PRESETS
from receval.errors import MetricError

NAMES = PRESETS["cornac"].names
_L3 = 1 / math.log2(3)


def _ranking(gt_pos, pd_rank):
    """One user's ranking ``pd_rank`` (best first) and positives ``gt_pos``."""
    n = len(pd_rank)
    return ({"u": {int(i): float(n - r) for r, i in enumerate(pd_rank)}},
            {"u": {int(i): 1 for i in gt_pos}})


def _value(data, key: str, **kwargs) -> float:
    run, truth = data
    return float(rv.evaluate(run, truth, [key], compat="cornac", **kwargs)[key])


@pytest.mark.parametrize(("key", "gt_pos", "pd_rank", "expected"), [
    ("ndcg", [0], [0], 1.0),
    ("ndcg", [0, 2], [0, 2, 1], 1.0),
    ("ndcg@2", [2], [1, 2, 0], _L3),                     # 0.63
    ("ncrr", [0], [0], 1.0),
    ("ncrr", [0, 2], [0, 2, 1], 1.0),
    ("ncrr", [0, 2], [1, 2, 0], (1 / 3 + 1 / 2) / (1 + 1 / 2)),
    ("ncrr@2", [2], [1, 2, 0], 0.5),
    ("ncrr@2", [2], [4, 1, 2], 0.0),
    ("ncrr@2", [0, 1, 2], [5, 1, 6], 1 / 3),
    ("ncrr@3", [0, 1], [5, 1, 6, 8], 1 / 3),
    ("mrr", [0], [0], 1.0),
    ("mrr", [0, 2], [0, 2, 1], 1.0),
    ("mrr", [0, 2], [1, 2, 0], 1 / 2),
    ("hitratio", [0], [0], 1.0),
    ("hitratio", [0, 1], [0, 2], 1.0),
    ("hitratio", [2], [1, 2, 0], 1.0),
    ("hitratio@2", [0], [1, 2, 0], 0.0),
    ("hitratio@2", [2], [1, 2, 0], 1.0),
    ("precision", [0], [0], 1.0),
    ("precision", [0, 2], [0, 2, 1], 2 / 3),
    ("precision", [2], [1, 2, 0], 1 / 3),
    ("precision@2", [2], [1, 2, 0], 0.5),
    ("recall", [0, 2], [0, 2, 1], 1.0),
    ("recall", [2], [1, 2, 0], 1.0),
    ("recall@2", [2], [1, 2, 0], 1.0),
    ("fmeasure", [0], [0], 1.0),
    ("fmeasure", [0, 2], [0, 2, 1], 4 / 5),
    ("fmeasure", [2], [1, 2, 0], 1 / 2),
    ("fmeasure@2", [2], [1, 2, 0], 2 / 3),
    ("f1@2", [2], [1, 2, 0], 2 / 3),
    ("fmeasure@2", [0], [1, 2], 0.0),
])
def test_ranking_examples(key, gt_pos, pd_rank, expected):
    assert _value(_ranking(gt_pos, pd_rank), key) == pytest.approx(expected, abs=1e-12)


def _scored(scores, gt_pos, negatives=None):
    """``item_indices = arange(len(scores))`` scored ``pd_scores``; explicit negatives get a
    truth row of relevance 0."""
    truth = {int(i): 1 for i in gt_pos}
    truth.update({int(i): 0 for i in negatives or []})
    return {"u": {i: float(s) for i, s in enumerate(scores)}}, {"u": truth}


@pytest.mark.parametrize(("scores", "gt_pos", "expected"), [
    ([0.1, 0.4, 0.35, 0.8], [2, 3], 0.75),
    ([0.1, 0.4, 0.35, 0.8], [1, 3], 1.0),
])
def test_auc_examples(scores, gt_pos, expected):
    assert _value(_scored(scores, gt_pos), "auc") == expected


def test_auc_with_explicit_negatives():
    # gt_neg = [1, 1, 0, 0]: items 0 and 1 are the negatives; only labelled pairs count
    data = _scored([0.1, 0.4, 0.35, 0.8], [2], negatives=[0, 1])
    assert _value(data, "auc(unlabelled=skip)") == 0.5


@pytest.mark.parametrize(("scores", "gt_pos", "expected"), [
    ([0.75, 0.5, 1.0], [0], 0.5),
    ([1.0, 0.2, 0.1], [2], 1 / 3),
    ([1 - i / 9 for i in range(10)], [1, 3, 5], 0.5),
])
def test_map_examples(scores, gt_pos, expected):
    assert _value(_scored(scores, gt_pos), "map") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("name", "expected"), [("mae", 1.0), ("mse", 1.0), ("rmse", 1.0)])
def test_rating_examples(name, expected):
    # compute(gt_ratings=[0, 1], pd_ratings=[1, 0])
    data = ({"u": {1: 1.0, 2: 0.0}}, {"u": {1: 0, 2: 1}})
    assert _value(data, name) == expected


def test_user_based_rating_average():
    # user a: errors 1 and 3; user b: error 2. Over ratings: MAE 2, MSE 14/3; over users:
    # MAE (2 + 2) / 2, RMSE (sqrt(5) + 2) / 2
    data = ({"a": {1: 2.0, 2: 4.0}, "b": {1: 3.0}}, {"a": {1: 1, 2: 1}, "b": {1: 5}})
    assert _value(data, "mae") == 2.0
    assert _value(data, "mae(user_based=False)") == 2.0
    assert _value(data, "mse") == pytest.approx(14 / 3)
    assert _value(data, "mae(user_based=True)") == 2.0
    assert _value(data, "rmse(user_based=True)") == pytest.approx((math.sqrt(5) + 2) / 2)


def test_rating_threshold_sets_the_positives():
    # ratings 1..4 on a ranking of four items: rating_threshold=3 keeps items 2 and 3
    run = {"u": {0: 4.0, 1: 3.0, 2: 2.0, 3: 1.0}}
    truth = {"u": {0: 1, 1: 2, 2: 3, 3: 4}}
    data = (run, truth)
    assert _value(data, "recall@2") == 1 / 2
    assert _value(data, "recall@2(rating_threshold=3)") == 0.0
    assert _value(data, "mrr(rating_threshold=3)") == 1 / 3
    assert _value(data, "map(rating_threshold=3)") == pytest.approx((1 / 3 + 2 / 4) / 2)
    assert _value(data, "auc(rating_threshold=3)") == 0.0
    # a user without a positive at the threshold is left out (ranking_eval skips it)
    two = ({**run, "v": {0: 1.0}}, {**truth, "v": {0: 1}})
    assert _value(two, "hitratio@1(rating_threshold=3)") == 0.0


@pytest.mark.parametrize("option", ["ndcg(rating_threshold=3)", "rmse(user_based=maybe)"])
def test_options_not_reproduced_are_refused(option):
    with pytest.raises(MetricError, match=option.split("(")[1].split("=")[0]):
        _value(_ranking([0], [0, 1]), option)


def test_map_and_auc_ties_are_the_documented_differences():
    # two items tied at the top, the positive one of them: Cornac's MAP ranks it at 2
    # (rankdata 'max'), its AUC counts the tied pair 0; receval orders the tie by item id
    # (MAP 1) and counts a tied pair 1/2
    data = _scored([1.0, 1.0, 0.2], [0])
    assert _value(data, "map") == 1.0
    assert _value(data, "auc") == 0.75
    notes = PRESETS["cornac"].notes
    assert any(n.startswith("MAP ranks tied") for n in notes)
    assert any(n.startswith("AUC counts a tied") for n in notes)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_evaluates(name):
    data = (_scored([0.9, 0.5, 0.1], [0]) if name not in ("mae", "mse", "rmse")
            else ({"u": {1: 2.0}}, {"u": {1: 4}}))
    assert math.isfinite(_value(data, name))


def test_every_exported_class_is_named():
    exported = ["MAE", "RMSE", "MSE", "NDCG", "NCRR", "MRR", "HitRatio", "Precision", "Recall",
                "FMeasure", "AUC", "MAP"]
    assert sorted(NAMES) == sorted([n.lower() for n in exported] + ["f1"])
