"""RecTools: the ``compat="rectools"`` preset against the library itself.

Every metric class at k = 1, 3, 5, 10 with its parameters, on a reco table built from a run
with tied scores (ranks 1..n in receval's tie order), a truth with users only in the run, only
in the truth and without relevant items (the interactions are the relevant truth rows), a
training table, a catalogue, and item features missing for some items; then a reco table with
rank gaps, and one with shared ranks (rows of a user drawn at ranks 1..6 with repeats).
"""

from __future__ import annotations

import warnings

import numpy as np
from common import (
    CUTS,
    Report,
    binary,
    check,
    make_data,
    need,
    ours,
    ranked,
    relevant,
    version,
)

import receval as rv

_EMPTY = "Accuracy and CoveredUsers:"
_STRICT = "PartialAUC and PAP:"


def _hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """receval's similarity whose 1 - sim is RecTools' Hamming distance."""
    return 1.0 - np.asarray((np.asarray(a) != np.asarray(b)).sum(axis=1), dtype=float).ravel()


@check("rectools", "RecTools")
def check_rectools(report: Report) -> None:
    pd = need("pandas")
    metrics = need("rectools.metrics")
    label = f"RecTools {version('rectools')}"
    warnings.filterwarnings("ignore", module="rectools")
    run, truth = make_data(201, ties=True)
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
    catalog = list(range(32))
    # binary features of items 0..25 (items 26..29 have none)
    feats = pd.DataFrame(rng.integers(0, 2, size=(26, 4)).astype(float),
                         index=range(26), columns=list("abcd"))
    item_features = {int(i): row.to_numpy() for i, row in feats.iterrows()}
    distance = metrics.PairwiseHammingDistanceCalculator(feats)
    # the metrics on the reco table alone average its users (users='run')
    on_run = {"users": "run", "empty_truth": "zero"}

    def add(name: str, theirs: float, **policies: object) -> None:
        report.add("rectools", label, name, ours(run, truth, [name], "rectools",
                                                 **policies)[name], theirs)

    for k in CUTS:
        for name, m in {
            f"ndcg@{k}": metrics.NDCG(k=k),
            f"ndcg@{k}(divide_by_achievable=True)": metrics.NDCG(k=k, divide_by_achievable=True),
            f"ndcg@{k}(log_base=10)": metrics.NDCG(k=k, log_base=10),
            f"map@{k}": metrics.MAP(k=k),
            f"map@{k}(divide_by_k=True)": metrics.MAP(k=k, divide_by_k=True),
            f"precision@{k}": metrics.Precision(k=k),
            f"precision@{k}(r_precision=True)": metrics.Precision(k=k, r_precision=True),
            f"recall@{k}": metrics.Recall(k=k), f"hitrate@{k}": metrics.HitRate(k=k),
            f"mrr@{k}": metrics.MRR(k=k),
            f"f1beta@{k}": metrics.F1Beta(k=k),
            f"f1beta@{k}(beta=0.5)": metrics.F1Beta(k=k, beta=0.5),
            f"f1beta@{k}(beta=2)": metrics.F1Beta(k=k, beta=2.0),
            f"partialauc@{k}": metrics.PartialAUC(k=k),
            f"partialauc@{k}(insufficient_handling=exclude)":
                metrics.PartialAUC(k=k, insufficient_handling="exclude"),
            f"pap@{k}": metrics.PAP(k=k),
            f"pap@{k}(insufficient_handling=exclude)":
                metrics.PAP(k=k, insufficient_handling="exclude"),
        }.items():
            add(name, m.calc(reco, inter))
        add(f"mcc@{k}(n_items={len(catalog)})", metrics.MCC(k=k).calc(reco, inter, catalog))
        for name, theirs, extra in (
                (f"accuracy@{k}", metrics.Accuracy(k=k).calc(reco, inter, catalog),
                 {"catalog": catalog}),
                (f"coveredusers@{k}", metrics.CoveredUsers(k=k).calc(reco, inter), {})):
            # a user whose truth rows are all non-relevant has no interactions in RecTools
            report.add("rectools", label, name,
                       ours(run, truth, [name], "rectools", **extra)[name], theirs,
                       known=_EMPTY)
            report.add("rectools", label, name + " relevant rows",
                       ours(run, binary(truth), [name], "rectools", **extra)[name], theirs)
        _recommended_items(add, metrics, k, reco, inter, catalog, train, frame, distance,
                           item_features)
    # the cutoff as RecTools' own parameter k
    add("ndcg(k=5)", metrics.NDCG(k=5).calc(reco, inter))
    add("sufficientreco(k=4, deep=True)", metrics.SufficientReco(k=4, deep=True).calc(reco),
        **on_run)
    _gaps(report, label, pd, metrics)
    _shared(report, label, pd, metrics, train, frame, catalog, feats, item_features)


def _gaps(report: Report, label: str, pd, metrics) -> None:
    """A reco table with rank gaps (ranks drawn without repeats from 1..14)."""
    rng = np.random.default_rng(203)
    rows, inter = [], []
    for u in range(30):
        m = int(rng.integers(1, 7))
        ranks = np.sort(rng.choice(np.arange(1, 15), size=m, replace=False))
        items = rng.choice(25, size=m, replace=False)
        rows += [(u, int(i), int(r)) for i, r in zip(items, ranks, strict=True)]
        if u % 5:
            t = set(rng.choice(25, size=int(rng.integers(1, 5)), replace=False).tolist())
            t.add(int(items[0]))
            inter += [(u, int(i)) for i in sorted(t)]
    reco = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    interactions = pd.DataFrame(inter, columns=["user_id", "item_id"])
    run = reco.rename(columns={"user_id": "user", "item_id": "item"})
    truth = interactions.rename(columns={"user_id": "user", "item_id": "item"})
    for k in CUTS:
        pairs = {f"ndcg@{k} gaps": metrics.NDCG(k=k), f"map@{k} gaps": metrics.MAP(k=k),
                 f"precision@{k} gaps": metrics.Precision(k=k),
                 f"recall@{k} gaps": metrics.Recall(k=k),
                 f"hitrate@{k} gaps": metrics.HitRate(k=k), f"mrr@{k} gaps": metrics.MRR(k=k),
                 f"partialauc@{k} gaps": metrics.PartialAUC(k=k),
                 f"pap@{k} gaps": metrics.PAP(k=k)}
        res = rv.evaluate(run, truth, [n.split()[0] for n in pairs], compat="rectools")
        for name, m in pairs.items():
            report.add("rectools", label, name, float(res[name.split()[0]]),
                       m.calc(reco, interactions))
        deep = f"sufficientreco@{k}(deep=True)"
        report.add("rectools", label, deep + " gaps",
                   float(rv.evaluate(run, truth, [deep], compat="rectools", users="run",
                                     empty_truth="zero")[deep]),
                   metrics.SufficientReco(k=k, deep=True).calc(reco))


def _shared(report: Report, label: str, pd, metrics, train, frame, catalog: list[int],
            feats, item_features: dict) -> None:
    """A reco table with shared ranks: each user's rows at ranks drawn with repeats from 1..6
    (RecTools reads every row with rank <= k as in the top k)."""
    rng = np.random.default_rng(204)
    rows, inter = [], []
    for u in range(40):
        m = int(rng.integers(1, 9))
        items = rng.choice(30, size=m, replace=False)
        rows += [(u, int(i), int(r)) for i, r in zip(items, rng.integers(1, 7, size=m),
                                                     strict=True)]
        if u % 6:
            t = set(rng.choice(30, size=int(rng.integers(1, 6)), replace=False).tolist())
            t.add(int(items[-1]))
            inter += [(u, int(i)) for i in sorted(t)]
    reco = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    interactions = pd.DataFrame(inter, columns=["user_id", "item_id"])
    run = reco.rename(columns={"user_id": "user", "item_id": "item"})
    truth = interactions.rename(columns={"user_id": "user", "item_id": "item"})
    distance = metrics.PairwiseHammingDistanceCalculator(feats)

    def add(name: str, theirs: float, known: str = "", **policies: object) -> None:
        try:
            value = float(rv.evaluate(run, truth, [name], compat="rectools", **policies)[name])
        except rv.InputError:  # refused (the metrics that need a strict order of the rows)
            value = float("nan")
        report.add("rectools", label, name + " shared", value, theirs, known=known)

    for k in CUTS:
        for name, m in {
            f"ndcg@{k}": metrics.NDCG(k=k),
            f"ndcg@{k}(divide_by_achievable=True)": metrics.NDCG(k=k, divide_by_achievable=True),
            f"ndcg@{k}(log_base=10)": metrics.NDCG(k=k, log_base=10),
            f"map@{k}": metrics.MAP(k=k),
            f"map@{k}(divide_by_k=True)": metrics.MAP(k=k, divide_by_k=True),
            f"precision@{k}": metrics.Precision(k=k),
            f"precision@{k}(r_precision=True)": metrics.Precision(k=k, r_precision=True),
            f"recall@{k}": metrics.Recall(k=k), f"hitrate@{k}": metrics.HitRate(k=k),
            f"mrr@{k}": metrics.MRR(k=k), f"f1beta@{k}(beta=2)": metrics.F1Beta(k=k, beta=2.0),
        }.items():
            add(name, m.calc(reco, interactions))
        for name, m in {f"partialauc@{k}": metrics.PartialAUC(k=k),
                        f"pap@{k}": metrics.PAP(k=k)}.items():
            add(name, m.calc(reco, interactions), known=_STRICT)
        add(f"mcc@{k}(n_items={len(catalog)})", metrics.MCC(k=k).calc(reco, interactions,
                                                                        catalog))
        add(f"accuracy@{k}", metrics.Accuracy(k=k).calc(reco, interactions, catalog),
            catalog=catalog)
        add(f"coveredusers@{k}", metrics.CoveredUsers(k=k).calc(reco, interactions))
        _recommended_items(add, metrics, k, reco, interactions, catalog, train, frame,
                           distance, item_features)


def _recommended_items(add, metrics, k: int, reco, inter, catalog, train, frame, distance,
                       item_features) -> None:
    """RecTools' metrics on the recommended items at k (coverage, popularity, novelty,
    serendipity, diversity, sufficiency), added through ``add``; the reco-table metrics
    average its users (users='run')."""
    on_run = {"users": "run", "empty_truth": "zero"}
    for normalize in (False, True):
        add(f"catalogcoverage@{k}(normalize={normalize})",
            metrics.CatalogCoverage(k=k, normalize=normalize).calc(reco, catalog),
            catalog=catalog, users="run", empty_truth="zero")
        add(f"avgrecpopularity@{k}(normalize={normalize})",
            metrics.AvgRecPopularity(k=k, normalize=normalize).calc(reco, train),
            train=frame, **on_run)
    for deep in (False, True):
        add(f"sufficientreco@{k}(deep={deep})",
            metrics.SufficientReco(k=k, deep=deep).calc(reco), **on_run)
    add(f"meaninvuserfreq@{k}", metrics.MeanInvUserFreq(k=k).calc(reco, train),
        train=frame, **on_run)
    add(f"serendipity@{k}", metrics.Serendipity(k=k).calc(reco, inter, train, catalog),
        train=frame, catalog=catalog, **on_run)
    add(f"intralistdiversity@{k}(sim=custom)",
        metrics.IntraListDiversity(k=k, distance_calculator=distance).calc(reco),
        item_features=item_features, similarity=_hamming, **on_run)
