"""``compat="recmetrics"``: MAP@K is recmetrics' ``mapk`` (the repository's ``_apk``: the sum
of precision at each hit within k over the number of hits), not ``mark`` (over R); the worked
example of the issue, checked by hand from statisticianinstilettos/recmetrics metrics.py at
b21222d."""

from __future__ import annotations

import pytest

import receval as rv

RUN = {"a": {"X": 3, "Y": 2, "Z": 1}, "b": {"A": 3, "Z": 2, "B": 1}}
TRUTH = {"a": {"A", "B", "X"}, "b": {"A", "B", "Y"}}
TRUTH_ROWS = {u: {i: 1 for i in items} for u, items in TRUTH.items()}


def test_map_at_k_is_mapk():
    # a: hit at 1 -> 1/1 over 1 hit; b: hits at 1 and 3 -> (1 + 2/3) over 2 hits
    res = rv.evaluate(RUN, TRUTH_ROWS, ["map@5", "mapk@5", "mark@5"], compat="recmetrics")
    assert res["map@5"] == res["mapk@5"] == pytest.approx((1 + (1 + 2 / 3) / 2) / 2, rel=1e-15)
    # mark: the same sums over R = 3: (1/3 + (5/3)/3) / 2
    assert res["mark@5"] == pytest.approx((1 / 3 + (5 / 3) / 3) / 2, rel=1e-15)


def test_a_user_without_a_hit_scores_zero():
    res = rv.evaluate({"a": {"Q": 1}}, {"a": {"A": 1}}, ["mapk@3"], compat="recmetrics")
    assert res["mapk@3"] == 0.0


@pytest.mark.parametrize("name", ["catalog_coverage", "make_confusion_matrix"])
def test_refused_with_the_reason(name):
    reason = rv.compat.PRESETS["recmetrics"].names[name].refused
    with pytest.raises(rv.MetricError, match="is not reproduced"):
        rv.evaluate(RUN, TRUTH_ROWS, [name], compat="recmetrics")
    assert len(reason) > 15
