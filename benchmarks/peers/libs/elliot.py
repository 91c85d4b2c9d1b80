"""Elliot: the ``compat="elliot"`` preset against the library itself.

Elliot is not on PyPI; its metric classes load from a source tree (``ELLIOT_SRC``, default
/tmp/elliot-src, a checkout of sisinflab/elliot). ``elliot.evaluation.metrics`` and
``elliot.evaluation.relevance`` import with numpy and pandas alone (no TensorFlow), so nothing
is stubbed. Each class gets Elliot's own inputs as its Evaluator builds them
(elliot/evaluation/evaluator.py): ``recommendations`` {user: [(item, score), ...]} kept for the
users with test rows, ``eval_objects`` a namespace with ``relevance`` (Relevance(test,
relevance_threshold)), ``cutoff`` and ``num_items``. Lists are in receval's tie order.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from common import CUTS, NotInstalled, Report, check, make_data, ours, ranked

_SRC = os.environ.get("ELLIOT_SRC", "/tmp/elliot-src")


def _load():
    if not os.path.isdir(os.path.join(_SRC, "elliot", "evaluation", "metrics")):
        raise NotInstalled(f"no Elliot source tree at {_SRC} (set ELLIOT_SRC); Elliot is not "
                           "on PyPI")
    sys.path.insert(0, _SRC)
    try:
        import elliot.evaluation.metrics as metrics
        import elliot.evaluation.relevance.relevance as relevance
    except Exception as exc:  # noqa: BLE001
        raise NotInstalled(f"import elliot from {_SRC}: {type(exc).__name__}: {exc}") from exc
    return metrics, relevance


@check("elliot", "Elliot")
def check_elliot(report: Report) -> None:
    metrics, relevance = _load()
    label = f"Elliot {metrics.__version__}"
    run, truth = make_data(301, ties=True)
    # the Evaluator keeps the recommendations of users with test rows
    recs = {u: [(i, run[u][i]) for i in ranked(items)]
            for u, items in run.items() if truth.get(u)}
    classes = {
        "ndcg": metrics.nDCG, "ndcgrendle2020": metrics.nDCGRendle2020,
        "precision": metrics.Precision, "recall": metrics.Recall, "hr": metrics.HR,
        "mrr": metrics.MRR, "mar": metrics.MAR, "f1": metrics.F1,
        "itemcoverage": metrics.ItemCoverage, "sentropy": metrics.ShannonEntropy,
        "numretrieved": metrics.NumRetrieved,
    }
    for t in (1, 2):
        rel = relevance.Relevance(truth, t)
        for k in CUTS:
            objs = SimpleNamespace(relevance=rel, cutoff=k, num_items=30)
            for name, cls in classes.items():
                if t != 1 and name in ("ndcg", "ndcgrendle2020", "itemcoverage", "sentropy",
                                       "numretrieved"):
                    continue  # nDCG: threshold 1 only; the coverages read no relevance
                theirs = cls(recs, None, None, objs).eval()
                key = f"{name}@{k}" if t == 1 else f"{name}@{k}(relevance_threshold={t})"
                report.add("elliot", label, key, ours(run, truth, [key], "elliot")[key],
                           theirs, known="SEntropy weights" if name == "sentropy" else "")
            dsc = metrics.DSC(recs, None, None, objs, {"beta": 2}).eval()
            key = f"dsc@{k}(beta=2)" if t == 1 else f"dsc@{k}(beta=2,relevance_threshold={t})"
            report.add("elliot", label, key, ours(run, truth, [key], "elliot")[key], dsc)
