"""scikit-learn: the ``compat="sklearn"`` preset against the library itself.

``ndcg_score`` and ``dcg_score`` (k = 1, 3, 5, 10 and none; ``ignore_ties``; ``log_base``) on
graded rows with tied scores, and ``top_k_accuracy_score`` on multiclass scores; the other
functions of ``sklearn.metrics._ranking`` are refused (the driver checks their reasons).
"""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, need, ours, version

_N_ITEMS = 12


def _dicts(y_true: np.ndarray, y_score: np.ndarray) -> tuple[dict, dict]:
    run = {u: {i: float(y_score[u, i]) for i in range(y_score.shape[1])}
           for u in range(len(y_score))}
    truth = {u: {i: int(y_true[u, i]) for i in range(y_true.shape[1])}
             for u in range(len(y_true))}
    return run, truth


@check("sklearn", "scikit-learn")
def check_sklearn(report: Report) -> None:
    sk = need("sklearn.metrics")
    label = f"scikit-learn {version('scikit-learn')}"
    rng = np.random.default_rng(501)
    y_true = rng.integers(0, 4, size=(30, _N_ITEMS)).astype(float)
    y_true[::6] = 0.0  # users without a relevant item score 0 and count
    tied = rng.integers(0, 5, size=(30, _N_ITEMS)) / 4  # many ties
    distinct = np.argsort(rng.random((30, _N_ITEMS)), axis=1) / 4 + 0.25
    for scores, tag in ((tied, ""), (distinct, " distinct")):
        run, truth = _dicts(y_true, scores)
        for k in (*CUTS, None):
            at = "" if k is None else f"@{k}"
            for fn in ("ndcg_score", "dcg_score"):
                name = f"{fn}{at}"
                report.add("sklearn", label, name + tag, ours(run, truth, [name], "sklearn")[name],
                           getattr(sk, fn)(y_true, scores, k=k))
                # ignore_ties=True: np.argsort's order of tied scores (see the notes)
                name = f"{fn}{at}(ignore_ties=True)"
                report.add("sklearn", label, name + tag, ours(run, truth, [name], "sklearn")[name],
                           getattr(sk, fn)(y_true, scores, k=k, ignore_ties=True),
                           known="ignore_ties=True" if not tag else "")
            if k is not None:  # scikit-learn's own spelling of the cutoff
                for fn in ("ndcg_score", "dcg_score"):
                    name = f"{fn}(k={k})"
                    report.add("sklearn", label, name + tag,
                               ours(run, truth, [name], "sklearn")[name],
                               getattr(sk, fn)(y_true, scores, k=k))
            for base, text in ((10, "10"), (np.e, "e"), (2, "2")):
                name = f"dcg_score{at}(log_base={text})"
                report.add("sklearn", label, name + tag, ours(run, truth, [name], "sklearn")[name],
                           sk.dcg_score(y_true, scores, k=k, log_base=base))
    # top_k_accuracy_score: one true class a sample, a score per class
    labels = rng.integers(0, _N_ITEMS, size=40)
    for scores, tag in ((rng.integers(0, 5, size=(40, _N_ITEMS)) / 4, " ties"),
                        (rng.random((40, _N_ITEMS)), "")):
        run = {u: {i: float(scores[u, i]) for i in range(_N_ITEMS)} for u in range(40)}
        truth = {u: {int(labels[u]): 1} for u in range(40)}
        report.add("sklearn", label, f"top_k_accuracy_score{tag} (k=2, the default)",
                   ours(run, truth, ["top_k_accuracy_score"], "sklearn")["top_k_accuracy_score"],
                   sk.top_k_accuracy_score(labels, scores, labels=range(_N_ITEMS)),
                   known="top_k_accuracy_score: tied" if tag else "")
        for k in CUTS:
            name = f"top_k_accuracy_score@{k}"
            report.add("sklearn", label, name + tag, ours(run, truth, [name], "sklearn")[name],
                       sk.top_k_accuracy_score(labels, scores, k=k, labels=range(_N_ITEMS)),
                       known="top_k_accuracy_score: tied" if tag else "")
            # the higher class index first among ties: ties='trec_eval' (id descending, ids
            # compared as text: zero-padded class labels)
            padded = ({u: {f"{i:02d}": s for i, s in row.items()} for u, row in run.items()},
                      {u: {f"{i:02d}": r for i, r in row.items()} for u, row in truth.items()})
            report.add("sklearn", label, f"{name}{tag} ties=trec_eval",
                       ours(*padded, [name], "sklearn", ties="trec_eval")[name],
                       sk.top_k_accuracy_score(labels, scores, k=k, labels=range(_N_ITEMS)))
