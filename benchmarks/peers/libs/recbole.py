"""RecBole: the ``compat="recbole"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, relevant, version

_RECBOLE_TIE_TAIL = "TailPercentage(tail_ratio"


@check("recbole", "RecBole")
def check_recbole(report: Report) -> None:
    torch = need("torch")
    need("recbole.evaluator.metrics")
    collector_mod = need("recbole.evaluator.collector")
    evaluator_mod = need("recbole.evaluator.evaluator")
    pd = need("pandas")
    from collections import Counter

    label = f"RecBole {version('recbole')} (torch {torch.__version__})"
    # RecBole 1.2.1's metrics.py uses np.float and np.bool, removed in numpy 1.24/2.0: restore
    # them as the builtins they were aliases of
    for alias, builtin in (("float", float), ("bool", bool), ("int", int)):
        if alias not in np.__dict__:
            setattr(np, alias, builtin)
            report.info.append(f"recbole: np.{alias} restored as {builtin.__name__} (RecBole "
                               "1.2.1 uses the alias numpy removed)")
    n_items = 30
    # full ranking, distinct scores (torch.topk leaves tied scores' order unspecified)
    run, truth = make_data(801, ties=False, full=True, n_items=n_items)
    users = [u for u in run if u in relevant(truth)]  # RecBole's test users have positives
    run = {u: run[u] for u in users}
    truth = {u: t for u, t in truth.items() if u in users or not any(t.values())}
    rng = np.random.default_rng(802)
    counts = dict(zip(range(n_items), rng.permutation(n_items) + 1, strict=True))
    del counts[3]  # an item never seen in training
    train = pd.DataFrame([(f"t{j}", i) for i, c in counts.items() for j in range(c)],
                         columns=["user", "item"])

    def evaluate(names: list[str], **extra) -> dict[str, float]:
        config = {"metrics": names, "topk": list(CUTS), "metric_decimal_place": 15,
                  "eval_args": {"mode": "full"}, "device": torch.device("cpu"),
                  "tail_ratio": 0.1, **extra}
        # the trainer's path: the collector turns the score matrix into rec.topk / rec.items /
        # rec.meanrank; internal item ids are 1..n (0 is the padding id, scored -inf)
        collector = collector_mod.Collector(config)
        scores = torch.full((len(users), n_items + 1), -np.inf, dtype=torch.float64)
        pos_u, pos_i = [], []
        for row, u in enumerate(users):
            for i, s in run[u].items():
                scores[row, i + 1] = s
            for i in relevant(truth)[u]:
                pos_u.append(row)
                pos_i.append(i + 1)
        collector.eval_batch_collect(scores, None, torch.tensor(pos_u), torch.tensor(pos_i))
        data = collector.get_data_struct()
        # what Collector.data_collect reads from the training dataset: the item count with
        # the padding id, and the training interactions per item
        data.set("data.num_items", n_items + 1)
        data.set("data.count_items", Counter({i + 1: int(c) for i, c in counts.items()}))
        return evaluator_mod.Evaluator(config).evaluate(data)

    topk_names = ["hit", "mrr", "map", "recall", "ndcg", "precision"]
    theirs = evaluate(topk_names)
    for name in topk_names:
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "recbole")
        for key in keys:
            report.add("recbole", label, key, got[key], theirs[key])
    items_names = ["itemcoverage", "averagepopularity", "shannonentropy", "giniindex",
                   "tailpercentage"]
    theirs = evaluate(items_names)
    for name in items_names:
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "recbole", train=train, catalog=n_items + 1)
        for key in keys:
            report.add("recbole", label, key, got[key], theirs[key],
                       known=_RECBOLE_TIE_TAIL if name == "tailpercentage" else "")
    theirs = evaluate(["tailpercentage"], tail_ratio=4)
    for k in CUTS:
        key = f"tailpercentage@{k}(tail_max=4)"
        report.add("recbole", label, key + " tail_ratio=4",
                   ours(run, truth, [key], "recbole", train=train)[key],
                   theirs[f"tailpercentage@{k}"])
    # GAUC from the average ranks of tied scores: a run with ties
    run, truth = make_data(803, ties=True, full=True, n_items=n_items)
    users = [u for u in run if u in relevant(truth)]
    run = {u: run[u] for u in users}
    truth = {u: t for u, t in truth.items() if u in users}
    theirs = evaluate(["gauc"])
    report.add("recbole", label, "gauc ties", ours(run, truth, ["gauc"], "recbole")["gauc"],
               theirs["gauc"])


@check("recbole", "RecBole AUC")
def check_recbole_auc(report: Report) -> None:
    """RecBole's AUC (value-based evaluation): one ROC area over every labelled (user, item)
    pair pooled, from ``AUC.metric_info(preds, trues)`` on the same pairs."""
    torch = need("torch")
    metrics = need("recbole.evaluator.metrics")
    label = f"RecBole {version('recbole')} (torch {torch.__version__})"
    rng = np.random.default_rng(803)
    run, truth = {}, {}
    for u in range(30):
        items = rng.choice(40, size=8, replace=False)
        run[u] = {int(i): float(s) for i, s in
                  zip(items, rng.integers(1, 9, size=8) / 8, strict=True)}  # tied scores
        truth[u] = {int(i): int(rng.integers(0, 2)) for i in items}  # every pair labelled
    preds = np.array([run[u][i] for u in run for i in run[u]])
    trues = np.array([truth[u][i] for u in run for i in run[u]])
    theirs = metrics.AUC({"metric_decimal_place": 12}).metric_info(preds, trues)
    report.add("recbole", label, "auc", ours(run, truth, ["auc"], "recbole")["auc"], theirs,
               tol=1e-12)
    # value-based rating and CTR metrics over the same pairs: ratings 1..5 predicted in
    # [0.5, 5.5], then labels 0/1 with probabilities (metric_info of each class)
    ratings = {u: {i: int(rng.integers(1, 6)) for i in run[u]} for u in run}
    rated = {u: {i: float(np.round(rng.uniform(0.5, 5.5), 3)) for i in run[u]} for u in run}
    r_true = np.array([ratings[u][i] for u in run for i in run[u]], dtype=float)
    r_pred = np.array([rated[u][i] for u in run for i in run[u]])
    for name, cls in (("rmse", metrics.RMSE), ("mae", metrics.MAE)):
        report.add("recbole", label, name, ours(rated, ratings, [name], "recbole")[name],
                   cls({"metric_decimal_place": 12}).metric_info(r_pred, r_true), tol=1e-12)
    probs = {u: {i: float(np.clip(s / 1.0, 0.0, 1.0)) for i, s in run[u].items()} for u in run}
    probs[0][next(iter(probs[0]))] = 1.0  # a certain prediction: clipped by eps
    p_pred = np.array([probs[u][i] for u in run for i in run[u]])
    report.add("recbole", label, "logloss",
               ours(probs, truth, ["logloss"], "recbole")["logloss"],
               metrics.LogLoss({"metric_decimal_place": 12}).metric_info(p_pred, trues),
               tol=1e-12)
