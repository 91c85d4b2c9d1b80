"""Every plugin metric family on the edge cases of its domain, and messages without numpy reprs.

The families are those of the registry with a ``compute`` (every plugin family: beyond,
classification, rating, debiased, trec), each with every choice of each parameter (one at a
time, at no cutoff and at k = 2 and 10). On edge data (a truth user without a list, lists
longer than the truth, tied scores (probabilities), a one-item list, a run-only user) under each ``users``
policy, each key either gives per-user values inside its declared bounds or a receval error whose
message writes values as users do (no ``np.float64(...)``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.beyond import as_item_features, unrepeated_reco
from receval.errors import RecevalError
from receval.metrics import REGISTRY, load_plugins, metric

load_plugins()

PLUGIN_FAMILIES = sorted(n for n, d in REGISTRY.items() if d.compute is not None)
#: a value inside the range of each numeric parameter, other than its default
NUMERIC = {"rel": 2.0, "p": 0.5, "head": 0.5, "tail_max": 0.3, "top": 2, "A": 0.7, "B": 1.0,
           "eps": 1e-6, "mult": 2.0, "a": 2.0, "b": -0.5, "c": 0.5, "d": 0.5, "n_docs": 20.0,
           "catalog": 30}


#: the parameters a family needs given (no default): the item group of _data's item_groups
REQUIRED = {"group": "p"}


def _keys(name: str) -> list[str]:
    d = REGISTRY[name]
    ks = [None] if d.cutoff == "none" else [None, 2, 10]
    need = {p.name: REQUIRED[p.name] for p in d.params if p.name in REQUIRED}
    out = [metric(name, k, **need).key for k in ks]
    k = ks[-1]
    for p in d.params:
        values = [c for c in p.choices or () if c != p.default]
        if p.choices is None and p.name in NUMERIC:
            values = [NUMERIC[p.name]]
        out += [metric(name, k, **{**need, p.name: v}).key for v in values]
    return list(dict.fromkeys(out))


def _data():
    run = pd.DataFrame({"user": ["u1"] * 6 + ["u2"] + ["u3"] * 2,
                        "item": ["a", "b", "c", "d", "e", "f", "a", "b", "c"],
                        "score": [0.5, 0.4, 0.4, 0.4, 0.2, 0.1, 0.1, 0.2, 0.1]})
    truth = pd.DataFrame({"user": ["u0", "u1", "u1", "u2", "u4"],
                          "item": ["a", "b", "x", "b", "c"], "relevance": [1, 1, 2, 1, 1]})
    train = pd.DataFrame({"user": ["t1", "t2", "t3", "t1", "u1"],
                          "item": ["a", "b", "a", "c", "x"], "rating": [1, 2, 3, 4, 5]})
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(7, 3))
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)  # sim=dot is for unit vectors
    feats = dict(zip("abcdefx", vecs, strict=True))
    cats = {i: [f"g{j % 3}"] for j, i in enumerate("abcdefx")}
    baseline = run.iloc[::-1].reset_index(drop=True)
    groups = {i: "pq"[j % 2] for j, i in enumerate("abcdefx")}
    intents = pd.DataFrame({"query": ["u1", "u1", "u1", "u2", "u4"],
                            "doc": ["b", "x", "a", "b", "c"], "subtopic": [1, 2, 2, 1, 1],
                            "relevance": [1, 2, 1, 1, 1]})  # subtopic judgments
    return run, truth, dict(train=train, item_features=feats, item_categories=cats,
                            baseline_run=baseline, catalog=30, item_groups=groups,
                            intents=intents)


def test_every_plugin_family_is_here():
    assert len(PLUGIN_FAMILIES) >= 40
    assert {"tn", "gauc", "psp", "ild", "coverage", "mae"} <= set(PLUGIN_FAMILIES)


@pytest.mark.parametrize("name", PLUGIN_FAMILIES)
def test_edge_cases_stay_in_bounds_or_fail_plainly(name):
    run, truth, opts = _data()
    lo, hi = REGISTRY[name].bounds
    ran = 0
    for key in _keys(name):
        for users in ("truth", "union", "run"):
            for ties in ("id", "average"):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = rv.evaluate(run, truth, [key], users=users, ties=ties, **opts)
                except RecevalError as exc:
                    assert "np." not in str(exc), (key, str(exc))
                    continue
                ran += 1
                vals = res.values[:, 0]
                vals = vals[~np.isnan(vals)]
                assert (vals >= lo - 1e-12).all(), (key, users, ties, vals)
                assert hi is None or (vals <= hi + 1e-12).all(), (key, users, ties, vals)
    assert ran, name  # each family runs on this data for some parameter choice


def test_messages_write_numpy_values_plainly():
    with pytest.raises(RecevalError) as exc:
        unrepeated_reco(pd.DataFrame({"user": [1], "item": [2], "score": [1.0]}), np.int64(0))
    assert "got 0." in str(exc.value)
    with pytest.raises(RecevalError) as exc:
        as_item_features({np.int64(7): [1, 2], np.int64(8): [3, 4]})
    assert "item 7 is a list of integers ([1, 2])" in str(exc.value)
    with pytest.raises(RecevalError) as exc:
        as_item_features({np.int64(7): np.float64(1.5)})
    msg = str(exc.value)
    assert "(1.5) for item 7." in msg and "np." not in msg
