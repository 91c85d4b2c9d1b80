"""Every beyond-accuracy key of the registry (each family at a few cutoffs and every choice of
every parameter, tests/core/cases.py) on random data: values inside the metric's bounds, the same
values whatever the row order of the inputs, and the same values beside a shallower kernel
metric."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases

import receval as rv
from receval.metrics import REGISTRY, load_plugins, parse_metric


def _keys() -> list[str]:
    load_plugins()
    return [k for k in metric_cases(cutoffs=(3, 5), plugins=True)
            if REGISTRY[parse_metric(k).name].family == "beyond"
            and not k.startswith("sufficient_reco(") and k != "sufficient_reco"]


def _data(seed: int):
    rng = np.random.default_rng(seed)
    n_items = 12
    run = pd.DataFrame([(u, i, float(rng.integers(0, 4))) for u in range(15)
                        for i in rng.choice(n_items, rng.integers(1, 8), replace=False)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, float(rng.integers(1, 3))) for u in range(15)
                          for i in rng.choice(n_items, 3, replace=False)],
                         columns=["user", "item", "relevance"])
    train = pd.DataFrame([(u, i) for u in range(20) for i in rng.choice(n_items, 4)],
                         columns=["user", "item"])
    emb = rng.random((n_items, 3))
    # unit rows: sim=dot is documented for normalized embeddings (ILD's lower bound 0 needs it)
    feats = pd.DataFrame(emb / np.linalg.norm(emb, axis=1, keepdims=True), index=range(n_items))
    other = pd.DataFrame([(u, i, rng.random()) for u in range(0, 15, 2)
                          for i in rng.choice(n_items, 5, replace=False)],
                         columns=["user", "item", "score"])
    cats = {i: list(rng.choice(["a", "b", "c", "d"], rng.integers(1, 3), replace=False))
            for i in range(n_items)}
    # two rankings drawn per user (ee_* policy=samples reads them from rankings=)
    draws = pd.DataFrame([(u, s, int(i), r + 1) for u in range(15) for s in range(2)
                          for r, i in enumerate(rng.choice(n_items, rng.integers(1, 6),
                                                           replace=False))],
                         columns=["user", "sample", "item", "rank"])

    def cosine(xa, xb):
        return (xa * xb).sum(axis=1) / np.sqrt((xa * xa).sum(axis=1) * (xb * xb).sum(axis=1))

    return run, truth, {"train": train, "item_features": feats, "baseline_run": other,
                        "item_categories": cats, "similarity": cosine,
                        "item_groups": {i: "ab"[i % 2] for i in range(n_items)},
                        "item_alignment": {i: {"ab"[i % 2]: 1.0, "c": float(i % 3)}
                                           for i in range(n_items)},
                        "group_target": {"a": 1.0, "b": 2.0}, "rankings": draws,
                        "intents": pd.DataFrame({"query": truth["user"], "doc": truth["item"],
                                                 "subtopic": truth["item"] % 3,
                                                 "relevance": truth["relevance"]})}


@pytest.mark.parametrize("seed", range(2))
def test_every_beyond_key_in_bounds_and_order_free(seed):
    keys = _keys()
    assert len(keys) > 40
    run, truth, inputs = _data(seed)
    res = rv.evaluate(run, truth, keys, **inputs)
    shuffled = run.sample(frac=1.0, random_state=seed)
    res2 = rv.evaluate(shuffled, truth, keys, **inputs)
    np.testing.assert_array_equal(res.values, res2.values)
    assert res.summary == res2.summary or all(
        a == b or (a != a and b != b) for a, b in zip(res.summary.values(),
                                                      res2.summary.values(), strict=True))
    mixed = rv.evaluate(run, truth, ["ndcg@2", *keys], **inputs)
    np.testing.assert_array_equal(mixed.values[:, 1:], res.values)
    for j, key in enumerate(res.metrics):
        lo, hi = REGISTRY[parse_metric(key).name].bounds
        col = np.append(res.values[:, j], res.summary[key])
        col = col[~np.isnan(col)]
        assert (col >= lo - 1e-12).all(), key
        if hi is not None:
            assert (col <= hi + 1e-12).all(), key
