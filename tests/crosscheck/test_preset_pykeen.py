"""``compat="pykeen"``: PyKEEN's own expected values, and the names its resolver accepts.

Worked examples from PyKEEN's tests (torch is not a test dependency, so the scores are written
as a run, one ranking task a user, the true item as its truth):

- ``tests/test_evaluators.py::EvaluatorUtilsTests.test_compute_rank_from_scores``: the ranks
  of ``Ranks.from_scores`` (optimistic, pessimistic, realistic);
- ``tests/test_evaluators.py::TestEvaluationFiltering``: ``get_metric("mr")`` is 2 with the
  training triples filtered and 1 with the validation triples filtered too (``FixedModel``
  scores an entity by its id; Nations has 14 entities);
- ``test_resolve_metric_name`` and ``RankBasedMetricResults.key_from_string``'s doctests: the
  spellings ``mrr``, ``H@10``, ``hits@5``, ``adjusted_mean_rank_index``.

The whole check against PyKEEN itself is ``benchmarks/peers/libs/pykeen.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.errors import MetricError

NAMES = PRESETS["pykeen"].names
MAPPED = sorted(n for n, e in NAMES.items() if not e.refused)
REFUSED = sorted(n for n, e in NAMES.items() if e.refused)


def _value(run, truth, key: str) -> float:
    return float(rv.evaluate(run, truth, [key], compat="pykeen")[key])


# test_compute_rank_from_scores, row 2: scores [1, 1, 3, 4, 0], the true item scores 3: one
# candidate above it, no tie: optimistic = pessimistic = realistic = 2
ROW2 = ({"q": {0: 1.0, 1: 1.0, 2: 3.0, 3: 4.0, 4: 0.0}}, {"q": {2: 1}})


@pytest.mark.parametrize(("key", "expected"), [
    ("mr", 2.0), ("mean_rank", 2.0), ("arithmetic_mean_rank", 2.0),
    ("mrr", 0.5), ("inverse_harmonic_mean_rank", 0.5), ("mean_reciprocal_rank", 0.5),
    ("hits@1", 0.0), ("h@1", 0.0), ("hits@3", 1.0), ("hits_at_k@3", 1.0), ("H@10", 1.0),
])
def test_rank_from_scores(key, expected):
    assert _value(*ROW2, key) == expected


def test_tied_scores_give_receval_order_not_the_realistic_rank():
    # row 1: scores [2, 2, 1, 3, 5], the true item is one of the two scored 2: optimistic 3,
    # pessimistic 4, realistic 3.5 (the documented difference): receval ranks ties by item id
    run = {"q": {0: 2.0, 1: 2.0, 2: 1.0, 3: 3.0, 4: 5.0}}
    assert _value(run, {"q": {0: 1}}, "mr") == 3.0  # first of the tie: the optimistic rank
    assert _value(run, {"q": {1: 1}}, "mr") == 4.0  # second: the pessimistic rank
    assert any(n.startswith("tied scores: PyKEEN") for n in PRESETS["pykeen"].notes)


@pytest.mark.parametrize(("filtered", "expected"), [((13,), 2.0), ((13, 12), 1.0)])
def test_evaluation_filtering(filtered, expected):
    # the test triple ranks entity 11 (max_score - 2); filtered positives leave the candidates
    run = {"t": {e: float(e) for e in range(14) if e not in filtered}}
    assert _value(run, {"t": {11: 1}}, "mr") == expected


def test_resolver_spellings():
    specs, _, _ = resolve("pykeen", ["mrr", "H@10", "hits@5", "mean_rank"])
    assert [s.key for s in specs] == ["mrr", "hit_rate@10", "hit_rate@5", "first_hit_rank"]
    with pytest.raises(MetricError, match="expected value"):
        resolve("pykeen", ["adjusted_mean_rank_index"])


def test_leave_one_out_metrics_are_means_of_a_function_of_the_rank():
    # formula oracle: distinct scores, one true item a user, r its rank among every candidate
    rng = np.random.default_rng(7)
    run, truth, ranks = {}, {}, []
    for u in range(25):
        scores = rng.permutation(20) + 0.5
        run[u] = {i: float(s) for i, s in enumerate(scores)}
        true = int(rng.integers(0, 20))
        truth[u] = {true: 1}
        ranks.append(int((scores > scores[true]).sum()) + 1)
    ranks = np.array(ranks, dtype=float)
    assert _value(run, truth, "arithmetic_mean_rank") == pytest.approx(ranks.mean())
    assert _value(run, truth, "mrr") == pytest.approx((1 / ranks).mean())
    for k in (1, 3, 5, 10):
        assert _value(run, truth, f"hits@{k}") == pytest.approx((ranks <= k).mean())


def test_pykeen_result_keys_are_not_names():
    # hits_at_10 is PyKEEN's result key; under the preset Hits@k is written hits@10
    with pytest.raises(MetricError, match="hits_at_10"):
        resolve("pykeen", ["hits_at_10"])


@pytest.mark.parametrize("name", MAPPED)
def test_every_mapped_name_evaluates(name):
    key = f"{name}@3" if NAMES[name].family == "hit_rate" else name
    assert _value(*ROW2, key) == {"hit_rate": 1.0, "mrr": 0.5, "first_hit_rank": 2.0}[
        NAMES[name].family]


@pytest.mark.parametrize("name", REFUSED)
def test_refused_names_are_refused_with_their_reason(name):
    with pytest.raises(MetricError) as info:
        _value(*ROW2, name)
    assert NAMES[name].refused in str(info.value)


def test_every_resolver_class_is_named_in_snake_case_and_normalised():
    classes = ["ArithmeticMeanRank", "AdjustedArithmeticMeanRank",
               "AdjustedArithmeticMeanRankIndex", "ZArithmeticMeanRank",
               "InverseArithmeticMeanRank", "GeometricMeanRank", "AdjustedGeometricMeanRankIndex",
               "ZGeometricMeanRank", "InverseGeometricMeanRank", "HarmonicMeanRank",
               "InverseHarmonicMeanRank", "AdjustedInverseHarmonicMeanRank",
               "ZInverseHarmonicMeanRank", "MedianRank", "InverseMedianRank", "HitsAtK",
               "AdjustedHitsAtK", "ZHitsAtK", "StandardDeviation", "Variance",
               "MedianAbsoluteDeviation", "Count"]
    for cls in classes:
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in cls).lstrip("_")
        assert snake in NAMES, snake
        assert cls.lower() in NAMES, cls
