"""Interleaving: published fixtures, construction invariants, exact probabilistic credit,
fidelity, analysis cross-checked with scipy."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from receval.errors import InputError
from receval.online import interleave as il


@pytest.mark.parametrize("clicks,winner", [([1, 1, 1], -1), ([1, 1, 0], 0), ([1, 0, 0], 1),
                                           ([0, 0, 1], -1)])
def test_team_draft_credit_fixture(clicks, winner):
    # merged [1, 3, 4], teams A: [1], B: [3, 4]
    c = il.credit_team_draft(np.array([[0, 1, 1]]), np.array([clicks]))
    assert np.sign(c[0, 0] - c[0, 1]) == winner


def test_balanced_outcome_fixtures():
    merged, a, b = np.array([[1, 2]] * 3), np.array([[1, 2]] * 3), np.array([[2, 3]] * 3)
    out = il.outcome_balanced(merged, a, b, np.array([[1, 0], [0, 1], [1, 1]]))
    assert out.tolist() == [1, -1, 0]
    A, B, M = [np.array([x] * 2) for x in ([1, 2, 3, 4, 5], [4, 3, 5, 1, 2], [1, 4, 2, 3, 5])]
    assert il.outcome_balanced(M, A, B, np.array([[1, 0, 1, 0, 0], [0, 1, 0, 1, 0]])).tolist() == [1, -1]


def test_team_draft_possible_lists_fixture():
    seen_ab, seen_cd = set(), set()
    for s in range(60):
        seen_ab.add(tuple(il.team_draft([np.array([[1, 2]]), np.array([[2, 3]])], 3, rng=s)[0][0]))
        seen_cd.add(tuple(il.team_draft([np.array([[1, 2]]), np.array([[3, 4]])], 3, rng=s)[0][0]))
    assert seen_ab == {(1, 2, 3), (2, 1, 3)}
    assert seen_cd == {(1, 3, 2), (1, 3, 4), (3, 1, 2), (3, 1, 4)}


@pytest.mark.parametrize("m", [2, 3, 4])
def test_team_draft_invariants(m):
    rng = np.random.default_rng(m)
    lists = [np.stack([rng.permutation(30)[:12] for _ in range(200)]) for _ in range(m)]
    items, teams = il.team_draft(lists, 10, rng=1)
    for u in range(200):
        row = items[u]
        assert len(set(row.tolist())) == 10 and (row >= 0).all()
        counts = np.bincount(teams[u], minlength=m)
        assert counts.max() - counts.min() <= 1
        for j in range(m):  # each team's picks appear in its ranking's order
            picked = row[teams[u] == j]
            pos = [list(lists[j][u]).index(x) for x in picked]
            assert pos == sorted(pos)
            assert all(x in lists[j][u] for x in picked)


def test_probabilistic_outcome_matches_enumeration():
    rng = np.random.default_rng(0)
    a = np.stack([rng.permutation(8) for _ in range(40)])
    b = np.stack([rng.permutation(8) for _ in range(40)])
    items, p_a = il.probabilistic([a, b], 5, tau=3.0, rng=2)
    clicks = rng.random(items.shape) < 0.4
    got = il.outcome_probabilistic(p_a, clicks)
    for u in range(40):   # brute force over the 2^5 assignments
        exp = 0.0
        for assign in itertools.product([0, 1], repeat=5):
            pr = np.prod([p_a[u, j] if s == 0 else 1 - p_a[u, j] for j, s in enumerate(assign)])
            ca = sum(clicks[u, j] and s == 0 for j, s in enumerate(assign))
            cb = sum(clicks[u, j] and s == 1 for j, s in enumerate(assign))
            exp += pr * np.sign(ca - cb)
        assert got[u] == pytest.approx(exp, abs=1e-12)
    # the posterior of slot l is P_A(d) / (P_A(d) + P_B(d)) over the items not yet shown
    w = 1 / np.arange(1, 9) ** 3.0
    u = 0
    ra, rb = w / w.sum(), w / w.sum()
    ia, ib = list(a[u]), list(b[u])
    pa_d = ra[ia.index(items[u, 0])]
    pb_d = rb[ib.index(items[u, 0])]
    assert p_a[u, 0] == pytest.approx(pa_d / (pa_d + pb_d))


def test_analyze_outcomes_worked_example_and_scipy():
    out = np.array([1] * 560 + [-1] * 440 + [0] * 200)
    r = il.analyze_outcomes(np.arange(1200), out, aggregate="impression").rows[0]
    assert r["delta"] == pytest.approx(0.05, abs=1e-12)
    assert r["p_sign"] == pytest.approx(1.650e-4, rel=1e-3)
    assert r["p_sign"] == pytest.approx(stats.binomtest(560, 1000).pvalue, rel=1e-12)
    assert r["p_t"] == pytest.approx(1.425e-4, rel=1e-3)
    assert r["ci_low"] < 0.05 < r["ci_high"]


def test_unit_aggregation_counts_each_unit_once():
    unit = ["a"] * 10 + ["b", "c"]
    out = [1] * 10 + [-1, -1]
    agg = il.analyze_outcomes(unit, out).rows[0]
    imp = il.analyze_outcomes(unit, out, aggregate="impression").rows[0]
    assert (agg["wins"], agg["losses"], agg["n"]) == (1, 2, 3)
    assert (imp["wins"], imp["losses"]) == (10, 2)


def test_analyze_log_two_and_multileave_with_correction():
    rng = np.random.default_rng(0)
    rows = []
    for u in range(300):
        for imp in range(2):
            for t in ("x", "y", "z"):
                rows.append((u, imp, t, float(rng.random() < {"x": .5, "y": .3, "z": .3}[t])))
    df = pd.DataFrame(rows, columns=["user_id", "impression_id", "team", "click"])
    res = il.analyze(df, correction="bonferroni")
    assert [r["pair"] for r in res.rows] == ["x vs y", "x vs z", "y vs z"]
    assert res.row("x vs y")["delta"] > 0.05
    for r in res.rows:
        assert r["p_adjusted"] == pytest.approx(min(1, 3 * r["p_sign"]))
    two = il.analyze(df[df["team"] != "z"])
    assert two.rows[0]["delta"] == pytest.approx(res.rows[0]["delta"])
    with pytest.raises(InputError, match="no column 'clicks'"):
        il.analyze(df, credit="clicks")


def test_aa_fidelity_team_draft_unbiased_balanced_biased_on_shifted_lists():
    a = np.tile(np.arange(10), (4000, 1))
    b = np.tile(np.arange(1, 11), (4000, 1))
    td = il.aa_check([a, b], method="team_draft", rng=1).rows[0]
    bal = il.aa_check([a, b], method="balanced", rng=1).rows[0]
    assert td["ci_low"] <= 0 <= td["ci_high"]
    assert bal["ci_high"] < 0   # Joachims' balanced interleaving favours the shifted list


def test_rankings_from_runs():
    r1 = pd.DataFrame({"user": ["u", "u", "v"], "item": ["a", "b", "a"], "score": [1, 2, 3.0]})
    r2 = pd.DataFrame({"user": ["u", "v"], "item": ["c", "b"], "score": [1, 1.0]})
    users, items, (x, y) = il.rankings_from_runs({"one": r1, "two": r2}, 2)
    assert users.tolist() == ["u", "v"]
    assert [items[i] for i in x[0]] == ["b", "a"]
    assert x[1, 1] == -1 and [items[i] for i in y[:, 0]] == ["c", "b"]
