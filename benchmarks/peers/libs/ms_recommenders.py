"""Microsoft Recommenders: the ``compat="ms_recommenders"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, binary, check, make_data, need, ours, ranked, version

import receval as rv

_MS_R_PRECISION = "r_precision_at_k averages"


@check("ms_recommenders", "Microsoft Recommenders")
def check_ms_recommenders(report: Report) -> None:
    pd = need("pandas")
    pe = need("recommenders.evaluation.python_evaluation")
    label = f"recommenders {version('recommenders')}"
    run, truth = make_data(301, ties=True)
    truth_df = pd.DataFrame([(u, i, float(r)) for u, items in binary(truth).items()
                             for i, r in items.items()], columns=["userID", "itemID", "rating"])
    # rows in receval's tie order: pandas' sort by (user, prediction) keeps it for tied scores
    pred_df = pd.DataFrame([(u, i, run[u][i]) for u in run for i in ranked(run[u])],
                           columns=["userID", "itemID", "prediction"])
    graded = {u: {i: r for i, r in t.items() if r > 0} for u, t in truth.items()}
    graded = {u: t for u, t in graded.items() if t}
    graded_df = pd.DataFrame([(u, i, float(r)) for u, t in graded.items() for i, r in t.items()],
                             columns=["userID", "itemID", "rating"])
    names = {"precision_at_k": pe.precision_at_k, "recall_at_k": pe.recall_at_k,
             "ndcg_at_k": pe.ndcg_at_k, "map_at_k": pe.map_at_k, "map": pe.map,
             "r_precision_at_k": pe.r_precision_at_k}
    for k in CUTS:
        keys = [f"{n}@{k}" for n in names]
        got = ours(run, truth, keys, "ms_recommenders")
        # ndcg_at_k merges every truth user back in (outer join): users='truth' there
        got[f"ndcg_at_k@{k}"] = ours(run, truth, [f"ndcg_at_k@{k}"], "ms_recommenders",
                                     users="truth")[f"ndcg_at_k@{k}"]
        for n, fn in names.items():
            report.add("ms_recommenders", label, f"{n}@{k}", got[f"{n}@{k}"],
                       fn(truth_df, pred_df, k=k),
                       known=_MS_R_PRECISION if n == "r_precision_at_k" else "")
        # the published r_precision_at_k: receval's per-user values, averaged over the users
        # with a hit at rank <= min(R, k) (those with a value above 0)
        res = rv.evaluate(run, truth, [f"r_precision_at_k@{k}"], compat="ms_recommenders")
        values = res.user_values(res.info["compat"]["names"][f"r_precision_at_k@{k}"])
        report.add("ms_recommenders", label, f"r_precision_at_k@{k} over users with a hit",
                   float(np.mean(values[values > 0])), pe.r_precision_at_k(truth_df, pred_df, k=k))
        # ndcg_at_k's score_type on graded ratings (1..3), discfun_type and relevancy_method
        for score_type in ("binary", "raw", "exp"):
            for disc in ("loge", "log2"):
                key = (f"ndcg_at_k@{k}(score_type={score_type},discfun_type={disc},"
                       "relevancy_method=top_k)")
                report.add("ms_recommenders", label, key,
                           ours(run, graded, [key], "ms_recommenders", users="truth")[key],
                           pe.ndcg_at_k(graded_df, pred_df, k=k, score_type=score_type,
                                        discfun_type=disc, relevancy_method="top_k"))
    # without a cutoff: the library's k=10 (DEFAULT_K); k=... as a parameter
    got = ours(run, truth, list(names), "ms_recommenders")
    got["ndcg_at_k"] = ours(run, truth, ["ndcg_at_k"], "ms_recommenders",
                            users="truth")["ndcg_at_k"]
    for n, fn in names.items():
        report.add("ms_recommenders", label, f"{n} (default k)", got[n], fn(truth_df, pred_df),
                   known=_MS_R_PRECISION if n == "r_precision_at_k" else "")
        key = f"{n}(k=3)"
        report.add("ms_recommenders", label, key,
                   ours(run, truth, [key], "ms_recommenders",
                        **({"users": "truth"} if n == "ndcg_at_k" else {}))[key],
                   fn(truth_df, pred_df, k=3),
                   known=_MS_R_PRECISION if n == "r_precision_at_k" else "")
    # logloss over the labelled pairs (truth rows 0/1 with a prediction in (0, 1))
    rng = np.random.default_rng(302)
    run2, truth2 = {}, {}
    for u in range(25):
        items = rng.choice(30, size=10, replace=False)
        run2[u] = {int(i): float(rng.uniform(0.01, 0.99)) for i in items}
        labelled = rng.choice(items, size=6, replace=False)
        truth2[u] = {int(i): int(rng.integers(0, 2)) for i in labelled}
    t_df = pd.DataFrame([(u, i, float(r)) for u, t in truth2.items() for i, r in t.items()],
                        columns=["userID", "itemID", "rating"])
    p_df = pd.DataFrame([(u, i, s) for u, items in run2.items() for i, s in items.items()],
                        columns=["userID", "itemID", "prediction"])
    report.add("ms_recommenders", label, "logloss",
               ours(run2, truth2, ["logloss"], "ms_recommenders")["logloss"],
               pe.logloss(t_df, p_df))
    # auc: one ROC area over the labelled pairs of every user pooled (inner join)
    report.add("ms_recommenders", label, "auc",
               ours(run2, truth2, ["auc"], "ms_recommenders")["auc"], pe.auc(t_df, p_df))
    # catalog_coverage: distinct recommended items / distinct training items, every list of
    # reco_df (users='run'), items outside training counted
    # training items outside each user's list (the library refuses recommended training pairs)
    train = {u: {int(i): 1 for i in rng.choice(
        [j for j in range(30) if j not in run.get(u, {})], size=5, replace=False)}
        for u in range(25)}
    train_df = pd.DataFrame([(u, i) for u, t in train.items() for i in t],
                            columns=["userID", "itemID"])
    for k in CUTS:
        reco_df = pd.DataFrame([(u, i) for u in run for i in ranked(run[u])[:k]],
                               columns=["userID", "itemID"])
        key = f"catalog_coverage@{k}"
        got = rv.evaluate(run, truth, [key], compat="ms_recommenders", catalog="train",
                          train=train, users="run")[key]
        report.add("ms_recommenders", label, key, got, pe.catalog_coverage(train_df, reco_df))
    # rating metrics over the inner join: ratings 1..5, predictions of most rated pairs and
    # of some unrated ones (the join leaves both kinds of unmatched rows out)
    ratings = {u: {int(i): int(rng.integers(1, 6)) for i in rng.choice(30, 6, replace=False)}
               for u in range(20)}
    preds = {u: {i: float(np.round(rng.uniform(0.5, 5.5), 3)) for i in list(r)[:5]}
             for u, r in ratings.items()}
    for u in range(5):
        preds[u][100 + u] = 3.0  # a prediction without a rating
    rt = pd.DataFrame([(u, i, float(r)) for u, t in ratings.items() for i, r in t.items()],
                      columns=["userID", "itemID", "rating"])
    rp = pd.DataFrame([(u, i, s) for u, t in preds.items() for i, s in t.items()],
                      columns=["userID", "itemID", "prediction"])
    for name, fn in (("rmse", pe.rmse), ("mae", pe.mae), ("rsquared", pe.rsquared),
                     ("exp_var", pe.exp_var)):
        report.add("ms_recommenders", label, name,
                   ours(preds, ratings, [name], "ms_recommenders")[name], fn(rt, rp),
                   tol=1e-12)
    _beyond(report, label, pd, pe, run, truth)


def _beyond(report: Report, label: str, pd, pe, run: dict, truth: dict) -> None:
    """distributional_coverage, diversity and serendipity (and their per-user tables) on
    reco_df = each user's top k; train_df holds none of a user's recommended items (the
    library refuses them) and every recommended item (receval refuses items without a
    similarity); some users have no training rows."""
    rng = np.random.default_rng(303)
    train = {u: {int(i): 1 for i in rng.choice(
        [j for j in range(30) if j not in run.get(u, {})], size=int(rng.integers(1, 8)),
        replace=False)} for u in run if u % 5 != 2}
    seen = {i for t in train.values() for i in t}
    train[1000] = {i: 1 for i in range(30) if i not in seen} or {0: 1}
    train_df = pd.DataFrame([(u, i) for u, t in train.items() for i in t],
                            columns=["userID", "itemID"])
    vectors = rng.normal(size=(30, 4))
    feature_df = pd.DataFrame({"itemID": range(30), "features": list(vectors)})
    for k in (*CUTS, None):
        cut = "" if k is None else f"@{k}"
        reco_df = pd.DataFrame([(u, i) for u in run for i in ranked(run[u])[:k]],
                               columns=["userID", "itemID"])
        key = f"distributional_coverage{cut}"
        report.add("ms_recommenders", label, key,
                   ours(run, truth, [key], "ms_recommenders", users="run")[key],
                   pe.distributional_coverage(train_df, reco_df))
        for measure in ("item_cooccurrence_count", "item_feature_vector"):
            lib = {"item_sim_measure": measure, "item_feature_df": feature_df,
                   "col_item_features": "features"}
            for name, table, column in (("diversity", "user_diversity", "user_diversity"),
                                        ("serendipity", "user_serendipity",
                                         "user_serendipity")):
                key = f"{name}{cut}(item_sim_measure={measure})"
                tkey = f"{table}{cut}(item_sim_measure={measure})"
                res = rv.evaluate(run, truth, [key, tkey], compat="ms_recommenders",
                                  users="run", train=train, item_features=vectors)
                report.add("ms_recommenders", label, key, res[key],
                           getattr(pe, name)(train_df, reco_df, **lib))
                # the per-user table: the users with a value and their values
                theirs = getattr(pe, table)(train_df, reco_df, **lib)
                mine = pd.Series(res.user_values(tkey), index=res.user_ids).dropna()
                theirs = theirs.set_index("userID")[column]
                same = sorted(mine.index) == sorted(theirs.index)
                worst = float((mine - theirs.reindex(mine.index)).abs().max()) if same \
                    else float("inf")
                report.add("ms_recommenders", label, f"{tkey} users and max |diff|",
                           0.0, worst if len(mine) else 0.0)
