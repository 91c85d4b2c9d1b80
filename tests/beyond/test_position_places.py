"""Under ``ranks="position"`` the attention-weighted metrics read each row's place in its
list: lists ranked 1..n give the values of ``ranks="order"``, and a list with a gap or a
shared rank is refused (weighting rank 5 as place 2 would be a wrong number)."""

from __future__ import annotations

import pandas as pd
import pytest

import receval as rv

KEYS = ["exposure_share@5(group=a)", "exposure_gini@5", "rank_biased_entropy@5", "awrf@5",
        "ee_loss@5", "miscalibration@5(weight=log)", "epc@5", "efd@5"]
INPUTS = {"train": {1: {10: 1, 12: 1}, 2: {11: 1}}, "catalog": 6,
          "item_categories": {10: ["x"], 11: ["y"], 12: ["x", "y"], 13: ["y"]},
          "item_groups": {10: "a", 11: "b", 12: "a", 13: "b"}}
TRUTH = {1: {10: 1, 13: 1}, 2: {12: 1}}


def _run(ranks):
    return pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 13, 12, 10],
                         "rank": ranks})


def test_places_one_to_n_give_the_order_values():
    run = _run([1, 2, 3, 1, 2])
    a = rv.evaluate(run, TRUTH, KEYS, ranks="position", **INPUTS)
    b = rv.evaluate(run, TRUTH, KEYS, ranks="order", **INPUTS)
    assert a.summary == b.summary


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("ranks", [[1, 2, 5, 1, 2], [1, 1, 2, 1, 2]])
def test_a_gap_or_a_shared_rank_is_refused(key, ranks):
    with pytest.raises(rv.InputError, match="place"):
        rv.evaluate(_run(ranks), TRUTH, [key], ranks="position", **INPUTS)
