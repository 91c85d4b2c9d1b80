"""``compat="ms_recommenders"`` against Microsoft Recommenders' own unit-test expectations.

The data and the expected values are those of recommenders-team/recommenders
tests/unit/recommenders/evaluation/conftest.py (fixtures ``rating_true``, ``rating_pred``,
``diversity_data``) and tests/unit/recommenders/evaluation/test_python_evaluation.py
(commit b02c95e2b98b961f9943ce561bbb03f8dff2f41f; the library asserts them to ``TOL = 1e-4``).
The library itself is not needed: benchmarks/peers/libs/ms_recommenders.py runs it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv
from receval.compat import PRESETS

PRESET = PRESETS["ms_recommenders"]
TOL = 1e-4  # the library's own tolerance for its published values

# conftest.py rating_true / rating_pred: (user, item, rating) and (user, item, prediction)
_TRUE_USERS = [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1]
_TRUE_ITEMS = [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2]
_RATINGS = [3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4]
_PRED_ITEMS = [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10]
_PREDICTIONS = [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13]


def _table(users: list, items: list, values: list) -> dict:
    out: dict = {}
    for u, i, v in zip(users, items, values, strict=True):
        out.setdefault(u, {})[i] = v
    return out


TRUTH = _table(_TRUE_USERS, _TRUE_ITEMS, _RATINGS)
RUN = _table(_TRUE_USERS, _PRED_ITEMS, [float(p) for p in _PREDICTIONS])

# conftest.py diversity_data: train_df, reco_df (with its Relevance column), item_feature_df
TRAIN = {1: {1: 1, 2: 1, 4: 1}, 2: {3: 1, 4: 1}, 3: {3: 1, 4: 1, 5: 1}}
RECO = {1: {3: 2.0, 5: 1.0}, 2: {2: 2.0, 5: 1.0}, 3: {1: 2.0, 2: 1.0}}
RELEVANCE = {1: {3: 1, 5: 0}, 2: {2: 1, 5: 1}, 3: {1: 1, 2: 0}}
FEATURES = np.array([[0.0] * 5,  # row 0: no item 0 (rows are item ids)
                     [0, 1, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 1, 0],
                     [0, 0, 1, 0, 1], [0, 0, 0, 1, 1]], dtype=float)


def _ms(run: dict, truth: dict, names: list[str], **kwargs: object) -> rv.EvalResult:
    return rv.evaluate(run, truth, names, compat="ms_recommenders", **kwargs)


def _beyond(names: list[str], **kwargs: object) -> rv.EvalResult:
    """The diversity-data metrics: reco_df's every user, train_df as train=...."""
    return _ms(RECO, RELEVANCE, names, users="run", train=TRAIN, item_features=FEATURES,
               **kwargs)


def _per_user(res: rv.EvalResult, key: str) -> dict:
    return {u: float(v) for u, v in zip(res.user_ids.tolist(), res.user_values(key),
                                        strict=True) if not math.isnan(v)}


# ---- ranking and rating metrics: test_python_{precision,recall,ndcg,map,...}_at_k --------

@pytest.mark.parametrize(("name", "expected"), [
    ("precision_at_k@10", 0.26666), ("recall_at_k@10", 0.37777), ("ndcg_at_k@10", 0.38172),
    ("map@10", 0.23613), ("map_at_k@10", 0.23613), ("r_precision_at_k@3", 0.21111),
    ("r_precision_at_k@5", 0.24444), ("r_precision_at_k@10", 0.37777),
])
def test_ranking_worked_examples(name: str, expected: float) -> None:
    assert _ms(RUN, TRUTH, [name])[name] == pytest.approx(expected, abs=TOL)


def test_ranking_metrics_default_to_k_10_and_take_k_as_a_parameter() -> None:
    # DEFAULT_K = 10: the name without a cutoff is the @10 value; k=3 is @3
    for name, entry in PRESET.names.items():
        if ("k", "@k") not in entry.options:
            continue
        res = _ms(RUN, TRUTH, [name, f"{name}@10", f"{name}(k=3)", f"{name}@3"])
        assert res[name] == res[f"{name}@10"], name
        assert res[f"{name}(k=3)"] == res[f"{name}@3"], name
        assert res.info["compat"]["names"][name] == res.info["compat"]["names"][f"{name}@10"]


def test_ndcg_raw_log2_wikipedia_example() -> None:
    # the library's raw-relevance example (Wikipedia's DCG page): 0.785
    truth = {0: dict(enumerate([3, 2, 3, 0, 1, 2, 3, 2]))}
    run = {0: {i: float(6 - i) for i in range(6)}}
    key = "ndcg_at_k(k=6,score_type=raw,discfun_type=log2)"
    assert _ms(run, truth, [key])[key] == pytest.approx(0.785, abs=TOL)
    # the base of the logarithm cancels; score_type=exp is 2^rating - 1 over its ideal
    loge = "ndcg_at_k(k=6,score_type=raw,discfun_type=loge)"
    assert _ms(run, truth, [loge])[loge] == pytest.approx(0.785, abs=TOL)
    gains = [2.0 ** r - 1 for r in [3, 2, 3, 0, 1, 2]]
    ideal = sorted((2.0 ** r - 1 for r in truth[0].values()), reverse=True)[:6]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    exp = "ndcg_at_k(k=6,score_type=exp)"
    assert _ms(run, truth, [exp])[exp] == pytest.approx(dcg / idcg, rel=1e-12)


@pytest.mark.parametrize(("name", "expected"), [
    ("rmse", 7.254309), ("mae", 6.375), ("rsquared", -31.699029), ("exp_var", -6.4466),
])
def test_rating_worked_examples(name: str, expected: float) -> None:
    # rating_true against rating_pred's prediction column, over the pairs of both
    assert _ms(RUN, TRUTH, [name])[name] == pytest.approx(expected, abs=TOL)


def test_auc_and_logloss_worked_examples() -> None:
    # rating_true_binary: rating >= 3 -> 1; rating_pred_binary: minmax-scaled predictions
    labels = {u: {i: int(r >= 3) for i, r in t.items()} for u, t in TRUTH.items()}
    lo, hi = min(_PREDICTIONS), max(_PREDICTIONS)
    probs = {u: {i: (s - lo) / (hi - lo) for i, s in t.items()} for u, t in RUN.items()}
    res = _ms(probs, labels, ["auc", "logloss"])
    assert res["auc"] == pytest.approx(0.75, abs=TOL)
    assert res["logloss"] == pytest.approx(0.7835, abs=TOL)


# ---- beyond accuracy: test_catalog_coverage, test_distributional_coverage, diversity ------

def test_coverage_worked_examples() -> None:
    res = _beyond(["catalog_coverage", "distributional_coverage"], catalog="train")
    assert res["catalog_coverage"] == pytest.approx(0.8, abs=TOL)
    assert res["distributional_coverage"] == pytest.approx(1.9183, abs=TOL)


def test_diversity_worked_examples() -> None:
    res = _beyond(["diversity", "user_diversity"])
    assert res["diversity"] == pytest.approx(0.43096, abs=TOL)
    table = _per_user(res, "user_diversity")
    assert table == pytest.approx({1: 0.29289, 2: 1.0, 3: 0.0}, abs=TOL)
    feat = "diversity(item_sim_measure=item_feature_vector)"
    ufeat = "user_diversity(item_sim_measure=item_feature_vector)"
    res = _beyond([feat, ufeat])
    assert res[feat] == pytest.approx(0.5, abs=TOL)
    assert _per_user(res, ufeat) == pytest.approx({1: 0.5, 2: 0.5, 3: 0.5}, abs=TOL)


def _cooccurrence_cosine(a: int, b: int) -> float:
    """Training users holding both items / sqrt(users of a * users of b)."""
    users_a = {u for u, t in TRAIN.items() if a in t}
    users_b = {u for u, t in TRAIN.items() if b in t}
    return len(users_a & users_b) / math.sqrt(len(users_a) * len(users_b))


def _feature_cosine(a: int, b: int) -> float:
    x, y = FEATURES[a], FEATURES[b]
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


@pytest.mark.parametrize(("measure", "sim"), [("item_cooccurrence_count", _cooccurrence_cosine),
                                              ("item_feature_vector", _feature_cosine)])
def test_serendipity_every_item_relevant(measure: str, sim) -> None:
    # col_relevance=None: 1 - mean similarity to the user's training items, every item counted
    unexp = {u: {i: 1 - np.mean([sim(i, h) for h in TRAIN[u]]) for i in items}
             for u, items in RECO.items()}
    table = {u: float(np.mean(list(v.values()))) for u, v in unexp.items()}
    key, ukey = (f"serendipity(item_sim_measure={measure})",
                 f"user_serendipity(item_sim_measure={measure},col_relevance=None)")
    res = _beyond([key, ukey])
    assert _per_user(res, ukey) == pytest.approx(table, rel=1e-12)
    assert res[key] == pytest.approx(np.mean(list(table.values())), rel=1e-12)
    if measure == "item_cooccurrence_count":
        # the library's test_user_item_serendipity values of the relevant items
        assert [unexp[1][3], unexp[2][2], unexp[2][5], unexp[3][1]] == pytest.approx(
            [0.72783, 0.71132, 0.35777, 0.80755], abs=TOL)


@pytest.mark.parametrize(("source", "expected", "table"), [
    ("cooccurrence", 0.43408, {1: 0.363915, 2: 0.53455, 3: 0.403775}),
    ("features", 0.4028, {1: 0.25, 2: 0.625, 3: 0.3333}),
])
def test_relevance_weighted_serendipity_is_receval_serendipity(source, expected, table) -> None:
    # the note's route for col_relevance="Relevance" (0/1): receval's serendipity without
    # compat or cutoff, the relevances as the truth (test_serendipity, test_user_serendipity)
    key = f"serendipity(source={source})"
    res = rv.evaluate(RECO, RELEVANCE, [key], users="run", train=TRAIN, item_features=FEATURES)
    assert res[key] == pytest.approx(expected, abs=TOL)
    assert _per_user(res, key) == pytest.approx(table, abs=TOL)
    assert any("col_relevance" in note and "serendipity(source=cooccurrence)" in note
               for note in PRESET.notes)


# ---- refusals and bad values ------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(n for n, e in PRESET.names.items() if e.refused))
def test_refused_names_give_their_reason(name: str) -> None:
    with pytest.raises(rv.MetricError) as info:
        _beyond([name])
    assert PRESET.names[name].refused in str(info.value)


def test_every_public_function_is_named() -> None:
    # python_evaluation's public metric functions (its helpers merge_*, get_top_k_items aside)
    public = {"rmse", "mae", "rsquared", "exp_var", "auc", "logloss", "precision_at_k",
              "recall_at_k", "r_precision_at_k", "ndcg_at_k", "map", "map_at_k",
              "user_diversity", "diversity", "historical_item_novelty", "novelty",
              "user_item_serendipity", "user_serendipity", "serendipity", "catalog_coverage",
              "distributional_coverage"}
    assert set(PRESET.names) == public


@pytest.mark.parametrize(("key", "value"), [
    ("diversity(item_sim_measure=jaccard)", "jaccard"),
    ("serendipity(col_relevance=Relevance)", "Relevance"),
    ("ndcg_at_k@5(score_type=linear)", "linear"),
    ("ndcg_at_k@5(discfun_type=log10)", "log10"),
    ("precision_at_k@5(relevancy_method=by_threshold)", "by_threshold"),
])
def test_bad_option_values_are_refused_by_name(key: str, value: str) -> None:
    with pytest.raises(rv.MetricError) as info:
        _beyond([key])
    assert f"={value!r}: accepted values are" in str(info.value)


def test_item_without_a_similarity_is_refused() -> None:
    # the library gives an item absent from train_df similarity 0; receval refuses it
    with pytest.raises(rv.InputError, match="without features"):
        _ms({1: {9: 1.0, 3: 0.5}}, RELEVANCE, ["diversity"], users="run", train=TRAIN)
