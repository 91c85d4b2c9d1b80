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
