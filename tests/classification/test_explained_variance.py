"""explained_variance against its formula and scikit-learn's explained_variance_score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def test_by_hand():
    # ratings (1, 2, 3), predictions (2, 3, 4): a constant bias explains everything
    run = {"u": {"a": 2.0, "b": 3.0, "c": 4.0}}
    truth = {"u": {"a": 1, "b": 2, "c": 3}}
    res = rv.evaluate(run, truth, ["explained_variance", "r2"])
    assert res["explained_variance"] == 1.0
    assert res["r2"] == 1 - 3 / 2  # R^2 penalizes the bias: 1 - 3 / 2


@pytest.mark.parametrize("seed", range(4))
def test_matches_sklearn_micro_and_macro(seed):
    rng = np.random.default_rng(seed)
    rows = [(f"u{u}", f"i{i}") for u in range(7) for i in rng.choice(30, 6, replace=False)]
    t = rng.integers(1, 6, len(rows)).astype(float)
    p = t + rng.normal(0, 1, len(rows)) + rng.normal()
    run = pd.DataFrame({"user": [r[0] for r in rows], "item": [r[1] for r in rows], "score": p})
    truth = pd.DataFrame({"user": [r[0] for r in rows], "item": [r[1] for r in rows],
                          "relevance": t})
    res = rv.evaluate(run, truth, ["explained_variance", "explained_variance(average=macro)"])
    ev = sklearn_metrics.explained_variance_score
    assert res["explained_variance"] == pytest.approx(ev(t, p), rel=1e-12)
    users = run["user"].to_numpy()
    macro = np.mean([ev(t[users == u], p[users == u]) for u in pd.unique(users)])
    assert res["explained_variance(average=macro)"] == pytest.approx(macro, rel=1e-12)
