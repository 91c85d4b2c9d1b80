"""``per_item=``: each item's exposure, hits and holders against an oracle written from the
definitions; the same in blocks; item groups sum the items."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, ParameterError, PolicyError


def _oracle(run: dict, truth: dict, k: int | None, users: str) -> pd.DataFrame:
    """Per item, from the docstring: lists ordered by score descending, then item id (the
    default ties='id'); evaluated users by the users policy."""
    if users == "truth":
        evaluated = set(truth)
    elif users == "run":
        evaluated = set(run)
    elif users == "union":
        evaluated = set(run) | set(truth)
    else:
        evaluated = set(run) & set(truth)
    rows: dict = {}

    def row(i):
        return rows.setdefault(i, {"recommended": 0, "exposure": 0.0, "hits": 0, "holders": 0})

    for u in evaluated:
        held = {i for i, r in truth.get(u, {}).items() if r >= 1}
        ranked = sorted(run.get(u, {}).items(), key=lambda t: (-t[1], t[0]))
        for r, (i, _) in enumerate(ranked[:k] if k else ranked, start=1):
            e = row(i)
            e["recommended"] += 1
            e["exposure"] += 1 / math.log2(r + 1)
            e["hits"] += i in held
        for i in held:
            row(i)["holders"] += 1
    return pd.DataFrame.from_dict(rows, orient="index")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.sampled_from([None, 1, 3]),
       users=st.sampled_from(["truth", "run", "union", "intersection"]))
def test_per_item_matches_the_definitions(seed, k, users):
    rng = np.random.default_rng(seed)
    run = {u: {int(i): float(rng.integers(0, 3)) for i in rng.choice(12, 5, replace=False)}
           for u in range(8) if rng.random() < 0.9}
    truth = {u: {int(i): int(rng.integers(0, 3)) for i in rng.choice(12, 3, replace=False)}
             for u in range(3, 11)}
    metrics = ["ndcg@3"] if k else ["ndcg"]
    per_item = k if k else True
    res = rv.evaluate(run, truth, metrics, per_item=per_item, users=users)
    got = res.per_item
    want = _oracle(run, truth, k, users)
    assert set(got.index.tolist()) == set(want.index.tolist())
    for i in want.index:
        for col in ("recommended", "hits", "holders"):
            assert got.loc[i, col] == want.loc[i, col], (i, col)
        assert math.isclose(got.loc[i, "exposure"], want.loc[i, "exposure"], rel_tol=1e-12)
        holders = want.loc[i, "holders"]
        recall = got.loc[i, "recall"]
        assert (recall != recall) if holders == 0 else recall == want.loc[i, "hits"] / holders
    total = want["holders"].sum()
    if total:
        assert np.allclose(got["truth_share"].sum(), 1.0)
    # blocks of users: the same table
    blocks = [{u: run[u]} for u in sorted(run)]
    streamed = rv.Evaluator(truth, metrics, per_item=per_item, users=users) \
        .evaluate_blocks(blocks).per_item
    pd.testing.assert_frame_equal(streamed.sort_index(), got.sort_index(), check_like=True)


def test_per_item_under_absolute_ranks_reads_the_rank():
    run = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 4, 2]})
    truth = {1: {"b": 1}, 2: {"a": 1}}
    res = rv.evaluate(run, truth, ["precision@5"], ranks="position", per_item=True)
    t = res.per_item
    assert t.loc["a", "exposure"] == 1 + 1 / math.log2(3)
    assert t.loc["b", "exposure"] == 1 / math.log2(5)
    assert t.loc["b", "hits"] == 1 and t.loc["a", "hits"] == 1


def test_item_groups_sum_their_items():
    run = {1: {"a": 3.0, "b": 2.0}, 2: {"b": 3.0, "c": 2.0}}
    truth = {1: {"b": 1, "z": 1}, 2: {"c": 1}}
    res = rv.evaluate(run, truth, ["ndcg@2"], per_item=True,
                      item_groups={"a": "pop", "b": "pop", "c": "tail"})
    g = res.by_item_group
    t = res.per_item
    assert g.loc["pop", "recommended"] == t.loc[["a", "b"], "recommended"].sum() == 3
    assert g.loc["tail", "hits"] == 1 and g.loc["pop", "holders"] == 1
    assert g.loc["pop", "recall"] == 1.0
    assert g.attrs["ungrouped_items"] == 1  # z
    assert math.isclose(g["exposure_share"].sum(), 1.0)


def test_per_item_refuses_bad_values():
    truth = {1: {"a": 1}}
    for bad in (0, -2, "yes", 2.5):
        with pytest.raises((PolicyError, ParameterError)):
            rv.Evaluator(truth, ["ndcg@3"], per_item=bad)
    with pytest.raises(PolicyError, match="deepest cutoff"):
        rv.Evaluator(truth, ["ndcg@3"], per_item=10)
    res = rv.evaluate({1: {"a": 1.0}}, truth, ["ndcg@3"])
    with pytest.raises(InputError, match="per_item"):
        _ = res.per_item
    with pytest.raises(InputError, match="item_groups"):
        _ = res.by_item_group
    with pytest.raises(InputError, match="no item of the result"):
        rv.evaluate({1: {"a": 1.0}}, truth, ["ndcg@3"], per_item=True, item_groups={"q": "x"})
    # item_groups= alone is an input of the metrics per item group: no per-item table
    alone = rv.evaluate({1: {"a": 1.0}}, truth, ["ndcg@3"], item_groups={"a": "x"})
    with pytest.raises(InputError, match="per_item"):
        _ = alone.per_item


def test_per_item_survives_json():
    res = rv.evaluate({1: {"a": 2.0, "b": 1.0}}, {1: {"b": 1}}, ["ndcg@2"], per_item=True,
                      item_groups={"a": "x", "b": "y"})
    back = rv.EvalResult.from_json(res.to_json())
    pd.testing.assert_frame_equal(back.per_item, res.per_item, check_index_type=False)
    pd.testing.assert_frame_equal(back.by_item_group, res.by_item_group,
                                  check_index_type=False)
