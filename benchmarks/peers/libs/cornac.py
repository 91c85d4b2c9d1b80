"""Cornac: the ``compat="cornac"`` preset against the library itself.

The ranking metrics as ``ranking_eval`` calls them (``gt_pos``, ``gt_neg``, ``pd_rank``,
``pd_scores``, ``item_indices`` of one user, averaged over the users with a positive), at each
``k`` of ``CUTS`` and ``k=-1``, with ``rating_threshold`` 1 and 2; the rating metrics as
``rating_eval`` calls them, over the ratings and over the users (``user_based``).
"""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, version

_CORNAC_MAP = "MAP ranks tied"
_CORNAC_AUC = "AUC counts a tied"
_CUT = ("ndcg", "ncrr", "hitratio", "precision", "recall", "fmeasure", "f1")
_UNCUT = ("mrr", "auc", "map")


@check("cornac", "Cornac")
def check_cornac(report: Report) -> None:
    metrics = need("cornac.metrics")
    label = f"cornac {version('cornac')}"
    classes = {"ndcg": metrics.NDCG, "ncrr": metrics.NCRR, "hitratio": metrics.HitRatio,
               "precision": metrics.Precision, "recall": metrics.Recall,
               "fmeasure": metrics.FMeasure, "f1": metrics.FMeasure, "mrr": metrics.MRR,
               "auc": metrics.AUC, "map": metrics.MAP}
    n_items = 30
    for ties in (False, True):
        # cornac ranks every candidate item for each user with a positive test item
        run, truth = make_data(1301 + ties, ties=ties, full=True, n_items=n_items)
        # every test user has a ranking: users without one are not a case cornac has
        truth = {u: t for u, t in truth.items() if u in run}
        tag = " ties" if ties else ""
        for threshold in (1, 2):
            pos = {u: [i for i, r in t.items() if r >= threshold] for u, t in truth.items()}
            users = [u for u in truth if pos[u]]
            ev_run = {u: run[u] for u in users}
            opt = "" if threshold == 1 else f"(rating_threshold={threshold})"

            def mean(metric, run=run, pos=pos, users=users) -> float:
                values = []
                for u in users:
                    items = np.arange(n_items)
                    scores = np.array([run[u][i] for i in items])
                    gt_pos = np.array(pos[u])
                    values.append(metric.compute(
                        gt_pos=gt_pos, gt_neg=np.setdiff1d(items, gt_pos),
                        pd_rank=np.array(ranked(run[u])), pd_scores=scores,
                        item_indices=items))
                return float(np.mean(values))

            for name in _CUT:
                if name == "ndcg" and threshold != 1:
                    continue  # NDCG takes rating_threshold=1 only (the preset refuses others)
                for k in (*CUTS, None):
                    key = name + ("" if k is None else f"@{k}") + opt
                    cls = classes[name]
                    report.add("cornac", label, key + tag,
                               ours(ev_run, truth, [key], "cornac")[key],
                               mean(cls() if k is None else cls(k=k)))
            for name in _UNCUT:
                key = name + opt
                known = {"map": _CORNAC_MAP, "auc": _CORNAC_AUC}.get(name, "") if ties else ""
                report.add("cornac", label, key + tag, ours(ev_run, truth, [key], "cornac")[key],
                           mean(classes[name]()), known=known)
        if not ties:
            report.add("cornac", label, "ndcg(rating_threshold=1.0)",
                       ours(run, truth, ["ndcg(rating_threshold=1.0)"], "cornac")[
                           "ndcg(rating_threshold=1.0)"],
                       ours(run, truth, ["ndcg"], "cornac")["ndcg"])
    # rating metrics: a prediction for every test rating (model.rate of each test pair)
    rng = np.random.default_rng(1311)
    run, truth = {}, {}
    for u in range(40):
        items = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
        truth[u] = {int(i): int(rng.integers(1, 6)) for i in items}
        run[u] = {int(i): float(rng.integers(2, 20)) / 4 for i in items}
    pairs = [(u, i) for u in truth for i in truth[u]]
    gt = np.array([truth[u][i] for u, i in pairs], dtype=float)
    pd = np.array([run[u][i] for u, i in pairs])
    for name, cls in (("mae", metrics.MAE), ("rmse", metrics.RMSE), ("mse", metrics.MSE)):
        metric = cls()
        for user_based in (False, True):
            key = f"{name}(user_based={user_based})"
            if user_based:
                theirs = float(np.mean([
                    metric.compute(gt_ratings=np.array([truth[u][i] for i in truth[u]], float),
                                   pd_ratings=np.array([run[u][i] for i in truth[u]]))
                    for u in truth]))
            else:
                theirs = float(metric.compute(gt_ratings=gt, pd_ratings=pd))
            report.add("cornac", label, key, ours(run, truth, [key], "cornac")[key], theirs)
        report.add("cornac", label, name, ours(run, truth, [name], "cornac")[name],
                   float(metric.compute(gt_ratings=gt, pd_ratings=pd)))
