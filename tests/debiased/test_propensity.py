"""Propensity-scored metrics against a plain-Python reference written from the formulas
(Jain, Prabhu & Varma, KDD 2016; pyxclib's psprecision / psndcg normalization)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.debiased import jain_propensities


def test_jain_formula_by_hand():
    # N = 100 users, N_l = 10: C = (ln 100 - 1) * 2.5^0.55, 1/p = 1 + C * 11.5^-0.55
    C = (math.log(100) - 1) * 2.5 ** 0.55
    assert jain_propensities(100, np.array([10.0]))[0] == pytest.approx(
        1 / (1 + C * 11.5 ** -0.55), rel=1e-15)
    # A and B are named parameters
    C2 = (math.log(100) - 1) * 3.0 ** 0.6
    assert jain_propensities(100, np.array([0.0]), A=0.6, B=2.0)[0] == pytest.approx(
        1 / (1 + C2 * 2.0 ** -0.6), rel=1e-15)


def reference(kind: str, k: int, run: dict, truth: dict, w: dict) -> tuple[dict, float]:
    num_t = den_t = 0.0
    per = {}
    for u, tr in truth.items():
        ranked = sorted(run.get(u, {}).items(), key=lambda x: (-x[1], x[0]))[:k]
        rel = [i for i, r in tr.items() if r >= 1]
        if not rel:
            continue
        best = sorted((w[i] for i in rel), reverse=True)
        m = min(k, len(rel))
        hits = [(pos, i) for pos, (i, _) in enumerate(ranked, start=1) if tr.get(i, 0) >= 1]
        if kind == "psp":
            num, den = sum(w[i] for _, i in hits), sum(best[:m])
        elif kind == "ips_hit_rate":
            num, den = sum(w[i] for _, i in hits), sum(best)
        else:
            z = sum(1 / math.log2(j + 1) for j in range(1, m + 1))
            num = sum(w[i] / math.log2(pos + 1) for pos, i in hits) / z
            den = sum(b / math.log2(j + 1) for j, b in enumerate(best[:m], start=1)) / z
        per[u] = num / den
        num_t += num
        den_t += den
    return per, num_t / den_t


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("kind", ["psp", "psndcg", "ips_hit_rate"])
def test_against_reference(seed, kind):
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(25)]
    prop = {i: float(rng.uniform(0.05, 1.0)) for i in items}
    run, truth = {}, {}
    for u in range(12):
        chosen = rng.choice(25, size=int(rng.integers(0, 12)), replace=False)
        run[f"u{u}"] = {items[c]: float(rng.normal()) for c in chosen}
        chosen = rng.choice(25, size=int(rng.integers(1, 8)), replace=False)
        truth[f"u{u}"] = {items[c]: int(rng.integers(0, 3)) for c in chosen}
    for k in (1, 3, 10):
        key = f"{kind}@{k}"
        res = rv.evaluate(run, truth, [key], propensities=prop)
        w = {i: 1 / p for i, p in prop.items()}
        per, summary = reference(kind, k, run, truth, w)
        assert res[key] == pytest.approx(summary, rel=1e-12)
        got = dict(zip(res.user_ids, res.user_values(key), strict=True))
        for u, v in per.items():
            assert got[u] == pytest.approx(v, rel=1e-12)


def test_train_estimate_equals_given_propensities():
    train = pd.DataFrame({"user": ["a", "a", "b", "c", "c", "c"],
                          "item": ["x", "y", "x", "x", "z", "y"]})
    counts = {"x": 3, "y": 2, "z": 1, "w": 0}
    p = jain_propensities(3, np.array(list(counts.values()), dtype=float))
    prop = dict(zip(counts, p.tolist(), strict=True))
    run = {"u": {"x": 3, "w": 2, "z": 1}}
    truth = {"u": {"z": 1, "w": 1}}
    keys = ["psp@2", "psndcg@3", "ips_hit_rate@2"]
    a = rv.evaluate(run, truth, keys, train=train)
    b = rv.evaluate(run, truth, keys, propensities=prop)
    for key in keys:
        assert a[key] == pytest.approx(b[key], rel=1e-14)


def test_blocks_merge_the_micro_average():
    rng = np.random.default_rng(9)
    items = [f"i{j}" for j in range(10)]
    prop = {i: float(rng.uniform(0.1, 1.0)) for i in items}
    rows = [(f"u{u}", items[c], float(rng.normal())) for u in range(8)
            for c in rng.choice(10, size=4, replace=False)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame([(f"u{u}", items[c], 1) for u in range(8)
                          for c in rng.choice(10, size=3, replace=False)],
                         columns=["user", "item", "relevance"])
    ev = rv.Evaluator(truth, ["psp@3", "psndcg@3", "ips_hit_rate@3"], propensities=prop)
    whole = ev.evaluate(run)
    users = run["user"].unique()
    parts = ev.evaluate_blocks([run[run["user"].isin(users[:3])], run[run["user"].isin(users[3:])]])
    for key in whole.summary:
        assert parts.summary[key] == whole.summary[key]


def test_missing_propensity_is_an_error():
    with pytest.raises(rv.errors.InputError, match="no propensity"):
        rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1}}, ["psp@1"], propensities={"b": 0.5})
    with pytest.raises(rv.errors.InputError, match="train"):
        rv.evaluate({"u": {"a": 1}}, {"u": {"a": 1}}, ["psp@1"])
