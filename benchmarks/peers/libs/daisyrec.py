"""DaisyRec: the ``compat="daisyrec"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, relevant, version


@check("daisyrec", "DaisyRec")
def check_daisyrec(report: Report) -> None:
    dm = need("daisy.utils.metrics")
    label = f"daisyRec {version('daisyrec')}"
    # daisy/utils/metrics.py calls np.in1d and np.asfarray, which numpy 2.x removed: give the
    # module the functions they were (1-D isin; asarray as float)
    shims = {"in1d": lambda a, b: np.isin(np.ravel(a), b),
             "asfarray": lambda a: np.asarray(a, dtype=np.float64)}
    for alias, fn in shims.items():
        if alias not in np.__dict__:
            setattr(dm.np, alias, fn)
            report.info.append(f"daisyrec: np.{alias} restored for daisy/utils/metrics.py")
    n_items = 30
    # DaisyRec ranks every candidate and cuts each list at k (calc_ranking_results): full lists
    run, truth = make_data(1401, ties=True, full=True, n_items=n_items)
    funcs = {"map": dm.MAP, "ndcg": dm.NDCG, "precision": dm.Precision, "recall": dm.Recall,
             "mrr": dm.MRR, "hit": dm.HR}
    gt = {u: set(relevant(truth).get(u, [])) for u in run}
    for name, fn in funcs.items():
        # Recall divides by the number of test items: its users have at least one
        users = [u for u in run if u in truth and (gt[u] or name != "recall")]
        t = {u: truth[u] for u in users}
        for k in CUTS:
            top = {u: ranked(run[u])[:k] for u in users}
            cut = {u: {i: run[u][i] for i in top[u]} for u in users}
            pred = np.array([top[u] for u in users])
            key = f"{name}@{k}"
            report.add("daisyrec", label, key, ours(cut, t, [key], "daisyrec")[key],
                       fn(gt, pred, users))
