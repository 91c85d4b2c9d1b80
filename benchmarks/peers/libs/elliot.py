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
    _check_fairness(report, metrics, relevance, label, run, truth, recs)


def _elliot_data(train: dict) -> SimpleNamespace:
    """Elliot's dataset as its metrics read it (dataset/dataset.py): ``train_dict``,
    ``transactions`` (the distinct training pairs), ``private_items`` (here in ascending id
    order, so that items of equal popularity enter the short head in the order receval uses)
    and the user x item training matrix ``sp_i_train``."""
    import scipy.sparse as sp

    items = sorted({i for row in train.values() for i in row})
    users = sorted(train, key=str)
    col = {i: p for p, i in enumerate(items)}
    rows = [(r, col[i]) for r, u in enumerate(users) for i in train[u]]
    mat = sp.csr_matrix(([1.0] * len(rows), ([r for r, _ in rows], [c for _, c in rows])),
                        shape=(len(users), len(items)))
    return SimpleNamespace(train_dict=train, transactions=len(rows), sp_i_train=mat,
                           private_items=dict(enumerate(items)))


def _check_fairness(report: Report, metrics, relevance, label: str, run, truth, recs) -> None:
    """REO, RSP, PopREO, PopRSP (and their Extended forms), ItemMAD* and BiasDisparity*: item
    groups from a clustering file (item -> 0..2), training rows that overlap the test items."""
    import tempfile

    import numpy as np
    import pandas as pd
    from elliot.evaluation.popularity_utils.popularity import Popularity

    import receval as rv
    import receval.beyond.groupfair  # noqa: F401 - registers the families
    from receval.results.fairness import user_mad

    rng = np.random.default_rng(302)
    train = {u: {int(i): 1 for i in rng.choice(30, int(rng.integers(1, 7)), replace=False)}
             for u in list(run) + [1001, 1002]}
    train_rows = pd.DataFrame([(u, i) for u, row in train.items() for i in row],
                              columns=["user", "item"])
    clusters = {i: int(rng.integers(0, 3)) for i in range(30)}
    groups = {i: str(c) for i, c in clusters.items()}
    data = _elliot_data(train)
    given = {"item_groups": groups, "train": train_rows}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "items.tsv")
        pd.DataFrame(sorted(clusters.items())).to_csv(path, sep="\t", header=False,
                                                      index=False)
        extra = {"clustering_file": path, "clustering_name": "g"}
        bd_extra = {"item_clustering_file": path, "item_clustering_name": "g"}
        for t in (1, 2):
            rel = relevance.Relevance(truth, t)
            opt = "" if t == 1 else f"(relevance_threshold={t})"
            for k in CUTS:
                objs = SimpleNamespace(relevance=rel, cutoff=k, num_items=30, data=data,
                                       pop=Popularity(data))
                lines = {
                    f"reo@{k}{opt}": metrics.REO(recs, None, None, objs, extra).get()[-1].eval(),
                    f"popreo@{k}{opt}": metrics.PopREO(recs, None, None, objs).eval(),
                    f"itemmadranking@{k}{opt}":
                        metrics.ItemMADranking(recs, None, None, objs, extra).eval(),
                    f"itemmadrating@{k}{opt}":
                        metrics.ItemMADrating(recs, None, None, objs, extra).eval(),
                }
                for ratio in (0.5, 0.9):
                    key = (f"extendedpopreo@{k}(pop_ratio={ratio})" if t == 1 else
                           f"extendedpopreo@{k}(pop_ratio={ratio},relevance_threshold={t})")
                    lines[key] = metrics.ExtendedPopREO(recs, None, None, objs,
                                                        {"pop_ratio": ratio}).eval()
                if t == 1:
                    # items of equal popularity in the reverse of receval's order (as Elliot's
                    # set iteration may give them): the documented difference at the head's end
                    rdata = SimpleNamespace(**{**vars(data), "private_items": dict(
                        enumerate(sorted(data.private_items.values(), reverse=True)))})
                    robjs = SimpleNamespace(**{**vars(objs), "data": rdata,
                                               "pop": Popularity(rdata)})
                    for key, theirs in (
                            (f"popreo@{k}", metrics.PopREO(recs, None, None, robjs)),
                            (f"poprsp@{k}", metrics.PopRSP(recs, None, None, robjs)),
                            (f"extendedpopreo@{k}(pop_ratio=0.5)", metrics.ExtendedPopREO(
                                recs, None, None, robjs, {"pop_ratio": 0.5})),
                            (f"extendedpoprsp@{k}(pop_ratio=0.5)", metrics.ExtendedPopRSP(
                                recs, None, None, robjs, {"pop_ratio": 0.5}))):
                        report.add("elliot", label + " (ties reversed)", f"{key} ties-reversed",
                                   ours(run, truth, [key], "elliot", **given)[key],
                                   theirs.eval(), known="PopREO and PopRSP ties")
                    lines[f"rsp@{k}"] = metrics.RSP(recs, None, None, objs, extra).get()[-1].eval()
                    lines[f"poprsp@{k}"] = metrics.PopRSP(recs, None, None, objs).eval()
                    lines[f"extendedpoprsp@{k}(pop_ratio=0.5)"] = metrics.ExtendedPopRSP(
                        recs, None, None, objs, {"pop_ratio": 0.5}).eval()
                    for name, cls in (("br", metrics.BiasDisparityBR),
                                      ("bs", metrics.BiasDisparityBS),
                                      ("bd", metrics.BiasDisparityBD)):
                        values = [m.eval() for m in cls(recs, None, None, objs, bd_extra).get()]
                        for c in range(3):
                            lines[f"biasdisparity{name}@{k}(group={c})"] = values[c]
                for key, theirs in lines.items():
                    report.add("elliot", label, key, ours(run, truth, [key], "elliot",
                                                          **given)[key], theirs,
                               known="PopREO and PopRSP ties" if "pop" in key else "")
                if t != 1:  # Elliot's nDCG: relevance_threshold 1 only in the preset
                    continue
                # UserMADranking (refused as a key): receval.results.fairness.user_mad of
                # nDCG evaluated with groups=, against Elliot's class with a user clustering
                upath = os.path.join(tmp, "users.tsv")
                ugroups = {u: int(rng2) for u, rng2 in zip(
                    sorted(run, key=str), np.random.default_rng(303).integers(0, 3, len(run)),
                    strict=True)}
                pd.DataFrame(sorted(ugroups.items(), key=lambda x: str(x[0]))).to_csv(
                    upath, sep="\t", header=False, index=False)
                theirs = metrics.UserMADranking(recs, None, None, objs,
                                                {"clustering_file": upath}).eval()
                key = f"ndcg@{k}"
                res = rv.evaluate(run, truth, [key], compat="elliot",
                                  groups={u: str(g) for u, g in ugroups.items()})
                # labelled as receval's measure: the preset refuses the name itself
                report.add("elliot", label, f"user_mad({key})@{k} of groups= as "
                           "UserMADranking", user_mad(res, key), theirs)
