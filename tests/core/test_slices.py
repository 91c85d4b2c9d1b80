"""``slices=``: the repeat and explore slices are the evaluations of the truth split by the
training history, in memory and in blocks; what they cannot read is refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, PolicyError

METRICS = ["recall@3", "ndcg@3", "mrr", "precision@2", "coverage@3"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), users=st.sampled_from(["truth", "run", "union"]))
def test_slices_are_the_truth_split_by_history(seed, users):
    rng = np.random.default_rng(seed)
    run = {u: {int(i): float(rng.random()) for i in rng.choice(12, 5, replace=False)}
           for u in range(8)}
    truth = {u: {int(i): int(rng.integers(0, 3)) for i in rng.choice(12, 4, replace=False)}
             for u in range(2, 10)}
    train = pd.DataFrame({"user": rng.integers(0, 10, 40), "item": rng.integers(0, 12, 40)})
    seen = set(zip(train["user"].tolist(), train["item"].tolist(), strict=True))
    kw = {"users": users, "train": train, "catalog": list(range(12))}
    res = rv.evaluate(run, truth, METRICS, slices=True, **kw)
    for name, keep in (("repeat", True), ("explore", False)):
        part = {u: {i: r for i, r in items.items() if ((u, i) in seen) == keep}
                for u, items in truth.items()}
        part = {u: items for u, items in part.items() if items}
        if not part:
            continue
        want = rv.evaluate(run, part, METRICS, **kw)
        got = res.slices[name]
        assert str(got.stats) == str(want.stats)  # the same bits (NaN prints alike)
        assert got.counts == want.counts
    blocks = rv.Evaluator(truth, [m for m in METRICS if not m.startswith("coverage")],
                          slices=True, **kw).evaluate_blocks([{u: run[u]} for u in run])
    whole = rv.evaluate(run, truth, [m for m in METRICS if not m.startswith("coverage")],
                        slices=True, **kw)
    for name in whole.slices:
        assert str(blocks.slices[name].stats) == str(whole.slices[name].stats)


def test_one_slice_by_name_and_json():
    train = {1: {"a": 1}}
    run, truth = {1: {"a": 2.0, "b": 1.0}}, {1: {"a": 1, "b": 1}}
    res = rv.evaluate(run, truth, ["recall@1"], train=train, slices="explore")
    assert list(res.slices) == ["explore"]
    assert res.slices["explore"]["recall@1"] == 0.0  # b, new to the user, is at rank 2
    back = rv.EvalResult.from_json(res.to_json())
    assert str(back.slices["explore"].stats) == str(res.slices["explore"].stats)


def test_slices_refuse_what_they_cannot_read():
    run, truth = {1: {"a": 1.0}}, {1: {"a": 1}}
    with pytest.raises(InputError, match="train="):
        rv.evaluate(run, truth, ["mrr"], slices=True)
    for bad in ("both", ["repeat", "repeat"], [], 3):
        with pytest.raises(PolicyError, match="slices="):
            rv.evaluate(run, truth, ["mrr"], slices=bad, train={1: {"a": 1}})
    import scipy.sparse as sp

    with pytest.raises(InputError, match="rows"):
        rv.Evaluator(sp.csr_matrix(np.ones((1, 2))), ["mrr"], slices=True, train={0: {0: 1}})
