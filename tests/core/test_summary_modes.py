"""Summaries other than the mean: a key's ``summary=`` and a family's own (``MetricDef.summary``).

trec_eval's ``all`` line sums its counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ...), counts
its queries (``num_q``) and takes the geometric mean of AP and bpref (``gm_map``, ``gm_bpref``:
per query ``log(max(x, 1e-5))``, ``all`` exp of their mean; trec_eval 9.0.8 ``m_gm_map.c``,
``meas_avg.c``). The worked example below is computed by hand; the lists of measures come from
the one table of foreign names.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.engines.aggregate import IN, MetricState
from receval.metrics import REGISTRY, parse_metric
from receval.metrics.foreign import TREC_EVAL
from receval.metrics.spec import SUMMARIES, metric

# q1: a, b, c with a and c relevant (b unjudged); q2: a, d with d relevant (e judged 0, not
# retrieved); q3: x, nothing relevant retrieved (y relevant)
RUN = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 2.0, "d": 1.0}, "q3": {"x": 1.0}}
TRUTH = {"q1": {"a": 1, "c": 1}, "q2": {"d": 1, "e": 0}, "q3": {"y": 1}}
AP = [(1 + 2 / 3) / 2, 1 / 2, 0.0]      # map per query
BPREF = [1.0, 1.0, 0.0]                 # no judged non-relevant document above a relevant one
COUNTS = {"num_ret": [3, 2, 1], "num_rel": [2, 1, 1], "num_rel_ret": [2, 1, 0]}
SUMMED = [m.name for m in TREC_EVAL if m.summary == "sum"]


def _geometric(logs: list[float]) -> float:
    """exp of the exactly rounded mean of the logarithms (the aggregator's rule)."""
    return math.exp(float(sum((Fraction(x) for x in logs), Fraction(0)) / len(logs)))


@pytest.mark.parametrize("compat", [None, "trec_eval"])
def test_worked_example_gm_map_gm_bpref_num_q(compat):
    res = rv.evaluate(RUN, TRUTH, ["gm_map", "gm_bpref", "num_q", "map", "bpref"],
                      compat=compat, ties="trec_eval", empty_truth="zero")
    ap, bpref = res.user_values("map"), res.user_values("bpref")
    np.testing.assert_allclose(ap, AP, rtol=1e-15)
    np.testing.assert_array_equal(bpref, BPREF)
    logs = np.log(np.maximum(ap, 1e-5))
    assert np.array_equal(res.user_values("gm_map"), logs)
    assert np.array_equal(res.user_values("gm_bpref"), [0.0, 0.0, math.log(1e-5)])
    assert res["gm_map"] == _geometric(list(logs))
    assert res["gm_map"] == pytest.approx((5 / 6 * 1 / 2 * 1e-5) ** (1 / 3), rel=1e-14)
    assert res["gm_bpref"] == _geometric([0.0, 0.0, math.log(1e-5)])
    assert res["gm_bpref"] == pytest.approx(1e-5 ** (1 / 3), rel=1e-14)
    assert np.array_equal(res.user_values("num_q"), [1.0, 1.0, 1.0])
    assert res["num_q"] == 3.0


def test_counts_are_summed_under_compat_and_averaged_as_receval_keys():
    assert set(COUNTS) <= set(SUMMED)
    plain = rv.evaluate(RUN, TRUTH, list(COUNTS), ties="trec_eval", empty_truth="zero")
    trec = rv.evaluate(RUN, TRUTH, list(COUNTS), compat="trec_eval")
    for name, per_query in COUNTS.items():
        for res in (plain, trec):
            assert np.array_equal(res.user_values(name), per_query), name
        assert plain[name] == sum(per_query) / len(per_query), name
        assert trec[name] == sum(per_query), name
        assert trec.info["compat"]["names"][name].endswith("(summary=sum)"), name
    assert plain.metrics == ["num_ret", "num_rel", "hits"]


@pytest.mark.parametrize("name", SUMMED)
def test_every_summed_measure_is_a_sum_under_compat_and_matches_receval_trec(name):
    import pandas as pd

    from receval.trec.evaluate import trec_eval

    qrels = pd.DataFrame([(q, d, r) for q, docs in TRUTH.items() for d, r in docs.items()],
                         columns=["qid", "docno", "relevance"])
    run = pd.DataFrame([(q, d, s, "tag") for q, docs in RUN.items() for d, s in docs.items()],
                       columns=["qid", "docno", "score", "tag"])
    res = rv.evaluate(run, qrels, [name], compat="trec_eval", user_col="qid",
                      item_col="docno", rel_col="relevance", score_col="score")
    cli = trec_eval(qrels, run, [name])
    assert parse_metric(res.info["compat"]["names"][name]).summary == "sum"
    assert np.array_equal(res.user_values(name), cli.values[name])
    assert res[name] == cli.summary[name] == float(np.sum(cli.values[name]))


def test_blocks_give_the_same_bits():
    keys = ["gm_map", "gm_bpref", "num_q", "num_ret(summary=sum)", "hits(summary=sum)"]
    whole = rv.evaluate(RUN, TRUTH, keys, empty_truth="zero")
    blocks = rv.evaluate_blocks([{"q1": RUN["q1"]}, {"q2": RUN["q2"], "q3": RUN["q3"]}],
                                TRUTH, keys, empty_truth="zero")
    assert blocks.values.tobytes() == whole.values.tobytes()
    for a, b in zip(blocks.stats, whole.stats, strict=True):
        assert np.array([a[k] for k in ("mean", "std", "se", "n")]).tobytes() == \
            np.array([b[k] for k in ("mean", "std", "se", "n")]).tobytes(), a["metric"]
    assert [r["mean"] for r in whole.stats] == [
        _geometric(list(np.log(np.maximum(AP, 1e-5)))), _geometric([0, 0, math.log(1e-5)]),
        3.0, 6.0, 3.0]


def test_summary_is_part_of_the_key():
    spec = parse_metric("num_ret(summary=sum)")
    assert spec.summary == "sum" and spec.key == "num_ret(summary=sum)"
    assert parse_metric(spec.key) == spec
    assert parse_metric("num_ret").summary == "mean"
    assert parse_metric("num_ret(summary=mean)") == parse_metric("num_ret")
    assert parse_metric("gm_map").summary == "geometric"
    assert parse_metric("num_q").summary == "sum"
    assert parse_metric("num_q(summary=mean)").key == "num_q(summary=mean)"
    res = rv.evaluate(RUN, TRUTH, ["num_q(summary=mean)", "ndcg@2(summary=sum)", "ndcg@2"])
    assert res["num_q(summary=mean)"] == 1.0
    assert res["ndcg@2(summary=sum)"] == pytest.approx(res["ndcg@2"] * res.stats[2]["n"],
                                                       rel=1e-15)


@pytest.mark.parametrize("key,match", [
    ("ndcg@10(summary=geometric)", "not valid"),     # values that are not logarithms
    ("ndcg@10(summary=median)", "not valid"),
    ("hit_rate@10(level=recommended,summary=sum)", "ratio of sums"),   # micro
    ("auc(summary=sum)", "ratio of sums"),                             # pooled
])
def test_summaries_that_do_not_apply_are_refused(key, match):
    with pytest.raises(rv.MetricError, match=match):
        parse_metric(key)


def test_every_family_summary_is_a_known_one():
    rv.list_metrics()
    assert {d.summary for d in REGISTRY.values()} <= set(SUMMARIES)
    assert {d.name for d in REGISTRY.values() if d.summary != "mean"} >= {
        "num_q", "gm_map", "gm_bpref"}


@pytest.mark.parametrize("name", [m.name for m in TREC_EVAL if m.family is None])
def test_text_fields_of_trec_eval_are_refused_clearly(name):
    for compat in (None, "trec_eval"):
        with pytest.raises(rv.UnknownMetricError, match="not a number.*receval trec"):
            rv.evaluate(RUN, TRUTH, [name], compat=compat)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=1, max_size=40), st.data())
def test_sum_and_geometric_are_exact_for_any_split(values, data):
    """Merged in any split and order, the summary is the exact sum (or exp of the exact mean)
    rounded once."""
    x = np.asarray(values)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(x)), max_size=4)))
    parts = np.split(x, cuts)
    order = data.draw(st.permutations(range(len(parts))))
    merged = MetricState()
    for i in order:
        merged = merged.merge(MetricState.of(parts[i], np.full(len(parts[i]), IN)))
    exact = sum((Fraction(v) for v in values), Fraction(0))
    assert merged.summary("m", mode="sum")["mean"] == float(exact)
    logs = np.clip(x, -700.0, 0.0)
    state = MetricState.of(logs, np.full(len(logs), IN))
    assert state.summary("m", mode="geometric")["mean"] == _geometric(list(logs))
    assert math.isnan(state.summary("m", mode="geometric")["se"])  # none for a geometric mean


def test_an_empty_sum_is_zero():
    assert MetricState().summary("m", mode="sum")["mean"] == 0.0
    assert math.isnan(MetricState().summary("m")["mean"])


def test_metric_keyword_accepts_the_summary():
    assert metric("num_rel", summary="sum").key == "num_rel(summary=sum)"
