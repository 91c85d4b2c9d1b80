"""scikit-learn: the ``compat="sklearn"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, need, ours, version


@check("sklearn", "scikit-learn")
def check_sklearn(report: Report) -> None:
    sk = need("sklearn.metrics")
    label = f"scikit-learn {version('scikit-learn')}"
    rng = np.random.default_rng(501)
    y_true = rng.integers(0, 4, size=(30, 12)).astype(float)
    y_true[::6] = 0.0  # users without a relevant item score 0 and count
    y_score = rng.integers(0, 5, size=(30, 12)) / 4  # many ties
    run = {u: {i: float(y_score[u, i]) for i in range(12)} for u in range(30)}
    truth = {u: {i: int(y_true[u, i]) for i in range(12)} for u in range(30)}
    for k in (*CUTS, None):
        name = "ndcg_score" if k is None else f"ndcg_score@{k}"
        report.add("sklearn", label, name, ours(run, truth, [name], "sklearn")[name],
                   sk.ndcg_score(y_true, y_score, k=k))
        name = "dcg_score" if k is None else f"dcg_score@{k}"
        report.add("sklearn", label, name, ours(run, truth, [name], "sklearn")[name],
                   sk.dcg_score(y_true, y_score, k=k))
