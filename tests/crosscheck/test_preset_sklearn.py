"""``compat="sklearn"``: every ranking function of scikit-learn 1.9.1, mapped or refused.

Worked examples are those of scikit-learn's own tests (scikit-learn/scikit-learn
``sklearn/metrics/tests/test_ranking.py`` at 1.9.1: ``test_ndcg_toy_examples``,
``test_dcg_ties``, ``test_top_k_accuracy_score``, ``test_top_k_accuracy_score_ties``); their
expected values are recomputed here from the formulas the tests state.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS

NAMES = PRESETS["sklearn"].names


def _dicts(y_true, y_score, pad: bool = False) -> tuple[dict, dict]:
    """A run and truth over the columns of two (samples, labels) arrays; ``pad``: the label
    ids as zero-padded text (their text order is their index order)."""
    item = (lambda j: f"{j:02d}") if pad else (lambda j: j)
    y_true, y_score = np.asarray(y_true, dtype=float), np.asarray(y_score, dtype=float)
    run = {u: {item(j): float(s) for j, s in enumerate(row)} for u, row in enumerate(y_score)}
    truth = {u: {item(j): float(r) for j, r in enumerate(row)} for u, row in enumerate(y_true)}
    return run, truth


def _one(y_true, y_score, name: str, **policies) -> float:
    return float(rv.evaluate(*_dicts(y_true, y_score), [name], compat="sklearn",
                             **policies)[name])


# ---- test_ndcg_toy_examples -------------------------------------------------------------------

TOY_TRUE = 3 * np.eye(7)[:5]
TOY_SCORE = np.tile(np.arange(6, -1, -1), (5, 1))


@pytest.mark.parametrize("ignore_ties", ["False", "True"])
def test_ndcg_toy_examples(ignore_ties):
    ranks = np.arange(2, 7)
    got = _one(TOY_TRUE, TOY_SCORE, f"ndcg_score(ignore_ties={ignore_ties})")
    assert got == pytest.approx(float(np.mean(1 / np.log2(ranks))), rel=1e-12)
    got = _one(TOY_TRUE, TOY_SCORE, f"dcg_score(ignore_ties={ignore_ties})")
    assert got == pytest.approx(float(np.mean(3 / np.log2(ranks))), rel=1e-12)
    got = _one(TOY_TRUE, TOY_SCORE, f"dcg_score(log_base=10,ignore_ties={ignore_ties})")
    assert got == pytest.approx(float(np.mean(3 / np.log10(ranks))), rel=1e-12)
    full = 3 * np.ones((5, 7))
    assert _one(full, TOY_SCORE, "dcg_score") == pytest.approx(
        float((3 / np.log2(np.arange(2, 9))).sum()), rel=1e-12)
    assert _one(full, TOY_SCORE, "ndcg_score") == pytest.approx(1.0, rel=1e-12)


def test_dcg_ties_average_the_gain():
    """test_dcg_ties: all scores tied, the gain of every rank is the mean gain."""
    y_true = np.arange(5)[None, :]
    discounts = 1 / np.log2(np.arange(2, 7))
    assert _one(y_true, np.zeros((1, 5)), "dcg_score") == pytest.approx(
        float(discounts.sum() * y_true.mean()), rel=1e-12)
    y_score = np.zeros((1, 5))
    y_score[0, 3:] = 1
    expected = discounts[:2].sum() * y_true[0, 3:].mean() + discounts[2:].sum() * 1.0
    assert _one(y_true, y_score, "dcg_score") == pytest.approx(float(expected), rel=1e-12)


def test_log_base_e_and_cutoff():
    ranks = np.arange(2, 5)
    got = _one(TOY_TRUE[:3], TOY_SCORE[:3], "dcg_score@3(log_base=e)")
    assert got == pytest.approx(float(np.mean(3 / np.log(ranks))), rel=1e-12)


# ---- top_k_accuracy_score ----------------------------------------------------------------------

TOPK_SCORE = [[0.4, 0.3, 0.2, 0.1], [0.1, 0.3, 0.4, 0.2], [0.4, 0.1, 0.2, 0.3],
              [0.3, 0.2, 0.4, 0.1]]
TIES_SCORE = [[5, 5, 7, 0], [1, 5, 5, 5], [0, 0, 3, 3], [1, 1, 1, 1]]


def _labels(y: list[int], n: int = 4) -> np.ndarray:
    return np.eye(n)[y]


@pytest.mark.parametrize(("k", "expected"), [(1, 0.25), (2, 0.5), (3, 0.75)])
def test_top_k_accuracy_score(k, expected):
    name = f"top_k_accuracy_score@{k}"
    assert _one(_labels([0, 1, 2, 3]), TOPK_SCORE, name) == expected


@pytest.mark.parametrize(("y_true", "expected"), [([0, 1, 1, 2], 0.75), ([0, 1, 1, 1], 0.5),
                                                  ([1, 1, 1, 1], 0.5)])
def test_top_k_accuracy_score_default_k_is_two(y_true, expected):
    """test_top_k_accuracy_score_multiclass_with_labels: k=2, scikit-learn's default."""
    assert _one(_labels(y_true), TOPK_SCORE, "top_k_accuracy_score") == expected
    assert _one(_labels(y_true), TOPK_SCORE, "top_k_accuracy_score(k=2)") == expected


def test_k_is_the_cutoff():
    for fn in ("ndcg_score", "dcg_score"):
        assert _one(TOY_TRUE, TOY_SCORE, f"{fn}(k=3)") == _one(TOY_TRUE, TOY_SCORE, f"{fn}@3")
    assert _one(TOY_TRUE, TOY_SCORE, "dcg_score(k=1)") == pytest.approx(3 / 5, rel=1e-15)
    with pytest.raises(rv.MetricError, match="two cutoffs"):
        _one(TOY_TRUE, TOY_SCORE, "ndcg_score@3(k=5)")


@pytest.mark.parametrize(("k", "expected"), [(1, 0.25), (2, 0.5), (3, 1.0)])
def test_top_k_accuracy_score_ties_under_trec_eval_order(k, expected):
    """test_top_k_accuracy_score_ties: the highest class index first among ties, which
    ties='trec_eval' gives for ids whose text sorts as the index (the preset's notes)."""
    name = f"top_k_accuracy_score@{k}"
    run, truth = _dicts(_labels([0, 1, 2, 3]), TIES_SCORE, pad=True)
    got = rv.evaluate(run, truth, [name], compat="sklearn", ties="trec_eval")[name]
    assert got == expected


def test_top_k_accuracy_score_ties_default_is_the_expectation():
    """Under the preset's ties='average' a tie at the cutoff gives the expected hit: rows
    miss, 1/3 (class 1 among 3 tied), 1/2, 1/4 -- the documented difference."""
    got = _one(_labels([0, 1, 2, 3]), TIES_SCORE, "top_k_accuracy_score@1")
    assert got == pytest.approx((0 + 1 / 3 + 1 / 2 + 1 / 4) / 4, rel=1e-12)
    assert any(n.startswith("top_k_accuracy_score: tied") for n in PRESETS["sklearn"].notes)


# ---- against the library, and the table ---------------------------------------------------------

def test_against_scikit_learn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 4, size=(12, 9)).astype(float)
    y_score = rng.random((12, 9))  # distinct: ignore_ties is the same value
    for k in (1, 3, 5, 10, None):
        at = "" if k is None else f"@{k}"
        for fn in ("ndcg_score", "dcg_score"):
            for ignore in (False, True):
                name = f"{fn}{at}(ignore_ties={ignore})"
                assert _one(y_true, y_score, name) == pytest.approx(
                    getattr(sk, fn)(y_true, y_score, k=k, ignore_ties=ignore), rel=1e-12)
    labels = rng.integers(0, 9, size=12)
    for k in (1, 3, 5):
        assert _one(np.eye(9)[labels], y_score, f"top_k_accuracy_score@{k}") == \
            pytest.approx(sk.top_k_accuracy_score(labels, y_score, k=k, labels=range(9)),
                          rel=1e-12)


def test_every_ranking_function_is_named():
    """Every function scikit-learn exports from sklearn.metrics._ranking is an entry."""
    sk = pytest.importorskip("sklearn.metrics")
    exported = {n for n in sk.__all__
                if getattr(getattr(sk, n), "__module__", "") == "sklearn.metrics._ranking"}
    assert exported and exported == set(NAMES)


@pytest.mark.parametrize("name", sorted(n for n, e in NAMES.items() if e.refused))
def test_refused_names_say_why(name):
    with pytest.raises(rv.MetricError) as err:
        rv.evaluate({1: {1: 1.0, 2: 0.5}}, {1: {1: 1}}, [name], compat="sklearn")
    assert NAMES[name].refused in str(err.value)


def test_curves_are_refused_as_curves():
    for name in ("roc_curve", "precision_recall_curve", "det_curve"):
        assert NAMES[name].refused == "a curve, not one number"


@pytest.mark.parametrize(("key", "bad"), [("dcg_score(log_base=3)", "log_base"),
                                          ("ndcg_score(ignore_ties=maybe)", "ignore_ties"),
                                          ("top_k_accuracy_score(k=0)", "cutoff")])
def test_bad_option_value_is_refused_naming_it(key, bad):
    with pytest.raises(rv.MetricError, match=bad):
        rv.evaluate({1: {1: 1.0}}, {1: {1: 1}}, [key], compat="sklearn")


def test_log_base_ten_differs_from_two():
    two = _one(TOY_TRUE, TOY_SCORE, "dcg_score(log_base=2)")
    ten = _one(TOY_TRUE, TOY_SCORE, "dcg_score(log_base=10)")
    assert ten == pytest.approx(two * math.log(10) / math.log(2), rel=1e-12)
