"""explain() for the issue-14 metrics: step-by-step values agree with receval.evaluate, plugin
inputs included."""

from __future__ import annotations

import math

import pytest

from receval.explain import explain

RUN = {"u": {"a": 3, "x": 2.5, "b": 2, "c": 1}, "v": {"b": 1}}
TRUTH = {"u": {"a": 2, "c": 1, "b": 0, "d": 1}, "v": {"b": 3}}
STEP = ["judged@3", "ncrr@3", "ncrr", "cwl_rbp(phi=0.5)", "inst", "insq(T=2)", "sdcg@3",
        "bpm@3", "nerr_eq8@3", "nerr_eq9@3", "nerr_eq10", "nerr_eq11", "inst(output=etu)",
        "inst(output=ed)", "bpm@3(output=etc)", "sdcg@3(max_grade=4)", "infap",
        "iprec(recall=0.3)", "iprec_avg", "set_map", "pauc@2", "pap@2", "mcc@2(n_items=10)",
        "percentile_rank(n_items=10)"]


@pytest.mark.parametrize("metric", STEP)
def test_step_by_step_agrees(metric):
    ex = explain(metric, RUN, TRUTH, "u")
    assert ex.computed and ex.agrees, ex.to_text()


def test_plugin_inputs_and_condensed_lists():
    prop = {"a": 0.5, "b": 0.2, "c": 0.1, "d": 0.3, "x": 0.3}
    ex = explain("psp@2", RUN, TRUTH, "u", propensities=prop)
    assert ex.value == pytest.approx(2 / (10 + 1 / 0.3))  # hit a (1/0.5) over best c, d
    ex = explain("ndcg@3", RUN, TRUTH, "u", unjudged="remove")
    assert ex.agrees and any("condensed" in n for n in ex.notes)


def _pattern(pattern: str, unretrieved: int = 0, judged_non: str = "") -> tuple[dict, dict]:
    """A run from a pattern of 1 (relevant) and 0 (non-relevant, judged when its position is in
    ``judged_non``), plus ``unretrieved`` relevant items the run does not hold."""
    items = [f"i{j}" for j in range(len(pattern))]
    run = {"u": {it: float(len(items) - j) for j, it in enumerate(items)}}
    truth = {it: 1 for it, b in zip(items, pattern, strict=True) if b == "1"}
    truth |= {items[int(j)]: 0 for j in judged_non}
    truth |= {f"x{j}": 1 for j in range(unretrieved)}
    return run, {"u": truth}


@pytest.mark.parametrize(("key", "pattern", "unretrieved", "judged_non", "expected"), [
    ("iprec(recall=0.5)", "1010", 0, "", 1.0),
    ("iprec(recall=1)", "1010", 0, "", 2 / 3),
    ("iprec_avg", "1010", 0, "", (6 + 5 * 2 / 3) / 11),
    ("set_map", "1010", 2, "", (2 / 4) * (2 / 4)),
    ("infap", "101", 0, "1", (1 + 1 / 3 + (2 / 3) * (2 / 2) * (1 + 1e-5) / (2 + 2e-5)) / 2),
    ("pauc@2", "1010", 1, "", (2 + 1) / (3 * 2)),
    ("pap@2", "1010", 1, "", (2 + 1) / (2 * 2)),
    ("mcc@2(n_items=10)", "10", 1, "", (1 * 7 - 1 * 1) / math.sqrt(2 * 2 * 8 * 8)),
    ("percentile_rank(n_items=10)", "1010", 1, "", (0 + 20 + 100 * (3 / 10 + 1) / 2) / 3),
])
def test_worked_examples_of_the_definitions(key, pattern, unretrieved, judged_non, expected):
    run, truth = _pattern(pattern, unretrieved, judged_non)
    ex = explain(key, run, truth, "u")
    assert ex.computed and ex.agrees, ex.to_text()
    assert ex.value == pytest.approx(expected, rel=1e-12)
