"""``compat="elliot"``: values worked out from Elliot's own formulas, and its options.

Elliot (sisinflab/elliot, master fc27efe, 0.3.1) ships no metric unit tests, so the expected
values follow its metric sources: ``elliot/evaluation/metrics/accuracy/precision/precision.py``
(hits / cutoff), ``recall/recall.py`` (hits / relevant), ``hit_rate/hit_rate.py``,
``mrr/mrr.py``, ``mar/mar.py`` (mean of recall@n, n = 1..k), ``f1/f1.py``, ``DSC/dsc.py``
(beta from the configuration), ``ndcg/ndcg.py`` with ``relevance/relevance.py`` (gain
2^(r - t + 1) - 1 for r >= t, discount 1 / log2(rank + 1)), ``ndcg/ndcg_rendle2020.py``
(binary gain, ideal min(R, k) hits), ``coverage/num_retrieved/num_retrieved.py``,
``coverage/item_coverage/item_coverage.py`` and ``diversity/shannon_entropy/shannon_entropy.py``;
the user set is ``evaluation/evaluator.py`` (users with test rows) and each class's
``eval_user_metric`` (users with a relevant item). The check against Elliot itself is
``benchmarks/peers/libs/elliot.py``.
"""

from __future__ import annotations

import math

import pytest

import receval as rv
from receval.compat import PRESETS
from receval.errors import MetricError

NAMES = PRESETS["elliot"].names
_L = math.log2

# one user: the list 1, 2, 3, 4 (best first); relevant 2 (r = 3), 4 (r = 1), 9 (r = 2), R = 3
RUN = {"u": {1: 4.0, 2: 3.0, 3: 2.0, 4: 1.0}}
TRUTH = {"u": {2: 3, 4: 1, 9: 2, 3: 0}}


def _value(key: str, run=RUN, truth=TRUTH) -> float:
    return float(rv.evaluate(run, truth, [key], compat="elliot")[key])


@pytest.mark.parametrize(("key", "expected"), [
    ("precision@3", 1 / 3),
    ("precision@5", 2 / 5),            # divides by the cutoff, not by the list's length
    ("recall@3", 1 / 3),
    ("recall@4", 2 / 3),
    ("hr@1", 0.0),
    ("hr@2", 1.0),
    ("mrr@1", 0.0),
    ("mrr@3", 1 / 2),
    ("mar@3", (0 + 1 / 3 + 1 / 3) / 3),
    ("mar@4", (0 + 1 / 3 + 1 / 3 + 2 / 3) / 4),
    ("f1@3", 1 / 3),
    ("f1@4", 2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3)),
    ("dsc@4", 2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3)),
    ("dsc@4(beta=2)", 5 * (1 / 2) * (2 / 3) / (4 * (1 / 2) + 2 / 3)),    # 5/8
    ("ndcg@4", (7 / _L(3) + 1 / _L(5)) / (7 + 3 / _L(3) + 1 / 2)),
    ("ndcg@1", 0.0),
    ("ndcg@2", (7 / _L(3)) / (7 + 3 / _L(3))),
    ("ndcgrendle2020@4", (1 / _L(3) + 1 / _L(5)) / (1 + 1 / _L(3) + 1 / 2)),
    ("ndcgrendle2020@2", (1 / _L(3)) / (1 + 1 / _L(3))),
    ("precision@3(relevance_threshold=2)", 1 / 3),     # relevant: 2 and 9
    ("recall@4(relevance_threshold=2)", 1 / 2),
    ("hr@4(relevance_threshold=3)", 1.0),
    ("numretrieved@3", 3.0),
    ("numretrieved@10", 4.0),
])
def test_worked_example(key: str, expected: float) -> None:
    assert _value(key) == pytest.approx(expected, abs=1e-12)


# two users with test rows and one without: Elliot drops the list of the user without test rows
RUN2 = {"a": {1: 1.0, 2: 0.5}, "b": {3: 1.0, 4: 0.5, 1: 0.2}, "c": {6: 1.0}}
TRUTH2 = {"a": {1: 1}, "b": {9: 0}}


@pytest.mark.parametrize(("key", "expected"), [
    ("itemcoverage@1", 2.0),           # items 1, 3
    ("itemcoverage@3", 4.0),           # items 1, 2, 3, 4 (6: user c has no test rows)
    # SEntropy@2: lists of 2 items, counts 1:1, 2:1, 3:1, 4:1 over 4 exposures; weights
    # w_i = sum of 1 / |list| = 1/2, so sum_i w_i log2(4) / 2 users = log2(4)
    ("sentropy@2", 2.0),
])
def test_list_metrics_over_users_with_test_rows(key: str, expected: float) -> None:
    assert _value(key, RUN2, TRUTH2) == pytest.approx(expected, abs=1e-12)


def test_sentropy_with_lists_shorter_than_k_is_the_exposure_entropy() -> None:
    """The documented difference: at k = 3 the lists hold 2 and 3 items; Elliot's SEntropy
    weights item i by sum 1 / |list| and gives ((1/2 + 1/3) log2(5/2) + (1/2 + 2/3) log2 5) / 2
    = 1.9053; receval gives the entropy of the exposure counts 2, 1, 1, 1 over 5."""
    elliot = ((1 / 2 + 1 / 3) * _L(5 / 2) + (1 / 2 + 1 / 3 + 1 / 3) * _L(5)) / 2
    exposure = -(0.4 * _L(0.4) + 3 * 0.2 * _L(0.2))
    ours = _value("sentropy@3", RUN2, TRUTH2)
    assert ours == pytest.approx(exposure, abs=1e-12)
    assert abs(ours - elliot) > 1e-3
    assert any(n.startswith("SEntropy weights") for n in PRESETS["elliot"].notes)


def test_users_without_relevant_item_or_list_are_left_out() -> None:
    """eval_user_metric keeps users with a list and a relevant test item."""
    truth = {**TRUTH, "z": {5: 0}, "y": {1: 1}}
    run = {**RUN, "z": {5: 1.0}, "x": {1: 1.0}}
    for key in ("precision@3", "recall@4", "ndcg@4", "mar@3", "numretrieved@10"):
        assert _value(key, run, truth) == pytest.approx(_value(key), abs=1e-12)


def test_ndcg_threshold_other_than_one_is_refused() -> None:
    with pytest.raises(MetricError, match="relevance_threshold.*accepted values are 1"):
        _value("ndcg@3(relevance_threshold=2)")
    with pytest.raises(MetricError, match="relevance_threshold"):
        _value("ndcgrendle2020@3(relevance_threshold=0)")


def test_threshold_zero_is_refused() -> None:
    """Elliot's default threshold 0 (every judged row relevant) has no receval rel."""
    with pytest.raises(MetricError, match="rel='0' is out of range"):
        _value("precision@3(relevance_threshold=0)")


def test_unknown_option_is_refused_by_name() -> None:
    with pytest.raises(MetricError, match="metric_0"):
        _value("dsc@3(metric_0=nDCG)")


REFUSED = sorted(k for k, e in NAMES.items() if e.refused)


def test_every_exported_name_is_listed() -> None:
    """The 44 names of Elliot's _metric_dictionary (metrics/__init__.py), lower case."""
    exported = {
        "ndcg", "ndcgrendle2020", "precision", "recall", "hr", "mrr", "map", "mar", "f1",
        "extendedf1", "dsc", "lauc", "gauc", "auc", "itemcoverage", "usercoverage",
        "usercoverageatn", "numretrieved", "gini", "sentropy", "efd", "extendedefd", "epc",
        "extendedepc", "mae", "mse", "rmse", "usermadrating", "itemmadrating",
        "usermadranking", "itemmadranking", "biasdisparitybr", "biasdisparitybs",
        "biasdisparitybd", "srecall", "arp", "aplt", "aclt", "poprsp", "popreo",
        "extendedpoprsp", "extendedpopreo", "rsp", "reo"}
    assert len(exported) == 44
    assert set(NAMES) == exported


@pytest.mark.parametrize("lib_name", REFUSED)
def test_refused_names_give_the_reason(lib_name: str) -> None:
    reason = NAMES[lib_name].refused
    with pytest.raises(MetricError) as err:
        _value(f"{lib_name}@3")
    assert reason[:40] in str(err.value)


@pytest.mark.parametrize("lib_name", ["usermadranking", "usermadrating"])
def test_user_group_measures_point_to_the_result_measure(lib_name: str) -> None:
    # a measure over user groups is one of a result evaluated with groups=, not a metric
    assert "rv.results.fairness.user_mad" in NAMES[lib_name].refused


@pytest.mark.parametrize("lib_name", ["rsp", "reo", "biasdisparitybd", "itemmadranking"])
def test_item_group_fairness_names_are_mapped(lib_name: str) -> None:
    assert not NAMES[lib_name].refused and NAMES[lib_name].family
