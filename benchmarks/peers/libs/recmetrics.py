"""recmetrics: the ``compat="recmetrics"`` preset against the library itself."""

from __future__ import annotations

import importlib
import importlib.util
import math
import os

import numpy as np
import pandas as pd
from common import CUTS, NotInstalled, Report, check, make_data, ours, ranked, version

import receval as rv


@check("recmetrics", "recmetrics")
def check_recmetrics(report: Report) -> None:
    source = os.environ.get("RECMETRICS_SRC", "/tmp/recmetrics-src")
    spec = importlib.util.find_spec("recmetrics")
    if os.path.isfile(f"{source}/recmetrics/metrics.py"):
        # the repository's metrics.py (mapk is not in the 0.1.5 release on PyPI)
        loader = importlib.util.spec_from_file_location(
            "_recmetrics_master", f"{source}/recmetrics/metrics.py")
        rm = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(rm)
        how = f", metrics.py of the repository at {source}"
    elif spec is None or not spec.submodule_search_locations:
        raise NotInstalled("import recmetrics: ModuleNotFoundError")
    else:
        rm, how = _installed(spec)
    label = f"recmetrics {version('recmetrics')}{how}"
    _drive(report, rm, label)


def _installed(spec):
    try:
        rm = importlib.import_module("recmetrics.metrics")
        how = ""
    except ImportError:
        # the package's __init__ imports its plotting module (matplotlib, plotly, seaborn);
        # metrics.py itself needs numpy, pandas, scipy and scikit-learn
        path = f"{list(spec.submodule_search_locations)[0]}/metrics.py"
        loader = importlib.util.spec_from_file_location("_recmetrics_metrics", path)
        rm = importlib.util.module_from_spec(loader)
        try:
            loader.loader.exec_module(rm)
        except ImportError as exc:
            raise NotInstalled(f"recmetrics/metrics.py: {exc}") from exc
        how = ", metrics.py loaded alone"
    return rm, how


def _drive(report: Report, rm, label: str) -> None:
    run, truth = make_data(401, ties=True)
    # users='truth', empty_truth='zero': every truth user, an empty actual list scores 0
    users = sorted(truth)
    actual = [[i for i, r in truth[u].items() if r > 0] for u in users]
    predicted = [ranked(run.get(u, {})) for u in users]
    for k in CUTS:
        got = ours(run, truth, [f"mark@{k}"], "recmetrics")[f"mark@{k}"]
        report.add("recmetrics", label, f"mark@{k}", got, rm.mark(actual, predicted, k=k))
        if hasattr(rm, "mapk"):
            for name in ("mapk", "map"):  # map: MAP@K as the README names mapk
                got = ours(run, truth, [f"{name}@{k}"], "recmetrics")[f"{name}@{k}"]
                report.add("recmetrics", label, f"{name}@{k}", got,
                           rm.mapk(actual, predicted, k=k))
    # prediction_coverage: a percentage rounded to 2 decimals; receval gives the share
    catalog = list(range(30))  # the repository's version refuses items outside it
    lists = [ranked(run[u]) for u in sorted(run)]
    for k in CUTS:
        share = rv.evaluate(run, truth, [f"prediction_coverage@{k}"], compat="recmetrics",
                            catalog=catalog, users="run")[f"prediction_coverage@{k}"]
        theirs = rm.prediction_coverage([x[:k] for x in lists], catalog)
        report.add("recmetrics", label, f"prediction_coverage@{k} (percent, 2 decimals)",
                   round(100 * share, 2), theirs)
    _beyond(report, rm, label, run, truth)
    _ratings(report, rm, label)
    _set_metrics(report, rm, label, run, truth)


def _top(run: dict, k: int | None) -> dict:
    """Each list cut at its top k (receval's tie order), scores kept; empty lists dropped."""
    out = {u: dict((i, items[i]) for i in ranked(items)[:k]) for u, items in run.items()}
    return {u: items for u, items in out.items() if items}


def _lists(run: dict) -> list[list[int]]:
    return [ranked(run[u]) for u in sorted(run)]


def _beyond(report: Report, rm, label: str, run: dict, truth: dict) -> None:
    """novelty, personalization and intra_list_similarity: the lists alone (users='run')."""
    rng = np.random.default_rng(402)
    rows = {(int(u), int(i)) for u in range(50)
            for i in rng.choice(30, size=int(rng.integers(1, 10)), replace=False)}
    rows |= {(int(i) % 50, int(i)) for i in range(30)}  # every item seen: pop[i] is defined
    train = pd.DataFrame(sorted(rows), columns=["user", "item"])
    pop = train["item"].value_counts().to_dict()  # one row per (user, item): users of i
    u = train["user"].nunique()
    feats = pd.DataFrame(rng.integers(0, 3, size=(30, 5)).astype(float), index=range(30),
                         columns=list("abcde"))

    def our(name: str, data: dict, **extra: object) -> float:
        return float(rv.evaluate(data, truth, [name], compat="recmetrics", users="run",
                                 **extra)[name])

    for k in CUTS:
        cut = [x[:k] for x in _lists(run)]
        theirs = rm.novelty(cut, pop, u, k)[0]
        for name in (f"novelty@{k}", f"novelty(n={k})"):
            report.add("recmetrics", label, name, our(name, run, train=train), theirs)
        # the preset's users (every truth user): a user without a list has an empty one
        full_truth = {**{x: {0: 1} for x in run}, 99: {0: 1}}
        listed = [ranked(run.get(x, {}))[:k] for x in sorted(full_truth)]
        got = float(rv.evaluate(run, full_truth, [f"novelty@{k}"], compat="recmetrics",
                                train=train)[f"novelty@{k}"])
        report.add("recmetrics", label, f"novelty@{k} (truth users, one without a list)",
                   got, rm.novelty(listed, pop, u, k)[0])
        # personalization: recmetrics needs lists of one length (np.array of the lists)
        equal = _top({x: items for x, items in run.items() if len(items) >= k}, k)
        report.add("recmetrics", label, f"personalization@{k} (lists of >= {k} items)",
                   our(f"personalization@{k}", equal), rm.personalization(_lists(equal)))
        # intra_list_similarity: recmetrics refuses a list of fewer than two items
        pairs = {x: items for x, items in run.items() if min(len(items), k) >= 2}
        if pairs:
            theirs = rm.intra_list_similarity([x[:k] for x in _lists(pairs)], feats)
            name = f"intra_list_similarity@{k} (lists of >= 2 items)"
        else:  # k = 1: every list has one item, no pair
            try:
                theirs = rm.intra_list_similarity(cut, feats)
            except ZeroDivisionError:
                theirs = math.nan
            pairs = run
            name = f"intra_list_similarity@{k} (one-item lists: no value, recmetrics raises)"
        report.add("recmetrics", label, name,
                   our(f"intra_list_similarity@{k}", pairs, item_features=feats), theirs)
    # without a cutoff: lists of one length m, n = m
    for m in (4, 8):
        equal = _top({x: items for x, items in run.items() if len(items) >= m}, m)
        report.add("recmetrics", label, f"novelty (lists of {m} items, n={m})",
                   our("novelty", equal, train=train), rm.novelty(_lists(equal), pop, u, m)[0])
        report.add("recmetrics", label, f"personalization (lists of {m} items)",
                   our("personalization", equal), rm.personalization(_lists(equal)))
        report.add("recmetrics", label, f"intra_list_similarity (lists of {m} items)",
                   our("intra_list_similarity", equal, item_features=feats),
                   rm.intra_list_similarity(_lists(equal), feats))
    pairs = {x: items for x, items in run.items() if len(items) >= 2}
    report.add("recmetrics", label, "intra_list_similarity (lists of >= 2 items)",
               our("intra_list_similarity", pairs, item_features=feats),
               rm.intra_list_similarity(_lists(pairs), feats))


def _ratings(report: Report, rm, label: str) -> None:
    """mse and rmse: y the truth's ratings, yhat the run's scores of the same pairs."""
    rng = np.random.default_rng(403)
    run: dict = {}
    truth: dict = {}
    y, yhat = [], []
    for u in range(25):
        items = rng.choice(30, size=int(rng.integers(1, 8)), replace=False)
        truth[u] = {int(i): int(rng.integers(0, 6)) for i in items}
        run[u] = {int(i): float(np.round(rng.uniform(0.5, 5.0), 2)) for i in items}
        for i in items:
            y.append(truth[u][int(i)])
            yhat.append(run[u][int(i)])
        run[u][int(rng.integers(30, 35))] = 2.5  # a prediction without a rating: not a pair
    run[99] = {1: 3.0}  # a user without ratings
    for name, fn in (("mse", rm.mse), ("rmse", rm.rmse)):
        report.add("recmetrics", label, name, ours(run, truth, [name], "recmetrics")[name],
                   fn(y, yhat))


def _set_metrics(report: Report, rm, label: str, run: dict, truth: dict) -> None:
    """recommender_precision and recommender_recall over the users with a list (and, for
    recall, a relevant item), each user's value rounded to 4 decimals as recmetrics does."""
    both = sorted(set(run) & set(truth))
    with_rel = [x for x in both if any(r > 0 for r in truth[x].values())]

    def rounded(name: str, data, tr, **policies: object) -> float:
        res = rv.evaluate(data, tr, [name], compat="recmetrics", users="intersection",
                          **policies)
        values = res.per_user.iloc[:, 0].dropna().to_numpy()
        return float(np.mean(np.round(values, 4)))

    def unrounded(name: str, theirs: float, **policies: object) -> None:
        got = rv.evaluate(run, truth, [name], compat="recmetrics", users="intersection",
                          **policies)[name]
        report.add("recmetrics", label, f"{name} (the mean, unrounded)", got, theirs,
                   known="recommender_precision and recommender_recall round")

    for k in (*CUTS, None):
        at = "" if k is None else f"@{k}"
        cut = {x: ranked(run[x])[:k] for x in both}
        actual = {x: [i for i, r in truth[x].items() if r > 0] for x in both}
        precision = rm.recommender_precision([cut[x] for x in both], [actual[x] for x in both])
        recall = rm.recommender_recall([cut[x] for x in with_rel], [actual[x] for x in with_rel])
        report.add("recmetrics", label,
                   f"recommender_precision{at} (each user rounded to 4 decimals)",
                   rounded(f"recommender_precision{at}", run, truth), precision)
        report.add("recmetrics", label,
                   f"recommender_recall{at} (each user rounded to 4 decimals)",
                   rounded(f"recommender_recall{at}", run, truth, empty_truth="skip"), recall)
        unrounded(f"recommender_precision{at}", precision)
        unrounded(f"recommender_recall{at}", recall, empty_truth="skip")
    # a run that repeats items: every repeat of a relevant item is a hit
    rng = np.random.default_rng(404)
    predicted = [[int(i) for i in rng.integers(0, 12, int(rng.integers(1, 10)))]
                 for _ in range(30)]
    actual_r = [[int(i) for i in rng.choice(12, int(rng.integers(1, 5)), replace=False)]
                for _ in range(30)]
    frame = pd.DataFrame([(x, i, -float(r)) for x, p in enumerate(predicted)
                          for r, i in enumerate(p)], columns=["user", "item", "score"])
    rel = pd.DataFrame([(x, i, 1) for x, a in enumerate(actual_r) for i in a],
                       columns=["user", "item", "relevance"])
    for k in (3, 5, 10, None):
        at = "" if k is None else f"@{k}"
        cut = [p[:k] for p in predicted]
        report.add("recmetrics", label, f"recommender_precision{at} (repeated items)",
                   rounded(f"recommender_precision{at}", frame, rel),
                   rm.recommender_precision(cut, actual_r))
        report.add("recmetrics", label, f"recommender_recall{at} (repeated items)",
                   rounded(f"recommender_recall{at}", frame, rel),
                   rm.recommender_recall(cut, actual_r))
