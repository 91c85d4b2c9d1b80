"""Per-user classification / AUC / rating metrics through receval.evaluate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import receval as rv
import receval.classification.registered  # noqa: F401  (registers the metrics)
from receval.classification import confusion_at_k, gauc, global_auc, lauc, roc_auc
from receval.errors import InputError, PolicyError

# user a: list x(.9, liked) y(.8) z(.7, liked) w(.6); truth a also likes v (not in the list)
RUN = {"a": {"x": 0.9, "y": 0.8, "z": 0.7, "w": 0.6},
       "b": {"x": 0.5, "y": 0.4, "u": 0.3}}
TRUTH = {"a": {"x": 1, "z": 1, "v": 1}, "b": {"u": 1}}
# items known to truth and run: x y z w v u -> 6


def test_confusion_exact_and_catalog_sources():
    res = rv.evaluate(RUN, TRUTH, ["tp@3", "fp@3", "fn@3", "tn@3", "accuracy@3",
                                   "specificity@3", "fpr@3"])
    pu = res.per_user
    # a: top 3 = x y z -> TP 2, FP 1, FN 1 (v), TN = 6 - 4 = 2
    # b: top 3 = x y u -> TP 1, FP 2, FN 0, TN = 6 - 3 = 3
    assert pu.loc["a", ["tp@3", "fp@3", "fn@3", "tn@3"]].tolist() == [2, 1, 1, 2]
    assert pu.loc["b", ["tp@3", "fp@3", "fn@3", "tn@3"]].tolist() == [1, 2, 0, 3]
    assert pu.loc["a", "accuracy@3"] == (2 + 2) / 6
    assert pu.loc["b", "specificity@3"] == 3 / (3 + 2)
    assert pu.loc["a", "fpr@3"] == 1 / (1 + 2)
    assert res["accuracy@3"] == ((2 + 2) / 6 + (1 + 3) / 6) / 2
    assert res.info["tn@3"]["catalog_source"] == "items of truth and run"
    assert res.info["tn@3"]["catalog_size"] == 6
    assert res.info["tn@3"]["total"] == 5


def test_micro_vs_macro():
    res = rv.evaluate(RUN, TRUTH, ["fpr@3", "fpr@3(average=micro)",
                                   "specificity@3(average=micro)"])
    assert res["fpr@3"] == (1 / 3 + 2 / 5) / 2
    assert res["fpr@3(average=micro)"] == (1 + 2) / (3 + 5)
    assert res["specificity@3(average=micro)"] == (2 + 3) / (3 + 5)


def test_catalog_parameter_and_context():
    res = rv.evaluate(RUN, TRUTH, ["tn@3(catalog=100)", "accuracy@3(catalog=100)"])
    assert res.per_user.loc["a", "tn@3(catalog=100)"] == 100 - 4
    assert res.info["tn@3(catalog=100)"]["catalog_source"] == "parameter"
    res = rv.evaluate(RUN, TRUTH, ["tn@3"], catalog=50)
    assert res.per_user.loc["b", "tn@3"] == 50 - 3
    assert res.info["tn@3"]["catalog_source"] == "evaluate(catalog=int)"
    items = ["x", "y", "z", "w", "v", "u", "extra1", "extra2"]
    res = rv.evaluate(RUN, TRUTH, ["tn@3"], catalog=items)
    assert res.per_user.loc["a", "tn@3"] == 8 - 4
    assert res.info["tn@3"]["catalog_source"] == "evaluate(catalog=items)"
    with pytest.raises(InputError, match="not in the catalog"):
        rv.evaluate(RUN, TRUTH, ["tn@3"], catalog=["x", "y", "z"])
    with pytest.raises(InputError, match="catalogue size catalog=3 is smaller"):
        rv.evaluate(RUN, TRUTH, ["tn@3(catalog=3)"])


def test_confusion_object():
    c = confusion_at_k(RUN, TRUTH, 3)
    assert c.tp.tolist() == [2, 1] and c.tn.tolist() == [2, 3]
    assert c.precision() == (2 / 3 + 1 / 3) / 2
    assert c.precision(average="micro") == 3 / 6
    assert c.recall() == (2 / 3 + 1) / 2
    assert c.recall(average="micro") == 3 / 4
    assert c.f1(average="micro") == 2 * 3 / (2 * 3 + 1 + 3)
    p, r = 3 / 6, 3 / 4
    assert c.fbeta(2.0, average="micro") == pytest.approx(5 * p * r / (4 * p + r), rel=1e-15)
    assert c.accuracy() == ((2 + 2) / 6 + (1 + 3) / 6) / 2
    assert c.info["catalog_size"] == 6
    assert list(c.to_frame().columns) == ["tp", "fp", "fn", "tn"]


def test_gauc_matches_sklearn_per_user():
    rng = np.random.default_rng(0)
    rows, truth = [], []
    for u in range(30):
        n = int(rng.integers(3, 25))
        s = np.round(rng.normal(size=n), 1)  # ties
        lab = rng.integers(0, 2, n)
        for i in range(n):
            rows.append((u, i, s[i]))
            if lab[i]:
                truth.append((u, i, 1))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    tr = pd.DataFrame(truth, columns=["user", "item", "rel"])
    res = rv.evaluate(run, tr, ["gauc", "gauc(weight=positives)", "gauc(weight=impressions)"])
    expect, npos, nimp = {}, {}, {}
    for u, g in run.groupby("user"):
        lab = g["item"].isin(tr.loc[tr.user == u, "item"]).to_numpy()
        if 0 < lab.sum() < len(lab):
            expect[u] = skm.roc_auc_score(lab, g["score"])
            npos[u], nimp[u] = lab.sum(), len(lab)
    got = res.per_user["gauc"].dropna()
    assert sorted(got.index) == sorted(expect)
    for u, v in expect.items():
        assert got[u] == pytest.approx(v, rel=1e-12)
    e = pd.Series(expect)
    assert res["gauc"] == pytest.approx(e.mean(), rel=1e-12)
    assert res["gauc(weight=positives)"] == pytest.approx(
        (e * pd.Series(npos)).sum() / sum(npos.values()), rel=1e-12)
    assert res["gauc(weight=impressions)"] == pytest.approx(
        (e * pd.Series(nimp)).sum() / sum(nimp.values()), rel=1e-12)
    skipped = res.info["gauc"]["skipped"]
    assert skipped == tr.user.nunique() - len(expect) + 0  # users with one class
    assert res.info["gauc"]["users_no_positive"] + res.info["gauc"]["users_no_negative"] >= skipped


def test_gauc_exact_and_single_class_policy():
    # a: list x(+) y(-) z(+) w(-): pairs correct: y below x (1), w below x and z (2) -> 3/4
    res = rv.evaluate(RUN, TRUTH, ["gauc"])
    assert res.per_user.loc["a", "gauc"] == 3 / 4
    # b: x(-) y(-) u(+) -> 0
    assert res.per_user.loc["b", "gauc"] == 0.0
    single = {"a": {"x": 0.9, "y": 0.8}, "c": {"x": 0.3}}
    truth = {"a": {"x": 1}, "c": {"x": 1}}
    res = rv.evaluate(single, truth, ["gauc"])
    assert np.isnan(res.per_user.loc["c", "gauc"])
    assert res["gauc"] == 1.0
    assert res.info["gauc"]["users_no_negative"] == 1 and res.info["gauc"]["skipped"] == 1
    with pytest.raises(PolicyError, match="only one class"):
        rv.evaluate(single, truth, ["gauc(single_class=error)"])


def test_gauc_catalog_candidates_equals_full_ranking():
    # a over catalogue of 6 items: unscored v (+) and u (-) tied at the bottom
    res = rv.evaluate(RUN, TRUTH, ["gauc(candidates=catalog)"])
    # scored: x+ y- z+ w-, unscored: v+, u- (tied). P=3, N=3.
    # pairs: x>y,w,u (3); z>w,u (2); v vs u tie (1/2); v below y,w (0)
    assert res.per_user.loc["a", "gauc(candidates=catalog)"] == (3 + 2 + 0.5) / 9
    full = roc_auc([1, 0, 1, 0, 1, 0], [4, 3, 2, 1, 0, 0])
    assert res.per_user.loc["a", "gauc(candidates=catalog)"] == full


def test_lauc_exact_and_relations():
    res = rv.evaluate(RUN, TRUTH, ["lauc@2", "lauc@2(tail=none)", "lauc@10"])
    # a, top 2 = x(+) y(-); P = 3, N = 3: C = 1 (x above y)
    c_part = 1 / 9
    assert res.per_user.loc["a", "lauc@2(tail=none)"] == c_part
    tail = (1 - 1 / 3) * (1 / 3 + 1) / 2
    assert res.per_user.loc["a", "lauc@2"] == pytest.approx(c_part + tail, rel=1e-15)
    # top-2 list with the rest tied at the bottom gives the same value
    assert res.per_user.loc["a", "lauc@2"] == pytest.approx(
        roc_auc([1, 0, 1, 0, 1, 0], [2, 1, 0, 0, 0, 0]), rel=1e-15)
    # k past the list: equal to gauc(candidates=catalog)
    cat = rv.evaluate(RUN, TRUTH, ["gauc(candidates=catalog)"])
    np.testing.assert_allclose(res.user_values("lauc@10"),
                               cat.user_values("gauc(candidates=catalog)"), rtol=1e-15)


def test_lauc_random_against_bruteforce():
    rng = np.random.default_rng(5)
    n_items, k = 40, 7
    run, truth = [], []
    for u in range(20):
        items = rng.permutation(n_items)[:15]
        for r, i in enumerate(items):
            run.append((u, int(i), 15.0 - r))
        for i in rng.choice(n_items, int(rng.integers(1, 6)), replace=False):
            truth.append((u, int(i), 1))
    run_df = pd.DataFrame(run, columns=["user", "item", "score"])
    tr = pd.DataFrame(truth, columns=["user", "item", "rel"])
    res = lauc(run_df, tr, k, catalog=n_items)
    for u in range(20):
        top = run_df[run_df.user == u].nlargest(k, "score")
        score = np.zeros(n_items)
        score[top["item"].to_numpy()] = top["score"].to_numpy()
        lab = np.isin(np.arange(n_items), tr.loc[tr.user == u, "item"])
        assert res.per_user[u] == pytest.approx(skm.roc_auc_score(lab, score), rel=1e-12)
    assert res.info["catalog_source"] == "parameter"


def test_table_helpers():
    g = gauc(RUN, TRUTH)
    assert g.value == (3 / 4 + 0) / 2 and g.per_user["a"] == 3 / 4
    ga = global_auc(RUN, TRUTH)
    # pooled scored pairs: positives x_a .9, z_a .7, u_b .3; negatives .8 .6 .5 .4
    pos = np.array([0.9, 0.7, 0.3])
    neg = np.array([0.8, 0.6, 0.5, 0.4])
    assert ga.value == (pos[:, None] > neg[None, :]).mean()
    assert ga.info["unscored_positives"] == 1  # v


def test_rating_metrics_through_evaluate():
    rng = np.random.default_rng(2)
    rows = [(u, i) for u in range(15) for i in range(int(rng.integers(2, 9)))]
    df = pd.DataFrame(rows, columns=["user", "item"])
    df["rating"] = rng.integers(0, 6, len(df)).astype(float)
    df["prediction"] = df["rating"] + rng.normal(0, 1, len(df))
    run = df[["user", "item", "prediction"]].rename(columns={"prediction": "score"})
    truth = df[["user", "item", "rating"]]
    keys = ["rmse", "mae", "mse", "r2", "rmse(average=macro)", "r2(average=macro)"]
    res = rv.evaluate(run, truth, keys)
    assert res["rmse"] == pytest.approx(
        np.sqrt(skm.mean_squared_error(df.rating, df.prediction)), rel=1e-12)
    assert res["mae"] == pytest.approx(skm.mean_absolute_error(df.rating, df.prediction), rel=1e-12)
    assert res["mse"] == pytest.approx(skm.mean_squared_error(df.rating, df.prediction), rel=1e-12)
    assert res["r2"] == pytest.approx(skm.r2_score(df.rating, df.prediction), rel=1e-12)
    per = {u: np.sqrt(skm.mean_squared_error(g.rating, g.prediction))
           for u, g in df.groupby("user")}
    assert res["rmse(average=macro)"] == pytest.approx(np.mean(list(per.values())), rel=1e-12)
    r2s = [skm.r2_score(g.rating, g.prediction) for _, g in df.groupby("user")
           if g.rating.nunique() > 1]
    assert res["r2(average=macro)"] == pytest.approx(np.mean(r2s), rel=1e-12)


def test_rating_missing_prediction_policy():
    run = {"a": {"x": 4.0}}
    truth = {"a": {"x": 5, "y": 3}}
    with pytest.raises(PolicyError, match="no prediction"):
        rv.evaluate(run, truth, ["rmse"])
    res = rv.evaluate(run, truth, ["rmse(missing=skip)"])
    assert res["rmse(missing=skip)"] == 1.0
    assert res.info["rmse(missing=skip)"]["unpredicted"] == 1


def test_keys_round_trip_and_unknown_params():
    for key in ["gauc(weight=positives)", "lauc@5(tail=none)", "accuracy@10(catalog=1000)",
                "fpr@3(average=micro)", "rmse(average=macro)", "tn@4(catalog=7)"]:
        assert rv.parse_metric(key).key == key
    with pytest.raises(rv.UnknownMetricError):
        rv.parse_metric("gauc(wieght=positives)")
    with pytest.raises(rv.MetricError):
        rv.parse_metric("log_loss@10")
    assert rv.parse_metric("gauc@10").k == 10  # the pairs inside the top 10 (RePlay RocAuc@k)


def test_log_loss_through_evaluate():
    run = {"a": {"x": 0.8, "y": 0.3}, "b": {"x": 0.4}}
    truth = {"a": {"x": 1}, "b": {"z": 1}}
    res = rv.evaluate(run, truth, ["log_loss", "log_loss(average=micro)"])
    la = -(np.log(0.8) + np.log(0.7)) / 2
    lb = -np.log(0.6)
    assert res.per_user.loc["a", "log_loss"] == pytest.approx(la, rel=1e-15)
    assert res["log_loss"] == pytest.approx((la + lb) / 2, rel=1e-15)
    assert res["log_loss(average=micro)"] == pytest.approx((2 * la + lb) / 3, rel=1e-15)
    with pytest.raises(InputError, match=r"probabilities in \[0, 1\]"):
        rv.evaluate({"a": {"x": 2.0}}, truth, ["log_loss"])


def test_area_ap_vs_core_map_and_bep_vs_r_precision():
    from receval.classification import average_precision, break_even_point

    rng = np.random.default_rng(9)
    for _ in range(20):
        n = int(rng.integers(3, 30))
        lab = rng.integers(0, 2, n)
        lab[0] = 1
        s = rng.permutation(n).astype(float)  # no ties, every positive scored
        run = {"u": {i: s[i] for i in range(n)}}
        truth = {"u": {i: 1 for i in range(n) if lab[i]}}
        res = rv.evaluate(run, truth, ["map", "r_precision"])
        assert average_precision(lab, s) == pytest.approx(res["map"], rel=1e-12)
        assert break_even_point(lab, s) == pytest.approx(res["r_precision"], rel=1e-12)
    # with a tie the area form differs from the discrete sum (documented example)
    run = {"u": {"p": 0.8, "n": 0.8}}
    truth = {"u": {"p": 1}}
    assert average_precision([1, 0], [0.8, 0.8]) == 1 / 2
    assert rv.evaluate(run, truth, ["map"], ties="average")["map"] == 3 / 4
    # the tie rule on raw ids puts "n" before "p": discrete AP = 1/2 here
    assert rv.evaluate(run, truth, ["map"])["map"] == 1 / 2


def test_confusion_expected_counts_under_average_ties():
    # a: x .9 (liked), then y, z, w tied at .5 with z liked; k = 2 takes 1 of the 3 tied items
    run = {"a": {"x": 0.9, "y": 0.5, "z": 0.5, "w": 0.5}}
    truth = {"a": {"x": 1, "z": 1}}
    res = rv.evaluate(run, truth, ["tp@2", "fp@2", "fn@2", "tn@2(catalog=10)"], ties="average")
    pu = res.per_user.loc["a"]
    assert pu["tp@2"] == 1 + 1 / 3
    assert pu["fp@2"] == pytest.approx(2 / 3, rel=1e-15)
    assert pu["fn@2"] == pytest.approx(2 - (1 + 1 / 3), rel=1e-15)
    assert pu["tn@2(catalog=10)"] == pytest.approx(10 - 2 - 2 / 3, rel=1e-15)
    # the default tie rule (raw ids ascending) takes w first
    res = rv.evaluate(run, truth, ["tp@2", "fp@2"])
    assert res.per_user.loc["a", ["tp@2", "fp@2"]].tolist() == [1, 1]


_users = st.lists(
    st.lists(st.tuples(st.integers(-2, 2), st.booleans()), min_size=1, max_size=8),
    min_size=1, max_size=5)


@settings(max_examples=30, deadline=None)
@given(_users, st.integers(1, 9), st.integers(0, 4))
def test_per_user_auc_properties(users, k, extra_items):
    """gauc and lauc against brute-force pair counting, with tied scores."""
    run, truth = {}, {}
    for u, rows in enumerate(users):
        run[u] = {i: float(s) for i, (s, _) in enumerate(rows)}
        truth[u] = {i: 1 for i, (_, liked) in enumerate(rows) if liked}
        truth[u][100 + u] = 1  # one liked item the run never scores
    n_items = max(len(r) for r in users) + len(users) + extra_items
    res = rv.evaluate(run, {u: t for u, t in truth.items()},
                      ["gauc", f"lauc@{k}(catalog={n_items})",
                       f"gauc(candidates=catalog,catalog={n_items})"])
    for u, rows in enumerate(users):
        s = np.array([r[0] for r in rows], dtype=float)
        lab = np.array([r[1] for r in rows])
        g = res.per_user.loc[u, "gauc"]
        if 0 < lab.sum() < len(lab):
            assert g == pytest.approx(skm.roc_auc_score(lab, s), abs=1e-12)
        else:
            assert np.isnan(g)
        # whole catalogue: unscored items (incl. the unscored liked one) tied at the bottom
        full_s = np.r_[s, np.full(n_items - len(s), s.min() - 1)]
        full_lab = np.r_[lab, [True], np.zeros(n_items - len(s) - 1, bool)]
        if (~full_lab).any():
            expect = skm.roc_auc_score(full_lab, full_s)
            assert res.per_user.loc[u, f"gauc(candidates=catalog,catalog={n_items})"] == \
                pytest.approx(expect, abs=1e-12)
            if k >= len(s):
                assert res.per_user.loc[u, f"lauc@{k}(catalog={n_items})"] == pytest.approx(
                    expect, abs=1e-12)


def test_catalog_source_names():
    res = rv.evaluate(RUN, TRUTH, ["tn@3"], catalog="truth+run")
    assert res.per_user.loc["a", "tn@3"] == 6 - 4
    assert res.info["tn@3"]["catalog_source"] == "evaluate(catalog='truth+run')"
    train = {"a": {"t1": 1, "x": 1}, "c": {"t2": 1}}
    res = rv.evaluate(RUN, TRUTH, ["tn@3"], catalog="all", train=train)
    assert res.per_user.loc["a", "tn@3"] == 8 - 4  # x y z w v u + t1 t2
    res = rv.evaluate(RUN, TRUTH, ["fn@3", "tn@3"], catalog="all")  # no train: truth + run
    assert res.info["tn@3"]["catalog_size"] == 6
    # the truth's items alone (v x z u) do not hold the recommended y
    with pytest.raises(InputError, match="not in the catalog"):
        rv.evaluate(RUN, TRUTH, ["tn@3"], catalog="truth")
    with pytest.raises(InputError, match="unknown item source"):
        rv.evaluate(RUN, TRUTH, ["tn@3"], catalog="everything")
    with pytest.raises(InputError, match="needs train"):
        rv.evaluate(RUN, TRUTH, ["tn@3"], catalog="train")


def test_scored_pairs_and_micro_rates_match_core_hit_rate():
    from receval.classification import pr_curve, scored_pairs

    y, s, info = scored_pairs(RUN, TRUTH)
    assert sorted(zip(s.tolist(), y.tolist(), strict=True)) == sorted(
        [(0.9, True), (0.8, False), (0.7, True), (0.6, False), (0.5, False), (0.4, False),
         (0.3, True)])
    assert info["unscored_positives"] == 1
    assert pr_curve(y, s).area == pytest.approx(1 / 3 * (1 + 2 / 3 + 3 / 7), rel=1e-15)
    # micro precision / recall of the confusion counts are the core item-level hit rates
    c = confusion_at_k(RUN, TRUTH, 3)
    res = rv.evaluate(RUN, TRUTH, ["hit_rate@3(level=recommended)", "hit_rate@3(level=truth)"])
    assert c.precision(average="micro") == res["hit_rate@3(level=recommended)"]
    assert c.recall(average="micro") == res["hit_rate@3(level=truth)"]
