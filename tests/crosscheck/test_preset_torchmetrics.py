"""``compat="torchmetrics"``: the library's own expected values, and its options.

Worked examples from torchmetrics 1.9.0's own expectations (torch is not a test dependency, so
the inputs are written as a run and a truth):

- the doctests of the classes in ``src/torchmetrics/retrieval/*.py`` and of the functions in
  ``src/torchmetrics/functional/retrieval/*.py`` (the values the docstrings print, exact here);
- ``tests/unittests/retrieval/test_score_shift.py`` (shift 0: 1.9.0 still masks candidates
  scored <= 0, a difference the preset documents);
- ``tests/unittests/retrieval/test_auroc.py``'s reference ``_auroc_at_k`` (0 when the top k
  lacks a class).

The whole check against torchmetrics itself is ``benchmarks/peers/libs/torchmetrics.py``.
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.compat import PRESETS, describe
from receval.errors import MetricError

NAMES = PRESETS["torchmetrics"].names
MAPPED = sorted(n for n, e in NAMES.items() if not e.refused)
REFUSED = sorted(n for n, e in NAMES.items() if e.refused)


def _inputs(indexes, preds, target):
    """torchmetrics' (indexes, preds, target) as a run and a truth: candidate j of query q is
    item j; the truth holds every candidate's target."""
    run: dict[int, dict[int, float]] = {}
    truth: dict[int, dict[int, int]] = {}
    for q, p, t in zip(indexes, preds, target, strict=True):
        j = len(run.setdefault(q, {}))
        run[q][j] = p
        truth.setdefault(q, {})[j] = int(t)
    return run, truth


def _value(data, key: str, **policies) -> float:
    run, truth = data
    return float(rv.evaluate(run, truth, [key], compat="torchmetrics", **policies)[key])


# the docstring example of every class in src/torchmetrics/retrieval/
_INDEXES = [0, 0, 0, 1, 1, 1, 1]
_PREDS = [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2]
DOC = _inputs(_INDEXES, _PREDS, [False, False, True, False, True, False, True])
HIT_DOC = _inputs(_INDEXES, _PREDS, [True, False, False, False, True, False, True])
_L3 = 1 / math.log2(3)


@pytest.mark.parametrize(("key", "expected"), [
    # query 0 ranks its relevant candidate first; query 1 ranks [F, T, T, F]
    ("retrievalmap", (1 + (1 / 2 + 2 / 3) / 2) / 2),             # tensor(0.7917)
    ("retrievalmrr", (1 + 1 / 2) / 2),                            # tensor(0.7500)
    ("retrievalprecision@2", (1 / 2 + 1 / 2) / 2),                # tensor(0.5000)
    ("retrievalrecall@2", (1 + 1 / 2) / 2),                       # tensor(0.7500)
    ("retrievalrprecision", (1 + 1 / 2) / 2),                     # tensor(0.7500)
    ("retrievalnormalizeddcg", (1 + (_L3 + 1 / 2) / (1 + _L3)) / 2),  # tensor(0.8467)
    ("retrievalfallout@2", (1 / 2 + 1 / 2) / 2),                  # tensor(0.5000)
    ("retrievalauroc", (1 + 2 / 4) / 2),                          # tensor(0.7500)
])
def test_class_docstring_examples(key, expected):
    assert _value(DOC, key) == pytest.approx(expected, abs=1e-12)


def test_map_at_k_averages_over_the_hits_in_the_top_k():
    # retrieval_average_precision(top_k=2): query 1's top 2 hold one hit, at rank 2 -> 1/2
    # (not 1/4: the denominator is the hits, not the relevant candidates)
    assert _value(DOC, "retrievalmap@2") == (1 + 1 / 2) / 2


def test_hit_rate_docstring_example():
    # query 0's relevant candidate is ranked last, query 1's second: tensor(0.5000)
    assert _value(HIT_DOC, "retrievalhitrate@2") == 0.5


# the docstring example of the functions: preds [0.2, 0.3, 0.5], target [True, False, True]
FUNC_DOC = _inputs([0, 0, 0], [0.2, 0.3, 0.5], [True, False, True])


@pytest.mark.parametrize(("key", "expected"), [
    ("retrieval_average_precision", (1 + 2 / 3) / 2),  # tensor(0.8333)
    ("retrieval_precision@2", 0.5),
    ("retrieval_recall@2", 0.5),
    ("retrieval_hit_rate@2", 1.0),
    ("retrieval_r_precision", 0.5),
    ("retrieval_fall_out@2", 1.0),
    ("retrieval_auroc", 0.5),
])
def test_function_docstring_examples(key, expected):
    assert _value(FUNC_DOC, key) == pytest.approx(expected, abs=1e-12)


def test_reciprocal_rank_and_graded_ndcg_docstring_examples():
    assert _value(_inputs([0, 0, 0], [0.2, 0.3, 0.5], [False, True, False]),
                  "retrieval_reciprocal_rank") == 0.5
    # retrieval_normalized_dcg(tensor([.1, .2, .3, 4, 70]), tensor([10, 0, 0, 1, 5])): 0.6957
    graded = _inputs([0] * 5, [0.1, 0.2, 0.3, 4.0, 70.0], [10, 0, 0, 1, 5])
    dcg = 5 + 1 * _L3 + 10 / math.log2(6)
    idcg = 10 + 5 * _L3 + 1 / 2
    assert _value(graded, "retrieval_normalized_dcg") == pytest.approx(dcg / idcg, abs=1e-12)
    assert round(dcg / idcg, 4) == 0.6957


@pytest.mark.parametrize(("key", "expected"), [
    ("retrievalmap", 5 / 6), ("retrieval_average_precision", 5 / 6),
    ("retrievalmrr", 1.0), ("retrieval_reciprocal_rank", 1.0),
    ("retrievalprecision@2", 0.5), ("retrieval_precision@2", 0.5),
    ("retrievalrecall@2", 0.5), ("retrieval_recall@2", 0.5),
])
def test_score_shift_expectations_unshifted(key, expected):
    # test_score_shift.py: preds [0.9, 0.5, 0.3, 0.1], target [1, 0, 1, 0]
    data = _inputs([0] * 4, [0.9, 0.5, 0.3, 0.1], [1, 0, 1, 0])
    assert _value(data, key) == pytest.approx(expected, abs=1e-12)


def test_auroc_top_k_without_a_relevant_candidate_scores_zero():
    # _auroc_at_k: the top 2 of [0.9 F, 0.8 F, 0.1 T] hold one class: 0.0
    data = _inputs([0] * 3, [0.9, 0.8, 0.1], [0, 0, 1])
    assert _value(data, "retrievalauroc@2") == 0.0
    assert _value(data, "retrievalauroc") == 0.0  # the relevant candidate below both


# ---- options ----------------------------------------------------------------------------------

# query 0: hits at ranks 1 and 3 of 3 candidates; query 1: no relevant candidate
EMPTY = _inputs([0, 0, 0, 1, 1], [0.9, 0.8, 0.1, 0.7, 0.6], [1, 0, 1, 0, 0])


@pytest.mark.parametrize("name", ["retrievalmap", "retrievalmrr", "retrievalrecall",
                                  "retrievalhitrate", "retrievalnormalizeddcg",
                                  "retrievalrprecision", "retrievalprecision"])
def test_empty_target_action(name):
    alone = _value(_inputs([0, 0, 0], [0.9, 0.8, 0.1], [1, 0, 1]), name)
    assert alone > 0
    assert _value(EMPTY, name) == pytest.approx(alone / 2)  # "neg", the default
    assert _value(EMPTY, f"{name}(empty_target_action=neg)") == pytest.approx(alone / 2)
    assert _value(EMPTY, f"{name}(empty_target_action=skip)") == pytest.approx(alone)
    with pytest.raises(rv.PolicyError):
        _value(EMPTY, f"{name}(empty_target_action=error)")


def test_empty_target_action_pos_is_refused_naming_the_accepted_values():
    with pytest.raises(MetricError, match="accepted values are error, neg, skip"):
        _value(EMPTY, "retrievalmap(empty_target_action=pos)")


def test_fall_out_empty_target_action_is_about_queries_without_a_negative():
    # query 1: every candidate relevant; query 0: its one negative at rank 1 of the top 2
    data = _inputs([0, 0, 1, 1], [0.9, 0.8, 0.7, 0.6], [0, 1, 1, 1])
    assert _value(data, "retrievalfallout@2") == (1 + 1) / 2  # "pos", the class default
    assert _value(data, "retrievalfallout@2(empty_target_action=neg)") == (1 + 0) / 2
    assert _value(data, "retrievalfallout@2(empty_target_action=skip)") == 1.0
    assert _value(data, "retrieval_fall_out@2") == (1 + 0) / 2  # the function gives 0


def test_adaptive_k_divides_by_the_candidates():
    data = _inputs([0] * 3, [0.9, 0.8, 0.1], [1, 0, 1])
    assert _value(data, "retrievalprecision@5") == 2 / 5
    assert _value(data, "retrievalprecision@5(adaptive_k=True)") == 2 / 3
    assert _value(data, "retrieval_precision@5(adaptive_k=true)") == 2 / 3
    assert _value(data, "retrievalprecision@5(adaptive_k=False)") == 2 / 5


@pytest.mark.parametrize(("option", "name"), [
    ("ignore_index=-100", "retrievalmap"), ("aggregation=median", "retrievalrecall"),
    ("max_fpr=0.25", "retrievalauroc"), ("max_fpr=0.5", "retrieval_auroc"),
    ("empty_target_action=skip", "retrievalauroc"), ("adaptive_k=maybe", "retrievalprecision"),
    ("empty_target_action=error", "retrievalfallout"),
])
def test_options_not_reproduced_are_refused_naming_them(option, name):
    with pytest.raises(MetricError, match=option.split("=")[0]):
        _value(DOC, f"{name}({option})")


def test_max_fpr_one_is_the_full_area():
    assert _value(DOC, "retrievalauroc(max_fpr=1.0)") == _value(DOC, "retrievalauroc")


def test_tied_scores_ndcg_with_ties_average():
    # two candidates tied at the top, one relevant: each takes half the gain of ranks 1 and 2
    data = _inputs([0] * 3, [0.5, 0.5, 0.1], [1, 0, 0])
    expected = (1 + _L3) / 2
    assert _value(data, "retrievalnormalizeddcg", ties="average") == pytest.approx(expected)


# ---- every entry ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", MAPPED)
def test_every_mapped_name_evaluates_on_the_docstring_example(name):
    value = _value(DOC, name)
    assert 0 <= value <= 1
    assert name in describe("torchmetrics")


@pytest.mark.parametrize("name", REFUSED)
def test_refused_names_are_refused_with_their_reason(name):
    with pytest.raises(MetricError) as info:
        _value(DOC, name)
    assert NAMES[name].refused in str(info.value)


def test_every_class_and_function_is_named():
    classes = ["RetrievalAUROC", "RetrievalFallOut", "RetrievalHitRate", "RetrievalMAP",
               "RetrievalMRR", "RetrievalNormalizedDCG", "RetrievalPrecision",
               "RetrievalPrecisionRecallCurve", "RetrievalRPrecision", "RetrievalRecall",
               "RetrievalRecallAtFixedPrecision"]
    functions = ["retrieval_auroc", "retrieval_average_precision", "retrieval_fall_out",
                 "retrieval_hit_rate", "retrieval_normalized_dcg", "retrieval_precision",
                 "retrieval_precision_recall_curve", "retrieval_r_precision",
                 "retrieval_recall", "retrieval_reciprocal_rank"]
    assert sorted(NAMES) == sorted(n.lower() for n in classes + functions)


def test_top_k_written_in_parentheses_is_the_cutoff():
    run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7}, "q2": {"a": 0.2, "d": 0.1}}
    truth = {"q1": {"c": 1}, "q2": {"a": 1, "d": 1}}
    at = rv.evaluate(run, truth, ["retrievalmap@2"], compat="torchmetrics")
    paren = rv.evaluate(run, truth, ["retrievalmap(top_k=2)"], compat="torchmetrics")
    assert paren["retrievalmap(top_k=2)"] == at["retrievalmap@2"] == (0 + 1) / 2
    with pytest.raises(rv.MetricError, match="two cutoffs"):
        rv.evaluate(run, truth, ["retrievalmap@3(top_k=2)"], compat="torchmetrics")
    with pytest.raises(rv.MetricError, match="whole number"):
        rv.evaluate(run, truth, ["retrievalmap(top_k=0)"], compat="torchmetrics")


def test_auroc_of_a_top_k_without_both_classes_is_zero():
    """RetrievalAUROC(top_k=1): a query whose top 1 is relevant has no negative in it: 0
    (torchmetrics' retrieval_auroc), as is one without any relevant candidate there."""
    run = {"q1": {"a": 0.9, "b": 0.8}, "q2": {"a": 0.9, "b": 0.8}, "q3": {"a": 0.9, "b": 0.8}}
    truth = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"a": 1, "b": 0}}
    res = rv.evaluate(run, truth, ["retrievalauroc@1", "retrievalauroc"], compat="torchmetrics")
    assert res.per_user["gauc@1(single_class=zero)"].tolist() == [0.0, 0.0, 0.0]
    assert res["retrievalauroc"] == (1.0 + 0.0 + 1.0) / 3
