"""RecTools: the ``compat="rectools"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, relevant, version


@check("rectools", "RecTools")
def check_rectools(report: Report) -> None:
    pd = need("pandas")
    metrics = need("rectools.metrics")
    label = f"RecTools {version('rectools')}"
    run, truth = make_data(201, ties=True)
    # a user without a list scores 0; users are the users with interactions (empty_truth skip)
    reco = pd.DataFrame([(u, i, r + 1) for u, items in run.items()
                         for r, i in enumerate(ranked(items))],
                        columns=["user_id", "item_id", "rank"])
    inter = pd.DataFrame([(u, i) for u, items in relevant(truth).items() for i in items],
                         columns=["user_id", "item_id"])
    rng = np.random.default_rng(202)
    train = pd.DataFrame([(u, int(i)) for u in range(40)
                          for i in rng.choice(30, size=int(rng.integers(1, 12)), replace=False)],
                         columns=["user_id", "item_id"])
    frame = train.rename(columns={"user_id": "user", "item_id": "item"})
    for k in CUTS:
        pairs = {f"ndcg@{k}": metrics.NDCG(k=k), f"map@{k}": metrics.MAP(k=k),
                 f"precision@{k}": metrics.Precision(k=k), f"recall@{k}": metrics.Recall(k=k),
                 f"hitrate@{k}": metrics.HitRate(k=k), f"mrr@{k}": metrics.MRR(k=k),
                 f"map@{k}(denominator=k)": metrics.MAP(k=k, divide_by_k=True),
                 f"ndcg@{k}(ideal=truth)": metrics.NDCG(k=k, divide_by_achievable=True)}
        got = ours(run, truth, list(pairs), "rectools")
        for name, m in pairs.items():
            report.add("rectools", label, name, got[name], m.calc(reco, inter))
        for normalize in (False, True):
            name = f"avgrecpopularity@{k}" + ("(normalize=share)" if normalize else "")
            # AvgRecPopularity is a property of the lists: every user with a list counts
            value = ours(run, truth, [name], "rectools", train=frame, users="run",
                         empty_truth="zero")[name]
            m = metrics.AvgRecPopularity(k=k, normalize=normalize)
            report.add("rectools", label, name, value, m.calc(reco, train))
