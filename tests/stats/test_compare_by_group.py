"""``rv.compare(results, by=groups)``: the paired tests within each group are the comparison's
tests on that group's users alone, corrected over groups x metrics x pairs as one family; the
interaction F test is the one-way ANOVA of the per-user differences by group."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, PolicyError
from receval.report import load
from receval.stats import adjust
from receval.stats.groups import (
    GROUP_PAIR_COLUMNS,
    INTERACTION_COLUMNS,
    GroupComparison,
    anova_f,
    interaction_test,
)

# ---- a worked example: reciprocal ranks chosen by hand ------------------------------------
# user:        1    2    3    4    5    6    7 (no group)
RANK_A = [1, 2, 1, 3, 1, 2, 1]
RANK_B = [2, 2, 3, 1, 1, 1, 2]
GROUPS = {1: "light", 2: "light", 3: "light", 4: "heavy", 5: "heavy", 6: "heavy"}


def _list(rank: int) -> dict[str, float]:
    """A list of three items with the relevant item "t" at ``rank``."""
    others = iter(["x", "y"])
    return {("t" if r == rank else next(others)): float(4 - r) for r in (1, 2, 3)}


def _worked(groups=GROUPS, **kw):
    truth = {u: {"t": 1} for u in range(1, 8)}
    runs = {"A": {u: _list(r) for u, r in zip(range(1, 8), RANK_A, strict=True)},
            "B": {u: _list(r) for u, r in zip(range(1, 8), RANK_B, strict=True)}}
    return {s: rv.evaluate(run, truth, ["mrr"], groups=groups, **kw) for s, run in runs.items()}


def test_worked_example_t_test_per_group_against_scipy():
    res = _worked()
    cmp = rv.compare(res, by=True)
    assert isinstance(cmp, GroupComparison)
    frame = cmp.by_group
    assert list(frame.columns) == list(GROUP_PAIR_COLUMNS)
    rr_a = np.array([1 / r for r in RANK_A])
    rr_b = np.array([1 / r for r in RANK_B])
    # light: d = [1/2, 0, 2/3]; heavy: d = [-2/3, 0, -1/2]
    for label, users in (("light", [0, 1, 2]), ("heavy", [3, 4, 5])):
        row = frame[frame.group == label].iloc[0]
        expected = sps.ttest_rel(rr_a[users], rr_b[users])
        assert row.n == 3
        assert row["diff"] == pytest.approx(np.mean(rr_a[users] - rr_b[users]), abs=1e-15)
        assert row.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert row.p_value == pytest.approx(expected.pvalue, rel=1e-12)
        assert row.note == ""
    light = frame[frame.group == "light"].iloc[0]
    assert light["diff"] == pytest.approx(7 / 18, abs=1e-15)
    # the overall comparison is unchanged by by=: all 7 users
    overall = rv.compare(res)
    assert cmp.pairs == overall.pairs
    assert cmp.counts["groups"]["ungrouped"] == 1  # user 7: counted, tested overall only
    assert cmp.counts["groups"]["sizes"] == {"light": 3, "heavy": 3}


def test_worked_example_interaction_against_f_oneway():
    cmp = rv.compare(_worked(), by=True)
    inter = cmp.interaction
    assert list(inter.columns) == list(INTERACTION_COLUMNS)
    d_light = [1 / 2, 0, 2 / 3]
    d_heavy = [-2 / 3, 0, -1 / 2]
    expected = sps.f_oneway(d_light, d_heavy)
    row = inter.iloc[0]
    assert (row.groups, row.n, row.df_between, row.df_within) == (2, 6, 1, 4)
    assert row.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert row.p_value == pytest.approx(expected.pvalue, rel=1e-12)
    # by hand: means 7/18 and -7/18, SSB = 6 (7/18)^2, SSW = sum of squared deviations
    ssb = 6 * (7 / 18) ** 2
    ssw = sum((x - 7 / 18) ** 2 for x in d_light) + sum((x + 7 / 18) ** 2 for x in d_heavy)
    assert row.statistic == pytest.approx((ssb / 1) / (ssw / 4), rel=1e-12)


def test_groups_input_equals_results_groups():
    with_groups = rv.compare(_worked(), by=True)
    truth = {u: {"t": 1} for u in range(1, 8)}
    runs = {"A": {u: _list(r) for u, r in zip(range(1, 8), RANK_A, strict=True)},
            "B": {u: _list(r) for u, r in zip(range(1, 8), RANK_B, strict=True)}}
    plain = {s: rv.evaluate(run, truth, ["mrr"]) for s, run in runs.items()}
    for by in (GROUPS, pd.Series(GROUPS),
               pd.DataFrame({"user": list(GROUPS), "g": list(GROUPS.values())})):
        given_ = rv.compare(plain, by=by)
        pd.testing.assert_frame_equal(given_.by_group, with_groups.by_group)
        pd.testing.assert_frame_equal(given_.interaction, with_groups.interaction)
        assert given_.counts["groups"]["listed_not_compared"] == 0


# ---- realistic data: every test equals compare() on the group's users alone ---------------
def _data(n_users: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = {u: {int(i): 1 for i in rng.choice(25, 3, replace=False)} for u in range(n_users)}
    runs = {s: {u: {int(i): float(rng.random() + skill * (int(i) in truth[u]))
                    for i in rng.choice(25, 10, replace=False)} for u in range(n_users)}
            for s, skill in (("weak", 0.0), ("mid", 0.4), ("strong", 0.9))}
    groups = {u: ("cold" if u % 3 == 0 else "warm" if u % 3 == 1 else "new")
              for u in range(n_users - 4)}  # the last 4 users: no group
    return truth, runs, groups


METRICS = ["ndcg@5", "recall@5", "mrr"]


@pytest.fixture(scope="module")
def data():
    truth, runs, groups = _data()
    results = {s: rv.evaluate(run, truth, METRICS, groups=groups) for s, run in runs.items()}
    return truth, runs, groups, results


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey"])
def test_each_group_row_is_compare_on_the_group_alone(data, test):
    truth, runs, groups, results = data
    cmp = rv.compare(results, by=True, test=test, n_resamples=500, ci="bootstrap")
    frame = cmp.by_group
    for label in ("cold", "warm", "new"):
        members = {u for u, g in groups.items() if g == label}
        alone = {s: rv.evaluate({u: v for u, v in run.items() if u in members},
                                {u: v for u, v in truth.items() if u in members}, METRICS)
                 for s, run in runs.items()}
        ref = rv.compare(alone, test=test, n_resamples=500, ci="bootstrap").table
        mine = frame[frame.group == label].reset_index(drop=True)
        cols = ["metric", "a", "b", "n", "mean_a", "mean_b", "diff", "ci_low", "ci_high",
                "cohens_d", "wins", "ties", "losses", "statistic", "p_value"]
        pd.testing.assert_frame_equal(mine[cols], ref[cols], check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "by", "hochberg", "sidak",
                                        "holm-sidak", "none"])
def test_correction_over_groups_metrics_and_pairs_is_one_family(data, correction):
    *_, results = data
    cmp = rv.compare(results, by=True, correction=correction, alpha=0.1)
    frame = cmp.by_group
    assert len(frame) == 3 * len(METRICS) * 3  # groups x metrics x pairs
    expected = adjust(frame.p_value.to_numpy(), correction)
    np.testing.assert_array_equal(frame.p_adjusted.to_numpy(), expected)
    np.testing.assert_array_equal(frame.significant.to_numpy(), expected <= 0.1)
    inter = cmp.interaction
    np.testing.assert_array_equal(inter.p_adjusted.to_numpy(),
                                  adjust(inter.p_value.to_numpy(), correction))


def test_interaction_on_real_values_matches_f_oneway(data):
    _, _, groups, results = data
    cmp = rv.compare(results, by=True)
    users = results["weak"].user_ids
    labels = np.array([groups.get(u) for u in users], dtype=object)
    for row in cmp.interaction.itertuples():
        d = results[row.a].user_values(row.metric) - results[row.b].user_values(row.metric)
        samples = [d[(labels == g) & np.isfinite(d)] for g in ("cold", "warm", "new")]
        expected = sps.f_oneway(*samples)
        assert row.statistic == pytest.approx(expected.statistic, rel=1e-10)
        assert row.p_value == pytest.approx(expected.pvalue, rel=1e-10, abs=1e-300)
        assert row.n == sum(len(s) for s in samples)


# ---- the permutation F test against complete enumeration ----------------------------------
def _exact_permutation_p(d: np.ndarray, codes: np.ndarray) -> float:
    """Share of every distinct relabelling (same group sizes) with F >= the observed F."""
    k = codes.max() + 1

    def f(c):
        return sps.f_oneway(*[d[c == g] for g in range(k)]).statistic

    observed = f(codes)
    n = len(d)
    sizes = np.bincount(codes)
    hits = total = 0
    for first in itertools.combinations(range(n), int(sizes[0])):  # k = 2 here
        c = np.ones(n, dtype=np.int64)
        c[list(first)] = 0
        total += 1
        hits += f(c) >= observed * (1 - 1e-12)
    return hits / total


def test_permutation_interaction_converges_to_the_exact_permutation_p():
    d = np.array([0.9, 0.4, 0.7, 0.1, -0.2, 0.3, -0.5, 0.0])
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    exact = _exact_permutation_p(d, codes)  # over C(8, 4) = 70 relabellings
    out = interaction_test(d, codes, 2, method="permutation", n_resamples=20000, seed=3)
    assert out["method"] == "permutation"
    assert abs(out["p_value"] - exact) < 0.01  # Monte Carlo sd ~ 0.0013
    assert out["statistic"] == pytest.approx(sps.f_oneway(d[:4], d[4:]).statistic, rel=1e-12)
    again = interaction_test(d, codes, 2, method="permutation", n_resamples=20000, seed=3)
    assert again == out  # the seed decides


def test_compare_permutation_uses_the_permutation_interaction(data):
    *_, results = data
    cmp = rv.compare(results, by=True, test="permutation", n_resamples=199)
    assert set(cmp.interaction.method) == {"permutation"}
    p = cmp.interaction.p_value.to_numpy()
    assert ((p >= 1 / 200) & (p <= 1)).all()
    assert np.allclose(p * 200, np.round(p * 200))  # (1 + hits) / (B + 1)
    anova = rv.compare(results, by=True, test="permutation", interaction="anova")
    assert set(anova.interaction.method) == {"anova"}


# ---- degenerate and adversarial ------------------------------------------------------------
def test_a_group_of_one_user_has_no_test_and_is_never_significant():
    groups = {**GROUPS, 7: "solo"}
    cmp = rv.compare(_worked(groups=groups), by=True, correction="none", alpha=0.99)
    solo = cmp.by_group[cmp.by_group.group == "solo"].iloc[0]
    assert solo.n == 1 and math.isnan(solo.p_value) and math.isnan(solo.p_adjusted)
    assert not solo.significant
    assert "at least 2 users" in solo.note
    assert solo["diff"] == pytest.approx(1 - 1 / 2)  # the one user's difference, shown
    # the NaN is out of the family: the others are adjusted as a family of 2
    holm = rv.compare(_worked(groups=groups), by=True, correction="holm").by_group
    tested = holm[holm.group != "solo"]
    np.testing.assert_array_equal(tested.p_adjusted, adjust(tested.p_value.to_numpy(), "holm"))
    # the interaction keeps the solo group (one user adds no within-group variation)
    row = cmp.interaction.iloc[0]
    assert (row.groups, row.n, row.df_within) == (3, 7, 4)


def test_interaction_without_two_groups_or_within_variation_is_nan():
    one = rv.compare(_worked(groups={u: "all" for u in range(1, 8)}), by=True).interaction
    assert math.isnan(one.p_value[0]) and "at least 2" in one.note[0] and not one.significant[0]
    singles = anova_f(np.array([0.1, 0.2, 0.3]), np.array([0, 1, 2]), 3)
    assert math.isnan(singles["p_value"]) and "N - k = 0" in singles["note"]
    empty_group = anova_f(np.array([0.1, 0.2, 0.3, 0.5]), np.array([0, 0, 2, 2]), 3)
    assert empty_group["groups"] == 2 and "1 group(s) without" in empty_group["note"]
    assert empty_group["statistic"] == pytest.approx(
        sps.f_oneway([0.1, 0.2], [0.3, 0.5]).statistic, rel=1e-12)


def test_constant_differences_follow_the_documented_convention():
    same = anova_f(np.array([0.5, 0.5, 0.5, 0.5]), np.array([0, 0, 1, 1]), 2)
    assert (same["statistic"], same["p_value"]) == (0.0, 1.0)
    apart = anova_f(np.array([0.5, 0.5, 0.1, 0.1]), np.array([0, 0, 1, 1]), 2)
    assert (apart["statistic"], apart["p_value"]) == (math.inf, 0.0)


def test_listed_users_not_compared_and_ungrouped_users_are_counted():
    truth = {u: {"t": 1} for u in range(1, 8)}
    runs = {"A": {u: _list(r) for u, r in zip(range(1, 8), RANK_A, strict=True)},
            "B": {u: _list(r) for u, r in zip(range(1, 8), RANK_B, strict=True)}}
    plain = {s: rv.evaluate(run, truth, ["mrr"]) for s, run in runs.items()}
    cmp = rv.compare(plain, by={**GROUPS, 99: "light", 100: "other"})
    assert cmp.counts["groups"]["listed_not_compared"] == 2
    assert cmp.counts["groups"]["ungrouped"] == 1
    other = cmp.by_group[cmp.by_group.group == "other"].iloc[0]
    assert other.n == 0 and math.isnan(other.p_value) and "no compared user" in other.note


def test_unknown_or_mismatched_by_is_refused():
    res = _worked()
    with pytest.raises(PolicyError, match="by='cohorts'"):
        rv.compare(res, by="cohorts")
    with pytest.raises(PolicyError, match="by=False"):
        rv.compare(res, by=False)
    with pytest.raises(PolicyError, match="interaction='welch'"):
        rv.compare(res, by=True, interaction="welch")
    with pytest.raises(InputError, match="none of the 7 compared users"):
        rv.compare(res, by={str(u): g for u, g in GROUPS.items()})  # "1" is not user 1
    truth = {u: {"t": 1} for u in range(1, 8)}
    plain = {s: rv.evaluate({u: _list(1) for u in range(1, 8)}, truth, ["mrr"]) for s in "AB"}
    with pytest.raises(InputError, match="evaluated without groups"):
        rv.compare(plain, by=True)
    other = dict(res)
    other["B"] = _worked(groups={**GROUPS, 1: "heavy"})["B"]
    with pytest.raises(InputError, match="different groups"):
        rv.compare(other, by=True)
    with pytest.raises(InputError, match="group_col"):
        rv.compare(res, by=pd.DataFrame({"user": [1], "a": ["x"], "b": ["y"]}))


def test_mismatched_users_need_intersection_and_then_test_the_shared_users():
    res = _worked()
    truth = {u: {"t": 1} for u in range(1, 6)}
    fewer = rv.evaluate({u: _list(r) for u, r in zip(range(1, 6), RANK_B, strict=False)},
                        truth, ["mrr"], groups=GROUPS)
    with pytest.raises(InputError, match="different users"):
        rv.compare({"A": res["A"], "B": fewer}, by=True)
    cmp = rv.compare({"A": res["A"], "B": fewer}, by=True, users="intersection")
    sizes = cmp.counts["groups"]["sizes"]
    assert sizes == {"light": 3, "heavy": 2}
    heavy = cmp.by_group[cmp.by_group.group == "heavy"].iloc[0]
    rr_a, rr_b = np.array([1 / 3, 1.0]), np.array([1.0, 1.0])
    assert heavy.p_value == pytest.approx(sps.ttest_rel(rr_a, rr_b).pvalue, rel=1e-12)


def test_skipped_users_are_counted_per_group():
    truth = {u: {"t": 1} for u in range(1, 7)}
    truth[7] = {"t": 0}  # no relevant item: skipped
    truth[2] = {"t": 0}
    runs = {"A": {u: _list(r) for u, r in zip(range(1, 8), RANK_A, strict=True)},
            "B": {u: _list(r) for u, r in zip(range(1, 8), RANK_B, strict=True)}}
    res = {s: rv.evaluate(run, truth, ["mrr"], groups=GROUPS) for s, run in runs.items()}
    cmp = rv.compare(res, by=True)
    assert cmp.counts["groups"]["nan_dropped"]["mrr"] == {"light": 1, "heavy": 0}
    light = cmp.by_group[cmp.by_group.group == "light"].iloc[0]
    assert light.n == 2


def test_json_round_trip_keeps_the_group_tests():
    cmp = rv.compare(_worked(groups={**GROUPS, 7: "solo"}), by=True)
    for back in (GroupComparison.from_json(cmp.to_json()), load(cmp.to_json())):
        assert isinstance(back, GroupComparison)
        pd.testing.assert_frame_equal(back.by_group, cmp.by_group)
        pd.testing.assert_frame_equal(back.interaction, cmp.interaction)
        assert back.groups == cmp.groups
        assert back.pairs == cmp.pairs


def test_group_columns_without_by_are_refused():
    with pytest.raises(PolicyError, match="group_col= and user_col="):
        rv.compare(_worked(), group_col="country")


# ---- property: every tested row is scipy's paired t-test on the group's values -------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 3), min_size=8, max_size=20), st.integers(0, 10**6))
def test_t_rows_equal_ttest_rel_for_any_grouping(labels, seed):
    rng = np.random.default_rng(seed)
    n = len(labels)
    truth = {u: {"t": 1} for u in range(n)}
    runs = {s: {u: _list(int(rng.integers(1, 4))) for u in range(n)} for s in "AB"}
    res = {s: rv.evaluate(run, truth, ["mrr"]) for s, run in runs.items()}
    by = {u: f"g{g}" for u, g in enumerate(labels) if g < 3}  # label 3: no group
    if not by:
        return
    cmp = rv.compare(res, by=by, correction="bonferroni")
    a, b = res["A"].user_values("mrr"), res["B"].user_values("mrr")
    users = list(res["A"].user_ids)
    for row in cmp.by_group.itertuples():
        idx = [users.index(u) for u, g in by.items() if g == row.group]
        assert row.n == len(idx)
        if len(idx) < 2:
            assert math.isnan(row.p_value) and not row.significant
            continue
        d = a[idx] - b[idx]
        if np.ptp(d) == 0:  # scipy: NaN; receval: the documented constant convention
            assert row.p_value == (1.0 if d[0] == 0 else 0.0)
        else:
            expected = sps.ttest_rel(a[idx], b[idx]).pvalue
            assert row.p_value == pytest.approx(expected, rel=1e-10)
    tested = cmp.by_group.p_value.notna()
    m = int(tested.sum())
    np.testing.assert_allclose(cmp.by_group.p_adjusted[tested],
                               np.minimum(1, m * cmp.by_group.p_value[tested]), rtol=1e-15)


def test_a_pairs_permutation_interaction_does_not_depend_on_the_other_pairs(data):
    *_, results = data
    every = rv.compare(results, by=True, test="permutation", n_resamples=300).interaction
    two = rv.compare({s: results[s] for s in ("weak", "strong")}, by=True,
                     test="permutation", n_resamples=300).interaction
    mine = every[(every.a == "weak") & (every.b == "strong")].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, two.reset_index(drop=True))


def _anova_oracle(d: list[float], codes: list[int]) -> tuple[float, int, int]:
    """F, df between, df within from the module docstring's formulas, loop by loop."""
    groups: dict[int, list[float]] = {}
    for x, c in zip(d, codes, strict=True):
        groups.setdefault(c, []).append(x)
    n, k = len(d), len(groups)
    grand = sum(d) / n
    ssb = sum(len(v) * (sum(v) / len(v) - grand) ** 2 for v in groups.values())
    ssw = sum((x - sum(v) / len(v)) ** 2 for v in groups.values() for x in v)
    return (ssb / (k - 1)) / (ssw / (n - k)), k - 1, n - k


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1, allow_nan=False), st.integers(0, 4)),
                min_size=3, max_size=40))
def test_anova_f_equals_the_formula_and_f_oneway(pairs):
    d = np.array([x for x, _ in pairs])
    codes = np.array([c for _, c in pairs])
    out = anova_f(d, codes, 5)
    k = len(set(codes.tolist()))
    if k < 2 or len(d) - k < 1:
        assert math.isnan(out["p_value"]) and out["note"].startswith("no test")
        return
    within_constant = all(np.ptp(d[codes == g]) == 0 for g in set(codes.tolist()))
    if within_constant:
        assert out["p_value"] in (0.0, 1.0)
        return
    spread = sum(float(np.ptp(d[codes == g])) for g in set(codes.tolist()))
    if spread < 1e-6:  # SSW of rounding size: F is ill-conditioned, no digits to compare
        return
    f, df1, df2 = _anova_oracle(d.tolist(), codes.tolist())
    assert (out["df_between"], out["df_within"]) == (df1, df2)
    assert out["statistic"] == pytest.approx(f, rel=1e-9, abs=1e-12)
    samples = [d[codes == g] for g in sorted(set(codes.tolist()))]
    with warnings.catch_warnings():  # scipy warns on nearly constant groups; values compared
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = sps.f_oneway(*samples).pvalue
    assert out["p_value"] == pytest.approx(expected, rel=1e-8, abs=1e-12)
