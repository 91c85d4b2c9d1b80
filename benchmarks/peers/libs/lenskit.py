"""LensKit: the ``compat="lenskit"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, relevant, version

_LENSKIT_EMPTY = "a user with an empty list"


@check("lenskit", "LensKit")
def check_lenskit(report: Report) -> None:
    data = need("lenskit.data")
    ranking = need("lenskit.metrics")
    label = f"lenskit {version('lenskit')}"
    run, truth = make_data(901, ties=True)
    # every test user gets a list (empty when the run has none); users without a relevant
    # item have no test items: LensKit's NaN, left out of the mean (empty_truth='skip')
    tests = {u: items for u, items in relevant(truth).items()}

    def mean(metric, graded: bool = False) -> float:
        values = []
        for u, items in tests.items():
            recs = data.ItemList(item_ids=np.array(ranked(run.get(u, {})), dtype=np.int64),
                                 ordered=True)
            fields = {"rating": np.array([truth[u][i] for i in items], dtype=np.float64)} \
                if graded else {}
            test = data.ItemList(item_ids=np.array(items, dtype=np.int64), **fields)
            values.append(metric.measure_list(recs, test))
        return float(np.nanmean(values))

    for k in CUTS:
        got = ours(run, truth, [f"precision@{k}", f"recall@{k}", f"ndcg@{k}"], "lenskit")
        report.add("lenskit", label, f"precision@{k}", got[f"precision@{k}"],
                   mean(ranking.Precision(n=k)), known=_LENSKIT_EMPTY)
        # without the users whose list is empty (users='intersection')
        only = ours(run, truth, [f"precision@{k}"], "lenskit", users="intersection")
        kept = {u: items for u, items in tests.items() if run.get(u)}
        tests, saved = kept, tests
        report.add("lenskit", label, f"precision@{k} users=intersection",
                   only[f"precision@{k}"], mean(ranking.Precision(n=k)))
        tests = saved
        report.add("lenskit", label, f"recall@{k}", got[f"recall@{k}"],
                   mean(ranking.Recall(n=k)))
        report.add("lenskit", label, f"ndcg@{k}", got[f"ndcg@{k}"], mean(ranking.NDCG(n=k)))
        for name, cls in (("hit", ranking.Hit), ("reciprank", ranking.RecipRank),
                          ("dcg", ranking.DCG), ("rbp", ranking.RBP)):
            key = f"{name}@{k}"
            report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
                       mean(cls(n=k)))
        key = f"ndcg@{k}(gain=linear)"
        report.add("lenskit", label, f"{key} gain='rating'",
                   ours(run, truth, [key], "lenskit")[key],
                   mean(ranking.NDCG(n=k, gain="rating"), graded=True))
    report.add("lenskit", label, "listlength",
               ours(run, truth, ["listlength"], "lenskit")["listlength"],
               mean(ranking.ListLength()))
    key = "rbp@5(patience=0.5)"
    report.add("lenskit", label, key, ours(run, truth, [key], "lenskit")[key],
               mean(ranking.RBP(n=5, patience=0.5)))
