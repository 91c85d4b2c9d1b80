"""``groups=``: each group's summary is that of its users evaluated alone, in memory and in
blocks, for every users policy; the reader refuses what it cannot read; gaps and
distributions from their formulas."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, PolicyError
from receval.io.groups import read_groups
from receval.results.groups import gini

METRICS = ["ndcg@3", "precision@2", "recall@5", "mrr", "map", "hit_rate@2", "coverage@3",
           "first_hit_rank", "ndcg@3(gain=exp)", "tail_share@3"]


def _data(seed: int, n_users: int = 12):
    rng = np.random.default_rng(seed)
    run, truth = {}, {}
    for u in range(n_users):
        if rng.random() < 0.85:
            items = rng.choice(15, int(rng.integers(1, 7)), replace=False)
            run[u] = {int(i): float(rng.integers(0, 4)) for i in items}  # ties
    for u in range(2, n_users + 3):
        if rng.random() < 0.85:
            items = rng.choice(15, int(rng.integers(1, 4)), replace=False)
            truth[u] = {int(i): int(rng.integers(0, 3)) for i in items}  # graded, some 0
    if not truth:
        truth[0] = {1: 1}
    train = pd.DataFrame({"user": rng.integers(0, n_users, 60),
                          "item": rng.integers(0, 15, 60)})
    return run, truth, train


def _alone(run, truth, members, metrics, **kw):
    with warnings.catch_warnings():  # a group without a list or a common user: as evaluated
        warnings.simplefilter("ignore", rv.errors.EmptyRunWarning)
        warnings.simplefilter("ignore", rv.errors.NoCommonUsersWarning)
        return _evaluate(run, truth, members, metrics, **kw)


def _evaluate(run, truth, members, metrics, **kw):
    return rv.evaluate({u: v for u, v in run.items() if u in members},
                       {u: v for u, v in truth.items() if u in members}, metrics, **kw)


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)


def _check(res, run, truth, groups, metrics, **kw):
    labels = sorted(set(groups.values()), key=str)
    for label in labels:
        members = {u for u, g in groups.items() if g == label}
        rows = [r for r in res.group_stats if r["group"] == str(label)]
        if not any(u in truth for u in members):  # no truth: nothing to evaluate alone
            continue
        alone = _alone(run, truth, members, metrics, **kw)
        assert len(rows) == len(alone.stats)
        for row, st_ in zip(rows, alone.stats, strict=True):
            assert row["metric"] == st_["metric"]
            for field in ("mean", "std", "se"):
                assert _same(row[field], st_[field]), (label, row, st_)
            assert row["n"] == st_["n"] and row["skipped"] == st_["skipped"], (row, st_)
            assert row["users"] == len(alone.user_ids)
            assert row["missing_from_run"] == alone.counts["missing_from_run"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), users=st.sampled_from(["truth", "run", "intersection",
                                                           "union"]),
       n_groups=st.integers(1, 4), empty=st.sampled_from(["skip", "zero"]))
def test_by_group_is_each_group_evaluated_alone(seed, users, n_groups, empty):
    run, truth, train = _data(seed)
    rng = np.random.default_rng(seed + 1)
    every = sorted(set(run) | set(truth))
    groups = {u: f"g{int(rng.integers(0, n_groups))}" for u in every if rng.random() < 0.9}
    if not groups:
        groups = {every[0]: "g0"}
    # catalogue metrics read the evaluation's catalogue: the same for every group
    catalog = sorted(set(train["item"].tolist()) | {i for d in (run, truth) for v in d.values()
                                                     for i in v})
    kw = {"users": users, "empty_truth": empty, "train": train, "catalog": catalog}
    res = rv.evaluate(run, truth, METRICS, groups=groups, **kw)
    _check(res, run, truth, groups, METRICS, **kw)
    # blocks of whole users: the same bits
    order = sorted(run)
    blocks = [{u: run[u] for u in order[i:i + 3]} for i in range(0, len(order), 3)]
    kernel_only = [m for m in METRICS if not m.startswith(("coverage", "tail_share"))]
    whole = rv.evaluate(run, truth, kernel_only, groups=groups, **kw)
    _check(whole, run, truth, groups, kernel_only, **kw)  # the states read from the values
    streamed = rv.Evaluator(truth, kernel_only, groups=groups, **kw).evaluate_blocks(blocks)
    assert len(whole.group_stats) == len(streamed.group_stats)
    for a, b in zip(whole.group_stats, streamed.group_stats, strict=True):
        assert a.keys() == b.keys()
        assert all(_same(a[k], b[k]) for k in a), (a, b)
    ungrouped = sum(1 for u in whole.user_ids.tolist() if u not in groups)
    assert whole.info["groups"]["ungrouped"] == ungrouped
    assert sum(whole.info["groups"]["sizes"].values()) + ungrouped == len(whole.user_ids)


def test_a_group_reads_the_whole_evaluations_catalogue():
    # coverage of a group: the distinct items of its lists over the catalogue of the whole
    # evaluation (train + truth + run items by default), not over the group's own items
    run = {1: {"a": 1.0, "b": 0.5}, 2: {"c": 1.0}, 3: {"a": 1.0}}
    truth = {1: {"a": 1}, 2: {"d": 1}, 3: {"e": 1}}
    res = rv.evaluate(run, truth, ["coverage"], groups={1: "x", 2: "y", 3: "y"})
    frame = res.by_group.set_index("group")
    assert frame.loc["x", "mean"] == 2 / 5  # a, b of {a, b, c, d, e}
    assert frame.loc["y", "mean"] == 2 / 5  # c, a
    assert res["coverage"] == 3 / 5


def test_groups_of_several_columns_are_their_intersections():
    run, truth, _ = _data(3)
    users = sorted(set(run) | set(truth))
    table = pd.DataFrame({"user_id": users, "country": ["FR" if u % 2 else "DE" for u in users],
                          "device": ["mobile" if u % 3 else "web" for u in users]})
    res = rv.evaluate(run, truth, ["ndcg@3"], groups=table, group_col=["country", "device"])
    labels = {r["group"] for r in res.group_stats}
    assert labels <= {"FR & mobile", "FR & web", "DE & mobile", "DE & web"}
    groups = {u: f"{c} & {d}" for u, c, d in table.itertuples(index=False)}
    _check(res, run, truth, groups, ["ndcg@3"])
    assert res.info["groups"]["columns"] == ["country", "device"]


def test_group_forms_read_alike():
    run, truth, _ = _data(5)
    users = sorted(set(run) | set(truth))
    mapping = {u: "a" if u < 6 else "b" for u in users}
    series = pd.Series(mapping, name="half")
    table = pd.DataFrame({"user": list(mapping), "half": list(mapping.values())})
    results = [rv.evaluate(run, truth, ["ndcg@3", "mrr"], groups=g)
               for g in (mapping, series, table, {"user": table["user"].tolist(),
                                                  "half": table["half"].tolist()})]
    for other in results[1:]:
        assert other.group_stats == results[0].group_stats


def test_reader_refuses_what_it_cannot_read():
    with pytest.raises(InputError, match="missing label"):
        read_groups({1: "a", 2: None})
    with pytest.raises(InputError, match="two groups"):
        read_groups(pd.DataFrame({"user": [1, 1], "g": ["a", "b"]}))
    with pytest.raises(InputError, match="group_col"):
        read_groups(pd.DataFrame({"user": [1], "g": ["a"], "h": ["b"]}))
    with pytest.raises(InputError, match="no such group column"):
        read_groups(pd.DataFrame({"user": [1], "g": ["a"]}), group_col="country")
    with pytest.raises(InputError, match="empty"):
        read_groups({})
    with pytest.raises(InputError, match="one length"):
        read_groups({1: ("a", "b"), 2: ("a",)})
    with pytest.raises(InputError, match="give groups="):
        rv.Evaluator({1: {1: 1}}, ["ndcg@3"], group_col="g")
    with pytest.raises(InputError, match="missing label"):
        read_groups(pd.DataFrame({"user": [1, 2], "g": ["a", np.nan]}))
    # a user listed twice in one group is one user
    m = read_groups(pd.DataFrame({"user": [1, 1, 2], "g": ["a", "a", "b"]}))
    assert m.users.tolist() == [1, 2] and m.labels == ("a", "b")


@pytest.mark.parametrize("label", [["a"], {"a": 1}, {"a"}])
@pytest.mark.parametrize("what", ["user", "item"])
def test_a_label_that_is_not_one_group_is_refused_naming_the_id(label, what):
    # before, pandas' TypeError (unhashable type) came out, naming neither the id nor the fix
    role = "groups" if what == "user" else "item_groups"
    mapping = {1: "x", 2: label, 3: "y"}
    table = pd.DataFrame({what: [1, 2, 3], "g": ["x", label, "y"]})
    for form in (mapping, table):
        with pytest.raises(InputError, match=rf"{role}: .*id 2 the label .*one label per id"):
            read_groups(form, what=what)
    if what == "item":
        with pytest.raises(InputError, match="item_alignment="):
            read_groups(mapping, what="item")
    run = pd.DataFrame({"user": [1, 1, 2, 3], "item": [1, 2, 3, 1], "score": [2.0, 1, 1, 1]})
    with pytest.raises(InputError, match=role):
        rv.evaluate(run, run[["user", "item"]], ["exposure_share@2(group=x)"]
                    if what == "item" else ["ndcg@2"], **{role: mapping})


def test_result_without_groups_says_so():
    res = rv.evaluate({1: {1: 1.0}}, {1: {1: 1}}, ["ndcg@3"])
    for call in (lambda: res.by_group, lambda: res.gap("ndcg@3")):
        with pytest.raises(InputError, match="groups="):
            call()


def _two_groups():
    # group a: users 1..4 with reciprocal ranks 1, 1, 1/2, 0 (mean 5/8); group b: users
    # 5..8 with 1/2, 0, 0, 0 (mean 1/8)
    truth = {u: {"x": 1} for u in range(1, 9)}
    first = {1: ["x"], 2: ["x"], 3: ["y", "x"], 4: ["y"], 5: ["y", "x"], 6: ["y"], 7: ["y"],
             8: ["y"]}
    run = {u: {i: float(10 - r) for r, i in enumerate(items)} for u, items in first.items()}
    groups = {u: "a" if u <= 4 else "b" for u in range(1, 9)}
    return rv.evaluate(run, truth, ["mrr", "first_hit_rank", "coverage@2"], groups=groups)


def test_gap_values_from_their_formulas():
    res = _two_groups()
    frame = res.by_group.set_index(["group", "metric"])
    assert frame.loc[("a", "mrr"), "mean"] == 5 / 8
    assert frame.loc[("b", "mrr"), "mean"] == 1 / 8
    assert res.gap("mrr")["value"] == 5 / 8 - 1 / 8
    assert res.gap("mrr", "ratio")["value"] == (1 / 8) / (5 / 8)
    worst = res.gap("mrr", "worst")
    assert worst["value"] == 1 / 8 and worst["worst"] == "b" and worst["best"] == "a"
    means = np.array([5 / 8, 1 / 8])
    assert math.isclose(res.gap("mrr", "cv")["value"], means.std() / means.mean())
    # first_hit_rank: lower is better; a's ranks 1, 1, 2 (mean 4/3), b's 2: the worst is b's 2
    fhr = res.gap("first_hit_rank", "worst")
    assert fhr["value"] == 2.0 and fhr["worst"] == "b"
    g = res.gap("mrr", n_resamples=500)
    assert g["ci_low"] <= g["value"] <= g["ci_high"]
    # the same seed, the same interval
    assert res.gap("mrr", n_resamples=500) == g
    # a catalogue-wide value has no per-user values: the gap, no interval, and the reason
    cov = res.gap("coverage@2")
    assert cov["value"] == cov["value"] and cov["ci_low"] != cov["ci_low"]
    assert "catalogue-wide" in cov["note"]


def test_gap_refuses_bad_arguments_and_single_groups():
    res = _two_groups()
    with pytest.raises(PolicyError, match="how="):
        res.gap("mrr", "spread")
    with pytest.raises(PolicyError, match="n_resamples"):
        res.gap("mrr", n_resamples=0)
    one = rv.evaluate({1: {1: 1.0}}, {1: {1: 1}}, ["mrr"], groups={1: "a"})
    g = one.gap("mrr")
    assert g["value"] != g["value"] and "fewer than 2 groups" in g["note"]


def test_gap_interval_covers_a_known_gap():
    # a simulation: per-user values Bernoulli(0.6) in group a and Bernoulli(0.4) in b, 200
    # users each: the 90% interval of the max-min gap (0.2) covers it in most of 60 replicates
    rng = np.random.default_rng(7)
    covered = 0
    for rep in range(60):
        truth = {u: {"x": 1} for u in range(400)}
        hit = np.concatenate([rng.random(200) < 0.6, rng.random(200) < 0.4])
        run = {u: {("x" if hit[u] else "y"): 1.0} for u in range(400)}
        groups = {u: "a" if u < 200 else "b" for u in range(400)}
        res = rv.evaluate(run, truth, ["hit_rate@1"], groups=groups)
        g = res.gap("hit_rate@1", level=0.9, n_resamples=400, rng=rep)
        covered += g["ci_low"] <= 0.2 <= g["ci_high"]
    assert covered >= 48  # nominal 54 of 60


def test_distribution_and_gini():
    assert gini(np.array([0.0, 0.0, 1.0, 1.0])) == 0.5
    assert gini(np.array([1.0, 1.0, 1.0])) == 0.0
    assert math.isnan(gini(np.array([0.0, 0.0])))
    assert math.isnan(gini(np.array([-1.0, 2.0])))
    res = _two_groups()
    d = res.distribution("mrr", quantiles=(0.5,))
    x = res.user_values("mrr")
    assert d["n"] == 8 and d["quantiles"][0.5] == float(np.quantile(x, 0.5))
    assert d["share_zero"] == 4 / 8
    assert d["by_group"]["a"]["share_zero"] == 1 / 4
    with pytest.raises(PolicyError, match="quantiles"):
        res.distribution("mrr", quantiles=(1.5,))


def test_groups_survive_json():
    res = _two_groups()
    back = rv.EvalResult.from_json(res.to_json())
    assert back.by_group.equals(res.by_group)
    assert back.group_of.tolist() == res.group_of.tolist()
    assert back.gap("mrr") == res.gap("mrr")


def test_distributions_frame_has_a_row_per_metric():
    res = _two_groups()
    frame = res.distributions(quantiles=(0.5,))
    assert list(frame.index) == res.metrics
    assert frame.loc["mrr", "share_zero"] == res.distribution("mrr")["share_zero"]
    assert frame.loc["mrr", "q0.5"] == float(np.quantile(res.user_values("mrr"), 0.5))
    assert math.isnan(frame.loc["coverage@2", "gini"])  # no per-user values
