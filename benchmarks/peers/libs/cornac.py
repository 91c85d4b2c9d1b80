"""Cornac: the ``compat="cornac"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, relevant, version

_CORNAC_MAP = "MAP ranks tied"


@check("cornac", "Cornac")
def check_cornac(report: Report) -> None:
    metrics = need("cornac.metrics")
    label = f"cornac {version('cornac')}"
    n_items = 30
    for ties in (False, True):
        # cornac ranks every candidate item for each user with a positive test item
        run, truth = make_data(1301 + ties, ties=ties, full=True, n_items=n_items)
        users = [u for u in relevant(truth) if u in run]
        ev_run = {u: run[u] for u in users}
        # every test user has a ranking: users without one are not a case cornac has
        truth = {u: t for u, t in truth.items() if u in run}
        tag = " ties" if ties else ""

        def mean(metric, run=run, truth=truth, users=users) -> float:
            values = []
            rel = relevant(truth)
            for u in users:
                rank = np.array(ranked(run[u]))
                pos = np.array(rel[u])
                items = np.arange(n_items)
                scores = np.array([run[u][i] for i in items])
                values.append(metric.compute(gt_pos=pos, pd_rank=rank, pd_scores=scores,
                                             item_indices=items))
            return float(np.mean(values))

        for k in CUTS:
            for name, cls in (("ndcg", metrics.NDCG), ("precision", metrics.Precision),
                              ("recall", metrics.Recall), ("fmeasure", metrics.FMeasure),
                              ("hitratio", metrics.HitRatio)):
                key = f"{name}@{k}"
                report.add("cornac", label, key + tag,
                           ours(ev_run, truth, [key], "cornac")[key], mean(cls(k=k)))
        report.add("cornac", label, "mrr" + tag, ours(ev_run, truth, ["mrr"], "cornac")["mrr"],
                   mean(metrics.MRR()))
        report.add("cornac", label, "map" + tag, ours(ev_run, truth, ["map"], "cornac")["map"],
                   mean(metrics.MAP()), known=_CORNAC_MAP if ties else "")
