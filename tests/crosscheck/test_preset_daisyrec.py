"""``compat="daisyrec"``: worked examples from DaisyRec 2.3.0's ``daisy/utils/metrics.py``.

DaisyRec ships no tests of its metrics; the values are those of its functions on one small case
(``test_ur``, a top-3 ``pred_ur`` as ``calc_ranking_results`` cuts it), worked out from their
code. The whole check against DaisyRec itself is ``benchmarks/peers/libs/daisyrec.py``.
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.compat import PRESETS
from receval.errors import MetricError

NAMES = PRESETS["daisyrec"].names
_L3 = 1 / math.log2(3)

# test_ur = {0: {1, 4}, 1: {7}}; pred_ur[:, :3] = [[1, 2, 4], [5, 6, 8]]
TEST_UR = {0: {1, 4}, 1: {7}}
PRED_UR = {0: [1, 2, 4], 1: [5, 6, 8]}
RUN = {u: {i: float(3 - r) for r, i in enumerate(items)} for u, items in PRED_UR.items()}
TRUTH = {u: {i: 1 for i in items} for u, items in TEST_UR.items()}


def _value(key: str, run=RUN, truth=TRUTH, **kwargs) -> float:
    return float(rv.evaluate(run, truth, [key], compat="daisyrec", **kwargs)[key])


@pytest.mark.parametrize(("key", "expected"), [
    ("precision@3", (2 / 3 + 0) / 2),                      # in1d(pred, gt).sum() / len(pred)
    ("recall@3", (2 / 2 + 0) / 2),                         # ... / len(gt)
    ("mrr@3", (1 + 0) / 2),
    ("map@3", ((1 / 1 + 2 / 3) / 2 + 0) / 2),              # mean of r[:k+1].sum() / (k+1)
    ("ndcg@3", ((1 + 1 / 2) / (1 + _L3) + 0) / 2),         # ideal: sorted(r, reverse=True)
    ("hit@3", (1 + 0) / 2), ("hr@3", (1 + 0) / 2),
    ("auc@3", 1 / 2),      # user 0: hit 1 above non-hit 2, hit 4 below it; user 1: 0 / 0
])
def test_worked_example(key, expected):
    assert _value(key) == pytest.approx(expected, abs=1e-12)


def test_f1_of_a_user_without_a_hit_is_zero_where_daisyrec_gives_nan():
    # F1: user 0: P 2/3, R 1 -> 4/5; user 1: 2 * 0 * 0 / (0 + 0) = nan in DaisyRec
    assert _value("f1@3") == pytest.approx((4 / 5 + 0) / 2)
    assert any(n.startswith("F1 divides 0 by 0") for n in PRESETS["daisyrec"].notes)
    hit_only = {0: RUN[0]}
    assert _value("f1@3", run=hit_only, truth={0: TRUTH[0]}) == pytest.approx(4 / 5)


def test_coverage_divides_by_item_num():
    # len(np.unique(pred_ur)) / item_num: 6 distinct items of 10
    assert _value("coverage@3", catalog=10) == 6 / 10


def test_lists_cut_at_k():
    # calc_ranking_results cuts at each k: the top 1 of user 0 is item 1, a hit
    assert _value("precision@1") == (1 + 0) / 2
    assert _value("ndcg@1") == (1 + 0) / 2
    assert _value("map@1") == (1 + 0) / 2


@pytest.mark.parametrize("name", sorted(n for n, e in NAMES.items() if e.refused))
def test_refused_names_are_refused_with_their_reason(name):
    with pytest.raises(MetricError) as info:
        _value(name)
    assert NAMES[name].refused in str(info.value)


@pytest.mark.parametrize("name", sorted(n for n, e in NAMES.items() if not e.refused))
def test_every_mapped_name_evaluates_at_k(name):
    assert 0 <= _value(f"{name}@3", catalog=10) <= 1


def test_every_metric_name_and_function_is_named():
    config = ["recall", "mrr", "ndcg", "hit", "precision", "f1", "auc", "coverage",
              "diversity", "popularity"]
    functions = ["Coverage", "Popularity", "Diversity", "Precision", "Recall", "MRR", "MAP",
                 "NDCG", "HR", "AUC", "F1"]
    assert sorted(NAMES) == sorted(set(config) | {f.lower() for f in functions})
