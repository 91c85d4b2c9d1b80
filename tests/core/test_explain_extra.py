"""explain() for the issue-14 metrics: step-by-step values (or receval.evaluate's, for metrics
without a rule) agree with receval.evaluate, plugin inputs included."""

from __future__ import annotations

import pytest

from receval.explain import explain

RUN = {"u": {"a": 3, "x": 2.5, "b": 2, "c": 1}, "v": {"b": 1}}
TRUTH = {"u": {"a": 2, "c": 1, "b": 0, "d": 1}, "v": {"b": 3}}
STEP = ["judged@3", "ncrr@3", "ncrr", "cwl_rbp(phi=0.5)", "inst", "insq(T=2)", "sdcg@3",
        "bpm@3", "nerr_eq8@3", "nerr_eq9@3", "nerr_eq10", "nerr_eq11", "inst(output=etu)",
        "inst(output=ed)", "bpm@3(output=etc)", "sdcg@3(max_grade=4)"]
OTHER = ["infap", "iprec(recall=0.3)", "iprec_avg", "set_map", "pauc@2", "pap@2",
         "mcc@2(n_items=10)", "percentile_rank(n_items=10)"]


@pytest.mark.parametrize("metric", STEP)
def test_step_by_step_agrees(metric):
    ex = explain(metric, RUN, TRUTH, "u")
    assert ex.computed and ex.agrees, ex.to_text()


@pytest.mark.parametrize("metric", OTHER)
def test_other_metrics_show_the_evaluated_value(metric):
    ex = explain(metric, RUN, TRUTH, "u")
    assert ex.agrees and ex.value == ex.reference


def test_plugin_inputs_and_condensed_lists():
    prop = {"a": 0.5, "b": 0.2, "c": 0.1, "d": 0.3, "x": 0.3}
    ex = explain("psp@2", RUN, TRUTH, "u", propensities=prop)
    assert ex.value == pytest.approx(2 / (10 + 1 / 0.3))  # hit a (1/0.5) over best c, d
    ex = explain("ndcg@3", RUN, TRUTH, "u", unjudged="remove")
    assert ex.agrees and any("condensed" in n for n in ex.notes)
