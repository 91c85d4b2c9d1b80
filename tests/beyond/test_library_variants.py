"""Beyond-accuracy conventions of other libraries as named parameters, with exact worked
examples: RecBole's ShannonEntropy, GiniIndex, ItemCoverage, AveragePopularity and
TailPercentage (``recbole/evaluator/metrics.py``), and the value of one-item and empty lists in
ILD / ILS (RecTools ``rectools/metrics/diversity.py``, LensKit
``lenskit/metrics/ranking/_ils.py``, RecPack ``recpack/metrics/diversity.py``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.beyond import tail_mask

# top-2 lists; training counts a 5, b 1, d 2, and seven more items seen 3..9 times; c unseen
LISTS = {"u1": ["a", "b"], "u2": ["c", "d"], "u3": ["b", "a"]}
RUN = {u: {i: float(2 - r) for r, i in enumerate(items)} for u, items in LISTS.items()}
TRUTH = {u: {items[0]: 1} for u, items in LISTS.items()}
COUNTS = {"a": 5, "b": 1, "d": 2, **{f"x{j}": j for j in range(3, 10)}}
TRAIN = pd.DataFrame([(f"t{i}_{n}", i) for i, c in COUNTS.items() for n in range(c)],
                     columns=["user", "item"])


def test_recbole_shannon_entropy_divides_by_distinct_items():
    # counts a 2, b 2, c 1, d 1 of 6 slots: H = -(2 (1/3) ln(1/3) + 2 (1/6) ln(1/6)), / 4 items
    h = -(2 / 3 * math.log(1 / 3) + 1 / 3 * math.log(1 / 6))
    res = rv.evaluate(RUN, TRUTH, ["entropy@2(base=e,normalize=distinct)", "entropy@2"])
    assert res["entropy@2(base=e,normalize=distinct)"] == pytest.approx(h / 4, rel=1e-14)
    assert res["entropy@2"] == pytest.approx(h / math.log(2), rel=1e-14)  # default unchanged
    named = rv.evaluate(RUN, TRUTH, ["shannonentropy@2"], compat="recbole")
    assert named["shannonentropy@2"] == pytest.approx(h / 4, rel=1e-14)


@pytest.mark.parametrize("n", [5, 12])
def test_recbole_gini_index_and_item_coverage(n):
    # sorted counts 1, 1, 2, 2 at positions n-3 .. n of n catalogue items (num_items)
    idx = np.arange(n - 3, n + 1)
    gini = float(np.sum((2 * idx - n - 1) * np.array([1, 1, 2, 2]))) / 6 / n
    res = rv.evaluate(RUN, TRUTH, ["giniindex@2", "itemcoverage@2"], compat="recbole",
                      catalog=n)
    assert res["giniindex@2"] == pytest.approx(gini, rel=1e-14)
    assert res["itemcoverage@2"] == pytest.approx(4 / n, rel=1e-14)
    if n == 5:
        assert gini == pytest.approx(1 / 3, rel=1e-14)  # (-2 + 0 + 4 + 8) / 6 / 5


def test_recbole_average_popularity():
    # a 5, b 1, c 0 (unseen), d 2: (5 + 1) / 2, (0 + 2) / 2, (1 + 5) / 2
    res = rv.evaluate(RUN, TRUTH, ["averagepopularity@2"], compat="recbole", train=TRAIN)
    assert res["averagepopularity@2"] == pytest.approx(7 / 3, rel=1e-14)


def test_recbole_tail_percentage():
    # tail_ratio 0.1 over the 10 training items: floor(1.0) = 1 tail item, b (seen once);
    # c is absent from training and not tail: u1 1/2, u2 0, u3 1/2
    res = rv.evaluate(RUN, TRUTH, ["tailpercentage@2"], compat="recbole", train=TRAIN)
    assert res.info["compat"]["names"]["tailpercentage@2"] == "aplt@2(head=0.9,unseen=head)"
    assert res["tailpercentage@2"] == pytest.approx(1 / 3, rel=1e-14)
    # tail_ratio 2 (> 1: items seen at most twice): b and d; u2 1/2
    res = rv.evaluate(RUN, TRUTH, ["tailpercentage@2(tail_max=2)"], compat="recbole",
                      train=TRAIN)
    assert res["tailpercentage@2(tail_max=2)"] == pytest.approx(1 / 2, rel=1e-14)
    # receval's default: head = ceil(0.2 * 10) = 2 most popular (x9, x8); c unseen is tail
    default = rv.evaluate(RUN, TRUTH, ["aplt@2", "tail_share@2(unseen=head,tail_max=1)"],
                          train=TRAIN)
    assert default["aplt@2"] == pytest.approx(1.0, rel=1e-14)
    assert default["tail_share@2(tail_max=1,unseen=head)"] == pytest.approx(2 / 6, rel=1e-14)


def test_tail_mask_variants():
    pop = [10, 1, 5, 0, 1]
    assert tail_mask(pop, head=0.25).tolist() == [False, True, True, True, True]
    assert tail_mask(pop, head=0.25, unseen="head").tolist() == [False, True, True, False, True]
    assert tail_mask(pop, max_count=1).tolist() == [False, True, False, True, True]
    assert tail_mask([0, 0], unseen="head").tolist() == [False, False]


# ILD / ILS of short lists: u1 three items, u2 and u3 one item, u4 (truth only) no list
FEATS = pd.DataFrame({"f1": [1.0, 0.0, 1.0], "f2": [0.0, 1.0, 1.0]}, index=["a", "b", "c"])
SRUN = {"u1": {"a": 3.0, "b": 2.0, "c": 1.0}, "u2": {"a": 1.0}, "u3": {"b": 1.0}}
STRUTH = {"u1": {"a": 1}, "u2": {"a": 1}, "u3": {"a": 1}, "u4": {"c": 1}}
ILS_U1 = (0 + 2 / math.sqrt(2)) / 3  # cos(a, b) = 0, cos(a, c) = cos(b, c) = 1 / sqrt(2)


@pytest.mark.parametrize(("short", "ild", "ils"), [
    ("skip", [1 - ILS_U1, None, None, None], [ILS_U1, None, None, None]),        # default
    ("one_item", [1 - ILS_U1, 0, 0, None], [ILS_U1, 1, 1, None]),  # RecTools, LensKit
    ("zero", [1 - ILS_U1, 0, 0, 0], [ILS_U1, 1, 1, 1]),            # RecPack
])
def test_short_list_policy(short, ild, ils):
    keys = ["ild@3", "ils@3"] if short == "skip" else [f"ild@3(short={short})",
                                                       f"ils@3(short={short})"]
    res = rv.evaluate(SRUN, STRUTH, keys, item_features=FEATS)
    for key, expected in zip(keys, (ild, ils), strict=True):
        got = dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(), strict=True))
        for user, value in zip(("u1", "u2", "u3", "u4"), expected, strict=True):
            if value is None:
                assert math.isnan(got[user]), (key, user)
            else:
                assert got[user] == pytest.approx(value, rel=1e-14, abs=1e-15), (key, user)
        defined = [v for v in expected if v is not None]
        assert res[key] == pytest.approx(sum(defined) / len(defined), rel=1e-14)


def test_short_list_policy_after_missing_features():
    # u1's item d has no features: missing=skip leaves a one-item list
    run = {"u1": {"a": 2.0, "d": 1.0}}
    res = rv.evaluate(run, {"u1": {"a": 1}}, ["ild@2(missing=skip)",
                                               "ild@2(missing=skip,short=one_item)"],
                      item_features=FEATS)
    assert math.isnan(res["ild@2(missing=skip)"])
    assert res["ild@2(missing=skip,short=one_item)"] == 0.0
