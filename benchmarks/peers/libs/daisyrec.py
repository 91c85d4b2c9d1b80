"""DaisyRec: the ``compat="daisyrec"`` preset against the library itself.

Each function of ``daisy/utils/metrics.py`` the preset maps, on every user's full ranking cut
at each k of ``CUTS`` (``calc_ranking_results``), averaged over the test users.
"""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, ranked, relevant, version

_NAN = "F1 divides 0 by 0"


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
    funcs = {"map": dm.MAP, "ndcg": dm.NDCG, "precision": dm.Precision, "recall": dm.Recall,
             "mrr": dm.MRR, "hit": dm.HR, "hr": dm.HR, "f1": dm.F1, "auc": dm.AUC}

    def compare(run, truth, name: str, tag: str = "") -> None:
        gt = {u: set(relevant(truth).get(u, [])) for u in run}
        # Recall and F1 divide by the number of test items: their users have at least one
        users = [u for u in run if u in truth and (gt[u] or name not in ("recall", "f1"))]
        t = {u: truth[u] for u in users}
        for k in CUTS:
            top = {u: ranked(run[u])[:k] for u in users}
            cut = {u: {i: run[u][i] for i in top[u]} for u in users}
            pred = np.array([top[u] for u in users])
            key = f"{name}@{k}"
            report.add("daisyrec", label, key + tag, ours(cut, t, [key], "daisyrec")[key],
                       funcs[name](gt, pred, users),
                       known=_NAN if name in ("f1", "auc") else "")
        if name == "hit":  # coverage: the distinct items of every top-k list / item_num
            for k in CUTS:
                top = {u: ranked(run[u])[:k] for u in users}
                cut = {u: {i: run[u][i] for i in top[u]} for u in users}
                key = f"coverage@{k}"
                report.add("daisyrec", label, key + tag,
                           ours(cut, t, [key], "daisyrec", catalog=n_items)[key],
                           dm.Coverage(np.array([top[u] for u in users]), n_items))

    # DaisyRec ranks every candidate and cuts each list at k (calc_ranking_results): full lists
    run, truth = make_data(1401, ties=False, full=True, n_items=n_items)
    for name in funcs:
        compare(run, truth, name)
    # every user has hits and misses in each top k (k >= 3): F1 and AUC have no 0 / 0
    rng = np.random.default_rng(1402)
    run, truth = {}, {}
    for u in range(30):
        order = rng.permutation(n_items)
        run[u] = {int(i): float(n_items - r) for r, i in enumerate(order)}
        hits = [order[0], order[2]] + list(rng.choice(order[3:], size=3, replace=False))
        truth[u] = {int(i): 1 for i in hits}
    for name in ("f1", "auc"):
        compare(run, truth, name, " hits and misses")
