"""Each library preset (``compat=``) against the library itself, where it installs.

pytrec_eval, ranx and scikit-learn are test dependencies. RecTools and Microsoft Recommenders
pin numpy < 2 and pandas < 3 but their metric modules run here when installed without their
dependency pins; recmetrics' package imports plotly, so its ``metrics.py`` is loaded on its
own. Each test is skipped when its library is absent. Random data: graded relevance, users
with short lists, users without relevant items, tied scores where the library's tie order is
the one the preset reproduces.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from peer_modules import recmetrics_metrics

import receval as rv

CUTS = (1, 3, 5, 10)


def _data(seed: int, *, ties: bool, n_users: int = 30, n_items: int = 25):
    rng = np.random.default_rng(seed)
    run, truth = {}, {}
    for u in range(n_users):
        items = rng.choice(n_items, size=int(rng.integers(1, 15)), replace=False)
        if ties:
            scores = rng.integers(0, 4, size=len(items)).astype(float)
        else:
            scores = rng.permutation(len(items)) + rng.random()
        run[f"u{u}"] = {f"i{i}": float(s) for i, s in zip(items, scores, strict=True)}
        judged = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
        rels = rng.integers(0, 3, size=len(judged))
        truth[f"u{u}"] = {f"i{i}": int(r) for i, r in zip(judged, rels, strict=True)}
    return run, truth


def _check(res, name, expected: dict) -> None:
    got = dict(zip(res.user_ids.tolist(), res.user_values(name).tolist(), strict=True))
    assert set(got) == set(expected), name
    for user, value in expected.items():
        assert got[user] == pytest.approx(value, rel=1e-9, abs=1e-12), (name, user)


# ---- trec_eval (pytrec_eval) ------------------------------------------------------------------

def test_trec_eval_preset_matches_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, truth = _data(1, ties=True)
    cuts = ",".join(map(str, CUTS))
    measures = {"map", "recip_rank", "Rprec", "ndcg"} | {
        f"{m}.{cuts}" for m in ("map_cut", "P", "recall", "ndcg_cut", "success")}
    scores = pytrec_eval.RelevanceEvaluator(truth, measures).evaluate(run)
    names = ["map", "recip_rank", "rprec", "ndcg"] + [
        f"{m}@{k}" for m in ("map_cut", "p", "recall", "ndcg_cut", "success") for k in CUTS]
    res = rv.evaluate(run, truth, names, compat="pytrec_eval")
    for name in names:
        base, _, k = name.partition("@")
        trec = {"map": "map", "recip_rank": "recip_rank", "rprec": "Rprec", "ndcg": "ndcg",
                "map_cut": "map_cut", "p": "P", "recall": "recall", "ndcg_cut": "ndcg_cut",
                "success": "success"}[base]
        field = f"{trec}_{k}" if k else trec
        _check(res, name, {q: v[field] for q, v in scores.items()})


# ---- ranx ---------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:unsafe cast:Warning")
def test_ranx_preset_matches_ranx():
    ranx = pytest.importorskip("ranx")
    run, truth = _data(2, ties=False)
    names = ["ndcg@5", "ndcg_burges@5", "map@10", "mrr", "precision@5", "recall@10",
             "hit_rate@3", "f1@5", "r-precision"]
    r_run = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(truth), r_run, names, make_comparable=True)
    res = rv.evaluate(run, truth, names, compat="ranx")
    for name in names:
        _check(res, name, dict(r_run.scores[name]))


# ---- scikit-learn -------------------------------------------------------------------------------

def test_sklearn_preset_matches_ndcg_score_with_ties():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    y_true = rng.integers(0, 3, size=(12, 9)).astype(float)
    y_true[0] = 0.0  # a user without a relevant item scores 0 and counts
    y_score = rng.integers(0, 4, size=(12, 9)) / 2
    run = {u: {i: float(y_score[u, i]) for i in range(9)} for u in range(12)}
    truth = {u: {i: float(y_true[u, i]) for i in range(9)} for u in range(12)}
    for k in (3, 5, None):
        name = "ndcg_score" if k is None else f"ndcg_score@{k}"
        res = rv.evaluate(run, truth, [name], compat="sklearn")
        assert res[name] == pytest.approx(sk.ndcg_score(y_true, y_score, k=k), rel=1e-12)


# ---- RecTools -----------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_rectools_preset_matches_rectools():
    metrics = pytest.importorskip("rectools.metrics")
    from rectools import Columns

    run, truth = _data(4, ties=False)
    binary = {u: {i: 1 for i, r in t.items() if r > 0} for u, t in truth.items()}
    binary = {u: t for u, t in binary.items() if t}  # RecTools users are those with interactions
    reco = pd.DataFrame(
        [(u, i, r + 1) for u, items in run.items()
         for r, (i, _) in enumerate(sorted(items.items(), key=lambda kv: -kv[1]))],
        columns=[Columns.User, Columns.Item, Columns.Rank])
    inter = pd.DataFrame([(u, i) for u, t in binary.items() for i in t],
                         columns=[Columns.User, Columns.Item])
    for k in CUTS:
        pairs = {f"ndcg@{k}": metrics.NDCG(k=k), f"map@{k}": metrics.MAP(k=k),
                 f"map@{k}(denominator=k)": metrics.MAP(k=k, divide_by_k=True),
                 f"precision@{k}": metrics.Precision(k=k), f"recall@{k}": metrics.Recall(k=k),
                 f"hitrate@{k}": metrics.HitRate(k=k), f"mrr@{k}": metrics.MRR(k=k),
                 f"ndcg@{k}(ideal=truth)": metrics.NDCG(k=k, divide_by_achievable=True)}
        res = rv.evaluate(run, binary, list(pairs), compat="rectools")
        for name, m in pairs.items():
            expected = m.calc_per_user(reco, inter)
            _check(res, name, {u: float(v) for u, v in expected.items()})


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_rectools_avg_rec_popularity():
    metrics = pytest.importorskip("rectools.metrics")
    from rectools import Columns

    run, truth = _data(9, ties=False)
    rng = np.random.default_rng(9)
    train = pd.DataFrame([(f"u{u}", f"i{i}") for u in range(30)
                          for i in rng.choice(25, size=int(rng.integers(1, 10)), replace=False)],
                         columns=[Columns.User, Columns.Item])
    reco = pd.DataFrame(
        [(u, i, r + 1) for u, items in run.items()
         for r, (i, _) in enumerate(sorted(items.items(), key=lambda kv: -kv[1]))],
        columns=[Columns.User, Columns.Item, Columns.Rank])
    frame = train.rename(columns={Columns.User: "user", Columns.Item: "item"})
    for k in CUTS:
        for normalize in (False, True):
            name = f"avgrecpopularity@{k}" + ("(normalize=share)" if normalize else "")
            res = rv.evaluate(run, truth, [name], compat="rectools", train=frame,
                              empty_truth="zero")
            expected = metrics.AvgRecPopularity(k=k, normalize=normalize).calc_per_user(
                reco, train)
            _check(res, name, {u: float(v) for u, v in expected.items()})


# ---- Microsoft Recommenders --------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_ms_recommenders_preset_matches_python_evaluation():
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    run, truth = _data(5, ties=False)
    truth = {u: {i: r for i, r in t.items() if r > 0} for u, t in truth.items()}
    truth = {u: t for u, t in truth.items() if t}
    run = {u: items for u, items in run.items() if u in truth}
    true_df = pd.DataFrame([(u, i, float(r)) for u, t in truth.items() for i, r in t.items()],
                           columns=["userID", "itemID", "rating"])
    pred_df = pd.DataFrame([(u, i, s) for u, items in run.items() for i, s in items.items()],
                           columns=["userID", "itemID", "prediction"])
    for k in CUTS:
        names = {"precision_at_k": pe.precision_at_k, "recall_at_k": pe.recall_at_k,
                 "ndcg_at_k": pe.ndcg_at_k, "map_at_k": pe.map_at_k, "map": pe.map}
        res = rv.evaluate(run, truth, [f"{n}@{k}" for n in names], compat="ms_recommenders")
        for n, fn in names.items():
            assert res[f"{n}@{k}"] == pytest.approx(fn(true_df, pred_df, k=k), rel=1e-12), (n, k)
        # r_precision_at_k: the mean over users with a hit at rank <= min(R, k) (published)
        got = rv.evaluate(run, truth, [f"r_precision_at_k@{k}"], compat="ms_recommenders")
        values = got.user_values(f"r_precision_at_k@{k}")
        assert np.mean(values[values > 0]) == pytest.approx(
            pe.r_precision_at_k(true_df, pred_df, k=k), rel=1e-12)


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_ms_recommenders_logloss_over_labelled_pairs():
    pe = pytest.importorskip("recommenders.evaluation.python_evaluation")
    rng = np.random.default_rng(8)
    run, truth = {}, {}
    for u in range(20):
        items = rng.choice(30, size=10, replace=False)
        run[f"u{u}"] = {f"i{i}": float(rng.uniform(0.01, 0.99)) for i in items}
        labelled = rng.choice(items, size=6, replace=False)  # 4 scored items are unlabelled
        truth[f"u{u}"] = {f"i{i}": int(rng.integers(0, 2)) for i in labelled}
        truth[f"u{u}"][f"i{items[0]}"] = 1
    true_df = pd.DataFrame([(u, i, float(r)) for u, t in truth.items() for i, r in t.items()],
                           columns=["userID", "itemID", "rating"])
    pred_df = pd.DataFrame([(u, i, s) for u, items in run.items() for i, s in items.items()],
                           columns=["userID", "itemID", "prediction"])
    res = rv.evaluate(run, truth, ["logloss"], compat="ms_recommenders")
    assert res["logloss"] == pytest.approx(pe.logloss(true_df, pred_df), rel=1e-12)


# ---- recmetrics ---------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_recmetrics_mark_is_average_precision_over_r():
    rm = recmetrics_metrics()
    run, truth = _data(6, ties=False)
    actual = {u: [i for i, r in t.items() if r > 0] for u, t in truth.items()}
    predicted = {u: [i for i, _ in sorted(items.items(), key=lambda kv: -kv[1])]
                 for u, items in run.items()}
    users = list(run)
    for k in CUTS:
        res = rv.evaluate(run, truth, [f"mark@{k}"], compat="recmetrics")
        expected = rm.mark([actual[u] for u in users], [predicted[u] for u in users], k=k)
        assert res[f"mark@{k}"] == pytest.approx(expected, rel=1e-12)
        assert not math.isnan(res[f"mark@{k}"])


# ---- Elliot (needs TensorFlow: values worked out from its metric files) ------------------------

# RecTools' example lists (tests/core/test_conventions.py), binary truth, k = 3:
#   u1: [7, 8], truth {1, 2}: no hit       u2: [1, 2], truth {1}: hit at rank 1
#   u3: [1, 2, 3, 4], truth {1, 3, 4}: hits at ranks 1 and 3     u4: [1, 2, 3]: all hits
_RECO = {1: [7, 8], 2: [1, 2], 3: [1, 2, 3, 4], 4: [1, 2, 3]}
_HELD = {1: [1, 2], 2: [1], 3: [1, 3, 4], 4: [1, 2, 3]}
_RUN = {u: {i: -float(r) for r, i in enumerate(items)} for u, items in _RECO.items()}
_TRUTH = {u: dict.fromkeys(items, 1) for u, items in _HELD.items()}
_L3 = 1 / math.log2(3)


@pytest.mark.parametrize(("name", "expected"), [
    # ndcg.py: gain 2^(r - t + 1) - 1 (t = 1: 1 per binary item), ideal from the relevant items
    ("ndcg@3", [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1]),
    ("ndcgrendle2020@3", [0, 1, (1 + 0.5) / (1 + _L3 + 0.5), 1]),
    ("precision@3", [0, 1 / 3, 2 / 3, 1]),                     # / cutoff
    ("recall@3", [0, 1, 2 / 3, 1]),                            # / |relevant|
    ("hr@3", [0, 1, 1, 1]),
    ("mrr@3", [0, 1, 1, 1]),
    # mar.py: mean of recall@1, @2, @3; u3: (1/3 + 1/3 + 2/3) / 3, u4: (1/3 + 2/3 + 1) / 3
    ("mar@3", [0, 1, 4 / 9, 2 / 3]),
    # f1.py: 2 P R / (P + R); u2: P = 1/3, R = 1
    ("f1@3", [0, 1 / 2, 2 / 3, 1]),
])
def test_elliot_preset_worked_example(name, expected):
    res = rv.evaluate(_RUN, _TRUTH, [name], compat="elliot")
    key = res.info["compat"]["names"][name]
    got = dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(), strict=True))
    assert [got[u] for u in (1, 2, 3, 4)] == pytest.approx(expected, rel=1e-14)
    assert res[name] == pytest.approx(sum(expected) / 4, rel=1e-14)


def test_elliot_ndcg_graded_gain_and_users():
    # relevance_threshold 1: gains 2^r - 1 = 3 (a), 1 (c), 7 (d); DCG = 3 + 1/log2(4) = 3.5,
    # IDCG = 7 + 3/log2(3) + 1/2. User v has no item with r >= 1: left out, as is w (no list).
    run = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "v": {"a": 1.0}}
    truth = {"u": {"a": 2, "c": 1, "d": 3}, "v": {"a": 0}, "w": {"a": 1}}
    res = rv.evaluate(run, truth, ["ndcg@3", "precision@3"], compat="elliot")
    assert res["ndcg@3"] == pytest.approx(3.5 / (7 + 3 * _L3 + 0.5), rel=1e-14)
    assert res["precision@3"] == pytest.approx(2 / 3, rel=1e-14)
    assert (res.stats[0]["n"], res.stats[0]["skipped"]) == (1, 1)  # u counts; v skipped


def test_elliot_item_coverage_and_entropy_of_full_lists():
    # item_coverage.py: distinct items; shannon_entropy.py with lists [a, b], [a, c]:
    # weights a: 1/2 + 1/2, b: 1/2, c: 1/2; (1 * -log2(2/4) + 2 * 1/2 * -log2(1/4)) / 2 = 1.5
    run = {"u": {"a": 2.0, "b": 1.0}, "v": {"a": 2.0, "c": 1.0}}
    truth = {"u": {"a": 1}, "v": {"c": 1}}
    res = rv.evaluate(run, truth, ["itemcoverage@2", "sentropy@2"], compat="elliot")
    assert res["itemcoverage@2"] == 3.0
    assert res["sentropy@2"] == pytest.approx(1.5, rel=1e-14)


def test_elliot_map_is_not_reproduced():
    with pytest.raises(rv.errors.MetricError, match="MAP averages precision@n"):
        rv.evaluate(_RUN, _TRUTH, ["map@3"], compat="elliot")
    assert any("MAP averages precision@n" in n for n in rv.compat.get("elliot").notes)


# ---- PyKEEN (needs torch: values worked out from pykeen/metrics/ranking.py) ---------------------

def test_pykeen_preset_leave_one_out_ranks():
    # one true item per user, every candidate scored (distinct scores): ranks 1, 4, 2
    items = ["a", "b", "c", "d", "e"]
    run = {u: {i: float(5 - r) for r, i in enumerate(items)} for u in ("x", "y", "z")}
    truth = {"x": {"a": 1}, "y": {"d": 1}, "z": {"b": 1}}
    res = rv.evaluate(run, truth, ["hits@3", "h@1", "mrr", "inverse_harmonic_mean_rank",
                                   "mean_rank", "arithmetic_mean_rank"], compat="pykeen")
    assert res["hits@3"] == pytest.approx(2 / 3, rel=1e-14)                 # I[r <= 3]
    assert res["h@1"] == pytest.approx(1 / 3, rel=1e-14)
    assert res["mrr"] == res["inverse_harmonic_mean_rank"] == pytest.approx(
        (1 + 1 / 4 + 1 / 2) / 3, rel=1e-14)                                  # mean of 1 / r
    assert res["mean_rank"] == res["arithmetic_mean_rank"] == pytest.approx(7 / 3, rel=1e-14)
    assert res.info["compat"]["names"]["mean_rank"] == "first_hit_rank"


# ---- RecBole GAUC (needs torch: values worked out from recbole/evaluator/metrics.py) ----------

def test_recbole_gauc_weights_users_by_their_positives():
    # u: positives at 0.9 and 0.7, a negative at 0.8: AUC 1/2 (2 positives); v: AUC 1
    # (1 positive); w has no negative and is left out. (2 * 1/2 + 1 * 1) / 3
    run = {"u": {"a": 0.9, "b": 0.8, "c": 0.7}, "v": {"a": 0.9, "b": 0.1, "c": 0.2},
           "w": {"a": 0.3}}
    truth = {"u": {"a": 1, "c": 1, "b": 0}, "v": {"a": 1}, "w": {"a": 1}}
    res = rv.evaluate(run, truth, ["gauc"], compat="recbole")
    assert res.info["compat"]["names"]["gauc"] == "gauc(weight=positives)"
    assert res["gauc"] == pytest.approx(2 / 3, rel=1e-14)
    assert rv.evaluate(run, truth, ["gauc"])["gauc"] == pytest.approx(3 / 4, rel=1e-14)


# ---- documented differences found against the libraries (benchmarks/peers) ---------------------

def test_replay_frame_tie_order_is_id_descending_with_trec_eval_ties():
    # RePlay sorts a DataFrame by (score, item id) descending: "i2" before "i1" at equal scores.
    # The relevant item i2 is then first (MRR 1); receval's default ties put i1 first (MRR 1/2)
    run = {"u": {"i1": 1.0, "i2": 1.0, "i0": 0.5}}
    truth = {"u": {"i2": 1}}
    assert rv.evaluate(run, truth, ["mrr@3"], compat="replay")["mrr@3"] == 0.5
    assert rv.evaluate(run, truth, ["mrr@3"], compat="replay", ties="trec_eval")["mrr@3"] == 1.0
    assert any(n.startswith("DataFrame inputs") for n in rv.compat.get("replay").notes)


def test_recpack_graded_dcgk_is_the_docstring_dcg():
    # y_true grade 2 at rank 1, grade 1 at rank 3: 2 / log2(2) + 1 / log2(4) = 2.5. RecPack's
    # DCGK divides by log2(rank * y + 1): 2 / log2(3) + 1 / log2(4) (documented, not reproduced)
    run = {0: {10: 3.0, 11: 2.0, 12: 1.0}}
    truth = {0: {10: 2, 12: 1}}
    assert rv.evaluate(run, truth, ["dcgk@3"], compat="recpack")["dcgk@3"] == pytest.approx(
        2.5, rel=1e-14)
    assert any(n.startswith("DCGK and NDCGK") for n in rv.compat.get("recpack").notes)


def test_ranx_bpref_without_judged_non_relevant_follows_trec_eval():
    # R = 1, N = 0: the relevant item has no judged non-relevant item above it and adds 1
    # (trec_eval); ranx divides by min(R, N) = 0 and gives NaN (documented, not reproduced)
    run = {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}
    truth = {"q": {"b": 1}}
    assert rv.evaluate(run, truth, ["bpref"], compat="ranx")["bpref"] == 1.0
    assert any(n.startswith("bpref: a query without") for n in rv.compat.get("ranx").notes)
